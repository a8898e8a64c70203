// The tutorial (/learn, /learn/LESSON): the lessons by rule set with what is done, and a lesson: what its
// contract scores, its positions (your hand as the table draws it, your choice), the expert's answer and
// why, then a hand of the contract against the computers with the coach. A signed-in person's progress
// is kept in the profile (POST /api/learn/ID/done); a guest's in this browser (localStorage).
"use strict";

const DONE_KEY = "barbu.learn.done";

function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of kids.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

function recall(key) {
  try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
}
function remember(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
}

// The profile this browser keeps (friends.js writes it) and its own id, as the other pages send them.
function headers() {
  const out = {};
  const p = recall("barbu.profile");
  const client = recall("barbu.client");
  if (p && typeof p.credential === "string") out["X-Barbu-Player"] = p.credential;
  if (typeof client === "string") out["X-Barbu-Client"] = client;
  return out;
}

async function api(path, body) {
  const init = body === undefined ? { headers: headers() } : {
    method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, headers()), body: JSON.stringify(body) };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status} ${res.statusText}`);
  return data;
}

function guestDone() {
  const list = recall(DONE_KEY);
  return Array.isArray(list) ? list.filter((x) => typeof x === "string") : [];
}

// The lessons, each with "done" as the profile (signed in) or this browser (a guest) says.
async function listing() {
  const data = await api("/api/learn");
  if (!data.signed_in) {
    const mine = new Set(guestDone());
    for (const x of data.lessons) x.done = mine.has(x.id);
    data.left = data.lessons.filter((x) => !x.done).length;
  }
  return data;
}

function title(x) {
  return x.contract ? t(`contract.${x.ruleset}.${x.contract}.name`) : t("learn.doubling.title");
}
function scores(x) {
  return x.contract ? I18N.line(x.ruleset, x.contract, x.figures) : t("learn.doubling.scores");
}

function show(...kids) { document.getElementById("learn-body").replaceChildren(...kids); }

// -- the list of lessons --------------------------------------------------------------------------

function leftLine(data) {
  return data.left ? t("learn.left", { n: data.left, total: data.total }) : t("learn.all-done");
}

async function index() {
  const data = await listing();
  document.title = `Barbu: ${t("learn.title")}`;
  const part = (rs) => h("section", { class: "part", "aria-labelledby": `rules-${rs}` },
    h("h2", { id: `rules-${rs}` }, t(`learn.rules.${rs}`)),
    h("ol", { class: "lessons" }, data.lessons.filter((x) => x.ruleset === rs).map((x) =>
      h("li", { class: x.done ? "done" : "" },
        h("a", { href: `/learn/${x.id}` }, title(x)), " ",
        h("span", { class: `badge ${x.done ? "ok" : ""}` }, t(x.done ? "learn.state.done" : "learn.state.todo")),
        h("span", { class: "help" }, scores(x))))));
  show(h("h1", {}, t("learn.title")), h("p", {}, t("learn.lead")),
    h("p", { class: "learn-left", id: "learn-left" }, leftLine(data)),
    h("p", {}, h("a", { href: "/learn/drills", class: "button" }, t("learn.drills"))),
    part("classic"), part("family"));
}

// -- a lesson ---------------------------------------------------------------------------------------

const L = { lesson: null, page: null, index: 0, entry: null };

// A card as the table draws it (cards.js): a button when it may be chosen, else a picture with its name.
function cardEl(card, opts = {}) {
  const red = card[1] === "H" || card[1] === "D";
  const tag = opts.onclick ? "button" : "span";
  return h(tag, { class: `card ${red ? "red" : "black"} ${opts.cls || ""}`, "data-card": card, onclick: opts.onclick,
    "aria-label": I18N.card(card), role: tag === "span" ? "img" : null, type: tag === "button" ? "button" : null },
  Cards.face(card, false));
}

// The table as the learner's seat sees it: the contract, who declares, the doubles, the trick so far.
function stage(pos) {
  const v = pos.view;
  const names = pos.names;
  const contract = v.contract ? t(`contract.${L.lesson.ruleset}.${v.contract}.name`) : "";
  const facts = [contract + (v.trump ? ` (${t(`suit.${v.trump}`)})` : ""), t("table.declarer-is", { name: names[v.declarer] })];
  if (v.doubles.length) facts.push(t("learn.doubles", { list: v.doubles.map(([a, b]) => `${names[a]} × ${names[b]}`).join(", ") }));
  const trick = v.trick.length ? h("div", { class: "learn-trick" }, v.trick.map(([s, c]) =>
    h("figure", { class: "learn-played" }, cardEl(c), h("figcaption", {}, names[s]))))
    : h("p", { class: "help" }, v.phase === "play" && v.lines.every(([lo]) => lo < 0) ? t("learn.no-trick") : "");
  const lines = v.lines.some(([lo]) => lo >= 0) ? h("ul", { class: "learn-lines" }, v.lines.map(([lo, hi], i) =>
    h("li", {}, `${t(`suit.${"SHDC"[i]}`)}: ${lo < 0 ? "—" : `${rankName(lo)}–${rankName(hi)}`}`))) : null;
  return h("section", { class: "learn-stage", "aria-label": t("learn.stage") },
    h("p", { class: "facts" }, facts.join(" · ")), lines,
    v.trick.length ? h("h3", {}, t("learn.trick-now")) : null, trick);
}

function rankName(r) { return t(`table.rank.${"23456789TJQKA"[r]}`); }

function choices(pos) {
  const v = pos.view;
  if (v.phase === "play") {
    const legal = new Set(v.legal);
    const rest = v.legal.filter((a) => !v.hand.includes(a));  // a pass, where one is allowed
    return h("div", { class: "learn-hand hand", role: "group", "aria-label": t("learn.your-hand") },
      v.hand.map((c) => legal.has(c) ? cardEl(c, { onclick: () => choose(c), cls: "legal" })
        : cardEl(c, { cls: "dim" })),
      rest.map((a) => h("button", { type: "button", onclick: () => choose(a) }, pos.labels[a])));
  }
  return h("div", { class: "choices", role: "group", "aria-label": t("learn.ask.double") },
    v.legal.map((a) => h("button", { type: "button", "data-choice": a, onclick: () => choose(a) }, pos.labels[a])));
}

function position() {
  const pos = L.page.positions[L.index];
  const n = L.page.positions.length;
  const answer = h("section", { id: "learn-answer", class: "learn-answer", "aria-live": "polite", tabindex: "-1", hidden: "" });
  L.entry.replaceChildren(
    h("h2", { id: "pos-title", tabindex: "-1" }, t("learn.position", { n: L.index + 1, total: n })),
    stage(pos), h("h3", {}, t(pos.view.phase === "play" ? "learn.ask" : "learn.ask.double")), choices(pos), answer);
}

async function choose(action) {
  const pos = L.page.positions[L.index];
  const said = pos.answers[action];
  for (const b of L.entry.querySelectorAll(".learn-hand button, .choices button")) b.disabled = true;
  // The expert's choice marked, and the learner's: cards by their id, other choices by theirs.
  const find = (a) => L.entry.querySelector(`[data-card="${a}"], [data-choice="${a}"]`);
  if (find(action)) find(action).classList.add("chosen");
  if (find(said.expert)) find(said.expert).classList.add("expert");
  const box = document.getElementById("learn-answer");
  const last = L.index + 1 >= L.page.positions.length;
  const next = last ? null : h("button", { type: "button", class: "primary", onclick: () => { L.index += 1; position();
    document.getElementById("pos-title").focus(); } }, t("learn.next"));
  box.replaceChildren(...said.lines.map((line, i) => h("p", { class: i === 0 ? (said.right ? "said good" : "said bad") : "" }, line)),
    ...(next ? [next] : []));
  box.hidden = false;
  box.focus();
  if (last) await finished(box);
}

// Every position answered: the lesson is done (kept), and its hand with the coach is offered.
async function finished(box) {
  const id = L.lesson.id;
  let note = t("learn.lessons-done");
  try {
    if (headers()["X-Barbu-Player"]) await api(`/api/learn/${id}/done`, {});
    else remember(DONE_KEY, [...new Set([...guestDone(), id])]);
  } catch (e) {
    note = e.message;
  }
  const said = h("p", { role: "status", class: "said" }, "");
  box.append(h("p", { class: "said good" }, note),
    h("p", {}, h("button", { type: "button", class: "primary", id: "learn-play", onclick: playHand }, t("learn.play"))),
    said, h("p", {}, h("a", { href: "/learn" }, t("learn.all-lessons"))));
}

async function playHand(ev) {
  ev.target.disabled = true;
  const p = recall("barbu.profile");
  const name = (p && p.name) || recall("barbu.name") || t("table.you");
  try {
    const res = await api("/api/tables", { lesson: L.lesson.id, name });
    location.href = res.you.link;
  } catch (e) {
    ev.target.disabled = false;
    ev.target.parentElement.nextElementSibling.textContent = t("learn.play-failed", { why: e.message });
  }
}

async function lessonPage(id) {
  const [data, page] = await Promise.all([listing(), api(`/api/learn/${encodeURIComponent(id)}?lang=${I18N.lang}`)]);
  L.lesson = data.lessons.find((x) => x.id === id);
  L.page = page;
  L.entry = h("div", { class: "learn-position" });
  document.title = `Barbu: ${title(L.lesson)}`;
  show(h("p", {}, h("a", { href: "/learn" }, t("learn.all-lessons"))),
    h("h1", {}, title(L.lesson)),
    h("p", { class: "learn-scores" }, h("strong", {}, `${t("learn.scores")}: `), scores(L.lesson)),
    h("p", {}, t(`learn.lesson.${id}.intro`)), L.entry);
  position();
}

(async () => {
  await I18N.load();
  document.getElementById("lang-slot").append(I18N.switcher());
  const m = location.pathname.match(/^\/learn\/([a-z-]+)$/);
  try {
    if (m) await lessonPage(m[1]);
    else await index();
  } catch (err) {
    show(h("h1", {}, t("learn.title")), h("p", { role: "alert", class: "said bad" }, err.message),
      h("a", { href: "/learn" }, t("learn.all-lessons")));
  }
})();
