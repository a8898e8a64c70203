// The replay viewer: a finished game (or a record file dropped on the page) step by step, every hand
// face up, with the score sheet and the analysis of one seat's cards. The server turns the record
// into a timeline with the engine (tricks' takers, points, the layout after each card) and runs the
// analysis; this page only walks along what it is sent.
"use strict";

const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = "23456789TJQKA";
const $ = (id) => document.getElementById(id);

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

const R = { tl: null, hand: 0, step: 0, id: null, token: null, seat: null, record: null, job: null, poll: null };

// ---------------------------------------------------------------- words

function cardName(card) {
  return t("table.card", { rank: t(`table.rank.${card[0]}`), suit: t(`table.suit.${card[1]}`) });
}
function cardShort(card) { return `${card[0] === "T" ? "10" : card[0]}${SUIT_SYMBOL[card[1]]}`; }
function actionShort(a) { return a === "pass" ? t("replay.pass") : cardShort(a); }
function name(s) { return R.tl.names[s]; }
// A list in the reader's punctuation ("A, B" or "A，B"), built from the catalogue's pair.
function list(items) { return items.reduce((a, b) => t("replay.list", { a, b })); }
function contractName(hand) {
  return SheetView.contractLabel(R.tl.ruleset, hand);
}
function contractBy(hd) {
  const key = R.tl.ruleset === "classic" ? "replay.contract-by.classic" : "replay.contract-by.family";
  return t(key, { contract: contractName(hd), name: name(hd.declarer) });
}

// A card from the deck of cards.js: its whole face in the trick (whole), else its index corner.
function cardEl(card, cls, whole = false) {
  const red = card[1] === "H" || card[1] === "D";
  return h("span", { class: `card small s-${card[1]} ${red ? "red" : "black"} ${whole ? "whole" : ""} ${cls || ""}`,
    role: "img", "aria-label": cardName(card), title: cardShort(card) }, Cards.face(card, !whole));
}

function showError(err) {
  const box = $("rp-error");
  box.textContent = typeof err === "string" ? err : I18N.error(recordReason(err));
  box.hidden = false;
}

// A refused record says its place in the reader's words; the rule broken too, when the catalogue
// has words for it (replay.rule.<rule>), else the engine's English reason stays.
function recordReason(err) {
  const a = err.args || {};
  if (err.code !== "bad-record" || !a.rule || !I18N.has(`replay.rule.${a.rule}`)) return err;
  const card = a.card ? cardName(a.card) : "";
  return { ...err, args: { ...a, reason: t(`replay.rule.${a.rule}`, { name: a.name, card }) } };
}
function clearError() { $("rp-error").hidden = true; }

async function call(path, init) {
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw data.error || { message: `${res.status} ${res.statusText}` };
  return data;
}

// ---------------------------------------------------------------- where we are

function hand() { return R.tl.hands[R.hand]; }
function steps() { return hand().steps; }
function atEnd() { return R.step === steps().length; }

// The positions where a trick is complete (Dominoes and Réussite: each round of the table).
function trickStops(hd) {
  const stops = [0];
  hd.steps.forEach((s, i) => {
    if (hd.layout ? (i + 1) % R.tl.names.length === 0 : s.won_by !== null) stops.push(i + 1);
  });
  if (stops[stops.length - 1] !== hd.steps.length) stops.push(hd.steps.length);
  return stops;
}

function go(handNo, step) {
  const last = R.tl.hands.length - 1;
  R.hand = Math.max(0, Math.min(last, handNo));
  R.step = Math.max(0, Math.min(steps().length, step));
  render();
}

function byCard(d) {
  const k = R.step + d;
  if (k < 0 && R.hand > 0) go(R.hand - 1, R.tl.hands[R.hand - 1].steps.length);
  else if (k > steps().length && R.hand < R.tl.hands.length - 1) go(R.hand + 1, 0);
  else go(R.hand, k);
}

