// The score keeper page (/score): start a sheet, enter each hand as counted, see the sheet and chart.
// The server checks and scores everything (the engine's rules): this page only asks it and draws the
// answers, after its own checks that the hand is whole and adds up (scorecheck.js). Entries wait in
// localStorage while the server cannot be reached, and are sent when it can; so does the hand being
// entered (a change of language reloads the page), and a service worker keeps the page itself.
"use strict";

const $ = id => document.getElementById(id);
const SUITS = [["S", "♠", "spades"], ["H", "♥", "hearts"], ["D", "♦", "diamonds"], ["C", "♣", "clubs"]];
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
const COLOURS = SheetView.COLOURS;
const LS_SHEETS = "barbu-score-sheets";
const RETRY_MS = 2000;

const S = {
  id: null, token: null, view: null, mode: "add", k: 0, frame: null, draft: null,
  checkTimer: null, checkSeq: 0, ok: false, offline: false, flushing: false, retryTimer: null,
};

// -- small helpers ---------------------------------------------------------------------------

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "on") Object.entries(v).forEach(([t, f]) => e.addEventListener(t, f));
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

function signed(x) { return x > 0 ? `+${x}` : x < 0 ? `−${-x}` : "0"; }
function load(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; }
}
function store(key, value) { localStorage.setItem(key, JSON.stringify(value)); }

let toastTimer = null;
function toast(text, kind = "error") {
  const box = $("toast");
  box.textContent = text;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 5000);
}

// Ids for entries: one client id per device and a counter, so that a resend is known as such.
function nextEntry() {
  let client = localStorage.getItem("barbu-score-client");
  if (!client) {
    client = Math.random().toString(36).slice(2, 12);
    localStorage.setItem("barbu-score-client", client);
  }
  const n = Number(localStorage.getItem("barbu-score-seq") || 0) + 1;
  localStorage.setItem("barbu-score-seq", String(n));
  return `${client}:${n}`;
}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (S.token) headers["X-Barbu-Token"] = S.token;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  return { status: res.status, ok: res.ok, data };
}

// -- the device's list of sheets ---------------------------------------------------------------

function mySheets() { return load(LS_SHEETS, []); }

function remember(view) {
  const list = mySheets().filter(s => s.id !== view.id);
  const old = mySheets().find(s => s.id === view.id) || {};
  list.unshift({ id: view.id, token: S.token || old.token || null, names: view.names,
                 hands: (view.sheet.hands || []).length, at: old.at || Date.now() });
  store(LS_SHEETS, list.slice(0, 50));
}

function renderMySheets() {
  const ul = $("my-sheets");
  ul.replaceChildren();
  const list = mySheets();
  if (!list.length) ul.append(el("li", { class: "muted" }, t("score.none-yet")));
  for (const s of list) {
    const link = `/score/${s.id}` + (s.token ? `#k=${s.token}` : "");
    const when = I18N.date(s.at / 1000, { year: true });
    ul.append(el("li", {},
      el("span", { class: "who" }, el("b", {}, s.names.join(", ")), el("br"),
         el("span", { class: "muted small" }, `${when} · ${t("score.hands", { n: s.hands })}${s.token ? "" : ` · ${t("score.read-only")}`}`)),
      el("a", { class: "button", href: link }, t("score.open"))));
  }
}

// -- starting a sheet --------------------------------------------------------------------------

function startForm() {
  const form = $("start-form");
  const players = () => form.ruleset.value === "classic" ? 4 : Number($("start-players").value);
  const redraw = () => {
    $("players-row").hidden = form.ruleset.value === "classic";
    $("family-note").hidden = form.ruleset.value === "classic";
    $("options-row").hidden = form.ruleset.value !== "classic";
    const box = $("name-inputs");
    const old = [...box.querySelectorAll("input")].map(i => i.value);
    box.replaceChildren(...Array.from({ length: players() }, (_, i) =>
      el("input", { "aria-label": t("score.player", { n: i + 1 }), placeholder: t("score.player", { n: i + 1 }), maxlength: 24,
                    required: true, value: old[i] || "", on: { input: redrawFirst } })));
    redrawFirst();
  };
  const redrawFirst = () => {
    const sel = $("start-first");
    const keep = sel.value;
    const names = [...$("name-inputs").querySelectorAll("input")].map((x, i) => x.value.trim() || t("score.player", { n: i + 1 }));
    sel.replaceChildren(el("option", { value: "random" }, t("score.draw")),
                        ...names.map((n, i) => el("option", { value: String(i) }, n)));
    if ([...sel.options].some(o => o.value === keep)) sel.value = keep;
  };
  form.addEventListener("change", e => { if (e.target.name === "ruleset" || e.target.id === "start-players") redraw(); });
  form.addEventListener("submit", e => { e.preventDefault(); startSheet(players()); });
  redraw();
  optionText();
}

