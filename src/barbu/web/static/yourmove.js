// "Your move": the tables where it is this person's turn, with the time left, as a badge in every page's
// header and a list in the lobby; after a move, the way on to the next table waiting. Needs i18n.js only.
"use strict";

const YourMove = (() => {
  const EVERY = 120000; // ms between two looks (the server counts these reads per person and address)
  let last = { count: 0, tables: [] };
  let invited = []; // the invitations by name waiting for this profile (GET /api/me/invitations)
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

  async function fetchInvited() {
    if (!kept("barbu.profile")) { invited = []; return invited; }
    const res = await fetch("/api/me/invitations", { headers: headers() });
    if (res.ok) invited = (await res.json()).invitations;
    return invited;
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
    const n = last.count + invited.length; // an invitation waits for your answer as a move does
    a.hidden = n === 0;
    a.textContent = t("own.badge", { n });
    a.setAttribute("aria-label", t("own.badge-label", { n }));
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

  // Answer an invitation: accepted, the seat's token is kept where the table page looks for it (never in
  // an address) and the table opens; declined, the list is drawn again and says so.
  async function answer(x, said) {
    const res = await fetch(`/api/tables/${x.table}/invitation`, { method: "POST", headers: headers(), body: JSON.stringify({ answer: said }) });
    const data = await res.json().catch(() => ({}));
    const status = document.getElementById("invited-said");
    if (!res.ok) {
      if (status) status.textContent = data.error ? I18N.error(data.error) : `${res.status}`;
      return;
    }
    if (said === "accept") {
      const mine = kept("barbu.mine") || {};
      mine[x.table] = data.token;
      try { localStorage.setItem("barbu.mine", JSON.stringify(mine)); } catch (e) { /* private mode */ }
      location.href = `${x.link}#t=${data.token}`; // the fragment: no request carries it
      return;
    }
    await refresh();
    const again = document.getElementById("invited-said");
    if (again) again.textContent = t("invites.declined");
  }

  // One invitation: who, what game, how far it has filled, its pace; Accept, Decline, or a look first.
  function invitation(x) {
    const what = t("invites.item", { by: x.by, ruleset: t(`ruleset.${x.ruleset}`), taken: x.taken, players: x.players });
    const pace = x.own_pace ? t("invites.pace", { n: x.own_pace.hours }) : t("own.live");
    const button = (said, cls) => {
      const b = node("button", { type: "button", class: `button ${cls}`, "aria-label": t(`invites.${said}-label`, { by: x.by }) }, t(`invites.${said}`));
      b.addEventListener("click", () => answer(x, said));
      return b;
    };
    return node("li", { "data-invited": x.table },
      node("span", { class: "t-names" }, what), node("span", { class: "badge" }, pace),
      node("span", { class: "invited-actions" }, button("accept", "primary"), button("decline", ""),
        node("a", { class: "button", href: x.link }, t("invites.see"))));
  }

  // The lobby's list (section #your-move): hidden when nothing waits for you.
  function showList() {
    const box = document.getElementById("your-move");
    if (!box) return;
    box.hidden = last.count === 0 && invited.length === 0;
    const list = document.getElementById("your-move-list");
    const said = node("p", { id: "invited-said", class: "form-said", role: "status" });
    list.replaceChildren(
      last.count ? node("ul", { class: "mine your-move" }, last.tables.map(item)) : "",
      invited.length ? node("h3", { id: "invited-title" }, t("invites.title")) : "",
      invited.length ? node("ul", { class: "mine invited", "aria-labelledby": "invited-title" }, invited.map(invitation)) : "",
      said);
  }

  async function refresh() {
    try {
      await Promise.all([fetchList(), fetchInvited()]);
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
