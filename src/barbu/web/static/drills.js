// The practice drills (/learn/drills): a seat's view from a computer game, the choices as buttons (keys
// 1 to 4), the answer with its cost and the coach's reasons, and the learner's record per contract: in
// the profile for a signed-in person (the server's), in this browser for a guest (localStorage).
"use strict";

const Drills = (() => {
  const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const STORE = "barbu.drills"; // a guest's record: {contracts: {"rules:id": [right, asked, cost]}, recent: [ids]}
  const RECENT = 12;
  let drill = null;
  let answered = false;
  let record = { contracts: {}, recent: [] };
  let categories = [];

  const $ = (id) => document.getElementById(id);
  function node(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
    for (const c of kids.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
    return e;
  }

  function recall(key) {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  function remember(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: no memory */ }
  }
  function credential() {
    const p = recall("barbu.profile");
    return p && typeof p.credential === "string" ? p.credential : null;
  }
  function headers(json) {
    const out = json ? { "Content-Type": "application/json" } : {};
    const c = credential();
    if (c) out["X-Barbu-Player"] = c;
    const id = recall("barbu.client");
    if (typeof id === "string" && /^[A-Za-z0-9_-]{8,64}$/.test(id)) out["X-Barbu-Client"] = id;
    return out;
  }

  async function api(path, body) {
    const init = body === undefined ? { headers: headers(false) }
      : { method: "POST", headers: headers(true), body: JSON.stringify(body) };
    const res = await fetch(path, init);
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error ? I18N.error(data.error) : `${res.status} ${res.statusText}`);
    return data;
  }

  function fail(err) {
    const el = $("dr-error");
    el.textContent = err.message || String(err);
    el.hidden = false;
  }

  // -- words -----------------------------------------------------------------------------------------

  const rankText = (r) => (r === "T" ? "10" : r);
  const cardText = (c) => `${rankText(c[0])}${SUIT_SYMBOL[c[1]]}`;
  const seatName = (s) => t(`drills.seat.${(s - drill.seat + drill.players) % drill.players}`);
  const contractName = (rules, id) => t(`contract.${rules}.${id}.name`);
  const category = (c) => `${contractName(c.split(":")[0], c.split(":")[1])}${c.startsWith("family:") ? ` (${t("ruleset.family")})` : ""}`;

  const signedText = I18N.signed;

  // An action as the page says it: Q♠, a contract's name, a suit, a rank, a double.
  function actionText(a) {
    if (/^[2-9TJQKA][SHDC]$/.test(a)) return cardText(a);
    if (a === "pass") return t("coach.action.pass");
    const [word, rest] = a.split(" ");
    if (word === "trump") return t(`suit.${rest}`);
    if (word === "rank") return rankText(rest);
    if (word === "double" || word === "redouble") {
      if (rest === "none") return t("coach.action.no-double");
      return t(`coach.action.${word}`, { who: I18N.list(rest.split(",").map((s) => seatName(Number(s)))) });
    }
    return contractName(drill.rules, a);
  }

  function reasonText(r) {
    return I18N.reason(r, { seat: seatName, action: actionText,
                            contract: (ruleset, id) => contractName(ruleset || drill.rules, id) });
  }

  // -- the seat's view -------------------------------------------------------------------------------

  function cardEl(card, small) {
    const red = card[1] === "H" || card[1] === "D";
    return node("span", { class: `card s-${card[1]} ${red ? "red" : "black"}${small ? " small" : ""}`,
      role: "img", "aria-label": I18N.card(card), title: cardText(card) }, Cards.face(card, small));
  }

  function facts(v) {
    const out = [t("drills.declarer", { who: seatName(v.declarer) })];
    if (v.playing) out.push(t("drills.playing", { contract: contractName(v.rules, v.playing) }));
    if (v.trump) out.push(t("drills.trump", { suit: t(`suit.${v.trump}`) }));
    if (v.start_rank) out.push(t("drills.start-rank", { rank: rankText(v.start_rank) }));
    for (const [a, b] of v.doubles) out.push(t("drills.doubled", { who: seatName(a), other: seatName(b) }));
    return out.join(" · ");
  }

  // The trick so far (who played what), or the Dominoes layout (each suit's run), or nothing yet.
  function table(v) {
    if (v.trick.length) {
      return node("div", { class: "dr-trick" }, node("h3", { class: "dr-sub" }, t("drills.trick")),
        node("ol", { class: "dr-plays" }, v.trick.map(([s, c]) => node("li", {}, node("span", { class: "dr-who" }, seatName(s)), cardEl(c, false)))));
    }
    if (v.playing && v.kind === "place") {
      const rows = v.lines.map(([lo, hi], s) => node("li", {}, `${"SHDC"[s] && SUIT_SYMBOL["SHDC"[s]]} `,
        lo < 0 ? t("drills.line-empty") : `${rankText("23456789TJQKA"[lo])} – ${rankText("23456789TJQKA"[hi])}`));
      return node("div", { class: "dr-layout" }, node("h3", { class: "dr-sub" }, t("drills.layout")), node("ul", {}, rows));
    }
    return null;
  }

  function hand(v) {
    const groups = ["S", "H", "C", "D"].map((s) => v.hand.filter((c) => c[1] === s)).filter((g) => g.length);
    return groups.map((g) => node("div", { class: "suit-group", role: "listitem" }, g.map((c) => cardEl(c, false))));
  }

  function choiceButton(a, i) {
    const label = actionText(a);
    const kids = [node("kbd", { "aria-hidden": "true" }, String(i + 1))];
    if (/^[2-9TJQKA][SHDC]$/.test(a)) kids.push(cardEl(a, true));
    kids.push(node("span", {}, label));
    const b = node("button", { type: "button", class: "dr-choice", "data-action": a, "aria-keyshortcuts": String(i + 1),
      "aria-label": /^[2-9TJQKA][SHDC]$/.test(a) ? I18N.card(a) : label }, kids);
    b.addEventListener("click", () => choose(a));
    return b;
  }

  function show(v) {
    drill = v;
    answered = false;
    $("dr-drill").hidden = false;
    $("dr-title").textContent = t("drills.heading", { contract: category(`${v.rules}:${v.contract}`), kind: t(`drills.kind.${v.kind}`) });
    $("dr-facts").textContent = facts(v);
    $("dr-table").replaceChildren(...[table(v)].filter(Boolean));
    $("dr-hand").replaceChildren(...hand(v));
    $("dr-question").textContent = t(`drills.ask.${v.kind}`);
    $("dr-choices").replaceChildren(...v.choices.map(choiceButton));
    $("dr-answer").replaceChildren();
    $("dr-next").hidden = true;
  }

  // -- answering ---------------------------------------------------------------------------------------

  async function choose(a) {
    if (answered || !drill) return;
    answered = true;
    for (const b of $("dr-choices").querySelectorAll("button")) b.disabled = true;
    try {
      const res = await api(`/api/drills/${encodeURIComponent(drill.id)}/answer`, { choice: a });
      if (res.record) record = res.record; else keepLocally(res);
      tell(res);
      drawRecord();
    } catch (err) {
      answered = false;
      for (const b of $("dr-choices").querySelectorAll("button")) b.disabled = false;
      fail(err);
    }
  }

  function keepLocally(res) {
    const key = `${drill.rules}:${drill.contract}`;
    const [right, asked, cost] = record.contracts[key] || [0, 0, 0];
    record.contracts[key] = [right + (res.right ? 1 : 0), asked + 1, Math.round((cost + res.cost) * 10) / 10];
    record.recent = [...record.recent.filter((i) => i !== drill.id), drill.id].slice(-40);
    remember(STORE, record);
  }

  function tell(res) {
    for (const b of $("dr-choices").querySelectorAll("button")) {
      if (b.dataset.action === res.key) b.classList.add("right");
      else if (b.dataset.action === res.choice) b.classList.add("wrong");
    }
    const head = res.right ? t("drills.right", { choice: actionText(res.key) })
      : t("drills.wrong", { choice: actionText(res.choice), key: actionText(res.key), cost: res.cost });
    const why = res.right ? t("drills.why-right", { alternative: actionText(res.against) }) : t("drills.why-wrong");
    // The estimate repeats the verdict's cost, so it is left out, unless the coach finds no other reason:
    // then the two estimates are the only why there is (about one wrong choice in five).
    const told = res.reasons.filter((r) => r.key !== "coach.value");
    const reasons = (told.length ? told : res.reasons).map((r) => node("li", {}, reasonText(r)));
    // (replaceChildren writes a null as the text "null": a verdict without reasons showed "nullnull".)
    $("dr-answer").replaceChildren(node("p", { class: `dr-verdict ${res.right ? "right" : "wrong"}` }, head),
      ...(reasons.length ? [node("p", {}, why), node("ul", { class: "dr-reasons" }, reasons)] : []));
    $("dr-next").hidden = false;
    $("dr-next").focus();
  }

  // -- the record ------------------------------------------------------------------------------------

  function weakest() {
    const tried = Object.entries(record.contracts).filter(([, v]) => v[1] >= 3)
      .map(([c, v]) => [v[0] / v[1], -v[2], c]).sort((x, y) => x[0] - y[0] || x[1] - y[1] || (x[2] < y[2] ? -1 : 1));
    return tried.length ? tried[0][2] : null;
  }

  function drawRecord() {
    const rows = Object.entries(record.contracts).filter(([c]) => categories.includes(c));
    const weak = record.weakest !== undefined ? record.weakest : weakest();
    $("dr-weakest").textContent = weak ? t("drills.weakest", { contract: category(weak) })
      : rows.length ? t("drills.weakest-none") : t("drills.record-empty");
    const head = node("tr", {}, node("th", { scope: "col" }, t("drills.pick")), node("th", { scope: "col" }, t("drills.col-right")),
      node("th", { scope: "col" }, t("drills.col-cost")));
    $("dr-tally").replaceChildren(node("thead", {}, head), node("tbody", {}, rows.map(([c, [right, asked, cost]]) =>
      node("tr", { class: c === weak ? "weak" : null }, node("th", { scope: "row" }, category(c)),
        node("td", {}, t("drills.right-of", { right, asked })), node("td", {}, String(cost))))));
    $("dr-tally").hidden = rows.length === 0;
    $("dr-where").textContent = credential() ? t("drills.kept-profile") : t("drills.kept-browser");
  }

  // -- choosing the next drill -----------------------------------------------------------------------

  // The next drill; after an answer (focus) the keyboard lands on its title, read first.
  async function next(focus = true) {
    const picked = $("dr-contract").value;
    const q = new URLSearchParams();
    if (picked.includes(":")) { q.set("rules", picked.split(":")[0]); q.set("contract", picked.split(":")[1]); }
    if (!credential()) {
      q.set("recent", record.recent.slice(-RECENT).join(","));
      const weak = weakest();
      if (weak) q.set("weak", weak);
    }
    try {
      $("dr-error").hidden = true;
      show(await api(`/api/drills/next?${q}`));
      if (focus) $("dr-title").focus();
    } catch (err) { fail(err); }
  }

  function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !drill || e.target.tagName === "SELECT") return;
    const i = "1234".indexOf(e.key);
    const buttons = [...$("dr-choices").querySelectorAll("button")];
    if (i >= 0 && i < buttons.length && !answered) { e.preventDefault(); buttons[i].click(); }
    else if ((e.key === "n" || e.key === "N") && answered) { e.preventDefault(); next(true); }
  }

  function picker(list) {
    const sel = $("dr-contract");
    const asked = new URLSearchParams(location.search).get("contract");
    sel.append(node("option", { value: "mixed" }, t("drills.mixed")));
    for (const rules of ["classic", "family"]) {
      const group = node("optgroup", { label: t(`ruleset.${rules}`) });
      for (const c of list.filter((x) => x.rules === rules)) {
        group.append(node("option", { value: `${rules}:${c.contract}` }, contractName(rules, c.contract)));
      }
      sel.append(group);
    }
    if (asked && [...sel.options].some((o) => o.value === asked)) sel.value = asked;
    sel.addEventListener("change", () => next(false));
  }

  async function main() {
    await I18N.load();
    $("lang-slot").append(I18N.switcher());
    document.title = `Barbu — ${t("drills.title")}`;
    try {
      const list = await api("/api/drills");
      categories = list.contracts.map((c) => `${c.rules}:${c.contract}`);
      picker(list.contracts);
      if (credential()) record = await api("/api/me/drills").catch(() => record);
      else record = Object.assign({ contracts: {}, recent: [] }, recall(STORE) || {});
      drawRecord();
      $("dr-next").addEventListener("click", () => next());
      document.addEventListener("keydown", onKey);
      await next(false);
    } catch (err) { fail(err); }
  }

  return { main, current: () => (drill ? drill.id : null) };
})();

Drills.main();