// The one option that changes the count, with the figures it pays (the engine's, from the server).
async function optionText() {
  try {
    const rules = await (await fetch("/api/rules/classic")).json();
    const figures = rules.options["dominoes-40"].dominoes;
    const args = Object.fromEntries(Object.entries(figures).map(([k, n]) => [k, I18N.points(n, true)]));
    $("opt-dominoes-40-text").textContent = t("option.dominoes-40", args);
  } catch { /* offline: the flag's name stays */ }
}

async function startSheet(players) {
  const form = $("start-form");
  const first = $("start-first").value;
  const body = {
    ruleset: form.ruleset.value, players,
    options: form.ruleset.value === "classic" && $("opt-dominoes-40").checked ? ["dominoes-40"] : [],
    names: [...$("name-inputs").querySelectorAll("input")].map(i => i.value),
    first_declarer: first === "random" ? "random" : Number(first),
  };
  let res;
  try { res = await api("POST", "/api/sheets", body); } catch {
    return showStartError(t("score.start-offline"));
  }
  if (!res.ok) return showStartError(res.data?.error ? I18N.error(res.data.error) : t("score.refused-status", { status: res.status }));
  S.token = res.data.token;
  remember(res.data.view);
  location.href = res.data.link;
}

function showStartError(text) {
  $("start-error").textContent = text;
  $("start-error").hidden = false;
}

// -- the queue of entries not yet stored on the server ---------------------------------------

function queueKey() { return `barbu-score-queue-${S.id}`; }
function queue() { return load(queueKey(), []); }
function saveQueue(q) { store(queueKey(), q); }

async function flush() {
  if (S.flushing) return;
  S.flushing = true;
  clearTimeout(S.retryTimer);
  try {
    let q = queue();
    while (q.length && !q[0].refused) {
      const op = q[0];
      let res;
      try { res = await api(op.method, op.path, op.body); } catch { res = null; }
      if (res === null || res.status >= 500) {
        setOffline(true, res?.data?.error ? I18N.error(res.data.error) : undefined);  // e.g. storage
        S.retryTimer = setTimeout(retry, RETRY_MS);
        return;
      }
      q = queue();
      if (res.ok) {
        q.shift();
        saveQueue(q);
        setView(res.data);
      } else {
        q[0].refused = res.data?.error || { message: t("score.refused-status", { status: res.status }) };
        saveQueue(q);
      }
    }
    setOffline(false);
  } finally {
    S.flushing = false;
    showConn();
  }
}

async function retry() {
  if (queue().length) {
    await flush();
    if (!S.offline) renderAll(true);
    return;
  }
  await reload(true);
}

function setOffline(off, why) {
  const was = S.offline;
  S.offline = off;
  showConn(why);
  if (off && !was) scheduleCheck();
}

function showConn(why) {
  const waiting = queue().filter(op => !op.refused).length;
  const c = $("conn");
  let text = "";
  if (S.offline) {
    text = why && !/reach/.test(why) ? t("score.server-trouble", { why }) : t("score.offline");
    if (waiting) text += ` — ${t("score.waiting-n", { n: waiting })}`;
  } else if (waiting) text = t("score.sending", { n: waiting });
  c.textContent = text;
  c.hidden = !text;
  c.classList.toggle("offline", S.offline);
}

// -- loading and drawing the sheet ---------------------------------------------------------------

function setView(view) {
  S.view = view;
  store(`barbu-score-view-${S.id}`, view);
  remember(view);
}

async function reload(quiet = false) {
  let res;
  try { res = await api("GET", `/api/sheets/${S.id}`); } catch { res = null; }
  if (res === null || res.status >= 500) {
    setOffline(true);
    S.retryTimer = setTimeout(retry, RETRY_MS * 2);
    if (!S.view) S.view = load(`barbu-score-view-${S.id}`, null);
    if (S.view && !quiet) renderAll(true);
    if (!S.view) $("rows").replaceChildren(el("p", {}, t("score.never-opened")));
    return;
  }
  if (!res.ok) { toast(res.data?.error ? I18N.error(res.data.error) : t("score.cannot-open")); return; }
  setOffline(false);
  setView(res.data);
  await flush();
  renderAll(!quiet || S.mode === "add");
}

