// The end of a game as an event: the places with their totals, your own place said plainly, the last
// hand, who took its last trick, and the rematch and the replay right there (a dialog that opens by
// itself once, and again from the status line).
"use strict";

const GameEnd = (() => {
  // Each seat's place, best first, as the engine gives it in the table's facts (Game.places: equal
  // totals share a place, "1st=", and the next place counts everyone above it, 1, 1, 3).
  function places(totals, placed) {
    const rows = totals.map((total, seat) => ({
      seat, total, place: placed[seat], tied: totals.filter((x) => x === total).length > 1,
    }));
    return rows.sort((a, b) => a.place - b.place || a.seat - b.seat);
  }

  function placeText(row) {
    const place = t(`end.place.${Math.min(row.place, 6)}`);
    return row.tied ? t("end.place-tied", { place }) : place;
  }

  function names(seats) { return I18N.list(seats.map(seatName)); }

  // "You won", "You finished 2nd, tied with Ben"; a watcher is told who won.
  function verdict(rows) {
    const winners = rows.filter((r) => r.place === 1).map((r) => r.seat);
    if (T.you === null) return t("end.won-by", { n: winners.length, names: names(winners) });
    const mine = rows.find((r) => r.seat === T.you);
    const with_ = rows.filter((r) => r.place === mine.place && r.seat !== T.you).map((r) => r.seat);
    const place = t(`end.place.${Math.min(mine.place, 6)}`);
    if (mine.place === 1) return with_.length ? t("end.you-won-tied", { names: names(with_) }) : t("end.you-won");
    return with_.length ? t("end.you-place-tied", { place, names: names(with_) }) : t("end.you-place", { place });
  }

  function standings(rows, last) {
    const head = h("tr", {}, h("th", { scope: "col" }, t("end.place")), h("th", { scope: "col" }, t("summary.player")),
      last ? h("th", { scope: "col" }, t("end.last-hand-points")) : null, h("th", { scope: "col" }, t("summary.total")));
    const body = rows.map((r) => {
      const s = T.meta.seats[r.seat];
      const who = r.seat === T.you ? t("table.you-name", { name: s.name }) : s.name;
      return h("tr", { class: r.seat === T.you ? "you" : "", "data-seat": r.seat },
        h("td", { class: "end-place" }, placeText(r)),
        h("th", { scope: "row", class: "end-name" }, who, SeatMark.mark(s.holder, s.name)),
        last ? h("td", { class: "num" }, signed(last.scores[r.seat])) : null,
        h("td", { class: "num total" }, signed(r.total)));
    });
    const aim = t(T.meta.ruleset === "classic" ? "end.highest" : "end.lowest");
    return h("table", { class: "summary end-places" }, h("caption", {}, aim), h("thead", {}, head), h("tbody", {}, body));
  }

  // Who took the last trick of the last hand (its final view keeps it), or who went out in a Réussite.
  function lastPlay(v) {
    if (v.last_trick && v.last_trick.length) {
      const s = trickWinner(v.last_trick, v.trump);
      return s === T.you ? t("end.last-trick-you") : t("end.last-trick", { name: seatName(s) });
    }
    if (v.out_order && v.out_order.length) {
      return t("end.went-out", { first: seatName(v.out_order[0]),
        second: v.out_order.length > 1 ? seatName(v.out_order[1]) : "—" });
    }
    return null;
  }

  function lastHand(r, v) {
    if (!r) return null;
    let contract = contractName(r.contract);
    if (r.trump) contract += ` ${SUIT_SYMBOL[r.trump]}`;
    const who = t(T.meta.ruleset === "classic" ? "table.declarer-is" : "table.chooser-is", { name: seatName(r.declarer) });
    const doubles = r.doubles.length ? ` · ${doublesText(r.doubles, r.declarer)}` : "";
    return h("div", {},
      h("p", {}, t("end.last-hand", { n: r.hand_no + 1, total: T.meta.num_hands, contract }), ` (${who})${doubles}`),
      lastPlay(v) ? h("p", { id: "end-last-play" }, lastPlay(v)) : null);
  }

  function tools() {
    const mine = T.you !== null && T.token;
    // A solo game (solo.js) has no replay page without a server: its record is downloaded instead; "Play
    // again" deals a new game of the same setup.
    if (T.solo) {
      return [h("button", { type: "button", id: "end-again", onclick: () => Solo.again() }, t("solo.again")),
        h("button", { type: "button", id: "end-record", onclick: () => Solo.download() }, t("table.record")),
        h("button", { type: "button", id: "end-sheet", onclick: () => { $("end-dialog").close(); openSheet(); } }, t("table.sheet"))];
    }
    return [
      h("a", { class: "button", id: "end-replay", href: `/replay/${T.id}` }, t("table.replay")),
      mine ? h("a", { class: "button", id: "end-analyse", href: `/replay/${T.id}?analyse=1` }, t("table.analyse-mine")) : null,
      h("button", { type: "button", id: "end-sheet", onclick: () => { $("end-dialog").close(); openSheet(); } }, t("table.sheet"))];
  }

  function render() {
    const v = T.view;
    const rows = places(v.totals, T.meta.places);
    const last = T.results && T.results.length ? T.results[T.results.length - 1] : null;
    $("end-you").textContent = verdict(rows);
    fill($("end-body"), standings(rows, last));
    fill($("end-tools"), tools()); // the replay and the rematch (rematch.js fills #end-rematch) come first
    fill($("end-last"), lastHand(last, v));
    $("btn-end").hidden = false;
  }

  // Opened by the page once the game is over (and again by the reader): the focus goes to its heading.
  function open() {
    if (!T.view || !T.meta || !T.meta.over || T.meta.damaged) return;
    render();
    const dlg = $("end-dialog");
    for (const other of ["sheet-dialog", "summary-dialog"]) if ($(other).open) $(other).close();
    if (!dlg.open) dlg.showModal();
    $("end-title").focus();
  }

  function setup() {
    $("end-close").addEventListener("click", () => $("end-dialog").close());
    $("btn-end").addEventListener("click", open);
  }

  return { places, placeText, open, setup };
})();
