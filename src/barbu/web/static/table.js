// Barbu in the browser: the lobby and the card table. The server decides everything; this page
// only shows the view it is sent and sends back what the player clicks.
"use strict";

const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const HAND_SUITS = ["S", "H", "C", "D"]; // black and red alternate
const LAYOUT_SUITS = ["S", "H", "D", "C"];
const RANKS = "23456789TJQKA";
const PHASE_TASK = {
  choose: "choose a contract", trump: "name the trump suit", start_rank: "name the starting rank",
  double: "double", redouble: "redouble", play: "play", deal: "deal", game_over: "",
};

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

function cardEl(card, opts = {}) {
  const suit = card[1];
  const red = suit === "H" || suit === "D";
  const cls = ["card", red ? "red" : "black", opts.small ? "small" : "", opts.cls || ""].join(" ");
  const label = `${rankText(card[0])}${SUIT_SYMBOL[suit]}`;
  const tag = opts.onclick ? "button" : "span";
  return h(tag, { class: cls, "data-card": card, title: label, onclick: opts.onclick,
                  type: opts.onclick ? "button" : null },
    h("span", { class: "rank" }, rankText(card[0])), h("span", { class: "suit" }, SUIT_SYMBOL[suit]));
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

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
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

async function showLobby() {
  $("lobby").hidden = false;
  const saved = recall("barbu.name");
  if (saved) $("create-name").value = saved;
  try {
    [lobby.info, lobby.rules] = await Promise.all([api("/api/info"), api("/api/rules/classic")]);
  } catch (e) {
    toast(t("lobby.unreachable", { why: e.message }));
    return;
  }
  renderCreateForm();
  refreshTables();
  for (const el of document.querySelectorAll("input[name=ruleset]")) el.addEventListener("change", renderCreateForm);
  $("create-players").addEventListener("change", renderCreateForm);
  $("create-form").addEventListener("submit", createTable);
  $("refresh-list").addEventListener("click", refreshTables);
}

function ruleset() { return document.querySelector("input[name=ruleset]:checked").value; }

function levelName(level) { return I18N.has(`level.${level}.name`) ? t(`level.${level}.name`) : level; }
function levelLine(level) { return I18N.has(`level.${level}.line`) ? t(`level.${level}.line`) : ""; }

// The chosen rule set's rules page and, for family Barbu, who wins: said where the rules are chosen.
function renderRulesetNotes(family) {
  $("family-note").hidden = !family;
  $("ruleset-rules").href = `/rules/${family ? "family" : "classic"}`;
  $("ruleset-rules").textContent = t("lobby.read-rules-of", { ruleset: t(`ruleset.${family ? "family" : "classic"}`) });
}

function renderOptions(box) {
  if (box.querySelector("input")) return;
  for (const o of lobby.info.options) {
    // An option that changes a contract's figures (dominoes-40) names the new ones.
    const changed = Object.values(lobby.rules.options[o.id] || {})[0] || {};
    const args = Object.fromEntries(Object.entries(changed).map(([k, n]) => [k, I18N.points(n, true)]));
    const help = I18N.has(`option.${o.id}`) ? t(`option.${o.id}`, args) : o.help;
    box.append(h("label", { class: "option" }, h("input", { type: "checkbox", name: "option", value: o.id }),
      ` ${o.id}`, h("span", { class: "help" }, help)));
  }
}

// One seat's choice: a computer of some level or a friend, with what the chosen level does.
function seatChoice(i, value) {
  const id = `seat-${i}`;
  const help = h("p", { class: "help level-line", id: `${id}-help`, "aria-live": "polite" });
  const sel = h("select", { "data-seat": i, id, "aria-describedby": `${id}-help` },
    lobby.info.levels.map((l) => h("option", { value: `bot:${l}` }, t("lobby.computer", { level: levelName(l) }))),
    h("option", { value: "human" }, t("lobby.friend")));
  sel.value = value;
  const explain = () => {
    help.textContent = sel.value === "human" ? t("lobby.friend-line") : levelLine(sel.value.slice(4));
  };
  sel.addEventListener("change", explain);
  explain();
  return h("div", { class: "seat-choice" }, h("label", { for: id }, t("lobby.seat", { n: i + 1 })), sel, help);
}

function renderCreateForm() {
  const family = ruleset() === "family";
  $("players-label").hidden = !family;
  renderRulesetNotes(family);
  const players = family ? Number($("create-players").value) : 4;
  const opts = $("options-box");
  opts.hidden = family;
  renderOptions(opts);
  const box = $("seats-box");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  fill(box, h("legend", {}, t("lobby.other-seats")));
  for (let i = 1; i < players; i++) box.append(seatChoice(i, before[i - 1] || `bot:${lobby.info.default_level}`));
}

async function createTable(ev) {
  ev.preventDefault();
  const name = $("create-name").value.trim();
  remember("barbu.name", name);
  const family = ruleset() === "family";
  const players = family ? Number($("create-players").value) : 4;
  const seats = [{ kind: "human" }];
  for (const sel of $("seats-box").querySelectorAll("select")) {
    seats.push(sel.value === "human" ? { kind: "human" } : { kind: "bot", level: sel.value.slice(4) });
  }
  const options = family ? [] : [...document.querySelectorAll("input[name=option]:checked")].map((x) => x.value);
  $("create-button").disabled = true;
  try {
    const body = { ruleset: ruleset(), players, options, seats, name };
    const seed = new URLSearchParams(location.search).get("seed"); // "/?seed=7": the same deals again
    if (seed && /^[0-9]+$/.test(seed)) body.seed = Number(seed);
    const res = await api("/api/tables", body);
    const links = res.seats.filter((s) => !res.you || s.seat !== res.you.seat);
    remember(`barbu.links.${res.id}`, links);
    const url = res.you.link;
    if (!links.length) { location.href = url; return; }
    const box = $("invites");
    box.hidden = false;
    fill(box, h("h3", {}, t("lobby.send-links")),
      inviteList(links), h("a", { class: "button primary", href: url }, t("lobby.go")));
  } catch (e) {
    toast(e.message);
  } finally {
    $("create-button").disabled = false;
  }
}

function inviteList(links) {
  return h("ul", { class: "invites" }, links.map((l) => {
    const seat = T.meta && T.meta.seats[l.seat];
    if (seat && seat.claimed) return h("li", {}, t("lobby.seat-taken", { n: l.seat + 1, name: seat.name }));
    const full = new URL(l.link, location.href).href;
    const label = t("lobby.seat", { n: l.seat + 1 });
    return h("li", {}, `${label}: `, h("input", { class: "link", value: full, readonly: true, "aria-label": label,
      onclick: (e) => e.target.select() }),
      h("button", { type: "button", onclick: () => navigator.clipboard && navigator.clipboard.writeText(full) },
        t("lobby.copy")));
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
      + (x.options.length ? `, ${x.options.join(" ")}` : "");
  const mark = x.damaged ? h("span", { class: "badge damaged", title: damageText(x.damaged) }, t("lobby.damaged"))
    : x.over ? h("span", { class: "badge" }, t("lobby.finished")) : null;
  const join = x.free_seats && !x.damaged && !x.over
    ? h("button", { type: "button", onclick: () => joinTable(x.id) }, t("lobby.join", { n: x.free_seats })) : null;
  return h("li", { "data-table": x.id }, h("span", { class: "t-names" }, x.names.join(", ")),
    h("span", { class: "muted" }, where), mark, join, h("a", { class: "button", href: `/table/${x.id}` }, t("lobby.watch")));
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
  const name = ($("create-name").value || "").trim() || prompt(t("lobby.name-prompt"));
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
};

// Whether the table is being played: not over, and not damaged (a damaged one is only watched).
function live() { return !T.meta.over && !T.meta.damaged; }

async function downloadRecord(event) {
  // A seat's own deals come with its token, sent as a header so that it stays out of URLs and logs.
  if (!T.token) return;
  event.preventDefault();
  const reply = await fetch(`/api/tables/${T.id}/record`, { headers: { "X-Barbu-Token": T.token } });
  if (!reply.ok) { toast("The record could not be downloaded: try again."); return; }
  const link = h("a", { href: URL.createObjectURL(await reply.blob()), download: `barbu-${T.id}.json` });
  link.click();
  URL.revokeObjectURL(link.href);
}

function showTable(id) {
  T.id = id;
  const params = new URLSearchParams(location.hash.slice(1));
  T.token = params.get("t");
  $("table").hidden = false;
  $("btn-record").href = `/api/tables/${id}/record`;
  $("btn-record").addEventListener("click", downloadRecord);
  $("btn-last").addEventListener("click", () => { T.showLast = !T.showLast; render(); });
  $("btn-sheet").addEventListener("click", openSheet);
  $("sheet-close").addEventListener("click", () => $("sheet-dialog").close());
  $("invite-close").addEventListener("click", () => $("invite-dialog").close());
  const links = recall(`barbu.links.${id}`);
  if (links && links.length) {
    $("btn-invite").hidden = false;
    $("btn-invite").addEventListener("click", () => {
      fill($("invite-links"), inviteList(links));
      $("invite-dialog").showModal();
    });
  }
  $("name-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    T.named = $("seat-name").value.trim();
    remember("barbu.name", T.named);
    $("name-form").hidden = true;
    send({ type: "hello", token: T.token, name: T.named });
  });
  connect();
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${T.id}`);
  T.ws = ws;
  setConn("connecting…");
  ws.onopen = () => {
    T.backoff = 500;
    setConn("");
    send({ type: "hello", token: T.token || null, name: T.named || undefined });
    clearInterval(T.pingTimer);
    T.pingTimer = setInterval(() => send({ type: "ping" }), 25000);
  };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    clearInterval(T.pingTimer);
    if (T.ws !== ws) return;
    if (T.stopped || ev.code === 4404 || ev.code === 4403) { setConn("disconnected"); return; }
    setConn("reconnecting…");
    setTimeout(connect, T.backoff);
    T.backoff = Math.min(T.backoff * 2, 10000);
  };
}

function setConn(text) {
  const el = $("conn");
  el.textContent = text;
  el.hidden = !text;
}

function send(msg) {
  if (T.ws && T.ws.readyState === WebSocket.OPEN) T.ws.send(JSON.stringify(msg));
  else toast("Not connected: trying again…");
}

function act(action) { send({ type: "act", action }); }

function onMessage(msg) {
  if (msg.type === "welcome") {
    T.welcomed = true;
    T.you = msg.you;
    T.defaultLevel = msg.default_level;
    T.meta = msg.table;
    if (msg.token) {
      // Taking a seat through its link gives it a fresh token: the link we came by no longer opens it.
      T.token = msg.token;
      history.replaceState(null, "", `${location.pathname}#t=${msg.token}`);
    }
    // A seated reader's seat boxes are redrawn every second: an idle player's seat can be handed
    // to the computer once their turn has lasted long enough. A spectator's never change by time.
    if (T.you !== null && T.redrawTimer === null) {
      T.redrawTimer = setInterval(() => { if (T.view) renderOthers(); }, 1000);
    }
    if (T.you !== null && T.token) {
      const mine = recall("barbu.mine") || {};
      mine[T.id] = T.token;
      remember("barbu.mine", mine);
    }
  } else if (msg.type === "sheet") {
    onSheet(msg);
  } else if (msg.type === "state") {
    onState(msg);
  } else if (msg.type === "error") {
    onError(msg);
  }
}

function onError(msg) {
  if (msg.code === "name-required") {
    $("name-form").hidden = false;
    $("seat-name").value = recall("barbu.name") || "";
    $("seat-name").focus();
    return;
  }
  if (msg.code === "bad-token") {
    T.stopped = true;
    $("banner").hidden = false;
    fill($("banner"), `${msg.message}. `, h("a", { href: `/table/${T.id}` }, "Watch the table instead"));
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
    $("status").textContent = msg.message;
    return;
  }
  toast(msg.message);
}

function onState(msg) {
  const old = T.view;
  T.meta = msg.table;
  T.last = msg.last;
  T.received = Date.now();
  const view = msg.view;
  // A trick that has just been completed is shown until the next card is played.
  const isCard = msg.last && /^[2-9TJQKA][SHDC]$/.test(msg.last.action);
  if (old && isCard && !view.trick.length) {
    const lt = view.last_trick;
    const done = lt.length && lt[lt.length - 1][1] === msg.last.action
      ? lt : old.trick.concat([[msg.last.seat, msg.last.action]]);
    T.shownTrick = done.length === T.meta.players ? done : null;
    T.shownCaption = msg.last.hand_no === view.hand_no
      ? `Taken by ${seatName(view.leader)}` : `Last trick of hand ${msg.last.hand_no + 1}`;
  } else if (view.trick.length) {
    T.shownTrick = null;
  }
  T.view = view;
  render();
  if (T.meta.over && T.results && T.resultsSeen !== T.results.length) {
    T.resultsSeen = T.results.length;
    openSheet();
  }
}

function onSheet(msg) {
  const before = T.results;
  T.results = msg.results;
  if (before && T.meta && msg.results.length > before.length) {
    const r = msg.results[msg.results.length - 1];
    toast(`Hand ${r.hand_no + 1} (${contractName(r.contract)}): `
      + r.scores.map((s, i) => `${seatName(i)} ${signed(s)}`).join(", "), "info");
  }
  if ($("sheet-dialog").open) renderSheet();
}

function plural(count, noun) { return `${count} ${noun}${count === 1 ? "" : "s"}`; }
function seatName(i) { return T.meta ? T.meta.seats[i].name : `Seat ${i + 1}`; }
function contractInfo(id) { return T.meta.contracts.find((c) => c.id === id) || { id, name: id, kind: "tricks" }; }
function contractName(id) { return contractInfo(id).name; }
function signed(n) { return n > 0 ? `+${n}` : `${n}`; }
function winnersText(winners) { return `Winner${winners.length > 1 ? "s" : ""}: ${winners.map(seatName).join(", ")}`; }

// A seat's figures: "<lead> · N tricks · ±P pts · total T". Before a contract is chosen the other
// seats show their trick count and the reader's own line leaves it out.
function seatStats(v, s, lead, tricksBeforeContract) {
  const stats = [lead];
  if (v.contract ? contractInfo(v.contract).kind === "tricks" : tricksBeforeContract) stats.push(plural(v.tricks_won[s], "trick"));
  if (v.contract && v.points[s]) stats.push(`${signed(v.points[s])} ${Math.abs(v.points[s]) === 1 ? "pt" : "pts"}`);
  stats.push(`total ${signed(v.totals[s])}`);
  return stats.join(" · ");
}

function render() {
  const v = T.view;
  if (!v) return;
  renderInfo(v);
  renderStatus(v);
  renderOthers();
  renderCenter(v);
  renderMe(v);
  if ($("sheet-dialog").open) renderSheet();
}

function renderInfo(v) {
  const m = T.meta;
  const unknown = Boolean(m.damaged && m.damaged.kind === "setup"); // the rest of meta only stands in
  for (const id of ["btn-last", "btn-sheet"]) $(id).hidden = unknown;
  if (unknown) {
    $("info-title").textContent = "Rules unknown: the table's setup cannot be read";
    fill($("info-contract"));
    return;
  }
  const rules = m.ruleset === "classic" ? "Classic" : `Family, ${m.players} players`;
  const handNo = Math.min(v.hand_no + 1, m.num_hands);
  $("info-title").textContent = `${rules} · hand ${handNo} of ${m.num_hands}`
    + (m.options.length ? ` · ${m.options.join(", ")}` : "");
  const parts = [];
  if (v.contract) {
    let text = contractName(v.contract);
    if (v.trump) text += `: ${SUIT_SYMBOL[v.trump]} (${SUIT_NAME[v.trump]})`;
    if (v.start_rank && contractInfo(v.contract).kind === "dominoes") text += `, from the ${rankText(v.start_rank)}`;
    parts.push(h("strong", {}, text));
  }
  parts.push(`${v.contract ? " · " : ""}${m.ruleset === "classic" ? "declarer" : "chooser"}: ${seatName(v.declarer)}`);
  if (v.doubles.length) parts.push(h("span", { class: "doubles" }, ` · ${doublesText(v.doubles, v.declarer)}`));
  fill($("info-contract"), ...parts);
}

function doublesText(pairs, declarer) {
  // Where a pair went both ways, the first to speak doubled and the other redoubled: a non-declarer
  // before the declarer, otherwise the earlier seat from the declarer's left (RULES.md 1.4).
  const n = T.meta.players;
  const order = (s) => (s - declarer + n) % n;
  const set = new Set(pairs.map(([a, b]) => `${a},${b}`));
  const out = [];
  for (const [a, b] of pairs) {
    if (!set.has(`${b},${a}`)) {
      out.push(`${seatName(a)} doubles ${seatName(b)}`);
      continue;
    }
    const first = a === declarer ? b : b === declarer ? a : order(a) < order(b) ? a : b;
    if (a === first) out.push(`${seatName(a)} doubles ${seatName(b)}, redoubled`);
  }
  return out.join("; ");
}

function renderStatus(v) {
  const m = T.meta;
  let text;
  if (m.damaged) {
    text = "This table is read-only: nothing more can be played on it.";
  } else if (m.over) {
    text = `The game is over. ${winnersText(m.winners)}`;
  } else if (v.current < 0) {
    text = "Dealing…";
  } else if (v.current === T.you) {
    text = `Your turn: ${PHASE_TASK[v.phase]}`;
    if (v.phase === "play" && v.ace_extra) text = "You placed an ace: place one more card, or stop";
  } else {
    text = `${seatName(v.current)} is to ${PHASE_TASK[v.phase]}…`;
  }
  $("status").textContent = text;
  $("status").classList.toggle("mine", v.current === T.you && live());
  const banner = $("banner");
  const unknown = m.damaged && m.damaged.kind === "setup"; // no game to show: its rules are not known
  for (const id of ["others", "center", "me"]) $(id).classList.toggle("unknown", Boolean(unknown));
  $("btn-record").hidden = Boolean(unknown);
  banner.classList.toggle("damaged", Boolean(m.damaged));
  if (m.damaged) {
    banner.hidden = false;
    fill(banner, damageBanner(m.damaged));
  } else if (T.you !== null && m.seats[T.you].kind === "bot") {
    banner.hidden = false;
    fill(banner, "A computer is playing your seat. ",
      h("button", { type: "button", class: "primary", onclick: () => send({ type: "reclaim" }) }, "Take it back"));
  } else if (!T.stopped) {
    banner.hidden = true;
  }
}

function seatOrder() {
  const n = T.meta.players;
  const start = T.you === null ? 0 : T.you + 1;
  const out = [];
  for (let k = 0; k < n; k++) {
    const s = (start + k) % n;
    if (s !== T.you) out.push(s);
  }
  return out;
}

function seatBox(v, s) {
  const m = T.meta;
  const info = m.seats[s];
  const turn = v.current === s && live();
  const badges = [];
  if (s === v.declarer) badges.push(h("span", { class: "badge" }, m.ruleset === "classic" ? "declarer" : "chooser"));
  if (info.kind === "bot") badges.push(h("span", { class: "badge bot" }, `computer ${info.level}`));
  else if (!info.claimed) badges.push(h("span", { class: "badge free" }, "free seat"));
  else if (!info.connected) badges.push(h("span", { class: "badge away" }, "away"));
  if (v.out_order.includes(s)) badges.push(h("span", { class: "badge" }, `out ${v.out_order.indexOf(s) + 1}`));
  const box = h("div", { class: `seat${turn ? " turn" : ""}`, "data-seat": s },
    h("div", { class: "seat-name" }, info.name, ...badges),
    h("div", { class: "seat-stats" }, seatStats(v, s, plural(v.hand_sizes[s], "card"), true)),
    v.captured[s].length ? h("div", { class: "captured" }, v.captured[s].map((c) => cardEl(c, { small: true }))) : null);
  if (turn && T.you !== null && s !== T.you && info.kind === "human") {
    const age = m.turn_age + (Date.now() - T.received) / 1000;
    if (!info.claimed || age >= m.idle_seconds) {
      box.append(h("button", { type: "button", class: "takeover",
        onclick: () => send({ type: "takeover", seat: s, level: T.defaultLevel }) }, "Let the computer play"));
    }
  }
  return box;
}

function renderOthers() {
  const v = T.view;
  if (!v || !T.meta) return;
  fill($("others"), ...seatOrder().map((s) => seatBox(v, s)));
}

function renderCenter(v) {
  const kind = v.contract ? contractInfo(v.contract).kind : "tricks";
  const aside = $("set-aside");
  aside.hidden = !v.set_aside.length;
  if (v.set_aside.length) fill(aside, "Set aside: ", ...v.set_aside.map((c) => cardEl(c, { small: true })));
  $("btn-last").textContent = T.showLast ? "Current trick" : "Last trick";
  const layout = $("layout");
  const trick = $("trick");
  if (kind === "tricks" || v.phase !== "play") {
    layout.hidden = true;
    trick.hidden = false;
    let cards = v.trick;
    let caption = null;
    if (T.showLast) {
      cards = v.last_trick;
      caption = cards.length ? "Last trick" : "No trick yet in this hand";
    } else if (!cards.length && T.shownTrick) {
      cards = T.shownTrick;
      caption = T.shownCaption;
    }
    fill(trick,
      caption ? h("div", { class: "caption" }, caption) : null,
      ...cards.map(([s, c]) => h("div", { class: "played" }, cardEl(c), h("div", { class: "who" }, seatName(s)))));
  } else {
    trick.hidden = true;
    layout.hidden = false;
    fill(layout, ...LAYOUT_SUITS.map((suit, i) => layoutRow(suit, v.lines[i])));
  }
  renderDecision(v);
}

function layoutRow(suit, [lo, hi]) {
  const cells = [];
  for (let r = 0; r < 13; r++) {
    const card = RANKS[r] + suit;
    cells.push(lo >= 0 && r >= lo && r <= hi ? cardEl(card, { small: true }) : h("span", { class: "slot" }));
  }
  return h("div", { class: "layout-row", "data-suit": suit, title: SUIT_NAME[suit] },
    h("span", { class: `row-suit ${suit === "H" || suit === "D" ? "red" : "black"}` }, SUIT_SYMBOL[suit]), ...cells);
}

function renderDecision(v) {
  const box = $("decision");
  const mine = v.current === T.you && T.you !== null && live();
  const kinds = ["choose", "trump", "start_rank", "double", "redouble"];
  if (!mine || !kinds.includes(v.phase) || T.meta.seats[T.you].kind === "bot") {
    box.hidden = true;
    fill(box);
    return;
  }
  box.hidden = false;
  const key = `${v.hand_no}:${v.phase}:${v.history.length}`;
  if (box.dataset.key === key && box.childElementCount) return;
  box.dataset.key = key;
  if (v.phase === "choose") {
    fill(box, h("h3", {}, "Choose a contract"), h("div", { class: "choices" }, v.legal.map((id) => {
      const c = contractInfo(id);
      return h("button", { type: "button", class: `contract${c.positive ? " positive" : ""}`, "data-action": id,
        onclick: () => act(id) }, h("span", { class: "c-name" }, c.name),
        c.description ? h("span", { class: "c-desc" }, c.description) : null);
    })));
  } else if (v.phase === "trump") {
    fill(box, h("h3", {}, "Trump suit"), h("div", { class: "choices" }, ["S", "H", "D", "C"].map((s) =>
      h("button", { type: "button", class: `suit-choice ${s === "H" || s === "D" ? "red" : "black"}`,
        "data-action": `trump ${s}`, onclick: () => act(`trump ${s}`) }, `${SUIT_SYMBOL[s]} ${SUIT_NAME[s]}`))));
  } else if (v.phase === "start_rank") {
    fill(box, h("h3", {}, "Dominoes: starting rank"), h("div", { class: "choices" },
      [...RANKS].reverse().map((r) => h("button", { type: "button", "data-action": `rank ${r}`,
        onclick: () => act(`rank ${r}`) }, rankText(r)))));
  } else {
    fill(box, ...doubleDialog(v));
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
  const compulsory = targets.filter((t) => options.every((o) => o.includes(t)));
  const checks = targets.map((t) => {
    const forced = compulsory.includes(t);
    return h("label", { class: `target${forced ? " compulsory" : ""}` },
      h("input", { type: "checkbox", value: t, checked: forced, disabled: forced, "data-target": t }),
      ` ${seatName(t)}${t === v.declarer ? " (declarer)" : ""}`,
      forced ? h("span", { class: "badge" }, "compulsory") : null);
  });
  const submit = () => {
    const chosen = [...$("decision").querySelectorAll("input[data-target]")]
      .filter((x) => x.checked).map((x) => Number(x.value)).sort((a, b) => a - b);
    act(`${verb} ${chosen.length ? chosen.join(",") : "none"}`);
  };
  const title = verb === "double" ? "Double" : "Redouble the players who doubled you";
  const note = compulsory.length
    ? h("p", { class: "note" }, "You still owe this declarer doubles: doubling the declarer is compulsory this hand.")
    : null;
  return [h("h3", {}, title), note, h("div", { class: "targets" }, checks),
    h("div", { class: "choices" },
      h("button", { type: "button", class: "primary", id: "double-submit", onclick: submit }, verb === "double" ? "Double" : "Redouble"),
      compulsory.length ? null : h("button", { type: "button", id: "double-none", onclick: () => act(`${verb} none`) },
        verb === "double" ? "No double" : "No redouble"))];
}

function renderMe(v) {
  const me = $("me");
  if (T.you === null) {
    me.hidden = true;
    $("others").classList.add("all");
    return;
  }
  me.hidden = false;
  const m = T.meta;
  const s = T.you;
  fill($("me-info"), h("span", { class: v.current === s && live() ? "turn-dot" : "" }, seatStats(v, s, `${m.seats[s].name} (you)`, false)),
    v.captured[s].length ? h("span", { class: "captured" }, v.captured[s].map((c) => cardEl(c, { small: true }))) : null);
  const playing = v.phase === "play" && v.current === s && m.seats[s].kind === "human" && live();
  const legal = new Set(playing ? v.legal : []);
  // Redraw the hand only when it changes, so that a card is not replaced under the pointer.
  const key = JSON.stringify([v.hand, playing ? v.legal : [], v.ace_extra]);
  if ($("hand").dataset.key === key) return;
  $("hand").dataset.key = key;
  const groups = HAND_SUITS.map((suit) => v.hand.filter((c) => c[1] === suit)).filter((g) => g.length);
  fill($("hand"), ...groups.map((g) => h("div", { class: "suit-group" }, g.map((c) => {
    if (!playing) return cardEl(c);
    return legal.has(c) ? cardEl(c, { cls: "legal", onclick: () => act(c) }) : cardEl(c, { cls: "dim" });
  }))));
  const acts = [];
  if (playing && legal.has("pass")) {
    acts.push(h("button", { type: "button", class: "primary", "data-action": "pass", onclick: () => act("pass") },
      v.ace_extra ? "Stop (no more card)" : "Pass"));
  }
  fill($("hand-actions"), ...acts);
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
  return { ruleset: m.ruleset, names: m.seats.map((x) => x.name), rows, totals: T.view.totals,
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
  }
  fill($("sheet"), ...parts);
}

// ---------------------------------------------------------------- start

// The page's words first (the reader's language), then the lobby or the table.
async function main() {
  await I18N.load();
  $("lang-slot").append(I18N.switcher());
  const match = location.pathname.match(/^\/table\/([A-Za-z0-9_-]+)$/);
  if (match) showTable(match[1]);
  else showLobby();
}

main();