function renderAll(freshEntry) {
  const v = S.view;
  renderScorebar(v);
  renderRows(v);
  renderChart(v);
  renderExports(v);
  $("readonly-note").hidden = v.writable;
  $("undo").hidden = !v.writable || !v.rows?.length;
  if ($("undo").hidden) $("undo-confirm").hidden = true;
  $("over").hidden = !v.complete;
  $("over").textContent = v.complete ? t(`sheet.winners.${v.ruleset}`, { n: v.winners.length, names: v.winners.map(s => v.names[s]).join(", ") }) : "";
  if (freshEntry) startEntry();
  showConn();
}

function currentDeclarer() { return S.frame?.declarer ?? S.view.next?.declarer; }

function renderScorebar(v) {
  const d = currentDeclarer();
  $("scorebar").replaceChildren(...v.names.map((n, s) => el("div", { class: "p" + (s === d ? " dec" : "") },
    el("div", { class: "n" }, el("span", { class: "swatch", style: `background:${COLOURS[s % 6]}` }), n),
    el("div", { class: "t" }, I18N.points((v.totals || [])[s] || 0, v.ruleset === "classic")))));
}

// The keeper's hands in the shared sheet's form (sheetview.js): the same drawing as at the table.
function sheetModel(v) {
  const rows = (v.rows || []).map(r => ({ ...r, doubles: r.doubles.map(p => [p.from, p.to, p.redoubled]) }));
  return { ruleset: v.ruleset, names: v.names, rows, totals: v.totals || v.names.map(() => 0),
           winners: v.winners || [], over: !!v.complete, hands: v.rotation?.length || 28 };
}

function editButton(k) {
  return el("button", { type: "button", class: "edit", "aria-label": t("score.edit-hand", { n: k + 1 }),
                        on: { click: () => editHand(k) } }, "✎");
}

function renderRows(v) {
  const pending = queue().filter(op => op.kind === "add").map(op => el("tr", { class: "pending" },
    el("th", { class: "sv-what", scope: "row" }, `${op.k + 1}. ${op.label}`,
      el("span", { class: "sv-by" }, op.refused ? t("score.refused", { why: I18N.error(op.refused) }) : t("score.waiting"))),
    ...v.names.map(() => el("td", { class: "num" }, "…"))));
  const [grid, legend] = SheetView.table(sheetModel(v), { edit: v.writable ? editButton : null, extra: pending });
  $("rows").replaceChildren(grid, legend);
}

function renderExports(v) {
  // The PDF and CSV in the reader's language (the JSON document is the same in every language).
  for (const kind of ["pdf", "csv", "json"]) {
    $(`export-${kind}`).href = `/api/sheets/${v.id}/${kind}` + (kind === "json" ? "" : `?lang=${I18N.lang}`);
  }
  $("share-read").value = `${location.origin}/score/${v.id}`;
  $("share-write").value = S.token ? `${location.origin}/score/${v.id}#k=${S.token}` : "";
  $("share-write").parentElement.hidden = !S.token;
}

// -- the chart of the running totals: the shared one (sheetview.js), drawn from the server's totals --

function renderChart(v) {
  $("chart").replaceChildren(SheetView.chart(sheetModel(v), "chart-svg"));
}

// -- the entry form ------------------------------------------------------------------------

function startEntry() {
  const v = S.view;
  const q = queue();
  const refused = q.find(op => op.refused);
  if (!v.writable || v.damaged) { $("entry").hidden = true; return; }
  if (refused) return openRefused(refused);
  if (S.mode === "edit" && S.frame) return renderEntry();
  S.mode = "add";
  const k = (v.rows || []).length + q.filter(op => op.kind === "add").length;
  // A hand being entered when the connection comes back keeps what was tapped so far.
  const keep = S.draft?.contract && S.k === k;
  S.k = k;
  S.frame = q.length ? offlineFrame(k) : v.next;
  $("entry").hidden = !S.frame || S.frame.declarer === null;
  if ($("entry").hidden) return;
  if (!keep) S.draft = keptDraft("add", k) || blankDraft();
  S.draft.doubles = keepAllowed(S.draft.doubles);
  renderEntry();
}

// While hands wait to be sent, the server has not said what the next one allows: the rotation and
// the contracts already declared are known from the sheet, the doubles owed are checked when sent.
function offlineFrame(k) {
  const v = S.view;
  if (k >= v.rotation.length) return null;
  const d = v.rotation[k];
  const used = new Set([...(v.rows || []).filter(r => r.declarer === d).map(r => r.contract),
                        ...queue().filter(op => op.kind === "add" && op.body.data.declarer === d).map(op => op.body.data.contract)]);
  return { hand: k, declarer: d, contracts: v.contracts.map(c => ({ ...c, open: !used.has(c.id) })),
           may_double: v.may_double_by_declarer ? v.may_double_by_declarer[d] : null,
           owed_doubles: null, compulsory: [], owes: [], provisional: true };
}

