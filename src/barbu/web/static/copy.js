// A Copy button for a link or code: it says "Link copied" beside itself (read out politely), or,
// when the browser refuses the clipboard, selects the text and says to press Ctrl+C.
"use strict";

const Copy = (() => {
  const SHOWN_MS = 2000;
  const REFUSED_MS = 6000; // time to read it and press the keys

  // The button and its own live line; ``field`` is the input that holds ``text`` (selected if refused).
  function button(text, field) {
    const said = h("span", { class: "copied", role: "status", "aria-live": "polite" });
    const btn = h("button", { type: "button", class: "copy", onclick: () => copy(text, field, said) }, t("lobby.copy"));
    return h("span", { class: "copy-pair" }, btn, said);
  }

  async function copy(text, field, said) {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard here (not a secure page)");
      await navigator.clipboard.writeText(text);
      tell(said, t("copy.done"), false, SHOWN_MS);
    } catch (e) {
      if (field) { field.focus(); field.select(); }
      tell(said, t("copy.refused"), true, REFUSED_MS);
    }
  }

  function tell(said, words, bad, ms) {
    clearTimeout(said.fade);
    said.textContent = words;
    said.classList.toggle("bad", bad);
    said.classList.add("shown");
    said.fade = setTimeout(() => {
      said.classList.remove("shown");
      said.fade = setTimeout(() => { said.textContent = ""; }, 400); // after the fade, nothing left to read
    }, ms);
  }

  return { button };
})();
