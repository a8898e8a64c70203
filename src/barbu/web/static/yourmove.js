// "Your move": the tables where it is this person's turn, with the time left, as a badge in every page's
// header and a list in the lobby; after a move, the way on to the next table waiting. Needs i18n.js only.
"use strict";

const YourMove = (() => {
  const EVERY = 120000; // ms between two looks (the server counts these reads per person and address)
  let last = { count: 0, tables: [] };
  let timer = null;

  function kept(key) {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  function headers() {
    const out = { "Content-Type": "application/json" };
    const p = kept("barbu.profile");
    if (p && p.credential) out["X-Barbu-Player"] = p.credential;
    const client = kept("barbu.client");
    if (typeof client === "string") out["X-Barbu-Client"] = client;
    return out;
  }
  function held() {
    return Object.entries(kept("barbu.mine") || {}).slice(-50).map(([table, token]) => ({ table, token }));
  }
  function node(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, v);
    for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c);
    return el;
  }

  // "3 h 20 min left", "2 days left", or "time is up" for a deadline (wall seconds).
  function left(due) {
    const secs = Math.max(0, due - Date.now() / 1000);
    if (secs < 60) return t("own.left-now");
    if (secs < 3600) return t("own.left-minutes", { n: Math.ceil(secs / 60) });
    if (secs < 2 * 86400) return t("own.left-hours", { n: Math.floor(secs / 3600), m: Math.floor((secs % 3600) / 60) });
    return t("own.left-days", { n: Math.floor(secs / 86400) });
  }

  // Whose tables to ask about: nothing to ask when this browser has no profile and took no seat.
  function asking() { return !!(kept("barbu.profile") || held().length); }

  async function fetchList() {
    if (!asking()) { last = { count: 0, tables: [] }; return last; }
    const res = await fetch("/api/your-move", { method: "POST", headers: headers(), body: JSON.stringify({ seats: held() }) });
    if (res.ok) last = await res.json();
    return last;
  }

  function badge() {
    let a = document.getElementById("your-move-badge");
    if (!a) {
      // In the top bar beside the language switch, not among the page links: there it takes room the
      // bar leaves free, where a phone's wrapped links would have grown a line and pushed the page down.
      const bar = document.querySelector(".topbar");
      if (!bar) return null;
      a = node("a", { id: "your-move-badge", class: "your-move-badge", href: "/#your-move" });
      bar.insertBefore(a, bar.querySelector(":scope > #lang-slot"));
    }
    return a;
  }

  function showBadge() {
    const a = badge();
    if (!a) return;
    a.hidden = last.count === 0;
    a.textContent = t("own.badge", { n: last.count });
    a.setAttribute("aria-label", t("own.badge-label", { n: last.count }));
  }

  // The seats' names as the lobby says them ("Computer 2" in the reader's language) where it can.
  function namesOf(x) {
    return x.names.map((n, i) => (typeof localName === "function" ? localName(n, i) : n)).join(", ");
  }

  function item(x) {
    const pace = x.own_pace || {};
    const names = namesOf(x);
    return node("li", { "data-table": x.id },
      node("span", { class: "t-names" }, names),
      pace.due ? node("span", { class: "badge time-left" }, left(pace.due)) : node("span", { class: "badge" }, t("own.live")),
      node("a", { class: "button primary", href: `${x.link}&move=1`, "aria-label": t("own.play-at", { names }) }, t("own.play")));
  }

  // The lobby's list (section #your-move): hidden when nothing waits for you.
  function showList() {
    const box = document.getElementById("your-move");
    if (!box) return;
    box.hidden = last.count === 0;
    const list = document.getElementById("your-move-list");
    list.replaceChildren(node("ul", { class: "mine your-move" }, last.tables.map(item)));
  }

  async function refresh() {
    try {
      await fetchList();
    } catch (e) {
      return last; // offline: the badge stays as it was
    }
    showBadge();
    showList();
    return last;
  }

  function start() {
    refresh();
    if (timer === null) timer = setInterval(refresh, EVERY);
  }

  // The next table waiting for you after a move at ``here``: its link, or null.
  async function next(here) {
    await refresh();
    const other = last.tables.find((x) => x.id !== here);
    return other ? { link: `${other.link}&move=1`, names: namesOf(other) } : null;
  }

  return { start, refresh, next, left };
})();