function blankDraft() { return { contract: null, trump: null, start_rank: null, doubles: [], result: {} }; }

function contractOf(id) { return (S.frame?.contracts || S.view.contracts).find(c => c.id === id); }

function renderEntry() {
  const f = S.frame, v = S.view, names = v.names;
  const title = S.mode === "edit" ? t("score.edit-title", { n: S.k + 1 }) : t("score.hand-of", { n: S.k + 1, of: v.rotation.length });
  $("entry-title").textContent = `${title} — ${t(`score.declares.${v.ruleset}`, { name: names[f.declarer] })}`;
  $("entry-cancel").hidden = S.mode !== "edit" && !S.refusedOp;
  $("entry-cancel").textContent = S.refusedOp ? t("score.discard") : t("score.cancel");
  renderOwes(f, names);
  renderContracts(f);
  renderAsk();
  renderMatrix();
  renderResult();
  scheduleCheck();
}

function renderOwes(f, names) {
  const ul = $("owes");
  const declarer = names[f.declarer];
  const hands = f.hands_left === 1 ? t("score.owes-last", { declarer }) : t("score.owes-left", { declarer, left: f.hands_left });
  const owing = f.may_double === null || f.may_double === undefined ? [] : (f.owed_doubles || [])
    .map((k, seat) => [k, seat]).filter(([k]) => k);
  const items = owing.map(([k, seat]) => el("li", { class: f.compulsory.includes(seat) ? "must" : "" },
    t("score.owes", { name: names[seat], declarer, n: k, hands }) + (f.compulsory.includes(seat) ? ` — ${t("score.compulsory-now")}` : "")));
  if (f.provisional && f.may_double) items.push(el("li", {}, t("score.owes-offline")));
  ul.replaceChildren(...items);
  ul.hidden = !items.length;
}

function renderContracts(f) {
  const box = $("contract-buttons");
  const offered = f.contracts.filter(c => c.open || c.id === S.draft.contract);
  box.replaceChildren(...offered.map(c => el("button", {
    type: "button", class: "pick" + (S.draft.contract === c.id ? " on" : ""), "data-contract": c.id,
    "aria-pressed": String(S.draft.contract === c.id), on: { click: () => chooseContract(c.id) } },
    I18N.has(`contract.${S.view.ruleset}.${c.id}.name`) ? t(`contract.${S.view.ruleset}.${c.id}.name`) : c.name)));
}

function chooseContract(id) {
  const d = S.draft;
  if (d.contract === id) return;
  d.contract = id;
  d.trump = null;
  d.start_rank = null;
  d.result = blankResult(contractOf(id));
  d.doubles = keepAllowed(d.doubles);
  redraw();
}

function blankResult(c) {
  const n = S.view.names.length, r = {};
  for (const f of c.result) {
    if (f === "tricks" || f === "hearts") r[f] = Array(n).fill(0);
    else if (f === "queens") r[f] = { S: null, H: null, D: null, C: null };
    else if (f === "last_tricks") r[f] = S.view.ruleset === "classic" ? [null, null] : [null];
    else if (f === "out") r[f] = [];
    else r[f] = null;
  }
  return r;
}

function redraw() { renderContracts(S.frame); renderAsk(); renderMatrix(); renderResult(); scheduleCheck(); }

function renderAsk() {
  const c = S.draft.contract && contractOf(S.draft.contract);
  const ask = c ? c.asks : null;
  $("step-ask").hidden = !ask;
  $("step-ask").dataset.field = ask || "";
  if (!ask) return;
  $("ask-title").textContent = ask === "trump" ? t("score.trump-suit") : t("score.start-rank");
  const box = $("ask-buttons");
  box.className = "pick-grid" + (ask === "trump" ? " suits" : " ranks");
  const opts = ask === "trump" ? SUITS.map(([id, sym, name]) => [id, el("span", { class: id === "H" || id === "D" ? "red" : "" },
                                                                           el("b", {}, sym), el("small", {}, t(`suit.${id}`)))])
                               : RANKS.map(r => [r, t(`rank.${r}`)]);
  box.replaceChildren(...opts.map(([id, label]) => el("button", {
    type: "button", class: "pick" + (S.draft[ask] === id ? " on" : ""), [`data-${ask === "trump" ? "trump" : "rank"}`]: id,
    on: { click: () => { S.draft[ask] = id; renderAsk(); scheduleCheck(); } } }, label)));
}

