// Barbu in the browser: the lobby and the card table. The server decides everything; this page
// only shows the view it is sent and sends back what the player clicks.
"use strict";

const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const HAND_SUITS = ["S", "H", "C", "D"]; // black and red alternate
const LAYOUT_SUITS = ["S", "H", "D", "C"];
const RANKS = "23456789TJQKA";

const $ = (id) => document.getElementById(id);

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Element.replaceChildren would print null as text: leave out what is not there.
function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

function rankText(r) { return r === "T" ? "10" : r; }

// The server names the seats it fills itself "Computer 2" and "Seat 3", and a solo game's worker the
// person who gave no name "You": shown in the reader's words.
function localName(name, i) {
  if (name === `Computer ${i + 1}`) return t("table.computer-n", { n: i + 1 });
  if (T.solo && i === 0 && name === "You") return t("solo.player");
  if (name === `Seat ${i + 1}`) return t("table.seat-n", { n: i + 1 });
  return name;
}
function localNames(meta) {
  if (meta && meta.seats) meta.seats.forEach((s, i) => { s.name = localName(s.name, i); });
  return meta;
}

function cardEl(card, opts = {}) {
  const suit = card[1];
  const red = suit === "H" || suit === "D";
  const cls = ["card", `s-${suit}`, red ? "red" : "black", opts.small ? "small" : "", opts.cls || ""].join(" ");
  const label = opts.label || cardName(card);
  const button = opts.button || opts.onclick;
  return h(button ? "button" : "span", { class: cls, "data-card": card, title: `${rankText(card[0])}${SUIT_SYMBOL[suit]}`,
    onclick: opts.onclick, type: button ? "button" : null, "aria-label": label, role: button ? null : "img" },
  Cards.face(card, opts.small)); // cards.js: the deck's face (a small card: its index corner)
}

let toastTimer = null;
function toast(text, kind = "error") {
  const el = $("toast");
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 5000);
}

