// The lobby of the static build (barbu static): a solo game's setup, kept for the table page (/play/,
// solo.js), the way back to a game kept in this browser, and what needs a server.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

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

  function start(ev) {
    ev.preventDefault();
    const n = players();
    const name = $("solo-name").value.trim() || t("solo.you");
    try { localStorage.setItem("barbu.name", JSON.stringify(name)); } catch (e) { /* private mode */ }
    const seed = new URLSearchParams(location.search).get("seed"); // "/?seed=7": the same deals again
    Solo.start({
      ruleset: ruleset(), players: n, rounds: Number($("solo-rounds").value), name,
      levels: Array(n - 1).fill($("solo-level").value),
      seed: seed !== null && /^\d{1,15}$/.test(seed) ? Number(seed) : Math.floor(Math.random() * 2 ** 48),
    });
    // The table page: the static build's folder "/play/", the server's "/play".
    location.href = `${location.pathname === "/" ? "/play/" : "/play"}${location.search}`;
  }

  async function main() {
    try { await I18N.load(); } catch (e) { console.error(e); }
    $("lang-slot").append(I18N.switcher());
    try { $("solo-name").value = JSON.parse(localStorage.getItem("barbu.name") || "null") || ""; } catch (e) { /* none */ }
    const kept = Solo.kept();
    $("solo-resume-line").hidden = !kept;
    for (const el of document.querySelectorAll("input[name=ruleset]")) el.addEventListener("change", renderRounds);
    $("solo-players").addEventListener("change", renderRounds);
    renderRounds();
    $("solo-form").addEventListener("submit", start);
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