// -- the doubles matrix: rows double columns; a pair doubled one way is redoubled the other way -----

function pairIndex(a, b) { return S.draft.doubles.findIndex(p => p[0] === a && p[1] === b); }

function cellState(a, b) {
  const ab = pairIndex(a, b), ba = pairIndex(b, a);
  if (ab >= 0) return ba >= 0 && ba < ab ? "re" : "on";
  if (ba >= 0) return "may-re";
  const may = allowedDoubles();
  return may && may[a].includes(b) ? "may" : "no";
}

function allowedDoubles() {
  const c = S.draft.contract && contractOf(S.draft.contract);
  const m = S.frame.may_double;
  return c && m ? m[c.positive ? "positive" : "negative"] : null;
}

function isLocked(a, b) { return S.frame.compulsory.includes(a) && b === S.frame.declarer; }

function keepAllowed(pairs) {
  const may = allowedDoubles();
  if (!may) return [];
  const kept = [];
  for (const [a, b] of pairs) {
    const doubled = kept.some(p => p[0] === b && p[1] === a);
    if (doubled || may[a].includes(b)) kept.push([a, b]);
  }
  for (const a of S.frame.compulsory) {
    if (!kept.some(p => p[0] === a && p[1] === S.frame.declarer)) kept.push([a, S.frame.declarer]);
  }
  return kept;
}

function tapCell(a, b) {
  const st = cellState(a, b);
  const d = S.draft;
  if (st === "on") {
    if (isLocked(a, b)) return;
    d.doubles = d.doubles.filter(p => !(p[0] === a && p[1] === b) && !(p[0] === b && p[1] === a));
  } else if (st === "re") d.doubles = d.doubles.filter(p => !(p[0] === a && p[1] === b));
  else if (st === "may" || st === "may-re") d.doubles.push([a, b]);
  renderMatrix();
  scheduleCheck();
}

function renderMatrix() {
  const may = allowedDoubles();
  $("step-doubles").hidden = !may;
  if (!may) return;
  const names = S.view.names, n = names.length, dec = S.frame.declarer;
  const head = el("tr", {}, el("th", {}, ""), ...names.map(nm => el("th", { scope: "col" }, nm)));
  const rows = names.map((nm, a) => el("tr", {}, el("th", { class: "row", scope: "row" }, nm),
    ...Array.from({ length: n }, (_, b) => a === b ? el("td", { class: "self" }) : matrixCell(a, b, dec))));
  $("matrix").replaceChildren(head, ...rows);
}

function matrixCell(a, b, dec) {
  const st = cellState(a, b), names = S.view.names;
  const locked = st === "on" && isLocked(a, b);
  const label = { on: "×", re: "××", "may-re": "", may: "", no: "" }[st];
  const what = t(st === "re" || st === "may-re" ? "score.cell-redoubles" : "score.cell-doubles", { a: names[a], b: names[b] });
  const said = locked ? `${what} (${t("score.compulsory-now")})` : what;
  return el("td", {}, el("button", {
    type: "button", class: `cell ${st}${locked ? " must" : ""}`, "data-from": a, "data-to": b,
    disabled: st === "no" || locked, title: said, "aria-label": said,
    "aria-pressed": String(st === "on" || st === "re"),
    on: { click: () => tapCell(a, b) } }, locked ? ["×", el("small", {}, t("score.must"))] : label || { "may-re": "↩", no: "–" }[st] || ""));
}

// -- the result, entered as people count it ------------------------------------------------------

function renderResult() {
  const box = $("step-result");
  const c = S.draft.contract && contractOf(S.draft.contract);
  box.hidden = !c;
  if (!c) return;
  box.replaceChildren(el("h3", {}, t("score.result")), ...c.result.map(f => resultField(f, c)));
}