async function api(path, body, retried) {
  // The profile kept in this browser goes with every request (friends.js): the server ties seats to it.
  const init = body === undefined ? { headers: Friends.headers() } : {
    method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, Friends.headers()),
    body: JSON.stringify(body),
  };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (res.status === 403 && data.error && data.error.code === "bad-profile" && Friends.profile() && !retried) {
    // The server no longer knows the profile this browser kept: say so once, and go on without it.
    toast(I18N.error(data.error));
    Friends.forget();
    return api(path, body, true);
  }
  // A refusal reaches the reader in the reader's words (error.<code>), else in the server's.
  if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status} ${res.statusText}`);
  return data;
}

function remember(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
}
function recall(key) {
  try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
}

// ---------------------------------------------------------------- lobby

const lobby = { info: null, rules: null };

// A page part is shown once drawn whole (class "waiting" hides it until then): nothing in it moves
// under the reader's eyes as its lists and lines arrive.
function drawn(id) { $(id).classList.remove("waiting"); }

async function showLobby() {
  Settings.load(); // the computers' pace of the tables this browser creates
  $("lobby").classList.add("waiting");
  setTimeout(() => drawn("lobby"), 4000);  // a list slow to come is not worth a blank page
  $("lobby").hidden = false;
  const saved = recall("barbu.name");
  if (saved) $("create-name").value = saved;
  const you = Friends.profile();
  if (you) {
    // A table made with a profile seats it under the profile's name.
    $("create-name").value = you.name;
    $("create-name").readOnly = true;
    $("create-name-note").hidden = false;
  }
  const yours = Friends.yourTables();
  try {
    [lobby.info, lobby.rules] = await Promise.all([api("/api/info"), api("/api/rules/classic")]);
  } catch (e) {
    drawn("lobby");
    toast(t("lobby.unreachable", { why: e.message }));
    return;
  }
  renderCreateForm();
  renderQuick();
  renderLearn();
  const lists = Promise.all([refreshTables(), yours]);
  for (const el of document.querySelectorAll("input[name=ruleset]")) el.addEventListener("change", renderCreateForm);
  $("create-players").addEventListener("change", renderCreateForm);
  $("create-rounds").addEventListener("change", (e) => { e.target.dataset.each = e.target.selectedOptions[0].dataset.each; });
  $("create-form").addEventListener("submit", createTable);
  $("quick-play").addEventListener("click", quickPlay);
  $("create-pace").value = Settings.get("pace");
  $("create-pace").addEventListener("change", () => { Settings.set("pace", $("create-pace").value); renderQuick(); });
  $("refresh-list").addEventListener("click", () => { refreshTables(); Friends.yourTables(); });
  await lists;
  drawn("lobby");
}

function ruleset() { return document.querySelector("input[name=ruleset]:checked").value; }

// A level's words: "expert:0.1" (a solo game's expert with its budget) is said as "expert".
function levelKey(level) { return String(level).split(":")[0]; }
function levelName(level) { const k = levelKey(level); return I18N.has(`level.${k}.name`) ? t(`level.${k}.name`) : level; }
// The short name said inside a sentence ("the computer (hard) plays"), the full one in menus.
function levelShort(level) {
  const k = levelKey(level);
  return I18N.has(`table.level.${k}`) ? t(`table.level.${k}`) : level;
}
function levelLine(level) { const k = levelKey(level); return I18N.has(`level.${k}.line`) ? t(`level.${k}.line`) : ""; }

// The chosen rule set's rules page and, for family Barbu, who wins: said where the rules are chosen.
function renderRulesetNotes(family) {
  $("family-note").hidden = !family;
  $("ruleset-rules").href = `/rules/${family ? "family" : "classic"}`;
  $("ruleset-rules").textContent = t("lobby.read-rules-of", { ruleset: t(`ruleset.${family ? "family" : "classic"}`) });
}

// An option by its name in the reader's words (its id, the server's and the command line's, else).
function optionName(id) { return I18N.has(`option.${id}.name`) ? t(`option.${id}.name`) : id; }

function renderOptions(box) {
  if (box.querySelector("input")) return;
  for (const o of lobby.info.options) {
    // An option that changes a contract's figures (dominoes-40) names the new ones.
    const changed = Object.values(lobby.rules.options[o.id] || {})[0] || {};
    const args = Object.fromEntries(Object.entries(changed).map(([k, n]) => [k, I18N.points(n, true)]));
    const help = I18N.has(`option.${o.id}`) ? t(`option.${o.id}`, args) : o.help;
    box.append(h("label", { class: "option" }, h("input", { type: "checkbox", name: "option", value: o.id }),
      ` ${optionName(o.id)}`, h("span", { class: "help" }, help)));
  }
}

// One seat's choice: a computer of some level, a friend (by invitation only) or anyone, with what
// the choice means.
function seatChoice(i, value) {
  const id = `seat-${i}`;
  const help = h("p", { class: "help level-line", id: `${id}-help`, "aria-live": "polite" });
  const sel = h("select", { "data-seat": i, id, "aria-describedby": `${id}-help` },
    lobby.info.levels.map((l) => h("option", { value: `bot:${l}` }, t("lobby.computer", { level: levelName(l) }))),
    h("option", { value: "friend" }, t("lobby.friend")),
    h("option", { value: "open" }, t("lobby.open-seat")));
  sel.value = value;
  const explain = () => {
    help.textContent = sel.value === "friend" ? t("lobby.friend-line")
      : sel.value === "open" ? t("lobby.open-seat-line") : levelLine(sel.value.slice(4));
  };
  sel.addEventListener("change", explain);
  explain();
  return h("div", { class: "seat-choice" }, h("label", { for: id }, t("lobby.seat", { n: i + 1 })), sel, help);
}

// The optional turn clock: a time per decision, then a computer of the chosen level plays the seat.
const CLOCK_SECONDS = [15, 30, 60, 120];
function renderClockChoice() {
  const box = $("clock-box");
  if (box.querySelector("select")) return;
  const secs = h("select", { id: "clock-seconds", "aria-describedby": "clock-help" },
    h("option", { value: "" }, t("lobby.clock-off")),
    CLOCK_SECONDS.map((n) => h("option", { value: String(n) }, t("lobby.clock-seconds", { n }))));
  const level = h("select", { id: "clock-level" },
    lobby.info.levels.map((l) => h("option", { value: l }, levelName(l))));
  level.value = lobby.info.default_level;
  const help = h("p", { class: "help", id: "clock-help" });
  const explain = () => {
    level.disabled = !secs.value;
    help.textContent = secs.value ? t("lobby.clock-line", { n: Number(secs.value), level: levelShort(level.value) }) : "";
  };
  secs.addEventListener("change", explain);
  level.addEventListener("change", explain);
  explain();
  fill(box, h("legend", {}, t("lobby.clock")),
    h("label", { for: "clock-seconds" }, t("lobby.clock-time")), secs,
    h("label", { for: "clock-level" }, t("lobby.clock-then")), level, help);
}

function turnClock() {
  const secs = $("clock-seconds").value;
  return secs ? { seconds: Number(secs), level: $("clock-level").value } : null;
}

// A family game's length: the whole game (7 rounds each) or a shorter one of whole turns round the
// table, each player choosing as often; the choice (rounds each) stays when the players change.
function renderRounds(family, players) {
  $("rounds-label").hidden = !family;
  const sel = $("create-rounds");
  const each = sel.value ? Number(sel.dataset.each) : 7;
  fill(sel, ...[7, 1, 2, 3, 4, 5, 6].map((k) => h("option", { value: k === 7 ? "" : String(k * players), "data-each": k },
    k === 7 ? t("lobby.rounds-whole", { n: 7 * players }) : t("lobby.rounds-each", { n: k, rounds: k * players }))));
  sel.value = each === 7 ? "" : String(each * players);
  sel.dataset.each = each;
}

function renderCreateForm() {
  const family = ruleset() === "family";
  $("players-label").hidden = !family;
  renderRulesetNotes(family);
  const players = family ? Number($("create-players").value) : 4;
  renderRounds(family, players);
  const opts = $("options-box");
  opts.hidden = family;
  renderOptions(opts);
  renderClockChoice();
  OwnPace.createChoice();
  const box = $("seats-box");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  fill(box, h("legend", {}, t("lobby.other-seats")));
  for (let i = 1; i < players; i++) box.append(seatChoice(i, before[i - 1] || `bot:${lobby.info.default_level}`));
}

// The one-tap table: the rules, players, options and computer level last used, remembered in this
// browser (barbu.quick), each checked against what the server offers now.
const QUICK = "barbu.quick";
function quickSettings() {
  const saved = recall(QUICK) || {};
  const family = saved.ruleset === "family";
  const players = family && [3, 4, 5, 6].includes(saved.players) ? saved.players : 4;
  const known = new Set(lobby.info.options.map((o) => o.id));
  const options = !family && Array.isArray(saved.options) ? saved.options.filter((o) => known.has(o)) : [];
  const level = lobby.info.levels.includes(saved.level) ? saved.level : lobby.info.default_level;
  return { ruleset: family ? "family" : "classic", players, options, level };
}

function renderQuick() {
  const q = quickSettings();
  const line = [t("lobby.quick-line", { ruleset: t(`ruleset.${q.ruleset}`), n: q.players, level: levelName(q.level),
    pace: t(`pace.${Settings.get("pace")}`) })];
  if (q.options.length) line.push(t("lobby.quick-options", { options: q.options.map(optionName).join(", ") }));
  $("quick-line").textContent = line.join(" ");
}

async function quickPlay() {
  if (!$("create-name").reportValidity()) return;
  const q = quickSettings();
  const seats = [{ kind: "you" }];
  for (let i = 1; i < q.players; i++) seats.push({ kind: "bot", level: q.level });
  await makeTable({ ruleset: q.ruleset, players: q.players, options: q.options, seats }, $("quick-play"));
}

async function createTable(ev) {
  ev.preventDefault();
  const family = ruleset() === "family";
  const players = family ? Number($("create-players").value) : 4;
  const seats = [{ kind: "you" }];
  for (const sel of $("seats-box").querySelectorAll("select")) {
    seats.push(sel.value.startsWith("bot:") ? { kind: "bot", level: sel.value.slice(4) } : { kind: sel.value });
  }
  const options = family ? [] : [...document.querySelectorAll("input[name=option]:checked")].map((x) => x.value);
  const body = { ruleset: ruleset(), players, options, seats, private: $("create-private").checked,
    chat: $("create-chat").checked ? "everyone" : "players", own_pace: OwnPace.chosen() };
  body.turn_clock = body.own_pace ? null : turnClock(); // a deadline of hours, or a turn clock of seconds
  if (family && $("create-rounds").value) body.rounds = Number($("create-rounds").value);
  const computer = seats.find((s) => s.kind === "bot");
  remember(QUICK, { ruleset: body.ruleset, players, options, level: computer ? computer.level : quickSettings().level });
  await makeTable(body, $("create-button"));
}

// Make the table of ``body`` (with this page's name, pace and any ?seed=) and open it, or hand out
// its links first when friends are invited.
async function makeTable(body, button) {
  const name = $("create-name").value.trim();
  remember("barbu.name", name);
  button.disabled = true;
  try {
    Object.assign(body, { name, pace: Settings.get("pace") });
    const seed = new URLSearchParams(location.search).get("seed"); // "/?seed=7": the same deals again
    if (seed && /^[0-9]+$/.test(seed)) body.seed = Number(seed);
    const res = await api("/api/tables", body);
    const links = res.seats.filter((s) => !res.you || s.seat !== res.you.seat);
    remember(`barbu.links.${res.id}`, links);
    const mine = recall("barbu.mine") || {};
    mine[res.id] = res.you.token; // in "your tables" at once, before the table is even opened
    remember("barbu.mine", mine);
    const url = res.you.link;
    if (!links.length) { location.href = url; return; }
    const box = $("invites");
    box.hidden = false;
    fill(box, h("h3", {}, t("lobby.send-links")),
      inviteList(links), h("a", { class: "button primary", href: url }, t("lobby.go")));
  } catch (e) {
    toast(e.message);
  } finally {
    button.disabled = false;
    renderQuick();
  }
}

function inviteList(links) {
  return h("ul", { class: "invites" }, links.map((l) => {
    const seat = T.meta && T.meta.seats[l.seat];
    if (seat && seat.claimed) return h("li", {}, t("lobby.seat-taken", { n: l.seat + 1, name: seat.name }));
    const full = new URL(l.link, location.href).href;
    const label = t("lobby.seat", { n: l.seat + 1 });
    const field = h("input", { class: "link", value: full, readonly: true, "aria-label": label,
      onclick: (e) => e.target.select() });
    return h("li", {}, `${label}: `, field, Copy.button(full, field));
  }));
}

async function refreshTables() {
  const box = $("table-list");
  try {
    const { tables } = await api("/api/tables");
    if (!tables.length) { fill(box, h("p", { class: "muted" }, t("lobby.no-tables"))); return; }
    fill(box, h("ul", { class: "tables" }, tables.map(tableItem)));
  } catch (e) {
    fill(box, h("p", { class: "muted" }, t("lobby.cannot-list", { why: e.message })));
  }
}

// A damaged table is only watched: it is marked, with the reason in its title, and offers no Join.
function tableItem(x) {
  const where = x.damaged && x.damaged.kind === "setup" ? ""
    : ` — ${t("lobby.where", { ruleset: t(`ruleset.${x.ruleset}`), hand: Math.min(x.hand_no + 1, x.num_hands), hands: x.num_hands })}`
      + (x.options.length ? `, ${x.options.map(optionName).join(", ")}` : "");
  const mark = x.damaged ? h("span", { class: "badge damaged", title: damageText(x.damaged) }, t("lobby.damaged"))
    : x.over ? h("span", { class: "badge" }, t("lobby.finished")) : null;
  const join = x.free_seats && !x.damaged && !x.over
    ? h("button", { type: "button", onclick: () => joinTable(x.id) }, t("lobby.join", { n: x.free_seats })) : null;
  const invited = x.invited_seats && !x.over ? h("span", { class: "badge" }, t("lobby.invited", { n: x.invited_seats })) : null;
  return h("li", { "data-table": x.id }, h("span", { class: "t-names" },
    x.names.flatMap((n, i) => [i ? ", " : "", localName(n, i), SeatMark.mark((x.holders || [])[i], n)])),
    h("span", { class: "muted" }, where), mark, invited, Friends.moved(x), join,
    h("a", { class: "button", href: `/table/${x.id}` }, t("lobby.watch")),
    x.over && !x.damaged ? h("a", { class: "button", href: `/replay/${x.id}` }, t("lobby.replay")) : null);
}

// Where a damaged table stopped and why (the server's reason, in English, counts seats from 1).
function damageText(d) {
  return d.kind === "setup" ? d.reason : t("lobby.stored-event", { seq: d.seq, reason: d.reason });
}

function damageBanner(d) {
  if (d.kind === "setup") return t("lobby.damaged-setup-banner", { why: damageText(d) });
  const where = d.kind === "deal" ? t("lobby.damaged-at-deal", { hand: d.hand_no + 1 })
    : t("lobby.damaged-at-action", { hand: d.hand_no + 1, action: d.action_no + 1 });
  return t("lobby.damaged-banner", { where, why: damageText(d) });
}

async function joinTable(id) {
  // One person, one seat: a browser that holds a seat here already goes back to it.
  const held = (recall("barbu.mine") || {})[id];
  if (held) { location.href = `/table/${id}#t=${held}`; return; }
  const you = Friends.profile();
  const name = you ? you.name : ($("create-name").value || "").trim() || prompt(t("lobby.name-prompt"));
  if (!name) return;
  remember("barbu.name", name);
  try {
    const res = await api(`/api/tables/${id}/join`, { name });
    location.href = res.link;
  } catch (e) {
    toast(e.message);
  }
}

// ---------------------------------------------------------------- the table

const T = {
  id: null, token: null, ws: null, you: null, meta: null, view: null, last: null, received: 0,
  shownTrick: null, shownCaption: null, showLast: false, backoff: 500, stopped: false, resultsSeen: -1,
  results: null, pingTimer: null, redrawTimer: null, defaultLevel: "basic", named: null, welcomed: false,
  online: false, retryTimer: null, invites: null, readyFor: null, pending: null, summary: null, finalView: null, notice: "", handFocus: 0,
  asking: false, // the seat-taking form's hello is on its way: a refusal goes back to the form
  latest: null, latestSheet: null, // the newest state and sheet received: what the server says now
  solo: false, // a solo game, played by this page's worker (solo.js) without a server
};

// Whether the table is being played: not over, and not damaged (a damaged one is only watched).
function live() { return !T.meta.over && !T.meta.damaged; }

async function downloadRecord(event) {
  if (T.solo) { event.preventDefault(); Solo.download(); return; } // the record is the worker's
  // A seat's own deals come with its token, sent as a header so that it stays out of URLs and logs.
  if (!T.token) return;
  event.preventDefault();
  const reply = await fetch(`/api/tables/${T.id}/record`, { headers: { "X-Barbu-Token": T.token } });
  if (!reply.ok) { toast(t("table.record-failed")); return; }
  const link = h("a", { href: URL.createObjectURL(await reply.blob()), download: `barbu-${T.id}.json` });
  link.click();
  URL.revokeObjectURL(link.href);
}

