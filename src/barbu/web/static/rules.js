// The rules page of one rule set (/rules/classic, /rules/family), in the reader's language: the
// words are the catalogue's (rules.*), every figure is the engine's (/api/rules/<ruleset>).
"use strict";

function node(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of kids.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

const para = (key, args) => node("p", {}, t(key, args));
const section = (id, title, ...kids) => node("section", { id, "aria-labelledby": `${id}-h` },
  node("h2", { id: `${id}-h` }, title), ...kids);

// A figure as the rule set writes it: classic points are signed, family penalties plain.
function figureArgs(ruleset, figures) {
  const out = {};
  for (const [k, v] of Object.entries(figures)) out[k] = I18N.points(v, ruleset === "classic");
  return out;
}

function ranks() { return [..."AKQJT98765432"].map((r) => t(`rank.${r}`)).join(" "); }

// One contract or challenge: its name, what it scores (with the engine's figures), how it is played.
function contractItem(ruleset, c) {
  const args = figureArgs(ruleset, c.figures);
  const kids = [node("h3", {}, t(`contract.${ruleset}.${c.id}.name`)),
    node("p", { class: "scores" }, I18N.line(ruleset, c.id, c.figures))];
  if (ruleset === "classic" && "total" in c.figures) kids.push(node("p", { class: "help" }, t("rules.in-all", args)));
  if (c.id === "salad") args.example = saladExample(c.figures);
  kids.push(para(`rules.${ruleset}.${c.id}`, args));
  return node("li", { class: "contract", "data-contract": c.id }, kids);
}

// The Salad trick of the rules: a last trick of 3♥, Q♥, 10♣ and 4♠ (a trick, the last one, a queen, two hearts).
function saladExample(f) {
  const parts = [f.trick, f.last, f.queen, f.heart, f.heart];
  return `${parts.join(" + ")} = ${parts.reduce((a, b) => a + b, 0)}`;
}

// The seven classic totals add up to zero: "−26 − 24 … + 65 = 0", from the engine's figures.
function zeroSum(contracts) {
  const totals = contracts.map((c) => c.figures.total);
  const text = totals.map((n, i) => (i === 0 ? I18N.points(n, false) : `${n < 0 ? "−" : "+"} ${Math.abs(n)}`)).join(" ");
  return `${text} = ${totals.reduce((a, b) => a + b, 0)}`;
}

function classicText(info) {
  const game = info.games[0];
  const args = { hands: game.hands, per: game.per_declarer, contracts: info.contracts.length, ranks: ranks() };
  const options = Object.keys(info.options).map((o) => {
    const changed = Object.values(info.options[o])[0] || {};
    return node("li", {}, node("code", {}, o), " — ", t(`option.${o}`, figureArgs("classic", changed)));
  });
  return [
    para("rules.classic.intro", args),
    section("cards", t("rules.cards.title"), para("rules.cards.text", args)),
    section("s1-1", t("rules.classic.s1-1.title"), ...["p1", "p2", "p3", "p4"].map((p) => para(`rules.classic.s1-1.${p}`, args))),
    section("s1-2", t("rules.classic.s1-2.title"), para("rules.classic.s1-2.p1", args)),
    section("s1-3", t("rules.classic.s1-3.title"), para("rules.classic.s1-3.p1", args),
      node("ul", { class: "contracts" }, info.contracts.map((c) => contractItem("classic", c))),
      para("rules.classic.s1-3.zero", { sum: zeroSum(info.contracts) })),
    section("s1-4", t("rules.classic.s1-4.title"), ...["p1", "p2", "p3", "p4", "p5"].map((p) => para(`rules.classic.s1-4.${p}`, args))),
    section("s1-5", t("rules.classic.s1-5.title"), para("rules.classic.s1-5.p1", args), para("rules.classic.s1-5.p2", args)),
    section("s1-6", t("rules.classic.s1-6.title"), para("rules.classic.s1-6.p1", args), node("ul", {}, options)),
    section("s1-7", t("rules.classic.s1-7.title"), para("rules.classic.s1-7.p1", args)),
  ];
}

function familyText(info) {
  const setAside = info.games.map((g) => t("rules.family.set-aside-with", { n: g.players, cards: g.set_aside })).join(", ");
  const args = { challenges: info.contracts.length, ranks: ranks(), set_aside: setAside,
                 hands: info.games.map((g) => t("rules.family.rounds-with", { n: g.players, rounds: g.hands })).join(", ") };
  return [
    para("rules.family.intro", args),
    section("cards", t("rules.cards.title"), para("rules.cards.text", args)),
    section("s2-1", t("rules.family.s2-1.title"), ...["p1", "p2", "p3"].map((p) => para(`rules.family.s2-1.${p}`, args))),
    section("s2-2", t("rules.family.s2-2.title"), para("rules.family.s2-2.p1", args)),
    section("s2-3", t("rules.family.s2-3.title"), para("rules.family.s2-3.p1", args),
      node("ul", { class: "contracts" }, info.contracts.map((c) => contractItem("family", c)))),
    section("s2-4", t("rules.family.s2-4.title"), para("rules.family.s2-4.p1", args),
      node("p", { class: "help note" }, t("family.lowest-wins")), para("rules.family.s2-4.p2", args)),
  ];
}

async function main() {
  await I18N.load();
  document.getElementById("lang-slot").append(I18N.switcher());
  YourMove.start();
  // "/rules/family", or "/rules/family/" as a static host (barbu static) serves its folder
  const ruleset = location.pathname.replace(/\/$/, "").split("/").pop() === "family" ? "family" : "classic";
  const other = ruleset === "classic" ? "family" : "classic";
  const link = document.getElementById("other-rules");
  link.href = `/rules/${other}${location.search}`;
  link.textContent = t("lobby.read-rules-of", { ruleset: t(`ruleset.${other}`) });
  const title = t("lobby.read-rules-of", { ruleset: t(`ruleset.${ruleset}`) });
  document.title = `Barbu — ${title}`;
  const box = document.getElementById("rules-text");
  const res = await fetch(`/api/rules/${ruleset}`);
  if (!res.ok) { box.replaceChildren(node("p", {}, I18N.error((await res.json()).error))); return; }
  const info = await res.json();
  box.replaceChildren(node("h1", {}, title), ...(ruleset === "classic" ? classicText(info) : familyText(info)));
}

main();
