// Tables at your own pace on the pages: the choice when creating a table, the table's deadline and its
// switch to live and back, the next table waiting after a move, and the profile's choices.
"use strict";

const OwnPace = (() => {
  const HOURS = [1, 12, 24, 72];
  let wasMine = false; // it was this reader's move at the last state: a move made since offers the next table
  let nextSlot = null; // where the next table waiting is offered: one node, kept across the bar's redrawings

  // -- the create form ---------------------------------------------------------------------------

  function createChoice() {
    const box = $("own-pace-box");
    if (box.querySelector("select")) return;
    const mode = (value, key) => h("label", {}, h("input", { type: "radio", name: "own-mode", value,
      ...(value === "live" ? { checked: "" } : {}) }), " ", h("span", {}, t(key)));
    const hours = h("select", { id: "own-hours", "aria-describedby": "own-help" },
      HOURS.map((n) => h("option", { value: String(n), ...(n === 24 ? { selected: "" } : {}) }, t("own.hours-n", { n }))));
    const help = h("p", { class: "help", id: "own-help" });
    const hoursLabel = h("label", { id: "own-hours-label" }, h("span", {}, t("own.hours")), " ", hours);
    const explain = () => {
      const own = chosen();
      hoursLabel.hidden = !own;
      help.textContent = own ? t("own.mode-line", { n: own }) : "";
      $("clock-box").hidden = Boolean(own); // a deadline of hours, not a turn clock of seconds
    };
    fill(box, h("legend", {}, t("own.mode")), mode("live", "own.live-mode"), mode("own", "own.own-mode"), hoursLabel, help);
    for (const el of box.querySelectorAll("input, select")) el.addEventListener("change", explain);
    explain();
  }

  // The hours a move may take at the table being created (null: a live table).
  function chosen() {
    const own = document.querySelector("input[name=own-mode]:checked");
    return own && own.value === "own" ? Number($("own-hours").value) : null;
  }

  // -- at the table ------------------------------------------------------------------------------

  function render(T, send) {
    const bar = $("own-pace-bar");
    const p = T.meta && T.meta.own_pace;
    bar.hidden = !p;
    if (!p) return;
    const parts = [h("span", { class: "own-mode" }, p.live ? t("own.bar-live", { n: p.hours }) : t("own.bar", { n: p.hours }))];
    const cur = T.view ? T.view.current : -1;
    if (p.due && cur >= 0) {
      parts.push(h("span", { class: "time-left", id: "own-left" }, t("own.deadline", { name: T.meta.seats[cur].name,
        when: I18N.date(p.due, { time: true }), left: YourMove.left(p.due) })));
    }
    if (T.you !== null && !T.meta.over) parts.push(switchButton(T, p, send));
    const told = T.you !== null && !T.meta.over && !p.live ? Notify.tableSwitch(T.id) : null;
    if (told) parts.push(told);
    const mine = T.you !== null && cur === T.you;
    // The bar's facts are drawn anew at every state (the computers play on after our move); the offer
    // of the next table sits beside them, drawn once, so that the link neither vanishes nor moves
    // under a finger.
    if (!nextSlot) nextSlot = h("span", { id: "own-next", "aria-live": "polite" });
    if (!bar.querySelector(".own-parts") || !bar.contains(nextSlot)) fill(bar, h("span", { class: "own-parts" }), nextSlot);
    fill(bar.querySelector(".own-parts"), ...parts);
    if (wasMine && !mine && !p.live) offerNext(T.id);
    wasMine = mine;
  }

  function switchButton(T, p, send) {
    if (p.live) return h("button", { type: "button", id: "own-back", onclick: () => send({ type: "pace", live: false }) }, t("own.back"));
    const people = T.meta.seats.filter((s) => s.kind === "human" || s.stand_in).length;
    const asked = p.votes.includes(T.you);
    return [h("button", { type: "button", id: "own-live", "aria-pressed": String(asked), disabled: asked ? "" : null,
      onclick: () => send({ type: "pace", live: true }) }, t("own.ask-live")),
    p.votes.length ? h("span", { class: "muted" }, " ", t("own.asked", { n: p.votes.length, total: people })) : null];
  }

  async function offerNext(here) {
    const next = await YourMove.next(here).catch(() => null);
    if (!next || !nextSlot) return; // nothing waiting elsewhere
    const shown = nextSlot.querySelector("a");
    if (shown && shown.getAttribute("href") === next.link) return; // offered already: left as it is
    // Kept once offered, even when this table's turn comes back (the other still waits for us).
    fill(nextSlot, h("a", { class: "button primary", id: "own-next-link", href: next.link },
      t("own.next", { names: next.names })));
  }

  // Opened from "your move": the decision gets the focus once it is this reader's turn.
  // (The address says so until the seat's welcome writes its own: read as the page opens.)
  let landing = new URLSearchParams(location.hash.slice(1)).has("move");
  let trying = false;
  function landOnDecision(T, tries = 40) {
    if (!landing || (trying && tries === 40)) return;
    trying = true;
    // The decision is drawn once the plays before it are shown: looked for a few times a second.
    const target = T.view && T.view.current === T.you
      && document.querySelector("#decision:not([hidden]) button:not([disabled]), #hand button.card.legal");
    if (target) { target.focus(); landing = trying = false; return; }
    if (tries > 0) setTimeout(() => landOnDecision(T, tries - 1), 250);
    else trying = false;
  }

  // -- the profile's choices ---------------------------------------------------------------------

  function profilePart() {
    const part = h("section", { class: "part", id: "own-pace-part", "aria-labelledby": "own-pace-title" },
      h("h2", { id: "own-pace-title" }, t("own.profile-title")), h("p", { class: "help" }, t("own.profile-help")),
      h("div", { id: "own-pace-form" }, h("p", { class: "muted" }, t("common.loading"))));
    loadChoices();
    return part;
  }

  async function call(method, body) {
    const res = await fetch("/api/me/pace", { method, headers: Object.assign({ "Content-Type": "application/json" }, Friends.headers()),
      body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status}`);
    return data.pace;
  }

  async function loadChoices() {
    try {
      showChoices(await call("GET"));
    } catch (e) {
      fill($("own-pace-form"), h("p", { class: "muted" }, e.message));
    }
  }

  function showChoices(p) {
    const on = h("select", { id: "own-on-timeout" }, ["computer", "wait"].map((v) => h("option", { value: v }, t(`own.on-${v}`))));
    on.value = p.on_timeout;
    const level = h("select", { id: "own-level" }, p.levels.map((l) => h("option", { value: l }, levelName(l))));
    level.value = p.level || lobbyDefault(p.levels);
    const away = h("input", { type: "date", id: "own-away", "aria-describedby": "own-away-help" });
    if (p.away_until) away.value = new Date(p.away_until * 1000).toISOString().slice(0, 10);
    away.max = new Date(Date.now() + p.away_max * 1000).toISOString().slice(0, 10);
    const said = h("p", { class: "own-said", id: "own-said", role: "status" });
    fill($("own-pace-form"),
      h("p", {}, t("own.bank", { h: Math.floor(p.bank / 3600), m: Math.floor((p.bank % 3600) / 60) })),
      h("label", { for: "own-on-timeout" }, t("own.on-timeout")), on,
      h("label", { for: "own-level" }, t("own.level")), level,
      h("label", { for: "own-away" }, t("own.away")), away,
      h("p", { class: "help", id: "own-away-help" }, t("own.away-help")),
      h("button", { type: "button", id: "own-save", onclick: () => save(said) }, t("own.save")), said);
  }

  function lobbyDefault(levels) { return levels.includes("basic") ? "basic" : levels[0]; }

  async function save(said) {
    const day = $("own-away").value;
    // The end of the chosen day, in this browser's time zone; an empty field: not away.
    const away = day ? Math.min(new Date(`${day}T23:59:00`).getTime() / 1000, Date.now() / 1000 + 14 * 86400 - 60) : null;
    try {
      showChoices(await call("PUT", { on_timeout: $("own-on-timeout").value, level: $("own-level").value, away_until: away }));
      $("own-said").textContent = t("own.saved");
    } catch (e) {
      said.textContent = e.message;
    }
  }

  // A page opened to play at once (a solo game: no one else to wait for) lands on its first decision too.
  function landOnFirstDecision() { landing = true; }

  return { createChoice, chosen, render, landOnDecision, landOnFirstDecision, profilePart };
})();