function showTable(id) {
  T.id = id;
  const params = new URLSearchParams(location.hash.slice(1));
  T.token = ownSeatFor(id, params.get("t"));
  Settings.load();
  document.body.classList.add("at-table");
  $("table").classList.add("waiting");  // until the first state is drawn (render), or the socket fails
  setTimeout(() => drawn("table"), 4000);  // whatever happens, the page is not left blank
  $("table").hidden = false;
  $("btn-record").href = `/api/tables/${id}/record`;
  $("btn-record").addEventListener("click", downloadRecord);
  $("btn-last").addEventListener("click", () => { T.showLast = !T.showLast; render(); });
  $("btn-sheet").addEventListener("click", openSheet);
  $("btn-settings").addEventListener("click", Settings.open);
  Overflow.menu();
  Overflow.watch($("decision"));
  $("settings-close").addEventListener("click", () => { $("settings-dialog").close(); render(); });
  $("sheet-close").addEventListener("click", () => $("sheet-dialog").close());
  $("invite-close").addEventListener("click", () => $("invite-dialog").close());
  $("summary-next").addEventListener("click", () => closeSummary(true));
  $("summary-dialog").addEventListener("cancel", (ev) => { ev.preventDefault(); closeSummary(true); });
  $("hand").addEventListener("keydown", handKeys);
  Coach.setup();
  const links = recall(`barbu.links.${id}`);
  if (links && links.length) $("btn-invite").hidden = false;
  $("btn-tie").addEventListener("click", tieSeat);
  $("btn-invite").addEventListener("click", () => {
    // The server's own list for the creator (live, re-issuable); a table of the first release: the kept links.
    fill($("invite-links"), T.invites ? Friends.inviteItems(T.invites, { id: T.id, token: T.token }) : inviteList(links || []));
    $("invite-dialog").showModal();
  });
  $("name-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    T.named = $("seat-name").value.trim();
    if (!T.named) { Invitation.noName(); return; } // said beside the field, never a silent nothing
    // The form stays until the seat is ours: a refused name is shown beside it (nameRefused).
    if (send({ type: "hello", token: T.token, name: T.named, pace: true, profile: profileCredential(), client: Friends.clientId() })) T.asking = true;
  });
  $("seat-name").addEventListener("input", () => {
    $("seat-name").removeAttribute("aria-invalid");
    $("seat-said").textContent = "";
  });
  Chat.setup(send);
  Rematch.setup(send);
  GameEnd.setup();
  if (!T.solo) watchNetwork(); // a solo game is played in this page: the network does not matter
  connect();
  if (!T.token && !T.solo) Invitation.offer(id); // a seat held for this profile by name: Accept or Decline
}

// An invitation link this browser used already gave it the seat, under a fresh token (onWelcome):
// opening the link again opens that seat, as the lobby's "Open your seat" does. Anyone else's used
// link stays refused, since only the links this browser took are kept.
function ownSeatFor(id, token) {
  const mine = (recall("barbu.mine") || {})[id];
  const taken = (recall("barbu.taken") || {})[id] || [];
  if (!token || !mine || mine === token || !taken.includes(token)) return token;
  history.replaceState(null, "", `${location.pathname}#t=${mine}`);
  return mine;
}

// The invitation link a seat was taken by, kept with the table (see ownSeatFor).
function keepTaken(link) {
  const taken = recall("barbu.taken") || {};
  taken[T.id] = [...new Set([...(taken[T.id] || []), link])].slice(-8);
  remember("barbu.taken", Object.fromEntries(Object.entries(taken).slice(-50)));
}

// Taking a free seat through its link with a profile ties the seat to it (and needs no name).
function profileCredential() {
  const you = Friends.profile();
  return you ? you.credential : undefined;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // The transport: the server's socket, or for a solo game the page's own worker (solo.js), which
  // answers with the same messages.
  const ws = T.solo ? Solo.socket() : new WebSocket(`${proto}//${location.host}/ws/${T.id}`);
  T.ws = ws;
  setConn(t("table.conn.connecting"), false);
  ws.onopen = () => {
    T.backoff = 500;
    setConn("", true);
    // "pace": this page shows a summary after each hand, so the computers wait for our "ready".
    send({ type: "hello", token: T.token || null, name: T.named || undefined, pace: true, profile: profileCredential(), client: Friends.clientId() });
    clearInterval(T.pingTimer);
    T.pingTimer = setInterval(() => send({ type: "ping" }), 25000);
  };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    drawn("table");
    clearInterval(T.pingTimer);
    if (T.ws !== ws) return;
    if (T.stopped || ev.code === 4404 || ev.code === 4403) { setConn(t("table.conn.closed"), false); return; }
    setConn(t("table.conn.reconnecting"), false);
    clearTimeout(T.retryTimer);
    T.retryTimer = setTimeout(connect, T.backoff);
    T.backoff = Math.min(T.backoff * 2, 10000);
  };
}

// The browser knows first when the network goes: an open socket may not notice for a long time, so
// the page says so at once and connects again as soon as the network is back.
function watchNetwork() {
  window.addEventListener("offline", () => {
    if (T.stopped) return;
    setConn(t("table.conn.reconnecting"), false);
    if (T.ws && T.ws.readyState <= WebSocket.OPEN) T.ws.close();
  });
  window.addEventListener("online", () => {
    if (T.stopped || (T.ws && T.ws.readyState <= WebSocket.OPEN)) return;
    clearTimeout(T.retryTimer);
    T.backoff = 500;
    connect();
  });
}

// While the socket is down the page says so, and nothing can be played (see renderMe).
function setConn(text, online) {
  T.online = online;
  T.pending = null;
  const el = $("conn");
  el.textContent = text;
  el.hidden = !text;
  const lost = !online && T.welcomed && !T.stopped;
  $("offline").hidden = !lost;
  if (lost) $("offline").textContent = t("table.offline");
  if (T.view) render();
}

function send(msg) {
  if (T.ws && T.ws.readyState === WebSocket.OPEN) {
    T.ws.send(JSON.stringify(msg));
    return true;
  }
  toast(t("table.not-connected"));
  return false;
}

// Where the table stands: an action answered moves it on, so a second click on the old view is dropped.
function viewKey(v) { return v ? `${v.hand_no}:${v.phase}:${v.history.length}:${v.current}` : ""; }

// checked: the coach's warning was asked already (coach.js), or the player chose to play it anyway.
function act(action, checked = false) {
  if (T.pending !== null && T.pending === viewKey(T.view)) return; // a double click: sent already
  if (!checked && Coach.intercept(action)) return;
  if (send({ type: "act", action })) {
    T.pending = viewKey(T.view);
    for (const b of document.querySelectorAll("#hand button, #decision button, #hand-actions button")) {
      b.setAttribute("aria-disabled", "true");
      b.classList.add("sent");
    }
  }
}

function onMessage(msg) {
  msg.receivedAt = Date.now();
  if (msg.type === "welcome") {
    onWelcome(msg);
  } else if (msg.type === "sheet") {
    T.latestSheet = msg;
    Motion.push(() => onSheet(msg));
  } else if (msg.type === "state") {
    T.latest = msg;
    if (T.view && T.meta) renderStatus(T.view); // the newest turn is said at once (renderStatus)
    if (T.summary) summaryNews(msg);
    Rematch.news(msg.table);
    Motion.push(() => onState(msg));
  } else if (msg.type === "chat-log") {
    Chat.onLog(msg, T.you);
  } else if (msg.type === "chat") {
    Chat.onMessage(msg);
  } else if (msg.type === "invites") {
    onInvites(msg);
  } else if (msg.type === "rematch-link") {
    Rematch.onLink(msg);
  } else if (msg.type === "hint") {
    Coach.onHint(msg);
  } else if (msg.type === "error") {
    if (Coach.onError(msg)) return; // the answer to a question to the coach
    drawn("table");
    T.pending = null;
    if ($("banner").dataset.shows === "taking") $("banner").dataset.shows = ""; // refused: the button again
    onError(msg);
    if (T.view) {
      $("decision").dataset.key = ""; // drawn again: the refused click's buttons work again
      renderDecision(T.view);
      renderMe(T.view, true);
    }
  }
}

function onWelcome(msg) {
  T.welcomed = true;
  T.you = msg.you;
  T.creator = Boolean(msg.creator);
  T.defaultLevel = msg.default_level;
  T.meta = localNames(msg.table);
  Motion.pace(T.meta.pace);
  Chat.place(T.meta.seats.every((seat, i) => i === T.you || seat.kind === "bot"));
  $("offline").hidden = true;
  T.asking = false;
  $("name-form").hidden = true;
  if (T.named) remember("barbu.name", T.named);
  if (msg.token) {
    // Taking a seat through its link gives it a fresh token: the link we came by no longer opens it.
    if (T.token && T.token !== msg.token) keepTaken(T.token);
    T.token = msg.token;
    history.replaceState(null, "", `${location.pathname}#t=${msg.token}`);
  }
  // A seated reader's seat boxes are redrawn every second: an idle player's seat can be handed
  // to the computer once their turn has lasted long enough, and the countdown says when.
  if ((T.you !== null || msg.table.turn_clock) && T.redrawTimer === null) {
    T.redrawTimer = setInterval(() => { if (T.view) { renderOthers(); renderStatus(T.view); } }, 1000);
  }
  if (T.you !== null && T.token) {
    const mine = recall("barbu.mine") || {};
    mine[T.id] = T.token;
    remember("barbu.mine", mine);
  }
}

