// The score sheet and the chart of running totals, drawn the same way at the card table (its
// "Score sheet" dialog) and on the score keeper's page. Built for a phone first: every player's
// column fits at once under a short name, the hand and contract stay in a sticky first column,
// doubles are written short (A × B, A ×× B), and the chart is an SVG drawn here (nothing is fetched).
"use strict";

const SheetView = (() => {
  const COLOURS = ["#c62828", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f"];
  const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of kids.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  // Short names for the columns: "Computer 3" → "C3", "Benjamin" → "Ben"; a clash takes the seat
  // number. The full names stay in each header's title and in the legend under the sheet.
  function shortNames(names) {
    const short = names.map((name) => {
      const words = name.split(" ").filter(Boolean);
      if ([...name].length <= 4) return name;
      if (words.length > 1) return words.map((w) => (/^[0-9]+$/.test(w) ? w : [...w][0])).join("").slice(0, 4);
      return [...name].slice(0, 3).join("");
    });
    return short.map((x, i) => (short.indexOf(x) === short.lastIndexOf(x) ? x : `${x}${i + 1}`));
  }

  // Pairs [a, b, redoubled] (a doubled b): "A × B", or "A ×× B" when b redoubled, as a score sheet
  // marks them; one pair after another, a pair never broken across lines.
  function doublesShort(pairs, short) {
    return pairs.map(([a, b, re]) => el("span", { class: "sv-pair" }, `${short[a]} ${re ? "××" : "×"} ${short[b]}`));
  }

  // What a hand was played as, in the reader's words: "Trumps ♥", "Dominoes from J".
  function contractLabel(ruleset, row) {
    const key = `contract.${ruleset}.${row.contract}.name`;
    let name = I18N.has(key) ? t(key) : row.label || row.contract;
    if (row.trump) name += ` ${SUIT_SYMBOL[row.trump]}`;
    if (row.start_rank) name += ` ${t("sheet.from-rank", { rank: t(`rank.${row.start_rank}`) })}`;
    return name;
  }

  // holders (the server's, where known): a profile's column gets its mark (seatmark.js).
  function headRow(names, short, holders) {
    const mark = (i) => (holders && typeof SeatMark !== "undefined" ? SeatMark.mark(holders[i], names[i]) : null);
    return el("tr", {}, el("th", { class: "sv-what", scope: "col" }, t("sheet.hand-contract")),
      ...names.map((name, i) => el("th", { class: "sv-player player", scope: "col", title: name },
        el("span", { class: "swatch", style: `background:${COLOURS[i % 6]}` }),
        el("span", { class: "sv-short" }, short[i]), el("span", { class: "sv-full" }, name), mark(i))));
  }

  function handRow(m, r, short, opts) {
    const what = el("th", { class: "sv-what", scope: "row" },
      el("span", { class: "sv-no" }, `${r.hand + 1}.`), " ", contractLabel(m.ruleset, r),
      el("span", { class: "sv-by" }, t("sheet.by", { name: short[r.declarer] }), opts.edit ? opts.edit(r.hand) : null),
      r.doubles.length ? el("span", { class: "sv-dbl" }, doublesShort(r.doubles, short)) : null);
    return el("tr", { class: "hand-row", "data-hand": r.hand }, what,
      ...r.scores.map((x, i) => el("td", { class: "num" }, I18N.points(x, m.ruleset === "classic"),
        el("span", { class: "sv-run" }, I18N.points(r.totals[i], false)))));
  }

  function totalsRow(m) {
    return el("tr", { class: "totals" }, el("th", { class: "sv-what", scope: "row" }, t("sheet.totals")),
      ...m.totals.map((x, i) => el("td", { class: `num${m.over && m.winners.includes(i) ? " winner" : ""}` },
        I18N.points(x, false))));
  }

  function legend(m, short) {
    const who = m.names.map((name, i) => `${short[i]}: ${name}`).join(" · ");
    const dbl = m.rows.some((r) => r.doubles.length) ? ` — ${t("sheet.doubles-legend")}` : "";
    return el("p", { class: "sv-legend legend" }, who + dbl);
  }

  // The sheet as a table. m: {ruleset, names, holders?, rows: [{hand, contract, label?, trump?, start_rank?,
  // declarer, doubles: [[a, b, redoubled]], scores, totals}], totals, winners, over}.
  // opts.edit(hand) gives a node for the hand's cell (the keeper's edit button); opts.extra, rows
  // to add before the totals (entries not yet stored).
  function table(m, opts = {}) {
    const short = shortNames(m.names);
    const body = el("tbody", {}, m.rows.map((r) => handRow(m, r, short, opts)), opts.extra || [], totalsRow(m));
    const grid = el("table", { class: `sv-sheet players-${m.names.length}` },
      el("caption", { class: "visually-hidden" }, t("sheet.title")), el("thead", {}, headRow(m.names, short, m.holders)), body);
    return [el("div", { class: "sv-scroll" }, grid), legend(m, short)];
  }

  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) if (v !== null) e.setAttribute(k, v);
    return e;
  }

  function label(x, y, text, anchor) {
    const e = svg("text", { x, y, "text-anchor": anchor, "font-size": 12, fill: "#4b5563" });
    e.textContent = text;
    return e;
  }

  // The running totals over the hands: one line per player, from 0 before the first hand.
  function chart(m, id) {
    const hands = m.hands || 28;
    const series = m.names.map((_, s) => [0, ...m.rows.map((r) => r.totals[s])]);
    const all = series.flat();
    const lo = Math.min(0, ...all), hi = Math.max(lo + 1, 0, ...all);
    const W = 600, H = 260, L = 44, R = 10, T = 10, B = 26;
    const x = (k) => L + (W - L - R) * k / hands;
    const y = (v) => T + (H - T - B) * (hi - v) / (hi - lo || 1);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("sheet.chart-label"),
                              class: "sv-chart-svg", id: id || null });
    root.append(svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff", rx: 8 }));
    const step = m.ruleset === "family" ? m.names.length : 7;
    for (let k = 0; k <= hands; k += step) {
      root.append(svg("line", { x1: x(k), x2: x(k), y1: T, y2: H - B, stroke: "#e5e7eb" }), label(x(k), H - 8, String(k), "middle"));
    }
    // Gridlines at the lowest, zero and the highest total; a label too close to zero's is left out.
    for (const v of [...new Set([lo, 0, hi])].filter((v) => v === 0 || Math.abs(y(v) - y(0)) > 14)) {
      root.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v === 0 ? "#9ca3af" : "#f3f4f6" }),
        label(L - 6, y(v) + 4, I18N.points(v, m.ruleset === "classic"), "end"));
    }
    series.forEach((pts, s) => {
      root.append(svg("polyline", { points: pts.map((v, k) => `${x(k)},${y(v)}`).join(" "), fill: "none",
        stroke: COLOURS[s % 6], "stroke-width": 2.5, "stroke-linejoin": "round", class: "line", "data-seat": s }));
      root.append(svg("circle", { cx: x(pts.length - 1), cy: y(pts[pts.length - 1]), r: 4, fill: COLOURS[s % 6] }));
    });
    const key = el("div", { class: "sv-chart-legend" }, m.names.map((name, s) => el("span", {},
      el("span", { class: "swatch", style: `background:${COLOURS[s % 6]}` }), `${name} ${I18N.points(series[s].at(-1), m.ruleset === "classic")}`)));
    return el("div", { class: "sv-chart" }, root, key);
  }

  return { COLOURS, shortNames, doublesShort, contractLabel, table, chart };
})();