function resultField(f, c) {
  const names = S.view.names, r = S.draft.result, classic = S.view.ruleset === "classic";
  const wrap = (title, ...kids) => el("div", { class: "step", "data-field": `result.${f}` }, el("div", { class: "sub" }, title), ...kids);
  if (f === "tricks") return wrap(t("score.tricks-each", { n: S.view.hand_size }), counts(f));
  if (f === "hearts") return wrap(classic ? t("score.hearts-each.classic") : t("score.hearts-each.family"), counts(f));
  if (f === "queens") {
    return wrap(t("score.who-queen"), ...SUITS.map(([s, sym]) =>
      el("div", { class: "pick-line" }, el("div", { class: "small" + (s === "H" || s === "D" ? " red" : "") }, `${t("rank.Q")}${sym}`),
         namePicks(r.queens[s], seat => { r.queens[s] = seat; }, `queen-${s}`, S.view.set_aside_count > 0))));
  }
  if (f === "ace_of_hearts") return wrap(t("score.who-ace"), namePicks(r[f], seat => { r[f] = seat; }, "ace"));
  if (f === "king_of_hearts") {
    return wrap(t("score.who-king"), namePicks(r[f], seat => { r[f] = seat; }, "king", c.id === "salad" && S.view.set_aside_count > 0));
  }
  if (f === "last_tricks") {
    const labels = classic ? [t("score.trick-n", { n: 12 }), t("score.trick-n", { n: 13 })] : [t("score.the-last-trick")];
    return wrap(classic ? t("score.who-last-two") : t("score.who-last"), ...labels.map((lab, i) =>
      el("div", { class: "pick-line" }, el("div", { class: "small" }, lab),
         namePicks(r[f][i], seat => { r[f][i] = seat; }, `last-${i}`))));
  }
  if (f === "out") return wrap(t("score.going-out"), outPicks());
  return wrap(f);
}

function counts(f) {
  const r = S.draft.result;
  return el("div", { class: "counts" }, ...S.view.names.map((nm, s) => el("div", { class: "count-row" },
    el("span", { class: "who" }, nm),
    el("button", { type: "button", "aria-label": t("score.one-less", { name: nm }), "data-count": `${f}-${s}-minus`,
                   on: { click: () => bump(f, s, -1) } }, "−"),
    el("output", { "data-count-value": `${f}-${s}` }, String(r[f][s])),
    el("button", { type: "button", "aria-label": t("score.one-more", { name: nm }), "data-count": `${f}-${s}-plus`,
                   on: { click: () => bump(f, s, 1) } }, "+"))));
}

function bump(f, s, by) {
  const r = S.draft.result;
  r[f][s] = Math.max(0, r[f][s] + by);
  document.querySelector(`[data-count-value="${f}-${s}"]`).textContent = String(r[f][s]);
  scheduleCheck();
}

function namePicks(current, set, key, setAside = false) {
  const opts = S.view.names.map((nm, s) => [s, nm]);
  if (setAside) opts.push(["aside", t("score.set-aside")]);
  return el("div", { class: "pick-grid names" }, ...opts.map(([s, label]) => {
    const on = s === "aside" ? current === null && S.draft.result.__aside?.[key] : current === s;
    return el("button", { type: "button", class: "pick" + (on ? " on" : ""), "data-pick": `${key}-${s}`,
      on: { click: () => { setPick(set, key, s); } } }, label);
  }));
}

function setPick(set, key, s) {
  const r = S.draft.result;
  if (s === "aside") {
    set(null);
    (r.__aside ||= {})[key] = true;
  } else {
    set(s);
    if (r.__aside) delete r.__aside[key];
  }
  renderResult();
  scheduleCheck();
}

function outPicks() {
  const out = S.draft.result.out;
  const ord = [1, 2, 3, 4, 5, 6].map(n => t("score.place", { n }));
  return el("div", {}, el("div", { class: "pick-grid names" }, ...S.view.names.map((nm, s) => {
    const at = out.indexOf(s);
    return el("button", { type: "button", class: "pick" + (at >= 0 ? " on" : ""), "data-out": s,
      on: { click: () => { if (at >= 0) out.splice(at, 1); else out.push(s); renderResult(); scheduleCheck(); } } },
      at >= 0 ? el("span", { class: "place" }, ord[at]) : null, at >= 0 ? " " : null, nm);
  })), el("p", { class: "muted small" }, t("score.tap-again")));
}

// -- checking as you type (the server's engine) and saving ----------------------------------------

function handData() {
  const d = S.draft, c = contractOf(d.contract);
  const result = {};
  for (const f of c.result) result[f] = structuredClone(d.result[f]);
  return { declarer: S.frame.declarer, contract: d.contract, trump: c.asks === "trump" ? d.trump : null,
           start_rank: c.asks === "start_rank" ? d.start_rank : null,
           doubles: S.frame.may_double ? d.doubles.map(p => [...p]) : [], result };
}

function showCheck(kind, text, field) {
  const box = $("check");
  box.className = `check ${kind}`;
  box.textContent = text.charAt(0).toLocaleUpperCase(I18N.lang) + text.slice(1);  // the engine's messages start small
  document.querySelectorAll("#entry [data-bad]").forEach(e => e.removeAttribute("data-bad"));
  if (field) {
    const target = document.querySelector(`#entry [data-field="${field}"]`) ||
      (field === "contract" ? $("step-contract") : null);
    if (target) target.setAttribute("data-bad", "");
  }
}

