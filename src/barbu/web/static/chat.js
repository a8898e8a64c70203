// The table's chat: the server's "chat-log" and "chat" events drawn as text, a box to write in,
// an unread count while the panel is closed, and a mute switch remembered per browser.
"use strict";

const Chat = (() => {
  const MUTE = "barbu.chat.muted";
  const state = { rights: "players", you: null, unread: 0, muted: false, send: null, ready: false, placed: false };
  const $ = (id) => document.getElementById(id);

  function muted() {
    try { return localStorage.getItem(MUTE) === "1"; } catch (e) { return false; }
  }

  function setMuted(on) {
    state.muted = on;
    try { localStorage.setItem(MUTE, on ? "1" : "0"); } catch (e) { /* private mode */ }
    $("chat-list").hidden = on;
    $("chat-muted").hidden = !on;
    state.unread = 0;
    badge();
  }

  function badge() {
    const el = $("chat-unread");
    el.hidden = state.unread === 0 || state.muted;
    el.textContent = t("chat.unread", { n: state.unread });
  }

  // Who wrote: a player by name (and "you"), a watcher as such. Text is always text, never markup.
  function line(m) {
    const li = document.createElement("li");
    const who = document.createElement("b");
    if (m.seat === null || m.seat === undefined) who.textContent = t("chat.watcher");
    else who.textContent = m.seat === state.you ? t("chat.you", { name: m.name }) : m.name;
    const when = document.createElement("time");
    const at = new Date(m.at * 1000);
    when.dateTime = at.toISOString();
    when.textContent = I18N.date(m.at, { timeOnly: true });
    const text = document.createElement("span");
    text.textContent = m.text;
    li.append(when, " ", who, ": ", text);
    return li;
  }

  function add(m) {
    const list = $("chat-list");
    list.append(line(m));
    while (list.children.length > 100) list.firstElementChild.remove();
    list.scrollTop = list.scrollHeight;
  }

  function writable() {
    const may = state.you !== null || state.rights === "everyone";
    $("chat-form").hidden = !may;
    $("chat-note").hidden = may;
    $("chat-note").textContent = may ? "" : t("chat.players-only");
  }

  function setup(send) {
    state.send = send;
    state.muted = muted();
    $("chat-mute").checked = state.muted;
    $("chat-list").hidden = state.muted;
    $("chat-muted").hidden = !state.muted;
    $("chat-mute").addEventListener("change", (e) => setMuted(e.target.checked));
    $("chat").addEventListener("toggle", () => { if ($("chat").open) { state.unread = 0; badge(); } });
    $("chat-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const input = $("chat-input");
      const text = input.value.trim();
      if (!text) return;
      // Cleared only once sent: the server stores the message before anyone (us too) sees it.
      $("chat-said").hidden = true;
      if (state.send({ type: "chat", text })) input.value = "";
    });
    state.ready = true;
  }

  // Said once, when the table is first known: a wide screen has room to keep the chat open beside
  // the game, unless every other seat is a computer (nobody to talk to); a phone opens it on demand.
  function place(othersAreComputers) {
    if (state.placed) return;
    state.placed = true;
    if (!othersAreComputers && window.matchMedia("(min-width: 900px)").matches) $("chat").open = true;
  }

  function onLog(msg, you) {
    state.you = you;
    state.rights = msg.rights;
    $("chat-list").replaceChildren();
    for (const m of msg.messages) add(m);
    writable();
  }

  function onMessage(msg) {
    add(msg.message);
    if (!$("chat").open && !state.muted && msg.message.seat !== state.you) {
      state.unread += 1;
      badge();
    }
  }

  // A refused message (too fast, too long, the chat full) is said under the box it was written in,
  // where the writer looks, never over the game; the next message sent clears it.
  function refused(text) {
    const said = $("chat-said");
    said.textContent = text;
    said.hidden = false;
    if (!$("chat").open) $("chat").open = true;
  }

  return { setup, place, onLog, onMessage, refused };
})();
