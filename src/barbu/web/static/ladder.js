// The leaderboards (/leaderboard, one per rule set) and a player's page (/player/NAME): ratings as the
// server computed them (the conservative μ − 3σ, one decimal), the games, a chart drawn here.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";

function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
  for (const c of kids.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

function s(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const RULESETS = ["classic", "family"];
// One decimal, in the reader's digits and decimal mark, with a true minus sign.
const one = (x) => {
  const text = I18N.number(Math.abs(x), 1);
  return x < 0 ? `\u2212${text}` : text;
};
const playerLink = (name) => h("a", { href: `/player/${encodeURIComponent(name)}` }, name);

async function getJSON(url) {
  const res = await fetch(url);
  const body = await res.json();
  if (!res.ok) throw body.error || { message: String(res.status) };
  return body;
}

function show(...kids) {
  const body = document.getElementById("ladder-body");
  body.replaceChildren(...kids);
}

function refused(err) {
  show(h("h1", {}, t("ladder.title")), h("p", { role: "alert", class: "said bad" }, I18N.error(err)),
    h("a", { href: "/leaderboard" }, t("ladder.all")));
}

// -- the leaderboard ---------------------------------------------------------------------------

function tabs(current) {
  return h("nav", { class: "ladder-tabs", "aria-label": t("lobby.rules") }, RULESETS.map((rs) =>
    h("a", { href: `/leaderboard?rules=${rs}`, class: "button" + (rs === current ? " primary" : ""),
      "aria-current": rs === current ? "page" : null }, t(`lobby.${rs}`))));
}

function boardTable(players) {
  if (!players.length) return h("p", { class: "muted" }, t("ladder.empty"));
  return h("table", { class: "ladder-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("ladder.rank")), h("th", { scope: "col" }, t("ladder.player")),
      h("th", { scope: "col", class: "num" }, t("ladder.rating")), h("th", { scope: "col", class: "num" }, t("ladder.games")))),
    h("tbody", {}, players.map((p) => h("tr", {}, h("td", {}, String(p.rank)), h("td", {}, playerLink(p.name)),
      h("td", { class: "num" }, one(p.rating)), h("td", { class: "num" }, String(p.games))))));
}

async function board() {
  const asked = new URLSearchParams(location.search).get("rules");
  const rs = RULESETS.includes(asked) ? asked : "classic";
  const data = await getJSON(`/api/leaderboard/${rs}`);
  show(h("h1", {}, t("ladder.title")), h("p", { class: "help" }, t("ladder.explain")), tabs(rs),
    h("h2", {}, t(`lobby.${rs}`)), boardTable(data.players));
}

// -- a player's page ---------------------------------------------------------------------------

// A game's day, with its year, in the reader's words (i18n.js).
function when(wall) { return I18N.date(wall, { year: true }); }

// The rating after each game of one rule set, from the rating before the first.
function chart(games, rs) {
  const pts = [games[0].before, ...games.map((g) => g.rating)];
  const lo = Math.min(...pts), hi = Math.max(lo + 1, ...pts);
  const W = 600, H = 220, L = 48, R = 12, T = 12, B = 26, n = pts.length - 1;
  const x = (k) => L + (W - L - R) * k / Math.max(1, n);
  const y = (v) => T + (H - T - B) * (hi - v) / (hi - lo);
  const root = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "ladder-chart", "data-rules": rs,
    "aria-label": t("player.chart-label", { rules: t(`lobby.${rs}`), n, first: one(pts[0]), last: one(pts[n]) }) });
  root.append(s("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff", rx: 8 }));
  for (const v of [...new Set([lo, hi])]) {
    root.append(s("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e5e7eb" }),
      s("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 12, fill: "#4b5563" }, one(v)));
  }
  for (const k of [0, n]) root.append(s("text", { x: x(k), y: H - 8, "text-anchor": "middle", "font-size": 12, fill: "#4b5563" }, String(k)));
  root.append(s("polyline", { points: pts.map((v, k) => `${x(k)},${y(v)}`).join(" "), fill: "none",
    stroke: "#1d4ed8", "stroke-width": 2.5, "stroke-linejoin": "round", class: "line" }));
  pts.forEach((v, k) => root.append(s("circle", { cx: x(k), cy: y(v), r: 3.5, fill: "#1d4ed8" })));
  return root;
}

// A game of a table the lobby listed: its date links to its replay (the server gives no link for a
// private table's game). No column of its own, so that the table still fits a phone.
function dateCell(g) {
  const label = t("player.replay-of", { date: when(g.at) });
  return h("td", {}, g.replay ? h("a", { href: g.replay, class: "replay-link", "aria-label": label, title: label }, when(g.at)) : when(g.at));
}

function gamesTable(games) {
  return h("table", { class: "ladder-table" },
    h("thead", {}, h("tr", {}, ["player.date", "player.rules", "player.place", "player.total", "player.after"].map((k, i) =>
      h("th", { scope: "col", class: i > 1 ? "num" : null }, t(k))))),
    h("tbody", {}, [...games].reverse().map((g) => h("tr", {}, dateCell(g), h("td", {}, t(`ruleset.${g.ruleset}`)),
      h("td", { class: "num" }, String(g.place)), h("td", { class: "num" }, I18N.points(g.total, g.ruleset === "classic")),
      h("td", { class: "num" }, one(g.rating))))));
}

function contractsTable(rs, means) {
  return h("table", { class: "ladder-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("player.contract")), h("th", { scope: "col", class: "num" }, t("player.mean")),
      h("th", { scope: "col", class: "num" }, t("player.hands")))),
    h("tbody", {}, Object.entries(means).map(([id, m]) => h("tr", { "data-contract": id },
      h("td", {}, t(`contract.${rs}.${id}.name`)), h("td", { class: "num" }, one(m.mean)), h("td", { class: "num" }, String(m.hands))))));
}

function rulesetPart(rs, data) {
  const r = data.ratings[rs];
  const games = data.games.filter((g) => g.ruleset === rs);
  if (!r || !games.length) return null;
  return h("section", { class: "part", "data-rules": rs }, h("h2", {}, t(`lobby.${rs}`)),
    h("p", { class: "rating-now" }, t("player.summary", { rating: one(r.rating), n: r.games })),
    h("h3", {}, t("player.chart")), chart(games, rs),
    h("h3", {}, t("player.contracts")), contractsTable(rs, data.contracts[rs] || {}));
}

async function player(name) {
  const data = await getJSON(`/api/players/${encodeURIComponent(name)}`);
  document.title = `Barbu: ${data.name}`;
  const parts = RULESETS.map((rs) => rulesetPart(rs, data)).filter(Boolean);
  show(h("h1", {}, data.name), h("p", { class: "help" }, t("ladder.explain")),
    ...(parts.length ? parts : [h("p", { class: "muted" }, t("player.none"))]),
    ...(data.games.length ? [h("section", { class: "part" }, h("h2", {}, t("player.games")), gamesTable(data.games))] : []),
    h("p", {}, h("a", { href: "/leaderboard" }, t("ladder.all"))));
}

(async () => {
  await I18N.load();
  document.getElementById("lang-slot").append(I18N.switcher());
  YourMove.start();
  document.title = `Barbu: ${t("ladder.title")}`;
  const m = location.pathname.match(/^\/player\/(.+)$/);
  try {
    if (m) await player(decodeURIComponent(m[1]));
    else await board();
  } catch (err) {
    refused(err);
  }
})();