function scheduleCheck() {
  clearTimeout(S.checkTimer);
  S.ok = false;
  const seq = ++S.checkSeq;
  $("save").disabled = true;
  keepDraft();
  if (!S.draft?.contract) return showCheck("wait", t("score.choose-contract"));
  const wrong = ScoreCheck.problem(S.draft, contractOf(S.draft.contract), tableOf());
  if (wrong) return showCheck("bad", wrong.own ? t(wrong.own, ownArgs(wrong.args)) : I18N.error(wrong), wrong.field);
  if (S.offline || S.frame.provisional) {
    $("save").disabled = false;
    return showCheck("wait", t("score.kept-offline"));
  }
  showCheck("wait", t("score.checking"));
  S.checkTimer = setTimeout(() => runCheck(seq), 250);
}

function tableOf() {
  const v = S.view;
  return { players: v.names.length, handSize: v.hand_size, setAside: v.set_aside_count || 0, ruleset: v.ruleset };
}

function ownArgs(args) {
  return { ...args, card: args.card ? I18N.card(args.card) : undefined, aside: t("score.set-aside") };
}

// The hand being entered, kept on the device at every change: a reload (a change of language) or a
// lost connection does not throw away what was tapped.
function draftKey() { return `barbu-score-draft-${S.id}`; }
function keepDraft() { if (S.draft && S.frame) store(draftKey(), { k: S.k, mode: S.mode, draft: S.draft }); }
function dropDraft() { localStorage.removeItem(draftKey()); }

function keptDraft(mode, k) {
  const kept = load(draftKey(), null);
  if (!kept || kept.mode !== mode || kept.k !== k || !kept.draft?.contract) return null;
  const c = S.frame.contracts.find(x => x.id === kept.draft.contract);
  return c && (c.open || mode === "edit") ? kept.draft : null;
}

async function runCheck(seq) {
  let res;
  try { res = await api("POST", `/api/sheets/${S.id}/check`, { hand: S.k, data: handData() }); } catch { res = null; }
  if (seq !== S.checkSeq) return;  // a newer change is being checked
  if (res === null || res.status >= 500) {
    setOffline(true);
    S.retryTimer = S.retryTimer || setTimeout(retry, RETRY_MS);
    $("save").disabled = false;
    return showCheck("wait", t("score.kept-offline"));
  }
  if (!res.ok) return showCheck("bad", res.data?.error ? I18N.error(res.data.error) : t("score.refused-status", { status: res.status }));
  if (!res.data.ok) return showCheck("bad", I18N.error(res.data.error), res.data.error.field);
  S.ok = true;
  $("save").disabled = false;
  const names = S.view.names;
  showCheck("good", t("score.adds-up") + " " + res.data.scores.map((x, i) => `${names[i]} ${signed(x)}`).join(" · "));
}

async function save() {
  const data = handData();
  const label = SheetView.contractLabel(S.view.ruleset, { contract: data.contract, label: contractOf(data.contract).name });
  const body = { entry: nextEntry(), data };
  let q = queue();
  if (S.refusedOp) {
    q = q.filter(op => op.entry !== S.refusedOp.entry);
  }
  const op = S.mode === "edit"
    ? { kind: "edit", k: S.k, label, method: "PUT", path: `/api/sheets/${S.id}/hands/${S.k}`, entry: body.entry, body }
    : { kind: "add", k: S.k, label, method: "POST", path: `/api/sheets/${S.id}/hands`, entry: body.entry,
        body: { ...body, hand: S.k } };
  if (S.refusedOp) q.unshift(op); else q.push(op);
  saveQueue(q);
  dropDraft();
  const edited = S.mode === "edit";
  S.mode = "add"; S.frame = null; S.refusedOp = null; S.draft = null;
  $("save").disabled = true;
  await flush();
  if (!S.offline && !queue().length) toast(edited ? t("score.changed", { n: op.k + 1 }) : t("score.saved", { n: op.k + 1 }), "info");
  renderAll(true);
}

function openRefused(op) {
  S.refusedOp = op;
  S.mode = op.kind;
  S.k = op.k;
  S.frame = op.kind === "add" && op.k === (S.view.rows || []).length ? S.view.next : S.frame;
  if (!S.frame) { S.mode = "edit"; return editHand(op.k, op); }
  S.draft = draftOf(op.body.data);
  $("entry").hidden = false;
  renderEntry();
  showCheck("bad", t("score.not-stored", { why: I18N.error(op.refused) }), op.refused.field);
}