// The creator's links, sent again whenever a seat is taken or its link made anew: who joined is said.
function onInvites(msg) {
  const before = T.invites;
  T.invites = msg;
  $("btn-invite").hidden = !msg.seats.length; // a table of you and computers has nobody to invite
  if (before) {
    for (const s of msg.seats) {
      const was = before.seats.find((b) => b.seat === s.seat);
      if (s.claimed && was && !was.claimed) {
        const text = t("invite.joined", { n: s.seat + 1, name: s.name });
        $("live").textContent = text;
        toast(text, "info");
      }
    }
  }
  if ($("invite-dialog").open) fill($("invite-links"), Friends.inviteItems(msg, { id: T.id, token: T.token }));
}

// A refusal in the reader's words (error.<code>, its variant, its args), else the server's English.
function errorText(msg) {
  return I18N.error(msg);
}

function onError(msg) {
  if (msg.code === "bad-profile" && !T.welcomed && Friends.profile()) {
    Friends.forget(); // unknown to the server: take the seat (or watch) without it
    toast(errorText(msg));
    send({ type: "hello", token: T.token || null, name: T.named || undefined, pace: true, client: Friends.clientId() });
    return;
  }
  if (msg.code === "name-required") {
    $("name-form").hidden = false;
    $("seat-name").value = recall("barbu.name") || "";
    $("seat-name").focus();
    Invitation.show(T.id, (msg.args || {}).seat); // who invited you, the rules, who sits there
    return;
  }
  if (T.asking && !T.welcomed && msg.code !== "bad-token" && msg.code !== "no-table") {
    nameRefused(msg);
    return;
  }
  if (msg.code === "bad-token") {
    T.stopped = true;
    $("banner").hidden = false;
    fill($("banner"), `${errorText(msg)} `, h("a", { href: `/table/${T.id}` }, t("table.watch-instead")));
    $("banner").dataset.shows = "token";
    return;
  }
  if (msg.code === "damaged" && !T.welcomed) {
    // A free seat of a damaged table cannot be taken: watch it instead (the banner says why).
    T.token = null;
    send({ type: "hello", token: null });
    return;
  }
  if (msg.code === "no-table") {
    T.stopped = true;
    $("status").textContent = errorText(msg);
    return;
  }
  if ((msg.code || "").startsWith("chat-")) { Chat.refused(errorText(msg)); return; }
  toast(errorText(msg));
}

// The seat-taking form refused (a profile's name, a name too long…): it stays, with the name typed
// selected in its field and the reason beside it (role=alert), so another name is one keystroke away.
function nameRefused(msg) {
  T.asking = false;
  T.named = null; // a reconnection asks for the name again rather than repeating a refused one
  $("name-form").hidden = false;
  const field = $("seat-name");
  field.setAttribute("aria-invalid", "true");
  $("seat-said").textContent = errorText(msg);
  field.focus();
  field.select();
}

const isCard = (a) => /^[2-9TJQKA][SHDC]$/.test(a);
// No card fits: the server passes for the player at once, so there is nothing to click (a click
// would race that pass and come back as "not your turn").
function forcedPass(v) { return v.phase === "play" && v.legal.length === 1 && v.legal[0] === "pass"; }
function kindOf(v) { return v && v.contract ? contractInfo(v.contract).kind : "tricks"; }

// One state from the server, shown: the card played travels, a finished trick stays for a moment
// and goes to its winner, the end of a hand opens its summary.
async function onState(msg) {
  if (behind(msg)) { catchUp(); return; }
  const old = T.view;
  const view = msg.view;
  const ended = Boolean(old) && view.hand_no !== old.hand_no;
  // The finished trick left on show goes to its taker as the next card is led.
  if (!ended && view.trick.length && document.querySelector("#trick.done .played")) {
    await Motion.gather([...document.querySelectorAll("#trick.done .played")], seatRect(old.leader));
  }
  const last = msg.last && isCard(msg.last.action) && old && msg.last.hand_no === old.hand_no ? msg.last : null;
  const from = last ? originOf(last) : null;
  let done = null;
  if (last && kindOf(old) === "tricks" && !view.trick.length) {
    const lt = view.last_trick;
    done = lt.length && lt[lt.length - 1][1] === last.action ? lt : old.trick.concat([[last.seat, last.action]]);
    if (done.length !== msg.table.players) done = null;
  }
  T.meta = localNames(msg.table);
  Motion.pace(T.meta.pace);
  T.last = msg.last;
  T.received = msg.receivedAt;
  T.shownTrick = done;
  T.shownCaption = done && !ended ? t("table.taken-by", { name: seatName(view.leader) })
    : done ? t("table.last-trick-of", { n: old.hand_no + 1 }) : null;
  if (ended) T.finalView = finalPicture(old, msg.last);
  // A finished hand stays on the table as its last card left it until its summary is closed.
  T.view = ended ? closingView(old, last, view) : view;
  render();
  announce(old, msg);
  if (last) await Motion.travel(document.querySelector(`#center [data-card="${last.action}"]`), from);
  if (done) {
    await Motion.wait(trickPause());
    if (!ended) Settings.beep("trick"); // the trick stays on show, dimmed, until a card is led (trickOnShow)
  }
  if (ended && !T.meta.over && T.results && T.results.length && serverAt(view.hand_no)) await openSummary(view.hand_no);
  if (done || ended) {
    T.shownTrick = null;
    T.view = view;
    render();
  }
  await settle();
}

// How far behind the server the page may fall before it stops showing each event: some six tricks
// of events waiting (a quarter of a minute of showing them), or the server two hands on.
const CATCH_UP = 24;
function behind(msg) {
  const newest = T.latest;
  if (!newest || newest === msg) return false;
  return newest.view.hand_no > msg.view.hand_no + 1 || Motion.pending > CATCH_UP;
}

// Whether the server is still at the start of hand ``hand`` (from 0): only then is a summary
// before it shown, and "ready" for it said (the server refuses a "ready" for a hand it has left).
function serverAt(hand) {
  return Boolean(T.latest) && T.latest.view.hand_no === hand && !T.latest.table.over;
}

// The events queued behind are dropped and the newest state and sheet are drawn at once, without
// travel: the page shows what the server says now, never a hand it has left.
async function catchUp() {
  Motion.drop();
  const msg = T.latest;
  if (T.latestSheet) onSheet(T.latestSheet);
  T.meta = localNames(msg.table);
  Motion.pace(T.meta.pace);
  T.last = msg.last;
  T.received = msg.receivedAt;
  T.shownTrick = null;
  T.finalView = null;
  T.view = msg.view;
  render();
  await settle();
}

// After a state is shown: the summary the server still waits for, or the end of the game's sheet.
async function settle() {
  // The table waits for our "ready" but no summary is open (the page was reloaded during it, or a
  // second tab): show it again, else nothing on the page would let the game go on.
  if (!T.summary && T.you !== null && (T.meta.waiting || []).includes(T.you) && T.readyFor !== T.view.hand_no
      && !T.meta.over && T.results && T.results.length && !T.view.history.length) {
    await openSummary(T.view.hand_no);
  }
  if (T.meta.over && T.results && T.resultsSeen !== T.results.length) {
    T.resultsSeen = T.results.length;
    if (T.meta.damaged) openSheet();
    else GameEnd.open(); // the end of the game: places, the last hand, rematch and replay (gameend.js)
  }
}

// The hand just finished, as its last card left it: nobody to act, the card gone from its hand,
// and the totals (the score sheet's) already counting it.
function closingView(old, last, next) {
  const sizes = old.hand_sizes.map((n, s) => (last && s === last.seat ? n - 1 : n));
  const hand = old.hand.filter((c) => !last || c !== last.action);
  const r = T.results && T.results.length ? T.results[T.results.length - 1] : null;
  const points = r && r.hand_no === old.hand_no ? r.contract_scores : old.points;
  // The last trick counted for its taker, as the points already are (a seat said "4 tricks · −10").
  const final = T.finalView.trick;
  const tricks = old.tricks_won.slice();
  if (final.length === old.tricks_won.length) tricks[trickWinner(final, old.trump)] += 1;
  return { ...old, closing: true, current: -1, legal: [], trick: [], hand, hand_sizes: sizes, lines: T.finalView.lines,
    totals: next.totals, points, tricks_won: tricks };
}

// Only watching (or a computer plays your seat): the short pause; playing: your own.
function trickPause() {
  const watching = T.you === null || T.meta.seats[T.you].kind === "bot";
  return Settings.get(watching ? "watchPause" : "trickPause");
}

function originOf(last) {
  if (last.seat === T.you) {
    const own = document.querySelector(`#hand [data-card="${last.action}"]`);
    if (own) return own.getBoundingClientRect();
  }
  return seatRect(last.seat);
}

function seatRect(s) {
  const el = s === T.you ? $("me-info") : document.querySelector(`#others .seat[data-seat="${s}"]`);
  return el ? el.getBoundingClientRect() : null;
}

// The finished hand as it was at its last card: the trick completed, or the card put in its row.
function finalPicture(old, last) {
  const lines = old.lines.map((x) => x.slice());
  let trick = [];
  if (last && isCard(last.action) && last.hand_no === old.hand_no) {
    if (kindOf(old) === "tricks") {
      trick = old.trick.concat([[last.seat, last.action]]);
    } else {
      const row = LAYOUT_SUITS.indexOf(last.action[1]);
      const r = RANKS.indexOf(last.action[0]);
      const [lo, hi] = lines[row];
      lines[row] = lo < 0 ? [r, r] : [Math.min(lo, r), Math.max(hi, r)];
    }
  }
  return { kind: kindOf(old), trick, lines, handNo: old.hand_no };
}

function onSheet(msg) {
  T.results = msg.results;
  if ($("sheet-dialog").open) renderSheet();
}

