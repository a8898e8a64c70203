// The page's words in the reader's language: one JSON catalogue per language in /static/i18n/.
// English (en.json) holds every key; the others must hold the same keys (tests/test_i18n.py).
// A value is a string with {slots}, or, for a count, an object of plural forms
// ({"one": "{n} trick", "other": "{n} tricks"}) chosen by Intl.PluralRules.
"use strict";

const I18N = (() => {
  // Adding a language: one catalogue file and one line here (its name in its own language).
  const LANGUAGES = {
    en: "English", fr: "Français", zh: "中文（简体）", sq: "Shqip", be: "Беларуская",
    id: "Bahasa Indonesia", my: "မြန်မာ",
  };
  const STORE = "barbu.lang";
  // The catalogues' stamp, which the server writes on this script's tag: a stamped address is kept
  // by the browser until a release changes the words (a page without it fetches the bare address).
  const STAMP = document.currentScript ? document.currentScript.dataset.catalogues : "";
  let lang = "en";
  let words = {};
  let english = {};

  // ?lang= (a shared link) first, then the reader's own choice, then the browser's languages.
  function choose() {
    const asked = new URLSearchParams(location.search).get("lang");
    if (asked && LANGUAGES[asked]) return asked;
    try {
      const saved = localStorage.getItem(STORE);
      if (saved && LANGUAGES[saved]) return saved;
    } catch (e) { /* private mode: no memory */ }
    for (const tag of navigator.languages || [navigator.language || "en"]) {
      const base = String(tag).toLowerCase().split("-")[0];
      if (LANGUAGES[base]) return base;
    }
    return "en";
  }

  async function fetchCatalogue(code) {
    const res = await fetch(`/static/i18n/${code}.json${STAMP ? `?v=${STAMP}` : ""}`);
    if (!res.ok) throw new Error(`${code}.json: ${res.status}`);
    return res.json();
  }

  async function load() {
    lang = choose();
    english = await fetchCatalogue("en");
    words = lang === "en" ? english : await fetchCatalogue(lang).catch(() => english);
    document.documentElement.lang = lang === "zh" ? "zh-Hans" : lang;
    apply(document);
    return lang;
  }

  function fillSlots(text, args) {
    return String(text).replace(/\{(\w+)\}/g, (m, k) => (args && k in args ? String(args[k]) : m));
  }

  // t(key, {slot: value}); a key with plural forms takes its count from args.n.
  function t(key, args) {
    let value = key in words ? words[key] : english[key];
    if (value === undefined) return `[${key}]`;
    if (typeof value === "object") {
      const n = args && typeof args.n === "number" ? args.n : 0;
      const form = new Intl.PluralRules(lang === "zh" ? "zh-Hans" : lang).select(n);
      value = value[form] !== undefined ? value[form] : value.other;
    }
    return fillSlots(value, args);
  }

  function has(key) { return key in english; }

  // A figure as a score sheet writes it: a true minus sign, and "+" where a sign is expected.
  function points(n, signed) {
    if (n < 0) return `\u2212${-n}`;
    return signed && n > 0 ? `+${n}` : String(n);
  }

  // What a contract scores, in one line: its catalogue text with the engine's figures in the slots
  // (figures come from the server: a table's meta().contracts[i].figures, or /api/rules/<ruleset>).
  function line(ruleset, id, figures) {
    const args = {};
    for (const [k, v] of Object.entries(figures || {})) args[k] = points(v, ruleset === "classic");
    return t(`contract.${ruleset}.${id}.line`, args);
  }

  // A refusal from the server ({code, message, args}) in the reader's words: error.<code>, or
  // error.<code>.<variant> when args.variant says which of a code's messages it is. A code without
  // a catalogue entry (an API-only one) keeps the server's English message.
  function error(err) {
    if (!err) return "";
    const args = Object.assign({}, err.args || {});
    const key = args.variant ? `error.${err.code}.${args.variant}` : `error.${err.code}`;
    if (!err.code || !has(key)) return err.message || String(err.code || "");
    // The server names contracts by id, suits by letter and cards by id ("QH"): say them here.
    if (args.contract && args.ruleset) args.contract = t(`contract.${args.ruleset}.${args.contract}.name`);
    for (const k of ["led", "trump"]) if (args[k]) args[k] = t(`suit.${args[k]}`);
    if (CARD_ID.test(args.card || "")) args.card = card(args.card);
    if (Array.isArray(args.cards)) args.cards = list(args.cards.map(card), EITHER.has(err.code));
    if (args.why && typeof args.why === "object") args.why = error(args.why);  // a refusal inside one
    if (typeof args.reason === "string" && has(args.reason)) args.reason = t(args.reason); // coach.refused.*
    return t(key, args);
  }

  const CARD_ID = /^[2-9TJQKA][SHDC]$/;  // an illegal action's card comes already written (Q♠)
  const EITHER = new Set(["tally:too-many-untaken"]);  // its cards are alternatives: "or"

  // A card in words ("queen of hearts"), from its id.
  function card(id) {
    return t("table.card", { rank: t(`table.rank.${id[0]}`), suit: t(`table.suit.${id[1]}`) });
  }

  // Items joined as this language joins them ("a, b and c"; "a or b" when either).
  function list(items, either) {
    try {
      return new Intl.ListFormat(lang === "zh" ? "zh-Hans" : lang,
        { type: either ? "disjunction" : "conjunction" }).format(items);
    } catch (e) { return items.join(", "); }
  }

  // Static HTML says which key fills it: data-i18n (text), data-i18n-title, -aria-label, -placeholder,
  // -content (the page's meta description).
  function apply(root) {
    for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const attr of ["title", "aria-label", "placeholder", "content"]) {
      const data = `data-i18n-${attr}`;
      for (const el of root.querySelectorAll(`[${data}]`)) el.setAttribute(attr, t(el.getAttribute(data)));
    }
  }

  // The switch that is always there: choosing remembers the language and redraws the page.
  function switcher() {
    const sel = document.createElement("select");
    sel.className = "lang-switch";
    sel.setAttribute("aria-label", t("lang.switch"));
    for (const [code, name] of Object.entries(LANGUAGES)) {
      const opt = document.createElement("option");
      opt.value = code;
      opt.textContent = name;
      opt.lang = code;
      sel.append(opt);
    }
    sel.value = lang;
    sel.addEventListener("change", () => {
      try { localStorage.setItem(STORE, sel.value); } catch (e) { /* private mode */ }
      const url = new URL(location.href);
      url.searchParams.delete("lang");
      // The same address with a #fragment (a table's #t=token) would only move to the fragment.
      if (url.href === location.href) location.reload();
      else location.replace(url.href);
    });
    return sel;
  }

  // The language's locale where this browser's Intl has it (Chromium has none for sq, be, my): then
  // dates and numbers are the browser's own; else they are made from the catalogue's format.* keys.
  function intl(kind) {
    const code = lang === "zh" ? "zh-Hans" : lang;
    return kind.supportedLocalesOf([code]).length ? code : null;
  }

  // A number with `digits` decimals and the language's decimal mark ("14,0" in French).
  // Points with their sign, to a tenth: "+5.8", "\u22126", "0" (the coach's estimates and costs).
  function signed(x) {
    const n = Math.round(x * 10) / 10;
    return n < 0 ? `\u2212${-n}` : n > 0 ? `+${n}` : "0";
  }

  // A coach's reason in the page's words: its catalogue sentence, its slots said as people say them;
  // `say` names a seat, says an action and names a contract (of the reason's rule set, when it has one)
  // in the page's own way.
  function reason(r, say) {
    const slots = {};
    for (const [k, v] of Object.entries(r.slots || {})) {
      if (["who", "other", "declarer"].includes(k) && typeof v === "number") slots[k] = say.seat(v);
      else if (["points", "other_points", "won", "gain"].includes(k)) slots[k] = signed(v);
      else if (["choice", "alternative"].includes(k)) slots[k] = say.action(v);
      else if (k === "contract") slots[k] = say.contract(r.slots.ruleset, v);
      else if (["led", "trump"].includes(k)) slots[k] = t(`suit.${v}`);
      else slots[k] = v;
    }
    return t(r.key, slots);
  }

  function number(x, digits = 1) {
    const code = intl(Intl.NumberFormat);
    if (code) return new Intl.NumberFormat(code, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
    return x.toFixed(digits).replace(".", t("format.decimal"));
  }

  // A moment (seconds since 1970) in the reader's words: its day, with {year}, {time} (to the
  // minute) or {seconds} as asked; {timeOnly}: the time of day alone.
  function date(wall, opts = {}) {
    const d = new Date(wall * 1000), code = intl(Intl.DateTimeFormat);
    const clock = opts.time || opts.seconds || opts.timeOnly;
    const two = (n) => String(n).padStart(2, "0");
    if (code && opts.timeOnly) return d.toLocaleTimeString(code, { hour: "2-digit", minute: "2-digit" });
    if (code) {
      return d.toLocaleString(code, { month: "short", day: "numeric", year: opts.year ? "numeric" : undefined,
        hour: clock ? "numeric" : undefined, minute: clock ? "2-digit" : undefined,
        second: opts.seconds ? "2-digit" : undefined });
    }
    const time = `${d.getHours()}:${two(d.getMinutes())}${opts.seconds ? `:${two(d.getSeconds())}` : ""}`;
    if (opts.timeOnly) return time;
    const month = t("format.months").split("|")[d.getMonth()];
    const day = t(opts.year ? "format.day-year" : "format.day", { day: d.getDate(), month, year: d.getFullYear() });
    return clock ? t("format.day-time", { day, time }) : day;
  }

  return { LANGUAGES, load, t, has, points, line, error, card, list, apply, switcher, number, date, signed, reason,
    get lang() { return lang; } };
})();
const t = I18N.t;
