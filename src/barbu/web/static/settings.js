// The card table's settings (remembered in this browser) and its optional sounds, made by Web Audio.
"use strict";

const Settings = (() => {
  const STORE = "barbu.settings";
  const CHOSEN = "barbu.settings.chosen";
  const DEFAULTS = { trickPause: 1.5, watchPause: 0.6, autoNext: false, fourColour: false, sounds: false, pace: "normal",
    coachWarn: "off" };
  const WARNINGS = ["off", "big", "always"]; // the coach's warnings before a choice (coach.js)
  const PAUSES = [0.6, 1, 1.5, 2.5, 4];
  let values = { ...DEFAULTS };
  let audio = null;

  function load() {
    try {
      const saved = JSON.parse(localStorage.getItem(STORE) || "{}");
      for (const k of Object.keys(DEFAULTS)) {
        if (typeof saved[k] === typeof DEFAULTS[k]) values[k] = saved[k];
      }
      if (!["slow", "normal", "fast"].includes(values.pace)) values.pace = DEFAULTS.pace;
      if (!WARNINGS.includes(values.coachWarn)) values.coachWarn = DEFAULTS.coachWarn;
    } catch (e) { /* private mode or a damaged entry: the defaults */ }
    applyLook();
  }

  function save() {
    try { localStorage.setItem(STORE, JSON.stringify(values)); } catch (e) { /* private mode */ }
    applyLook();
  }

  function applyLook() { document.body.classList.toggle("four-colour", values.fourColour); }

  function get(key) { return values[key]; }

  // Whether this browser's person set ``key`` themselves (not the default).
  function chosen(key) {
    try { return JSON.parse(localStorage.getItem(CHOSEN) || "[]").includes(key); } catch (e) { return false; }
  }

  function set(key, value) {
    values[key] = value;
    try {  // which settings the person chose (the others follow the page's defaults, e.g. at a lesson)
      const mine = new Set(JSON.parse(localStorage.getItem(CHOSEN) || "[]"));
      localStorage.setItem(CHOSEN, JSON.stringify([...mine.add(key)]));
    } catch (e) { /* private mode */ }
    save();
  }

  // The computers' pace of the tables this browser creates (the server's "pace" of a table's setup).
  function paceSelect() {
    const sel = h("select", { id: "set-pace", "aria-describedby": "set-pace-help" }, ["slow", "normal", "fast"].map((p) =>
      h("option", { value: p }, t(`pace.${p}`))));
    sel.value = values.pace;
    sel.addEventListener("change", () => set("pace", sel.value));
    return h("div", { class: "setting" }, h("label", { for: "set-pace" }, t("settings.pace")), " ", sel,
      h("p", { class: "help", id: "set-pace-help" }, t("settings.pace-line")));
  }

  // The learner's warnings before a costly choice: only where the coach may help (a table against
  // computers that is not rated); elsewhere the setting has no effect.
  function warnSelect() {
    const sel = h("select", { id: "set-coachWarn", "aria-describedby": "set-coachWarn-help" }, WARNINGS.map((w) =>
      h("option", { value: w }, t(`settings.coachWarn.${w}`))));
    sel.value = values.coachWarn;
    sel.addEventListener("change", () => set("coachWarn", sel.value));
    return h("div", { class: "setting" }, h("label", { for: "set-coachWarn" }, t("settings.coachWarn")), " ", sel,
      h("p", { class: "help", id: "set-coachWarn-help" }, t("settings.coachWarn-line")));
  }

  // After a reload a browser lets a page sound only once the page has been touched: before that
  // no sound is tried (the browser would refuse it), and the first click or key makes it ready.
  function touched() {
    return !navigator.userActivation || navigator.userActivation.hasBeenActive;
  }

  let resuming = false;
  let told = false;
  function unlock() {
    if (!values.sounds || typeof AudioContext === "undefined" || resuming || !touched()) return;
    audio = audio || new AudioContext();
    if (audio.state !== "suspended") return;
    resuming = true;
    audio.resume().catch(() => {
      // The browser keeps it off (a site setting, a policy): said once, in the table's notice line.
      if (!told) notice(t("settings.sound-blocked"));
      told = true;
    }).finally(() => { resuming = false; });
  }
  for (const kind of ["pointerdown", "pointerup", "keydown", "touchend"]) document.addEventListener(kind, unlock, true);

  // A tone of the page's own making: nothing is fetched, and nothing sounds unless asked for.
  function beep(kind) {
    if (!values.sounds || typeof AudioContext === "undefined" || !touched()) return;
    audio = audio || new AudioContext();
    if (audio.state === "suspended") { unlock(); return; }
    const notes = kind === "turn" ? [660, 880] : [392];
    notes.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      const at = audio.currentTime + i * 0.12;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.15, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + 0.3);
    });
  }

  function pauseSelect(key) {
    const sel = h("select", { id: `set-${key}` }, PAUSES.map((p) =>
      h("option", { value: p }, t("settings.seconds", { n: p }))));
    sel.value = String(values[key]);
    sel.addEventListener("change", () => { values[key] = Number(sel.value); save(); });
    return h("label", { class: "setting" }, t(`settings.${key}`), " ", sel);
  }

  function checkbox(key) {
    const box = h("input", { type: "checkbox", id: `set-${key}`, checked: values[key] });
    box.addEventListener("change", () => { values[key] = box.checked; save(); if (box.checked) beep("turn"); });
    return h("label", { class: "setting" }, box, " ", t(`settings.${key}`));
  }

  function open() {
    fill($("settings-body"), pauseSelect("trickPause"), pauseSelect("watchPause"), paceSelect(), checkbox("autoNext"),
      checkbox("fourColour"), checkbox("sounds"), warnSelect());
    $("settings-dialog").showModal();
  }

  return { load, get, set, chosen, beep, open };
})();