function byTrick(d) {
  const stops = trickStops(hand());
  if (d > 0) {
    const next = stops.find((k) => k > R.step);
    if (next === undefined) byCard(1);
    else go(R.hand, next);
  } else {
    const prev = [...stops].reverse().find((k) => k < R.step);
    if (prev === undefined) byCard(-1);
    else go(R.hand, prev);
  }
}

function byHand(d) {
  if (d < 0 && R.step > 0) go(R.hand, 0);
  else go(R.hand + d, 0);
}

const KEYS = {
  ArrowLeft: () => byCard(-1), ArrowRight: () => byCard(1), ArrowUp: () => byTrick(-1), ArrowDown: () => byTrick(1),
  PageUp: () => byHand(-1), PageDown: () => byHand(1), Home: () => go(0, 0),
  End: () => go(R.tl.hands.length - 1, R.tl.hands[R.tl.hands.length - 1].steps.length),
};

function onKey(ev) {
  if (!R.tl || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const tag = (ev.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select" || tag === "textarea") return;
  const fn = KEYS[ev.key];
  if (!fn) return;
  ev.preventDefault();
  fn();
}

// ---------------------------------------------------------------- drawing

function render() {
  // A strip is drawn again at each step: a keyboard user who was on it stays on it, at the new place.
  const active = document.activeElement;
  const strip = active && active.closest ? active.closest("#rp-steps, #rp-hands") : null;
  draw();
  if (strip) {
    const here = strip.querySelector(".here");
    if (here) here.focus();
  }
}

function draw() {
  const hd = hand();
  const n = R.tl.names.length;
  document.title = `${t("replay.title")} — ${t("replay.hand-of", { hand: R.hand + 1, hands: R.tl.num_hands })}`;
  $("rp-hand-title").textContent = t("replay.hand-of", { hand: R.hand + 1, hands: R.tl.num_hands });
  renderContract(hd);
  const held = hd.deal.map((cards) => cards.slice());
  for (const s of hd.steps.slice(0, R.step)) {
    if (s.action !== "pass") held[s.seat] = held[s.seat].filter((c) => c !== s.action);
  }
  const now = R.step > 0 ? hd.steps[R.step - 1] : null;
  const next = atEnd() ? null : hd.steps[R.step];
  fill($("rp-seats"), [...Array(n).keys()].map((s) => seatEl(s, held[s], hd, now, next)));
  renderCentre(hd, now);
  $("rp-where").textContent = whereText(hd);
  $("rp-say").textContent = sayText(hd, now);
  renderSteps(hd);
  renderHands();
  renderSheet();
  renderVerdict();
  $("go-prev").disabled = $("go-start").disabled = $("go-prev-trick").disabled = R.hand === 0 && R.step === 0;
  const final = R.hand === R.tl.hands.length - 1 && atEnd();
  $("go-next").disabled = $("go-end").disabled = $("go-next-trick").disabled = final;
  $("go-prev-hand").disabled = R.hand === 0 && R.step === 0;
  $("go-next-hand").disabled = R.hand === R.tl.hands.length - 1;
}

function renderContract(hd) {
  const parts = [contractBy(hd)];
  if (hd.doubles.length) {
    const pairs = hd.doubles.map(([a, b, re]) => t(re ? "replay.redoubled" : "replay.doubled", { a: name(a), b: name(b) }));
    parts.push(list(pairs));
  } else if (R.tl.ruleset === "classic") {
    parts.push(t("replay.no-doubles"));
  }
  if (hd.set_aside.length) parts.push(t("replay.set-aside", { cards: hd.set_aside.map(cardShort).join(" ") }));
  $("rp-contract").textContent = parts.join(" · ");
}

function seatEl(s, cards, hd, now, next) {
  const points = now ? now.points[s] : 0;
  const tricks = now && !hd.layout ? now.tricks[s] : 0;
  const stats = hd.layout ? t("replay.seat-points", { points: I18N.points(points, R.tl.ruleset === "classic") })
    : t("replay.seat-stats", { n: tricks, points: I18N.points(points, R.tl.ruleset === "classic") });
  const badges = [];
  if (s === hd.declarer) badges.push(h("span", { class: "badge role" }, t(R.tl.ruleset === "classic" ? "replay.declarer" : "replay.chooser")));
  if (next && next.seat === s) badges.push(h("span", { class: "badge lead" }, t("replay.to-play")));
  if (atEnd()) badges.push(h("span", { class: "badge" }, t("replay.scored", { points: I18N.points(hd.scores[s], R.tl.ruleset === "classic") })));
  const label = `${name(s)}: ${stats}`;
  return h("section", { class: `rp-seat${next && next.seat === s ? " turn" : ""}`, "data-seat": s, "aria-label": label },
    h("div", { class: "seat-name" }, h("span", { class: "who-name" }, name(s)), badges),
    h("div", { class: "seat-stats" }, stats),
    h("div", { class: "rp-cards", role: "group", "aria-label": t("replay.cards-of", { name: name(s), n: cards.length }) },
      cards.map((c) => cardEl(c, now && now.action === c ? "just" : ""))));
}

function renderCentre(hd, now) {
  const box = $("rp-centre");
  if (hd.layout) {
    const lines = now ? now.lines : [[-1, -1], [-1, -1], [-1, -1], [-1, -1]];
    const rows = ["S", "H", "D", "C"].map((suit, i) => layoutRow(suit, lines[i], now));
    const out = now && now.out.length
      ? h("p", { class: "rp-out" }, t("replay.out-order", { names: list(now.out.map(name)) })) : null;
    fill(box, h("div", { class: "layout rp-layout", role: "group", "aria-label": t("replay.layout") }, rows), out);
    return;
  }
  const trick = now ? now.trick : [];
  const cards = trick.map(([s, c]) => h("figure", { class: `rp-played${now && now.won_by === s ? " won" : ""}` },
    cardEl(c, now.action === c ? "just" : "", true), h("figcaption", {}, name(s))));
  const caption = now && now.won_by !== null ? h("p", { class: "rp-taken" }, t("replay.taken-by", { name: name(now.won_by) })) : null;
  fill(box, h("div", { class: "rp-trick", role: "group", "aria-label": t("replay.trick") },
    cards.length ? cards : h("p", { class: "muted" }, t("replay.no-card-yet"))), caption);
}

function layoutRow(suit, [lo, hi], now) {
  const cells = [];
  for (let r = 0; r < 13; r++) {
    const card = RANKS[r] + suit;
    cells.push(lo >= 0 && r >= lo && r <= hi ? cardEl(card, now && now.action === card ? "just" : "") : h("span", { class: "slot" }));
  }
  const label = lo < 0 ? t("table.row-empty", { suit: t(`table.suit.${suit}`) })
    : t("table.row", { suit: t(`table.suit.${suit}`), lo: t(`table.rank.${RANKS[lo]}`), hi: t(`table.rank.${RANKS[hi]}`) });
  return h("div", { class: "layout-row", role: "img", "aria-label": label },
    h("span", { class: `row-suit ${suit === "H" || suit === "D" ? "red" : ""}`, "aria-hidden": "true" }, SUIT_SYMBOL[suit]), cells);
}

function whereText(hd) {
  if (R.step === 0) return t("replay.at-start");
  if (atEnd()) return t("replay.at-end");
  const now = hd.steps[R.step - 1];
  if (hd.layout) return t("replay.at-step-layout", { step: R.step, steps: hd.steps.length });
  return t("replay.at-step", { step: R.step, steps: hd.steps.length, trick: now.trick_no + 1 });
}

// Where play ``i`` of a hand was: "trick 12, 3rd card"; in a layout contract (no tricks), its number.
function whereMove(handNo, i) {
  const hd = R.tl.hands[handNo];
  const s = hd && hd.steps[i];
  if (!s || hd.layout) return t("replay.move-layout", { step: i + 1 });
  return t("replay.move", { trick: s.trick_no + 1, nth: t(`replay.nth.${s.trick.length}`) });
}

function sayText(hd, now) {
  const head = t("replay.hand-of", { hand: R.hand + 1, hands: R.tl.num_hands });
  if (!now) return t("replay.said", { head, text: contractBy(hd) });
  let text = now.action === "pass" ? t("replay.passes", { name: name(now.seat) })
    : t("replay.plays", { name: name(now.seat), card: cardName(now.action) });
  if (now.won_by !== null && now.won_by !== undefined) text += ` ${t("replay.takes", { name: name(now.won_by) })}`;
  if (atEnd()) text += ` ${t("replay.hand-over")}`;
  return t("replay.said", { head, text });
}

// The hand's plays as a strip of small buttons: the analysed seat's decisions coloured by cost.
function renderSteps(hd) {
  const marks = verdictsOf(R.hand);
  const items = hd.steps.map((s, i) => {
    const v = marks.get(i);
    const cls = ["rp-step", i + 1 === R.step ? "here" : "", v ? costClass(v) : ""].join(" ");
    const label = `${whereMove(R.hand, i)}. ${name(s.seat)}: ${actionShort(s.action)}${v ? ` — ${verdictText(v)}` : ""}`;
    return h("button", { type: "button", class: cls, "aria-label": label, title: label,
      "aria-current": i + 1 === R.step ? "step" : null, onclick: () => go(R.hand, i + 1) }, actionShort(s.action));
  });
  fill($("rp-steps"), h("button", { type: "button", class: `rp-step deal${R.step === 0 ? " here" : ""}`,
    "aria-current": R.step === 0 ? "step" : null, onclick: () => go(R.hand, 0) }, t("replay.deal")), items);
  // On a phone the strip scrolls sideways: keep the step shown in the middle of it.
  const strip = $("rp-steps");
  const here = strip.querySelector(".here");
  if (here && strip.scrollWidth > strip.clientWidth) strip.scrollLeft = here.offsetLeft - strip.offsetLeft - strip.clientWidth / 2;
}

function renderHands() {
  fill($("rp-hands"), R.tl.hands.map((hd, i) => {
    const worst = Math.max(0, ...[...verdictsOf(i).values()].filter((v) => !v.by).map((v) => v.cost));
    const costly = R.job && worst >= R.job.threshold;
    const label = `${t("replay.hand-n", { hand: i + 1 })}: ${contractName(hd)}${costly ? ` — ${t("replay.costly-hand")}` : ""}`;
    return h("button", { type: "button", class: `rp-hand${i === R.hand ? " here" : ""}${costly ? " costly" : ""}`,
      "aria-label": label, title: label, "aria-current": i === R.hand ? "true" : null, onclick: () => go(i, 0) }, String(i + 1));
  }));
}

// The sheet as it stands at this point: the hands finished so far (this one once its last card is shown).
function renderSheet() {
  const upto = atEnd() ? R.hand + 1 : R.hand;
  const done = R.tl.hands.slice(0, upto).filter((hd) => hd.finished);
  const rows = done.map((hd) => ({ hand: hd.hand_no, contract: hd.contract, trump: hd.trump, start_rank: hd.start_rank,
    declarer: hd.declarer, doubles: hd.doubles, scores: hd.scores, totals: hd.totals }));
  const totals = rows.length ? rows[rows.length - 1].totals : R.tl.names.map(() => 0);
  const over = R.tl.complete && upto === R.tl.hands.length;
  const model = { ruleset: R.tl.ruleset, names: R.tl.names, rows, totals, winners: over ? R.tl.winners : [], over,
                  hands: R.tl.num_hands };
  const parts = [...SheetView.table(model), SheetView.chart(model)];
  if (!rows.length) parts.unshift(h("p", { class: "muted" }, t("sheet.no-hands")));
  if (over) {
    const names = list(R.tl.winners.map(name));
    parts.unshift(h("p", { class: "winner-line" }, t(`sheet.winners.${R.tl.ruleset}`, { n: R.tl.winners.length, names })));
  }
  fill($("rp-sheet"), parts);
}

// ---------------------------------------------------------------- analysis

function verdictsOf(handNo) {
  const out = new Map();
  if (!R.job) return out;
  for (const v of R.job.verdicts) if (v.hand === handNo) out.set(v.action, v);
  return out;
}
function costClass(v) {
  if (v.by) return "by-computer";  // a computer stood in: its card is not the person's to judge
  return v.cost >= R.job.threshold ? "cost-high" : v.cost >= 0.5 ? "cost-some" : "cost-none";
}
function levelName(level) { return I18N.has(`table.level.${level}`) ? t(`table.level.${level}`) : level; }
function verdictText(v) {
  if (v.by) return t("replay.by-computer", { card: actionShort(v.played), level: levelName(v.by) });
  if (v.best === v.played || v.cost < 0.5) return t("replay.verdict-ok", { card: actionShort(v.played) });
  return t("replay.verdict", { card: actionShort(v.played), best: actionShort(v.best), cost: I18N.number(v.cost, 1) });
}

function renderVerdict() {
  const box = $("rp-verdict");
  const v = R.step > 0 ? verdictsOf(R.hand).get(R.step - 1) : null;
  box.hidden = !v;
  if (v) {
    box.className = `rp-verdict ${costClass(v)}`;
    box.textContent = `${name(R.job.seat)}: ${verdictText(v)}`;
  }
}

function renderAnalysisForm() {
  const box = $("rp-analysis-form");
  if (R.seat !== null) {
    fill(box, h("button", { type: "button", class: "primary", id: "rp-analyse", onclick: () => startAnalysis(R.seat) },
      t("replay.analyse-mine", { name: name(R.seat) })));
    return;
  }
  if (R.id) {  // a finished table watched, not played: the analysis is its players' own
    fill(box, h("p", { class: "help" }, t("replay.analysis-seated")));
    return;
  }
  const select = h("select", { id: "rp-seat" }, R.tl.names.map((nm, i) => h("option", { value: i }, nm)));
  fill(box, h("label", { for: "rp-seat" }, t("replay.choose-seat")), " ", select, " ",
    h("button", { type: "button", class: "primary", id: "rp-analyse", onclick: () => startAnalysis(Number(select.value)) },
      t("replay.analyse")));
}

async function startAnalysis(seat) {
  clearError();
  const body = R.id && R.token ? { table: R.id, token: R.token } : { record: R.record, seat };
  try {
    R.job = await call("/api/analysis", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch (e) {
    showError(e);
    return;
  }
  showJob();
  clearInterval(R.poll);
  if (underWay(R.job)) R.poll = setInterval(pollJob, 700);
}

// Running, or waiting in the server's queue for a place (its position said): polled, and may be stopped.
function underWay(j) {
  return j.status === "running" || j.status === "queued";
}

async function pollJob() {
  try {
    R.job = await call(`/api/analysis/${R.job.id}`);
  } catch (e) {
    clearInterval(R.poll);
    showError(e);
    return;
  }
  if (!underWay(R.job)) clearInterval(R.poll);
  showJob();
}

async function cancelJob() {
  clearInterval(R.poll);
  try { R.job = await call(`/api/analysis/${R.job.id}`, { method: "DELETE" }); } catch (e) { showError(e); }
  showJob();
}

function showJob() {
  const j = R.job;
  $("rp-progress").hidden = false;
  $("rp-progress-bar").max = Math.max(1, j.total);
  $("rp-progress-bar").value = j.done;
  $("rp-progress-text").textContent = j.status === "running" ? t("replay.progress", { done: j.done, n: j.total })
    : t(`replay.status.${j.status}`, { done: j.done, n: j.total, position: j.position });
  $("rp-cancel").hidden = !underWay(j);
  const btn = $("rp-analyse");
  if (btn) btn.disabled = underWay(j);
  const total = j.cost;  // the server's sum over the person's own decisions (no stand-in's)
  const list = j.costly.map((v) => h("li", {}, h("button", { type: "button", class: "rp-jump", onclick: () => go(v.hand, v.action + 1) },
    t("replay.costly-item", { hand: v.hand + 1, where: whereMove(v.hand, v.action), card: actionShort(v.played), best: actionShort(v.best), cost: I18N.number(v.cost, 1) }))));
  fill($("rp-costly"), j.done ? h("p", {}, t("replay.total-cost", { n: j.judged, cost: I18N.number(total, 1), name: name(j.seat) })) : null,
    j.stand_ins ? h("p", { class: "help", id: "rp-stand-ins" }, t("replay.stand-ins", { n: j.stand_ins })) : null,
    j.costly.length ? [h("h3", {}, t("replay.biggest")), h("ol", { class: "rp-costly-list" }, list)]
      : j.status === "done" ? h("p", {}, t("replay.none-costly", { cost: j.threshold })) : null);
  render();
}

// ---------------------------------------------------------------- loading

// The server names the seats it fills itself "Computer 2" and "Seat 3": said in the reader's words.
function localName(nm, i) {
  if (nm === `Computer ${i + 1}`) return t("table.computer-n", { n: i + 1 });
  if (nm === `Seat ${i + 1}`) return t("table.seat-n", { n: i + 1 });
  return nm;
}

function showTimeline(tl) {
  tl.names = tl.names.map(localName);
  R.tl = tl;
  R.hand = 0;
  R.step = 0;
  R.job = null;
  $("rp-view").hidden = false;
  $("rules-link").href = `/rules/${tl.ruleset}`;
  $("rp-title").textContent = t("replay.title-of", { names: list(tl.names) });
  $("rp-progress").hidden = true;
  fill($("rp-costly"));
  renderAnalysisForm();
  render();
}

async function loadTable(id) {
  R.id = id;
  const fragment = new URLSearchParams(location.hash.slice(1)).get("t");
  let mine = {};
  try { mine = JSON.parse(localStorage.getItem("barbu.mine") || "{}") || {}; } catch (e) { /* private mode */ }
  R.token = fragment || mine[id] || null;
  $("rp-download").href = `/api/tables/${id}/record`;
  $("rp-download").hidden = false;
  try {
    // The token goes in a header, so that it stays out of URLs and logs.
    const tl = await call(`/api/tables/${id}/timeline`, R.token ? { headers: { "X-Barbu-Token": R.token } } : {});
    R.seat = typeof tl.you === "number" ? tl.you : null;
    if (R.seat === null) R.token = null;
    showTimeline(tl);
    if (new URLSearchParams(location.search).get("analyse") === "1" && R.seat !== null) startAnalysis(R.seat);
  } catch (e) {
    showError(e);
  }
}

async function loadFile(file) {
  clearError();
  const text = await file.text();
  try {
    const tl = await call("/api/timeline", { method: "POST", headers: { "Content-Type": "application/json" }, body: text });
    R.record = JSON.parse(text);
    R.seat = null;
    showTimeline(tl);
  } catch (e) {
    showError(e);
  }
}

function setUpDrop() {
  $("rp-drop").hidden = false;
  $("rp-file").addEventListener("change", (ev) => { if (ev.target.files[0]) loadFile(ev.target.files[0]); });
  document.addEventListener("dragover", (ev) => { ev.preventDefault(); document.body.classList.add("dragging"); });
  document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
  document.addEventListener("drop", (ev) => {
    ev.preventDefault();
    document.body.classList.remove("dragging");
    const file = ev.dataTransfer && ev.dataTransfer.files[0];
    if (file) loadFile(file);
  });
}

async function main() {
  try { await I18N.load(); } catch (e) { console.error(e); }
  $("lang-slot").append(I18N.switcher());
  YourMove.start();
  const wire = { "go-start": KEYS.Home, "go-prev-hand": KEYS.PageUp, "go-prev-trick": KEYS.ArrowUp, "go-prev": KEYS.ArrowLeft,
                 "go-next": KEYS.ArrowRight, "go-next-trick": KEYS.ArrowDown, "go-next-hand": KEYS.PageDown, "go-end": KEYS.End };
  for (const [id, fn] of Object.entries(wire)) $(id).addEventListener("click", fn);
  $("rp-cancel").addEventListener("click", cancelJob);
  document.addEventListener("keydown", onKey);
  const match = location.pathname.match(/^\/replay\/([A-Za-z0-9_-]+)$/);
  if (match) loadTable(match[1]);
  else setUpDrop();
}

main();