function cardName(card) { return I18N.card(card); }

function say(text) {
  const el = $("live");
  el.textContent = "";
  setTimeout(() => { el.textContent = text; }, 30); // a fresh text, so that a repeat is read again
}

function lastPassText(v, seat) {
  // A pass right after the same seat's own card is a Réussite stop after an ace; any other is forced.
  const hist = v.history;
  const before = hist.length >= 2 ? hist[hist.length - 2] : null;
  return before && before[0] === seat && isCard(before[1]) ? "stop" : "pass";
}

// What changed, said once: the card played, a forced pass, and that it is your turn.
function announce(old, msg) {
  const v = msg.view;
  const last = msg.last;
  const words = [];
  if (last && old && (v.history.length > old.history.length || v.hand_no !== old.hand_no)) {
    const who = last.seat === T.you ? t("table.you") : seatName(last.seat);
    if (isCard(last.action)) {
      words.push(t("table.plays", { name: who, card: cardName(last.action) }));
      if (v.hand_no === old.hand_no && kindOf(v) === "tricks") words.push(trickNews(v));
    }
    else if (last.action === "pass" && v.hand_no === old.hand_no) {
      const how = lastPassText(v, last.seat);
      words.push(t(`table.log.${how}`, { name: who }));
      if (last.seat === T.you && how === "pass") notice(t("table.you-pass"));
    }
  }
  const mine = v.current === T.you && T.you !== null && live() && !forcedPass(v);
  if (mine && !(old && old.current === T.you && viewKey(old) === viewKey(v))) {
    words.push(t("table.your-turn-short"));
    Settings.beep("turn");
  }
  if (words.length) say(words.join(". "));
}

// After a card of a trick: who is winning it now, or who took it.
function trickNews(v) {
  return v.trick.length ? winningText(trickWinner(v.trick, v.trump)) : t("table.taken-by", { name: seatName(v.leader) });
}

function notice(text) {
  T.notice = text;
  $("notice").textContent = text;
  $("notice").hidden = false;
  clearTimeout(T.noticeTimer);
  T.noticeTimer = setTimeout(() => { $("notice").hidden = true; }, 4000);
}

function plural(count, noun) { return t(`table.count.${noun}`, { n: count }); }
function seatName(i) { return T.meta ? T.meta.seats[i].name : t("table.seat-n", { n: i + 1 }); }
function contractInfo(id) { return T.meta.contracts.find((c) => c.id === id) || { id, name: id, kind: "tricks" }; }
function contractName(id) {
  const key = `contract.${T.meta.ruleset}.${id}.name`;
  return I18N.has(key) ? t(key) : contractInfo(id).name;
}
// What a contract scores, in one line: the catalogue's words around the engine's own figures.
function contractLine(id) {
  const c = contractInfo(id);
  return I18N.has(`contract.${T.meta.ruleset}.${id}.line`) && c.figures ? I18N.line(T.meta.ruleset, id, c.figures)
    : c.description;
}
// A figure as the score sheet writes it: a true minus, and a plus sign in classic Barbu only.
function signed(n) { return I18N.points(n, !T.meta || T.meta.ruleset === "classic"); }
function winnersText(winners) { return t("table.winners", { n: winners.length, names: winners.map(seatName).join(", ") }); }
function suitText(s) { return `${SUIT_SYMBOL[s]} (${t(`table.suit.${s}`)})`; }

// A seat's points so far in this hand, from the engine; with a double on it, not settled yet.
function pointsText(v, s) {
  if (!v.contract || T.meta.over) return null; // once the game is over, the totals say it all
  const doubled = v.doubles.some(([a, b]) => a === s || b === s);
  const pts = t("table.points", { n: v.points[s], signed: signed(v.points[s]) });
  return doubled ? t("table.before-doubles", { points: pts }) : pts;
}

function kindText(info) {
  if (info.kind === "bot") {
    const level = levelShort(info.level);
    return t("table.kind.bot", { level });
  }
  if (!info.claimed) return t("table.kind.free");
  return info.connected ? t("table.kind.person") : t("table.kind.away");
}

// The figures of a seat, as the score sheet has them: cards left, tricks, this hand, total.
function seatFigures(v, s) {
  const figs = [plural(v.hand_sizes[s], "card")];
  if (kindOf(v) === "tricks") figs.push(plural(v.tricks_won[s], "trick"));
  const pts = pointsText(v, s);
  if (pts) figs.push(pts);
  figs.push(t("table.total", { total: signed(v.totals[s]) }));
  return figs;
}

function render() {
  const v = T.view;
  if (!v) return;
  renderInfo(v);
  renderStatus(v);
  renderOthers();
  renderCenter(v);
  renderMe(v);
  Coach.render(v);
  renderLog(v);
  OwnPace.render(T, send);
  drawn("table");
  OwnPace.landOnDecision(T); // once the table is drawn: a hidden page takes no focus
  if ($("sheet-dialog").open) renderSheet();
}

function renderInfo(v) {
  const m = T.meta;
  const unknown = Boolean(m.damaged && m.damaged.kind === "setup"); // the rest of meta only stands in
  for (const id of ["btn-last", "btn-sheet"]) $(id).hidden = unknown;
  $("btn-rules").href = `/rules/${m.ruleset}`;
  if (unknown) {
    $("info-title").textContent = t("table.rules-unknown");
    fill($("info-contract"));
    return;
  }
  const rules = m.ruleset === "classic" ? t("table.classic") : t("table.family", { n: m.players });
  const handNo = Math.min(v.hand_no + 1, m.num_hands);
  fill($("info-title"), `${rules} · ${t("table.hand-of", { n: handNo, total: m.num_hands })}`
    + (m.rounds ? ` (${t("table.short-game")})` : "")
    + (m.options.length ? ` · ${m.options.map(optionName).join(", ")}` : ""), " · ",
  h("span", { class: "aim" }, m.ruleset === "classic" ? t("table.highest-wins") : t("table.lowest-wins")));
  const parts = [];
  if (v.contract) {
    let text = contractName(v.contract);
    if (v.trump) text = t("table.contract-trump", { contract: text, suit: suitText(v.trump) });
    if (v.start_rank && contractInfo(v.contract).kind === "dominoes") text += `, ${t("table.from-rank", { rank: t(`table.rank.${v.start_rank}`) })}`;
    // What the contract costs, for every seat all hand long: "No Queens: −6 per queen taken".
    parts.push(h("span", { id: "legend", class: "legend" }, h("strong", {}, text), ": ", contractLine(v.contract)));
  }
  parts.push(`${v.contract ? " · " : ""}${t(m.ruleset === "classic" ? "table.declarer-is" : "table.chooser-is", { name: seatName(v.declarer) })}`);
  fill($("info-contract"), ...parts);
  if (v.doubles.length) $("info-contract").append(doubleMarks(v.doubles, v.declarer));
}

// Each pair once, [a, b, redoubled]: where a pair went both ways, the first to speak doubled and
// the other redoubled: a non-declarer before the declarer, otherwise the earlier seat from the
// declarer's left (RULES.md 1.4).
function doublePairs(pairs, declarer) {
  const n = T.meta.players;
  const order = (s) => (s - declarer + n) % n;
  const set = new Set(pairs.map(([a, b]) => `${a},${b}`));
  const out = [];
  for (const [a, b] of pairs) {
    const both = set.has(`${b},${a}`);
    const first = a === declarer ? b : b === declarer ? a : order(a) < order(b) ? a : b;
    if (!both || a === first) out.push([a, b, both]);
  }
  return out;
}

function doubleSentence([a, b, re]) { return t(re ? "table.redoubled" : "table.doubled", { a: seatName(a), b: seatName(b) }); }

function doublesText(pairs, declarer) { return doublePairs(pairs, declarer).map(doubleSentence).join("; "); }

// The doubles at the table as small marks, "Ben × Ann" ("××": redoubled) as on the score sheet,
// in a row that scrolls rather than grows: the hand below stays in view however many there are.
// The short names on a phone; the whole sentence for a screen reader and as each mark's title.
function doubleMarks(pairs, declarer) {
  const names = T.meta.seats.map((x) => x.name);
  const short = shortNames(names);
  const list = h("span", { class: "doubles", role: "list", "aria-label": t("table.doubles-list") },
    doublePairs(pairs, declarer).map((p) => {
      const [a, b, re] = p;
      const sign = re ? "××" : "×";
      return h("span", { class: `dbl${re ? " re" : ""}`, role: "listitem", title: doubleSentence(p) },
        h("span", { class: "dbl-full", "aria-hidden": "true" }, `${names[a]} ${sign} ${names[b]}`),
        h("span", { class: "dbl-short", "aria-hidden": "true" }, `${short[a]} ${sign} ${short[b]}`),
        h("span", { class: "sr-only" }, doubleSentence(p)));
    }));
  // The marks scroll when they outgrow their rows (a phone, long names): then the keyboard can reach
  // them too, to scroll them; where they fit, no extra stop on the way through the page.
  requestAnimationFrame(() => {
    const over = list.scrollWidth > list.clientWidth + 1 || list.scrollHeight > list.clientHeight + 1;
    if (over) list.tabIndex = 0; else list.removeAttribute("tabindex");
  });
  return list;
}

// What the server says now: its newest state, which the page may still be animating its way to.
// The status line and the clocks follow it, so that every screen names the same player at once.
function newest() {
  return T.latest ? { view: T.latest.view, table: T.latest.table, at: T.latest.receivedAt }
    : { view: T.view, table: T.meta, at: T.received };
}

