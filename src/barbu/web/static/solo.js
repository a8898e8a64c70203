// A solo game without a server (the page /play/): the table page is the same, only its transport
// differs. Instead of the server's WebSocket it gets a socket-like object whose other end is a Web
// Worker (solo-worker.mjs) running barbu's own Python under Pyodide; the worker answers with the
// messages the server sends. The game is kept in this browser after every move (it survives a
// reload) and its record is exported as the server's is.
"use strict";

const Solo = (() => {
  const SETUP = "barbu.solo.setup"; // the game the lobby asked for (solo-lobby.js)
  const KEPT = "barbu.solo.kept"; // the game as it stands: its setup and every action so far
  const DELAY = 600; // milliseconds before each computer's move (the server's default pace)
  const FIRST = { ruleset: "classic", players: 4, rounds: 0, levels: ["basic", "basic", "basic"] }; // no lobby visited
  let current = null;
  let asked = null; // the record asked of the worker: its promise's resolve
  let opened = null; // the worker's "opened": how long loading took

  function here() { return /^\/play\/?$/.test(location.pathname); }
  // The solo lobby: the static build's home page ("/play/"), or the server's /solo ("/play").
  function lobby() { return location.pathname.endsWith("/") ? "/" : "/solo"; }

  function read(key) {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  function write(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: not kept */ }
  }

  // What the worker needs: where the engine is (the build names it by its hash), and the game.
  async function opening() {
    const config = await (await fetch("/solo.json", { cache: "no-cache" })).json();
    const params = new URLSearchParams(location.search);
    const delay = params.has("delay") ? Number(params.get("delay")) : DELAY;
    const kept = read(KEPT);
    const setup = read(SETUP) || { ...FIRST };
    if (setup.seed === undefined) setup.seed = Math.floor(Math.random() * 2 ** 48);
    if (!config.pyodide) throw new Error("this server has no Pyodide: solo play needs it (python -m barbu.solo.pyodide)");
    return { type: "open", pyodide: config.pyodide, engine: config.engine, delay, kept, setup: kept ? null : setup };
  }

  // The socket the table page talks to (readyState, send, close, onopen, onmessage, onclose).
  // It starts loading as soon as this script runs (see the end): the page draws itself meanwhile, and a
  // handler set after the worker opened (or failed) is called at once.
  class WorkerSocket {
    constructor() {
      this.readyState = WebSocket.CONNECTING;
      this.openFn = this.closeFn = this.onmessage = null;
      this.closedWith = null;
      this.worker = new Worker("/static/solo-worker.mjs", { type: "module" });
      this.worker.onmessage = (ev) => this.received(ev.data);
      this.worker.onerror = (ev) => this.failed(ev.message || "the worker stopped");
      opening().then((msg) => this.worker.postMessage(msg)).catch((e) => this.failed(String(e.message || e)));
    }

    received(msg) {
      if (msg.type === "opened") {
        this.readyState = WebSocket.OPEN;
        opened = msg;
        if (this.onopen) this.onopen();
      } else if (msg.type === "events") {
        for (const event of msg.events) if (this.onmessage) this.onmessage({ data: JSON.stringify(event) });
      } else if (msg.type === "kept") {
        write(KEPT, msg.kept);
      } else if (msg.type === "record" && asked) {
        asked(msg.text);
        asked = null;
      } else if (msg.type === "failed") {
        this.failed(msg.message);
      }
    }

    failed(why) {
      console.error("solo:", why);
      this.readyState = WebSocket.CLOSED;
      this.closedWith = { code: 4404 }; // said "closed"; the page does not retry
      if (this.onclose) this.onclose(this.closedWith);
    }

    get onopen() { return this.openFn; }
    set onopen(fn) {
      this.openFn = fn;
      if (fn && this.readyState === WebSocket.OPEN) fn();
    }

    get onclose() { return this.closeFn; }
    set onclose(fn) {
      this.closeFn = fn;
      if (fn && this.closedWith) fn(this.closedWith);
    }

    send(text) { this.worker.postMessage(JSON.parse(text)); }

    close() { /* the game lives in this page: nothing to close */ }
  }

  let early = null; // the worker started when this script ran, for the first socket()

  function socket() {
    current = early || new WorkerSocket();
    early = null;
    return current;
  }

  // The game's record (barbu-record/1), from the worker.
  function record() {
    if (!current) return Promise.reject(new Error("no game"));
    return new Promise((resolve) => {
      asked = resolve;
      current.worker.postMessage({ type: "record" });
    });
  }

  async function download() {
    const text = await record();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text + "\n"], { type: "application/json" }));
    link.download = "barbu-solo.json";
    link.click();
    URL.revokeObjectURL(link.href);
  }

  // A new game from the lobby: its setup kept, the game before it forgotten.
  function start(setup) {
    write(SETUP, setup);
    try { localStorage.removeItem(KEPT); } catch (e) { /* nothing kept */ }
  }

  // The end of a game: the same setup again with new deals (opening() draws the seed), on this page.
  function again() {
    const setup = { ...(read(SETUP) || FIRST) };
    delete setup.seed;
    start(setup);
    location.reload();
  }

  if (here()) early = new WorkerSocket();

  return { here, lobby, socket, record, download, start, again, kept: () => read(KEPT), opened: () => opened };
})();
