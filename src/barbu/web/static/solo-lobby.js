// The lobby of the static build (barbu static): a solo game's setup (the last one's at first), kept for
// the table page (/play/, solo.js), the way back to a game kept in this browser (which one it is, and a
// question before a new game replaces it), the finished games kept there ("Your games", each record to
// download or delete), and what needs a server.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "onclick") e.addEventListener("click", v);
      else if (v !== null && v !== undefined) e.setAttribute(k, v);
    }
    for (const c of kids.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
    return e;
  }

  function ruleset() { return document.querySelector("input[name=ruleset]:checked").value; }
  function players() { return ruleset() === "classic" ? 4 : Number($("solo-players").value); }

  // The game's length: the whole game (7 rounds each) or whole turns round the table.
  function renderRounds() {
    const n = players();
    const sel = $("solo-rounds");
    const before = sel.selectedIndex;
    sel.replaceChildren(...[7, 1, 2, 3].map((k) => {
      const opt = document.createElement("option");
      opt.value = k === 7 ? "0" : String(k * n);
      opt.textContent = k === 7 ? t("lobby.rounds-whole", { n: 7 * n }) : t("lobby.rounds-each", { n: k, rounds: k * n });
      return opt;
    }));
    sel.selectedIndex = Math.max(0, before);
    $("solo-players-label").hidden = ruleset() === "classic";
  }

  // The form as the last game was set up (barbu.solo.setup): rules, players, length and level; the
  // name is the one last typed (barbu.name, the server's lobby's too).
  function prefill() {
    const setup = Solo.setup();
    if (!setup) return;
    const rules = document.querySelector(`input[name=ruleset][value="${setup.ruleset === "family" ? "family" : "classic"}"]`);
    rules.checked = true;
    const choose = (sel, value) => {
      const i = [...sel.options].findIndex((o) => o.value === String(value));
      if (i >= 0) sel.selectedIndex = i;
    };
    choose($("solo-players"), setup.players);
    if (Array.isArray(setup.levels)) choose($("solo-level"), setup.levels[0]);
    renderRounds();
    choose($("solo-rounds"), setup.rounds);
  }

  // The name last typed; not the word "You" the lobby once put there when no name was typed.
  function lastName() {
    try {
      const name = JSON.parse(localStorage.getItem("barbu.name") || "null");
      return typeof name === "string" && name !== t("solo.you") ? name : "";
    } catch (e) { return ""; }
  }

  // Which game is kept: "Family, 4 players, hand 3 of 4" (the hand its table last showed; a game kept
  // before the hand was noted says its moves so far).
  function which(kept) {
    const rules = kept.ruleset === "family" ? t("table.family", { n: kept.players }) : t("table.classic");
    const where = kept.where;
    if (where && where.over) return t("solo.kept.over", { rules });
    if (where) return t("solo.kept.hand", { rules, hand: Math.min(where.hand + 1, where.hands), hands: where.hands });
    return t("solo.kept.moves", { rules, n: Array.isArray(kept.actions) ? kept.actions.length : 0 });
  }

  // A game in progress is not thrown away unasked: the page asks first ("Keep my game" has the focus;
  // Escape keeps it too); a game that is over is among "Your games" already.
  function start(ev) {
    ev.preventDefault();
    const kept = Solo.kept();
    if (!kept || (kept.where && kept.where.over)) {
      begin();
      return;
    }
    $("solo-replace-said").textContent = t("solo.replace.ask", { game: which(kept) });
    $("solo-replace").showModal();
  }

  function begin() {
    const n = players();
    const typed = $("solo-name").value.trim();
    const name = typed || t("solo.player");
    try {
      if (typed) localStorage.setItem("barbu.name", JSON.stringify(typed));
      else localStorage.removeItem("barbu.name");
    } catch (e) { /* private mode */ }
    const seed = new URLSearchParams(location.search).get("seed"); // "/?seed=7": the same deals again
    Solo.start({
      ruleset: ruleset(), players: n, rounds: Number($("solo-rounds").value), name,
      levels: Array(n - 1).fill($("solo-level").value),
      seed: seed !== null && /^\d{1,15}$/.test(seed) ? Number(seed) : Math.floor(Math.random() * 2 ** 48),
    });
    // The table page: the static build's folder "/play/", the server's "/play".
    location.href = `${location.pathname === "/" ? "/play/" : "/play"}${location.search}`;
  }

  // -- "Your games": the finished games kept in this browser (solo.js), newest first ------------------

  // "2nd · −35": the person's place as the table's end dialog says it (gameend.js), and their total.
  function result(game) {
    const mine = GameEnd.places(game.totals, game.places).find((r) => r.seat === game.you);
    const total = I18N.points(mine.total, game.ruleset === "classic");
    return t("solo.games.result", { place: GameEnd.placeText(mine), total });
  }

  function gameRow(game, i) {
    const id = `solo-game-${i}`;
    const rules = game.ruleset === "classic" ? t("table.classic") : t("table.family", { n: game.players });
    const when = new Date(game.ended * 1000);
    const tools = h("div", { class: "solo-game-tools" });
    const li = h("li", { class: "solo-game" },
      h("div", { class: "solo-game-facts" },
        h("h3", { id }, h("time", { datetime: when.toISOString() }, I18N.date(game.ended, { year: true, time: true }))),
        h("p", {}, `${rules} · `, h("strong", {}, result(game)))),
      tools);
    const buttons = () => [
      h("button", { type: "button", class: "solo-game-download", "aria-describedby": id, onclick: () => Solo.exported(game) },
        t("solo.games.download")),
      h("button", { type: "button", class: "solo-game-delete", "aria-describedby": id, onclick: () => ask() },
        t("solo.games.delete"))];
    // Deleting asks first, in the row itself; "Keep it" puts the buttons back.
    function ask() {
      li.classList.add("asking");
      tools.replaceChildren(h("div", { class: "solo-game-ask", role: "group", "aria-labelledby": `${id}-ask` },
        h("p", { id: `${id}-ask` }, t("solo.games.delete-ask")),
        h("button", { type: "button", class: "danger solo-game-yes", onclick: () => forget(game, i) }, t("solo.games.delete-yes")),
        h("button", { type: "button", class: "solo-game-keep", onclick: keep }, t("solo.games.delete-keep"))));
      tools.querySelector(".solo-game-keep").focus();
    }
    function keep() {
      li.classList.remove("asking");
      tools.replaceChildren(...buttons());
      tools.querySelector(".solo-game-delete").focus();
    }
    tools.append(...buttons());
    return li;
  }

  function renderGames() {
    const games = Solo.games();
    $("solo-games").hidden = !games.length;
    $("solo-games-help").textContent = t("solo.games.help", { n: Solo.MOST });
    $("solo-games-full").hidden = !Solo.crowded();
    $("solo-games-list").replaceChildren(...games.map(gameRow));
    return games;
  }

  // The focus goes to the row that took the deleted one's place, else to the new game's button.
  function forget(game, i) {
    Solo.forget(game);
    const games = renderGames();
    $("solo-games-said").textContent = t("solo.games.deleted");
    const rows = document.querySelectorAll("#solo-games-list .solo-game-download");
    (rows[Math.min(i, games.length - 1)] || document.querySelector("#solo-form button[type=submit]")).focus();
  }

  async function main() {
    try { await I18N.load(); } catch (e) { console.error(e); }
    $("lang-slot").append(I18N.switcher());
    $("solo-name").value = lastName();
    const kept = Solo.kept();
    $("solo-resume-line").hidden = !kept;
    if (kept) $("solo-resume-which").textContent = which(kept);
    for (const el of document.querySelectorAll("input[name=ruleset]")) el.addEventListener("change", renderRounds);
    $("solo-players").addEventListener("change", renderRounds);
    renderRounds();
    try { prefill(); } catch (e) { console.error(e); } // a setup it cannot read leaves the form as it is
    $("solo-form").addEventListener("submit", start);
    $("solo-replace-keep").addEventListener("click", () => $("solo-replace").close());
    $("solo-replace-yes").addEventListener("click", begin);
    try { renderGames(); } catch (e) { console.error(e); } // a list it cannot draw must not stop a new game
    try {
      const config = await (await fetch("/solo.json", { cache: "no-cache" })).json();
      if (config.server) {
        $("solo-server").href = config.server;
        $("solo-server-line").hidden = false;
      }
    } catch (e) { /* offline and not kept: no link */ }
  }

  main();
})();