// Seconds left on the table's turn clock for the person to act (null: no clock runs now).
function clockLeft() {
  const { table: m, at } = newest();
  if (!live() || m.over || m.clock_left === null || m.clock_left === undefined) return null;
  return Math.max(0, Math.ceil(m.clock_left - (Date.now() - at) / 1000));
}

// Seconds left before the player to act may be handed to a computer (null: no such limit now).
function idleLeft(s) {
  const { view, table: m, at } = newest();
  const info = m.seats[s];
  if (!live() || m.over || view.current !== s || info.kind !== "human" || !info.claimed) return null;
  if (m.own_pace && !m.own_pace.live) return null; // at your own pace: the deadline, not the idle seconds
  return Math.max(0, Math.ceil(m.idle_seconds - m.turn_age - (Date.now() - at) / 1000));
}

function renderStatus(v) {
  const m = T.meta;
  // The hand just finished stays on show until its summary is closed; else the newest turn is said
  // (a view other than the one on show is said as it is).
  const now = v.closing || v !== T.view ? { view: v, table: m } : newest();
  const cur = now.view;
  const awaited = now.table.awaited;
  let text;
  if (m.damaged) {
    text = t("table.read-only");
  } else if (m.over) {
    text = t("table.game-over", { winners: winnersText(m.winners) });
  } else if (v.closing) {
    text = t("table.hand-over", { n: v.hand_no + 1 });
  } else if (awaited && awaited.length) {
    text = t("table.awaiting", { n: awaited.length, seats: awaited.map((s) => s + 1).join(", ") });
  } else if (cur.current < 0) {
    text = t("table.dealing");
  } else if (cur.current === T.you) {
    text = t("table.your-turn", { task: t(`table.task.${cur.phase}`) });
    if (cur.phase === "play" && cur.ace_extra) text = t("table.ace-extra");
    if (forcedPass(cur)) text = t("table.you-pass");
    const left = idleLeft(T.you);
    const clock = clockLeft();
    if (clock !== null) text += ` — ${t("table.clock-left", { n: clock, level: levelShort(m.turn_clock.level) })}`;
    else if (left && left <= Math.min(20, m.idle_seconds / 2)) text += ` — ${t("table.idle-left", { n: left })}`;
  } else {
    text = t("table.to-act", { name: seatName(cur.current), task: t(`table.task.${cur.phase}`) });
  }
  $("status").textContent = text;
  $("status").classList.toggle("mine", cur.current === T.you && live() && !v.closing);
  renderReplayLinks(m);
  renderFairness(m);
  const banner = $("banner");
  const unknown = m.damaged && m.damaged.kind === "setup"; // no game to show: its rules are not known
  for (const id of ["felt", "others", "center", "me"]) $(id).classList.toggle("unknown", Boolean(unknown));
  $("btn-record").hidden = Boolean(unknown);
  banner.classList.toggle("damaged", Boolean(m.damaged));
  // The status is drawn again every second: the banner only when what it says changes, so that a
  // click on its button never lands on one that was just replaced.
  if (m.damaged) {
    banner.hidden = false;
    fill(banner, damageBanner(m.damaged));
    banner.dataset.shows = "damaged";
  } else if (handedOver()) {
    banner.hidden = false;
    if (banner.dataset.shows !== "reclaim" && banner.dataset.shows !== "taking") {
      fill(banner, t("table.computer-plays-you"), " ",
        h("button", { type: "button", class: "primary", onclick: reclaim }, t("table.take-back")));
      banner.dataset.shows = "reclaim";
    }
  } else if (!T.stopped) {
    banner.hidden = true;
    banner.dataset.shows = "";
  }
}

// The creator's start with computers, said to everyone for the whole game; and a guest's way to count
// the game for the profile this browser has made since.
function renderFairness(m) {
  const note = $("filled");
  const filled = m.filled ? t("table.filled", { n: m.filled.seats.length, by: seatName(m.filled.by),
    seats: m.filled.seats.map((s) => s + 1).join(", ") }) : "";
  if (note.textContent !== filled) {
    note.textContent = filled;
    if (filled && T.filledSeen === false) $("live").textContent = filled; // it happened while we watched
  }
  note.hidden = !filled;
  T.filledSeen = Boolean(filled);
  const you = Friends.profile();
  $("btn-tie").hidden = !(you && T.you !== null && m.seats[T.you].holder === "guest" && live());
}

async function tieSeat() {
  const you = Friends.profile();
  if (!you || !T.token) return;
  $("btn-tie").disabled = true;
  try {
    await Friends.tie(T.id, T.token);
    toast(t("table.tied", { name: you.name }), "info");
  } catch (e) {
    toast(e.message);
  } finally {
    $("btn-tie").disabled = false;
  }
}

// Said at once: the computer's plays made meanwhile are still shown, in order, before the seat is back.
function reclaim() {
  if (!send({ type: "reclaim" })) return;
  fill($("banner"), t("table.taking-back"));
  $("banner").dataset.shows = "taking";
}

// Whether a computer plays your seat now: the newest state says it (the events still being shown
// may be older), so that the banner goes as soon as the seat is back or the game is over.
function handedOver() {
  const m = T.latest ? T.latest.table : T.meta;
  return T.you !== null && m.seats[T.you].kind === "bot" && !m.over; // once over, nothing to take back
}

// Seats clockwise from the bottom (you, or seat 1 for a spectator): next to play sits on your left.
function bottomSeat() { return T.you === null ? 0 : T.you; }
function place(s) {
  const n = T.meta.players;
  const k = (s - bottomSeat() + n) % n;
  const angle = Math.PI / 2 + (2 * Math.PI * k) / n;
  return { k, x: Math.cos(angle), y: Math.sin(angle) };
}

function seatOrder() {
  const n = T.meta.players;
  const out = [];
  for (let k = 0; k < n; k++) {
    const s = (bottomSeat() + k) % n;
    if (s !== T.you) out.push(s);
  }
  return out;
}

function seatBadges(v, s) {
  const m = T.meta;
  const info = m.seats[s];
  const out = [];
  if (s === v.declarer) out.push(h("span", { class: "badge role" }, t(m.ruleset === "classic" ? "table.declarer" : "table.chooser")));
  if (v.phase === "play" && s === v.leader && kindOf(v) === "tricks" && live()) out.push(h("span", { class: "badge lead" }, t("table.leads")));
  out.push(h("span", { class: `badge kind ${info.kind === "bot" ? "bot" : !info.claimed ? "free" : info.connected ? "" : "away"}` }, kindText(info)));
  if (v.out_order.includes(s)) out.push(h("span", { class: "badge" }, t("table.out", { n: v.out_order.indexOf(s) + 1 })));
  return out;
}

function seatBox(v, s, mine = false) {
  const m = T.meta;
  const info = m.seats[s];
  const turn = v.current === s && live();
  const figs = seatFigures(v, s);
  const name = mine ? t("table.you-name", { name: info.name }) : info.name;
  const label = [name, SeatMark.spoken(info.holder), kindText(info), ...figs, turn ? t("table.their-turn") : ""]
    .filter(Boolean).join(", ");
  const box = h("div", { class: `seat${turn ? " turn" : ""}${mine ? " mine" : ""}`, "data-seat": s, role: "group",
    "aria-label": label },
    h("div", { class: "seat-name" }, h("span", { class: "who-name" }, name), SeatMark.mark(info.holder, info.name),
      ...seatBadges(v, s)),
    h("div", { class: "seat-stats", "aria-hidden": "true" }, mine ? figs.join(" · ")
      : [Cards.backs(v.hand_sizes[s]), figs.slice(1).join(" · ")]), // their hand: a back and its count
    v.captured[s].length ? h("div", { class: "captured", "aria-label": t("table.captured") }, v.captured[s].map((c) => cardEl(c, { small: true }))) : null);
  const left = idleLeft(s);
  const clock = newest().view.current === s && s !== T.you ? clockLeft() : null;
  if (clock !== null) {
    box.append(h("div", { class: "countdown clock" }, t("table.clock-left-seat", { n: clock })));
  } else if (left !== null && s !== T.you && left <= Math.min(20, m.idle_seconds / 2) && left > 0) {
    box.append(h("div", { class: "countdown" }, t("table.idle-left-seat", { n: left })));
  }
  if (turn && T.you !== null && s !== T.you && info.kind === "human" && (!info.claimed || left === 0)) {
    box.append(h("button", { type: "button", class: "takeover",
      onclick: () => send({ type: "takeover", seat: s, level: T.defaultLevel }) }, t("table.let-computer")));
  }
  return box;
}

function renderOthers() {
  const v = T.view;
  if (!v || !T.meta) return;
  const felt = $("felt");
  felt.dataset.players = T.meta.players;
  felt.classList.toggle("layout-mode", kindOf(v) !== "tricks" && v.phase === "play");
  fill($("others"), ...seatOrder().map((s) => {
    const box = seatBox(v, s);
    const p = place(s);
    box.classList.add(p.x < -0.3 ? "side-left" : p.x > 0.3 ? "side-right" : p.y < 0 ? "side-top" : "side-bottom");
    box.style.setProperty("--x", p.x.toFixed(3));
    box.style.setProperty("--y", p.y.toFixed(3));
    return box;
  }));
  keepTrickBelowTop();
}

// How far down the top seat's box reaches (its lines wrap by language and width): the trick keeps
// below it (style.css, .trick). Measured again whenever the window changes size.
function keepTrickBelowTop() {
  const top = $("others").querySelector(".seat.side-top");
  $("felt").style.setProperty("--top-clear", `${top ? top.offsetTop + top.offsetHeight : 0}px`);
}
window.addEventListener("resize", keepTrickBelowTop);