function draftOf(data) {
  const result = structuredClone(data.result || {});
  // A stored hand's blank card was entered as set aside: its edit says so on the form.
  if (S.view.set_aside_count > 0) {
    const blanks = [...Object.entries(result.queens || {}).filter(([, seat]) => seat === null).map(([s]) => `queen-${s}`),
                    ...[["king_of_hearts", "king"], ["ace_of_hearts", "ace"]].filter(([f]) => f in result && result[f] === null)
                      .map(([, key]) => key)];
    if (blanks.length) result.__aside = Object.fromEntries(blanks.map(key => [key, true]));
  }
  return { contract: data.contract, trump: data.trump ?? null, start_rank: data.start_rank ?? null,
           doubles: (data.doubles || []).map(p => [...p]), result };
}

async function editHand(k, refusedOp = null, kept = null) {
  if (queue().some(op => !op.refused) || S.offline) return toast(t("score.edit-needs-wait"));
  let res;
  try { res = await api("GET", `/api/sheets/${S.id}/hands/${k}`); } catch { res = null; }
  if (!res?.ok) return toast(res?.data?.error ? I18N.error(res.data.error) : t("score.edit-needs"));
  S.mode = "edit";
  S.k = k;
  S.frame = res.data.frame;
  S.draft = kept || draftOf(refusedOp ? refusedOp.body.data : res.data.data);
  $("entry").hidden = false;
  renderScorebar(S.view);
  renderEntry();
  $("entry").scrollIntoView({ block: "start" });
}

// Undo asks first, naming the hand it would take back; the question stays next to the button.
function askUndo() {
  if (queue().length || S.offline) return toast(t("score.undo-needs-wait"));
  const k = S.view.rows.length - 1;
  const row = S.view.rows[k];
  $("undo-ask").textContent = t("score.undo-ask", { n: k + 1, contract: SheetView.contractLabel(S.view.ruleset, row) });
  $("undo-confirm").hidden = false;
  $("undo-keep").focus();
}

function keepLastHand() {
  $("undo-confirm").hidden = true;
  $("undo").focus();
}

async function undo() {
  $("undo-confirm").hidden = true;
  if (queue().length || S.offline) return toast(t("score.undo-needs-wait"));
  const k = S.view.rows.length - 1;
  let res;
  try { res = await api("POST", `/api/sheets/${S.id}/undo`, { entry: nextEntry(), hand: k }); } catch { res = null; }
  if (!res?.ok) return toast(res?.data?.error ? I18N.error(res.data.error) : t("score.undo-needs"));
  setView(res.data);
  S.mode = "add";
  S.frame = null;
  S.draft = null;
  dropDraft();
  toast(t("score.taken-back", { n: k + 1 }), "info");
  renderAll(true);
}

function cancelEntry() {
  if (S.refusedOp) saveQueue(queue().filter(op => op.entry !== S.refusedOp.entry));
  dropDraft();
  S.refusedOp = null;
  S.mode = "add";
  S.frame = null;
  S.draft = null;
  renderAll(true);
}

// -- start ---------------------------------------------------------------------------------

// The page's words first (the reader's language), then the start form or the sheet.
async function main() {
  await I18N.load();
  $("lang-slot").append(I18N.switcher());
  document.title = t("score.title");
  const m = location.pathname.match(/^\/score\/([A-Za-z0-9_-]+)$/);
  if (!m) {
    $("home").hidden = false;
    startForm();
    renderMySheets();
    return;
  }
  S.id = m[1];
  const hash = new URLSearchParams(location.hash.slice(1));
  S.token = hash.get("k") || mySheets().find(s => s.id === S.id)?.token || null;
  $("sheet").hidden = false;
  $("scorebar").hidden = false;
  $("save").addEventListener("click", save);
  $("undo").addEventListener("click", askUndo);
  $("undo-yes").addEventListener("click", undo);
  $("undo-keep").addEventListener("click", keepLastHand);
  $("entry-cancel").addEventListener("click", cancelEntry);
  for (const id of ["share-write", "share-read"]) $(id).addEventListener("focus", e => e.target.select());
  window.addEventListener("online", () => retry());
  window.addEventListener("offline", () => setOffline(true));
  const kept = load(draftKey(), null);  // read first: drawing the next hand keeps a draft of its own
  await reload();
  if (kept?.mode === "edit" && !S.offline && kept.k < (S.view?.rows || []).length) editHand(kept.k, null, kept.draft);
}

main();
