// The table between hands and behind them: the hand's summary dialog and the play history.
"use strict";

function onlyComputers() {
  return T.meta.seats.every((s, i) => i === T.you || s.kind === "bot");
}

// Shown between hands; closing it says "ready" for the next hand (``hand``, from 0) to the server.
async function openSummary(hand) {
  const r = T.results[T.results.length - 1];
  const dlg = $("summary-dialog");
  T.summary = { hand, timer: null, closed: null, tick: null };
  renderSummary(r);
  if (!dlg.open) dlg.showModal();
  $("summary-next").focus();
  if (Settings.get("autoNext") && (T.you === null || onlyComputers())) {
    T.summary.timer = setTimeout(() => closeSummary(true), 4000);
    $("summary-wait").textContent = t("summary.auto", { n: 4 });
  } else {
    T.summary.tick = setInterval(renderSummaryWait, 1000);
  }
  // The table behind waits too: the events that follow are shown once this is closed.
  await new Promise((done) => { T.summary.closed = done; });
}

function renderSummary(r) {
  const m = T.meta;
  const doubled = r.doubles.length > 0;
  let running = new Array(m.players).fill(0);
  for (const x of T.results) running = running.map((v, i) => v + x.scores[i]);
  const head = h("tr", {}, h("th", {}, t("summary.player")), h("th", {}, t("summary.contract-points")),
    doubled ? h("th", {}, t("summary.after-doubles")) : null, h("th", {}, t("summary.total")));
  const rows = m.seats.map((s, i) => h("tr", {}, h("th", { scope: "row" }, s.name, SeatMark.mark(s.holder, s.name)),
    h("td", { class: "num" }, signed(r.contract_scores[i])),
    doubled ? h("td", { class: "num" }, signed(r.scores[i])) : null, h("td", { class: "num total" }, signed(running[i]))));
  let title = t("summary.title", { n: r.hand_no + 1, total: m.num_hands, contract: contractName(r.contract) });
  if (r.trump) title += ` ${SUIT_SYMBOL[r.trump]}`;
  $("summary-title").textContent = title;
  const f = T.finalView;
  let picture = null;
  if (f && f.handNo === r.hand_no && f.kind !== "tricks") {
    picture = h("div", { class: "layout summary-layout" }, LAYOUT_SUITS.map((suit, i) => layoutRow(suit, f.lines[i])));
  } else if (f && f.handNo === r.hand_no && f.trick.length) {
    picture = h("div", { class: "summary-trick" }, h("span", {}, t("table.last-trick")), ...f.trick.map(([s, c]) =>
      h("span", { class: "played-small" }, cardEl(c, { small: true }), ` ${seatName(s)}`)));
  }
  fill($("summary-body"), h("p", { class: "muted" }, t(m.ruleset === "classic" ? "table.declarer-is" : "table.chooser-is", { name: seatName(r.declarer) }),
    doubled ? ` · ${doublesText(r.doubles, r.declarer)}` : ""),
  h("table", { class: "summary" }, h("thead", {}, head), h("tbody", {}, rows)), picture);
  if (m.over && !m.damaged) $("summary-body").append(replayLinks());  // the end-of-game screen
  $("summary-next").textContent = T.you === null ? t("summary.close") : t("summary.next");
  renderSummaryWait();
}

// Who the server waits for now (its newest state, not the one being shown), you among them, and
// for how long: counted down every second while the summary is open.
function renderSummaryWait() {
  const newest = T.latest;
  const m = newest ? newest.table : T.meta;
  const since = newest ? (Date.now() - newest.receivedAt) / 1000 : 0;
  const left = Math.ceil(Math.max(0, m.pause_left - since));
  const names = (m.waiting || []).map((s) => (s === T.you ? t("summary.you") : seatName(s)));
  $("summary-wait").textContent = names.length && left > 0 ? t("summary.waiting", { names: names.join(", "), n: left }) : "";
}

// While the summary is open the table waits behind it; who is still awaited is said at once. A
// spectator's summary closes by itself once the people at the table are all ready and play goes on.
function summaryNews(msg) {
  if (!T.summary.timer) renderSummaryWait();
  const people = msg.table.seats.some((s) => s.kind === "human" && s.claimed);
  if (T.you === null && people && !msg.table.waiting.length && msg.view.history.length) closeSummary(false);
  // The server went on without our "ready" (a computer plays the seat, or the pause ran out): the
  // summary of a hand it has left closes, and says nothing it would refuse.
  const s = T.summary;
  if (s && T.you !== null && !msg.table.waiting.includes(T.you)
      && (msg.view.hand_no !== s.hand || msg.view.history.length || msg.table.over)) closeSummary(false);
}

function closeSummary(ready) {
  const s = T.summary;
  if (!s) return;
  clearTimeout(s.timer);
  clearInterval(s.tick);
  T.summary = null;
  if ($("summary-dialog").open) $("summary-dialog").close();
  const wanted = ready && T.you !== null && T.online && serverAt(s.hand);
  if (wanted && send({ type: "ready", hand: s.hand })) T.readyFor = s.hand;
  if (s.closed) s.closed();
  const first = document.querySelector("#decision:not([hidden]) button, #hand .card[tabindex='0']");
  if (first) first.focus({ preventScroll: true });
}

// The hand's plays in order, a trick (or a round of the rows) a line; every pass is there.
function renderLog(v) {
  const list = $("log-list");
  const n = T.meta.players;
  const tricks = kindOf(v) === "tricks";
  const rows = [];
  let line = [];
  v.history.forEach(([s, a], i) => {
    const who = s === T.you ? t("table.you") : seatName(s);
    const before = i > 0 ? v.history[i - 1] : null;
    const how = a === "pass" ? (before && before[0] === s && isCard(before[1]) ? "stop" : "pass") : null;
    line.push(how ? t(`table.log.${how}`, { name: who }) : `${who} ${rankText(a[0])}${SUIT_SYMBOL[a[1]]}`);
    if (tricks && line.length === n) {
      rows.push(t("table.log.trick", { n: rows.length + 1, plays: line.join(", ") }));
      line = [];
    }
  });
  if (tricks && line.length) rows.push(t("table.log.trick", { n: rows.length + 1, plays: line.join(", ") }));
  if (!tricks) for (let i = 0; i < line.length; i += n) rows.push(line.slice(i, i + n).join(", "));
  fill(list, rows.length ? rows.map((r) => h("li", {}, r)) : h("li", { class: "muted" }, t("table.log.empty")));
  $("log-count").textContent = String(v.history.length);
}