// Each card of the trick lies in front of its player, between their seat and the centre; the card
// winning the trick so far wears a star (the words for it are in #trick-state).
function playedEl(s, c, winning = false) {
  const p = place(s);
  return h("div", { class: `played${winning ? " winning" : ""}`, "data-seat": s, style: `--x:${p.x.toFixed(3)};--y:${p.y.toFixed(3)}` },
    cardEl(c), winning ? h("span", { class: "win-mark", "aria-hidden": "true" }, "★") : null,
    h("div", { class: "who" }, s === T.you ? t("table.you") : seatName(s)));
}

// The seat winning a trick so far: the highest trump played, else the highest card of the suit led.
function trickWinner(cards, trump) {
  let best = cards[0];
  for (const x of cards.slice(1)) {
    const [bs, bc] = [best[1][1], x[1][1]];
    if ((bc === bs && RANKS.indexOf(x[1][0]) > RANKS.indexOf(best[1][0])) || (bc === trump && bs !== trump)) best = x;
  }
  return best[0];
}

function winningText(s) { return s === T.you ? t("table.winning-you") : t("table.winning", { name: seatName(s) }); }

// What the trick area shows: the trick under way, the last one asked for, or the finished trick,
// which stays (dimmed, "Taken by …") until the next card is led, so that "your turn" never hides it.
function trickOnShow(v) {
  if (T.showLast) return { cards: v.last_trick, caption: v.last_trick.length ? t("table.last-trick") : t("table.no-trick-yet") };
  if (v.trick.length) return { cards: v.trick, caption: null };
  if (T.shownTrick) return { cards: T.shownTrick, caption: T.shownCaption };
  if (v.phase === "play" && v.last_trick.length && !v.closing) {
    return { cards: v.last_trick, caption: t("table.taken-by", { name: seatName(v.leader) }), done: true };
  }
  return { cards: [], caption: null };
}

function renderCenter(v) {
  const kind = kindOf(v);
  const aside = $("set-aside");
  aside.hidden = !v.set_aside.length;
  if (v.set_aside.length) fill(aside, t("table.set-aside"), " ", ...v.set_aside.map((c) => cardEl(c, { small: true })));
  $("btn-last").textContent = T.showLast ? t("table.current-trick") : t("table.last-trick");
  const layout = $("layout");
  const trick = $("trick");
  if (kind === "tricks" || v.phase !== "play") {
    layout.hidden = true;
    trick.hidden = false;
    const { cards, caption, done } = trickOnShow(v);
    const best = cards.length ? trickWinner(cards, v.trump) : null;
    const state = !cards.length ? "" : caption || winningText(best);
    trick.classList.toggle("done", Boolean(done));
    fill(trick, caption ? h("div", { class: "caption", "aria-hidden": "true" }, caption) : null,
      ...cards.map(([s, c]) => playedEl(s, c, s === best)), h("p", { id: "trick-state", class: "sr-only" }, state));
  } else {
    trick.hidden = true;
    layout.hidden = false;
    fill(layout, layoutRanks(), ...LAYOUT_SUITS.map((suit, i) => layoutRow(suit, v.lines[i])));
  }
  renderDecision(v);
}

// The ranks over the layout's columns, in the reader's letters (V D R A in French), so that a gap
// in a row reads as the card it is. Each row says its own span to a screen reader (layoutRow).
function layoutRanks() {
  return h("div", { class: "layout-ranks", "aria-hidden": "true" }, h("span"),
    ...[...RANKS].map((r) => h("span", { "data-rank": r }, t(`rank.${r}`))));
}

function layoutRow(suit, [lo, hi]) {
  const cells = [];
  for (let r = 0; r < 13; r++) {
    const card = RANKS[r] + suit;
    cells.push(lo >= 0 && r >= lo && r <= hi ? cardEl(card, { small: true }) : h("span", { class: "slot" }));
  }
  return h("div", { class: "layout-row", "data-suit": suit, title: t(`table.suit.${suit}`),
    "aria-label": lo < 0 ? t("table.row-empty", { suit: t(`table.suit.${suit}`) })
      : t("table.row", { suit: t(`table.suit.${suit}`), lo: t(`table.rank.${RANKS[lo]}`), hi: t(`table.rank.${RANKS[hi]}`) }) },
  h("span", { class: `row-suit s-${suit} ${suit === "H" || suit === "D" ? "red" : "black"}` }, SUIT_SYMBOL[suit]), ...cells);
}

// The creator of a table still waiting for invited people may start it with computers in their seats.
function startChoice(box) {
  const key = `start:${T.meta.awaited.join(",")}:${I18N.lang}`;
  box.hidden = false;
  if (box.dataset.key === key && box.childElementCount) { setDisabled(box, !T.online); return; }
  box.dataset.key = key;
  fill(box, h("h3", { id: "decision-title" }, t("table.awaiting", { n: T.meta.awaited.length,
    seats: T.meta.awaited.map((s) => s + 1).join(", ") })), h("p", { class: "help" }, t("table.start-help")),
  h("div", { class: "choices" }, h("button", { type: "button", class: "primary", id: "start-now",
    onclick: () => send({ type: "start", level: T.defaultLevel }) }, t("table.start-now"))));
  setDisabled(box, !T.online);
}

function renderDecision(v) {
  const box = $("decision");
  if (T.creator && live() && T.meta.awaited && T.meta.awaited.length) { startChoice(box); return; }
  const mine = v.current === T.you && T.you !== null && live();
  const kinds = ["choose", "trump", "start_rank", "double", "redouble"];
  if (!mine || !kinds.includes(v.phase) || T.meta.seats[T.you].kind === "bot") {
    box.hidden = true;
    fill(box);
    return;
  }
  box.hidden = false;
  const key = `${v.hand_no}:${v.phase}:${v.history.length}:${I18N.lang}`;
  if (box.dataset.key === key && box.childElementCount) {
    setDisabled(box, !T.online);
    return;
  }
  box.dataset.key = key;
  if (v.phase === "choose") {
    fill(box, h("h3", { id: "decision-title" }, t("table.choose-title")), h("div", { class: "choices contracts" }, v.legal.map((id) => {
      const c = contractInfo(id);
      return h("button", { type: "button", class: `contract${c.positive ? " positive" : ""}`, "data-action": id,
        onclick: () => act(id) }, h("span", { class: "c-name" }, contractName(id)),
      h("span", { class: "c-desc" }, contractLine(id)));
    })));
  } else if (v.phase === "trump") {
    fill(box, h("h3", {}, t("table.trump-title")), h("div", { class: "choices" }, ["S", "H", "D", "C"].map((s) =>
      h("button", { type: "button", class: `suit-choice s-${s} ${s === "H" || s === "D" ? "red" : "black"}`,
        "data-action": `trump ${s}`, onclick: () => act(`trump ${s}`) }, `${SUIT_SYMBOL[s]} ${t(`table.suit.${s}`)}`))));
  } else if (v.phase === "start_rank") {
    fill(box, h("h3", {}, t("table.rank-title")), h("div", { class: "choices" },
      [...RANKS].reverse().map((r) => h("button", { type: "button", "data-action": `rank ${r}`,
        "aria-label": t(`table.rank.${r}`), onclick: () => act(`rank ${r}`) }, rankText(r)))));
  } else {
    fill(box, ...doubleDialog(v));
  }
  Overflow.mark(box);
  setDisabled(box, !T.online);
  // The keyboard starts in the question just asked (Tab and the arrows go on from there).
  const first = box.querySelector("button:not([disabled]), input:not([disabled])");
  if (first && !document.querySelector("dialog[open]")) first.focus({ preventScroll: true });
}

function setDisabled(root, off) {
  for (const el of root.querySelectorAll("button, input")) {
    if (!el.dataset.forced) el.disabled = off;
  }
}

function seatsOf(action) {
  const rest = action.split(" ")[1];
  return rest === "none" ? [] : rest.split(",").map(Number);
}

function doubleDialog(v) {
  const verb = v.phase; // "double" or "redouble"
  const options = v.legal.map(seatsOf);
  const targets = [...new Set(options.flat())].sort((a, b) => a - b);
  const compulsory = targets.filter((x) => options.every((o) => o.includes(x)));
  const checks = targets.map((x) => {
    const forced = compulsory.includes(x);
    return h("label", { class: `target${forced ? " compulsory" : ""}` },
      h("input", { type: "checkbox", value: x, checked: forced, disabled: forced, "data-forced": forced ? "1" : null,
        "data-target": x }),
      ` ${seatName(x)}${x === v.declarer ? ` (${t("table.declarer")})` : ""}`,
      forced ? h("span", { class: "badge" }, t("table.compulsory")) : null);
  });
  const submit = () => {
    const chosen = [...$("decision").querySelectorAll("input[data-target]")]
      .filter((x) => x.checked).map((x) => Number(x.value)).sort((a, b) => a - b);
    act(`${verb} ${chosen.length ? chosen.join(",") : "none"}`);
  };
  const note = compulsory.length ? h("p", { class: "note" }, t("table.compulsory-note")) : null;
  const form = h("form", { class: "double-form", onsubmit: (ev) => { ev.preventDefault(); submit(); } },
    h("div", { class: "targets" }, checks),
    h("div", { class: "choices" },
      h("button", { type: "submit", class: "primary", id: "double-submit" }, t(`table.${verb}-button`)),
      compulsory.length ? null : h("button", { type: "button", id: "double-none", onclick: () => act(`${verb} none`) },
        t(`table.no-${verb}`))));
  return [h("h3", {}, t(`table.${verb}-title`)), note, form];
}

function renderMe(v, force = false) {
  const me = $("me");
  if (T.you === null) {
    me.hidden = true;
    $("others").classList.add("all");
    return;
  }
  me.hidden = false;
  const m = T.meta;
  const s = T.you;
  fill($("me-info"), seatBox(v, s, true));
  const playing = v.phase === "play" && v.current === s && m.seats[s].kind === "human" && live() && !forcedPass(v);
  const usable = playing && T.online;
  const legal = new Set(playing ? v.legal : []);
  if (T.pending !== null && T.pending !== viewKey(v)) T.pending = null; // answered: clicks count again
  // Redraw the hand only when it changes, so that a card is not replaced under the pointer.
  const key = JSON.stringify([v.hand, playing ? v.legal : [], v.ace_extra, usable, I18N.lang]);
  if ($("hand").dataset.key === key && !force) return;
  $("hand").dataset.key = key;
  $("hand-said").textContent = ""; // a new turn (or a new hand): the last card refused is history
  const hadFocus = $("hand").contains(document.activeElement);
  const groups = HAND_SUITS.map((suit) => v.hand.filter((c) => c[1] === suit)).filter((g) => g.length);
  let index = 0;
  fill($("hand"), ...groups.map((g) => h("div", { class: "suit-group" }, g.map((c) => {
    const ok = legal.has(c);
    const el = cardEl(c, { button: playing, cls: playing ? (ok ? "legal" : "dim") : "",
      onclick: playing ? () => { if (!ok) whyNot(v, c); else if (T.online) act(c); } : null,
      label: playing ? `${cardName(c)}, ${t(ok ? "table.playable" : "table.not-playable")}` : null });
    if (playing && (!ok || !usable)) el.setAttribute("aria-disabled", "true");
    el.dataset.index = index++;
    if (playing) el.tabIndex = -1;
    return el;
  }))));
  // Your turn to play with nothing else in hand: the keyboard starts on your cards.
  const idle = !document.activeElement || document.activeElement === document.body;
  rove(Math.min(T.handFocus, index - 1), hadFocus || (usable && idle && !document.querySelector("dialog[open]")));
  const acts = [];
  if (playing && legal.has("pass")) {
    acts.push(h("button", { type: "button", class: "primary", "data-action": "pass", disabled: !usable,
      onclick: () => act("pass") }, v.ace_extra ? t("table.stop") : t("table.pass")));
  }
  fill($("hand-actions"), ...acts);
}

// A card that cannot be played says why, in the engine's words for its rule (error.illegal:*), beside
// the hand and to a screen reader; nothing is sent, so no refusal counts against the player.
function whyNot(v, c) {
  const rule = illegalRule(v, c);
  const args = { ruleset: T.meta.ruleset, contract: v.contract, card: c, declarer: seatName(v.declarer) };
  if (v.trick.length) args.led = v.trick[0][1][1];
  if (v.trump) args.trump = v.trump;
  $("hand-said").textContent = I18N.error({ code: `illegal:${rule}`, args });
}

// Which of the engine's rules forbids card ``c`` now, read from the view's legal cards
// (engine/state.py, _why_card_illegal, in the same order).
function illegalRule(v, c) {
  if (kindOf(v) !== "tricks") return "placement";
  if (!v.trick.length) {
    if (c === "KH" && v.legal.some((x) => x[1] === "H")) return "lead-king";
    return T.meta.ruleset === "family" ? "lead-heart-first" : "lead-heart";
  }
  const led = v.trick[0][1][1];
  const follow = v.hand.some((x) => x[1] === led);
  if (v.legal.length === 1 && v.legal[0] === "KH" && T.meta.options.includes("king-first")) return "king-first";
  if (follow && c[1] !== led) return "follow-suit";
  if (v.trump && !follow && c[1] !== v.trump) return "must-trump";
  return "overtrump";
}

// The hand is one tab stop: the arrow keys move across it (roving tabindex), Enter or Space plays.
// On your turn only the playable cards are stops: the keyboard never rests on a card it cannot play.
function stops(cards) {
  const legal = cards.filter((c) => c.classList.contains("legal"));
  return legal.length ? legal : cards;
}

function rove(i, focus) {
  const cards = [...$("hand").querySelectorAll("button.card")];
  if (!cards.length) return;
  const ok = stops(cards);
  const wanted = cards[Math.max(0, Math.min(i, cards.length - 1))];
  // The card asked for, else the first stop after it (the last one before it at the end of the hand).
  const card = ok.includes(wanted) ? wanted
    : ok.find((c) => cards.indexOf(c) > cards.indexOf(wanted)) || ok[ok.length - 1];
  const at = cards.indexOf(card);
  cards.forEach((c, k) => { c.tabIndex = k === at ? 0 : -1; });
  T.handFocus = at;
  if (focus) card.focus({ preventScroll: true });
}

function handKeys(ev) {
  const cards = [...$("hand").querySelectorAll("button.card")];
  const ok = stops(cards);
  const i = ok.indexOf(document.activeElement);
  if (cards.indexOf(document.activeElement) < 0) return;
  // The arrows go round: past the last card to the first, so that a playable card is always near.
  const n = ok.length;
  const from = i < 0 ? 0 : i;
  const moves = { ArrowRight: (from + 1) % n, ArrowDown: (from + 1) % n, ArrowLeft: (from - 1 + n) % n,
    ArrowUp: (from - 1 + n) % n, Home: 0, End: n - 1 };
  if (!(ev.key in moves)) return;
  ev.preventDefault();
  rove(cards.indexOf(ok[moves[ev.key]]), true);
}


// ---------------------------------------------------------------- replay (after the game)

// A finished game offers its replay, and a seated person the analysis of their own cards: the
// replay page finds this seat's token where this page keeps it (localStorage barbu.mine).
function renderReplayLinks(m) {
  const over = m.over && !m.damaged;
  $("btn-replay").hidden = !over || T.solo; // the replay page is the server's
  $("btn-replay").href = `/replay/${T.id}`;
  $("btn-analyse").hidden = !over || T.you === null || !T.token;
  $("btn-analyse").href = `/replay/${T.id}?analyse=1`;
}

function replayLinks() {
  const mine = T.you !== null && T.token;
  return h("p", { class: "replay-links" }, h("a", { class: "button", href: `/replay/${T.id}` }, t("table.replay")), " ",
    mine ? h("a", { class: "button", href: `/replay/${T.id}?analyse=1` }, t("table.analyse-mine")) : null);
}

// ---------------------------------------------------------------- score sheet

function openSheet() {
  renderSheet();
  if (!$("sheet-dialog").open) $("sheet-dialog").showModal();
}

// Short names and short doubles: the shared sheet's (sheetview.js), kept here under their names.
function shortNames(names) { return SheetView.shortNames(names); }

// Pairs [a, b] (a doubled b; b→a too when b redoubled) as the sheet's [a, b, redoubled], each once.
function doublesShort(pairs) {
  const set = new Set(pairs.map(([a, b]) => `${a},${b}`));
  return pairs.filter(([a, b]) => !(set.has(`${b},${a}`) && a > b)).map(([a, b]) => [a, b, set.has(`${b},${a}`)]);
}

// The table's hands in the shared sheet's form: one drawing for the table and the score keeper.
function sheetModel() {
  const m = T.meta;
  const running = new Array(m.players).fill(0);
  const rows = T.results.map((r) => {
    r.scores.forEach((x, i) => { running[i] += x; });
    return { hand: r.hand_no, contract: r.contract, trump: r.trump, start_rank: r.start_rank, declarer: r.declarer,
             doubles: doublesShort(r.doubles), scores: r.scores, totals: [...running] };
  });
  return { ruleset: m.ruleset, names: m.seats.map((x) => x.name), holders: m.seats.map((x) => x.holder), rows, totals: T.view.totals,
           winners: m.winners, over: m.over, hands: m.num_hands };
}

function renderSheet() {
  if (!T.view || !T.meta || !T.results) return;
  const model = sheetModel();
  const parts = [...SheetView.table(model), SheetView.chart(model)];
  if (!T.results.length) parts.unshift(h("p", { class: "muted" }, t("sheet.no-hands")));
  if (model.over) {
    const names = model.winners.map((i) => model.names[i]).join(", ");
    parts.unshift(h("p", { class: "winner-line" }, t(`sheet.winners.${model.ruleset}`, { n: model.winners.length, names })));
    if (!T.meta.damaged && !T.solo) parts.splice(1, 0, replayLinks());  // the end-of-game screen offers the replay
  }
  fill($("sheet"), ...parts);
}

// The tutorial's entry in the lobby: the lessons left, as the profile (signed in) or this browser
// (a guest: learn.js keeps them) says.
async function renderLearn() {
  try {
    const data = await api("/api/learn");
    const mine = new Set(recall("barbu.learn.done") || []);
    const left = data.signed_in ? data.left : data.lessons.filter((x) => !mine.has(x.id)).length;
    $("learn-left").textContent = left ? t("learn.left", { n: left, total: data.total }) : t("learn.all-done");
  } catch (e) { /* the lobby works without it */ }
}

// ---------------------------------------------------------------- start

// The page's words first (the reader's language), then the lobby or the table.
async function main() {
  try {
    await I18N.load();
  } catch (e) {
    console.error(e); // no catalogue: the page still works, showing each string's key
  }
  $("lang-slot").append(I18N.switcher());
  YourMove.start();
  const match = location.pathname.match(/^\/table\/([A-Za-z0-9_-]+)$/);
  if (match) showTable(match[1]);
  else if (Solo.here()) {
    T.solo = true;
    for (const id of ["profile-link", "ladder-link", "chat"]) $(id).hidden = true; // they need a server
    OwnPace.landOnFirstDecision(); // the keyboard starts on the game, not ten tabs above it
    showTable("solo");
  }
  else if (location.pathname === "/profile") Friends.showProfile();
  else showLobby();
}

main();
