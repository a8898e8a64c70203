// A solo game without a server (the page /play/): the table page is the same, only its transport
// differs. Instead of the server's WebSocket it gets a socket-like object whose other end is a Web
// Worker (solo-worker.mjs) running barbu's own Python under Pyodide; the worker answers with the
// messages the server sends. The game is kept in this browser after every move (it survives a
// reload) and its record is exported as the server's is; a finished game joins this browser's list of
// finished games (the lobby's "Your games", solo-lobby.js), whose records can be downloaded later.
// One page plays the kept game at a time: two would overwrite each other's moves (see claim()).
"use strict";

const Solo = (() => {
  const SETUP = "barbu.solo.setup"; // the game the lobby asked for (solo-lobby.js)
  const KEPT = "barbu.solo.kept"; // the game as it stands: its setup, every action so far, and where it is
  const GAMES = "barbu.solo.games"; // the finished games, newest first: [{ended, ruleset, ..., record}]
  const CROWDED = "barbu.solo.games.full"; // "1" once older games were dropped because the storage was full
  const MOST = 30; // finished games kept; the oldest goes first
  const YOU = 0; // the person's seat at a solo table (barbu.solo.table.YOU)
  const DELAY = 600; // milliseconds before each computer's move (the server's default pace)
  const FIRST = { ruleset: "classic", players: 4, rounds: 0, levels: ["basic", "basic", "basic"] }; // no lobby visited
  const LOCK = "barbu.solo.game"; // a Web Lock, held by the one page playing the kept game
  const TAKE = "barbu.solo.take"; // (sessionStorage) "1": this tab reloads to take the game back
  let current = null;
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
    // "?snapshot=0": Python started afresh, as before a snapshot was kept (scripts/bench-solo.py's reference).
    const snapshot = params.get("snapshot") !== "0";
    return { type: "open", pyodide: config.pyodide, engine: config.engine, delay, kept, setup: kept ? null : setup,
      snapshot };
  }

  // The socket the table page talks to (readyState, send, close, onopen, onmessage, onclose).
  // It starts loading as soon as this script runs (see the end): the page draws itself meanwhile, and a
  // handler set after the worker opened (or failed) is called at once.
  class WorkerSocket {
    constructor() {
      this.readyState = WebSocket.CONNECTING;
      this.openFn = this.closeFn = this.onmessage = null;
      this.closedWith = null;
      this.asked = []; // the records asked of the worker, in order: their promises' resolves
      this.filed = false; // the game's end was kept among the finished games (once a page)
      this.filing = null; // that keeping, until the worker has sent the record
      this.where = null; // the hand the last state showed, kept with the game for the lobby
      this.worker = null; // started once this page holds the game (claim)
      this.gone = false; // the game was taken over by another page: this one stopped
      claim(this);
    }

    start() {
      this.worker = new Worker("/static/solo-worker.mjs", { type: "module" });
      this.worker.onmessage = (ev) => this.received(ev.data);
      this.worker.onerror = (ev) => this.failed(ev.message || "the worker stopped");
      opening().then((msg) => this.worker.postMessage(msg)).catch((e) => this.failed(String(e.message || e)));
    }

    // Another page took the game: this one stops at once, and writes nothing more.
    lose() {
      this.gone = true;
      if (this.worker) this.worker.terminate();
      elsewhere("moved", () => {
        try { sessionStorage.setItem(TAKE, "1"); } catch (e) { /* asked again after the reload */ }
        location.reload();
      });
      this.failed("the game moved to another page");
    }

    received(msg) {
      if (this.gone) return;
      if (msg.type === "opened") {
        this.readyState = WebSocket.OPEN;
        opened = msg;
        if (this.onopen) this.onopen();
      } else if (msg.type === "events") {
        for (const event of msg.events) if (this.onmessage) this.onmessage({ data: JSON.stringify(event) });
        this.mark(msg.events);
        this.file(msg.events);
      } else if (msg.type === "kept") {
        write(KEPT, this.where ? { ...msg.kept, where: this.where } : msg.kept);
        // The setup is the game played here (another tab may have chosen one that this page took back
        // from it): what the lobby's form and "Play again" start from.
        const { ruleset, players, rounds, name, levels, seed } = msg.kept;
        write(SETUP, { ruleset, players, rounds, name, levels, seed });
      } else if (msg.type === "record" && this.asked.length) {
        this.asked.shift()(msg.text);
      } else if (msg.type === "failed") {
        this.failed(msg.message);
      }
    }

    // Where the game is, for the lobby's "Resume" line and its question before a new game: the hand
    // the newest state shows (from 0) of how many, and whether the game is over.
    mark(events) {
      const state = events.filter((e) => e.type === "state").pop();
      if (state) this.where = { hand: state.table.hand_no, hands: state.table.num_hands, over: state.table.over };
    }

    // The game's record (barbu-record/1): the worker answers in the order it was asked.
    ask() {
      if (!this.worker || this.gone) return Promise.reject(new Error("the game is not played in this page"));
      return new Promise((resolve) => {
        this.asked.push(resolve);
        this.worker.postMessage({ type: "record" });
      });
    }

    // The game over: its record asked once and kept among the finished games (a reload of it finds it
    // there already: the same record is not kept twice).
    file(events) {
      const end = events.find((e) => e.type === "state" && e.table && e.table.over);
      if (!end || this.filed) return;
      this.filed = true;
      this.filing = this.ask().then((text) => keep(finished(end, text)));
    }

    failed(why) {
      if (this.gone) console.info("solo:", why); // the person's own doing in another tab: no error
      else console.error("solo:", why);
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

    send(text) { if (this.worker && !this.gone) this.worker.postMessage(JSON.parse(text)); }

    close() { /* the game lives in this page: nothing to close */ }
  }

  // -- one page at a time ---------------------------------------------------------------------------

  // The page holds the lock named LOCK for its life (the browser lets it go with the page). A second
  // page finds it held: it does not start the game, and says so, with "Play it here", which takes the
  // lock over (steal); the page that held it is told (its request fails) and stops. A tab that lost the
  // game takes it back by reloading with TAKE set. Without Web Locks (an insecure origin, an old
  // browser) every page plays, as before.
  function hold(socket, steal) {
    return new Promise((resolve) => {
      let held = false;
      navigator.locks.request(LOCK, steal ? { steal: true } : { ifAvailable: true }, (lock) => {
        held = lock !== null;
        resolve(held);
        return held ? new Promise(() => {}) : null; // never let go: the page's life
      }).catch(() => {
        if (held) socket.lose(); // AbortError: another page took the lock over
        else resolve(true); // no lock to be had in this page (a sandbox): it plays, as without Web Locks
      });
    });
  }

  function taking() {
    try {
      const take = sessionStorage.getItem(TAKE) === "1";
      sessionStorage.removeItem(TAKE);
      return take;
    } catch (e) { return false; }
  }

  async function claim(socket) {
    if (!navigator.locks) { socket.start(); return; }
    if (await hold(socket, taking())) { socket.start(); return; }
    elsewhere("open", async () => {
      await hold(socket, true);
      $("solo-elsewhere").hidden = true;
      document.body.classList.remove("solo-away");
      socket.start();
    });
  }

  function $(id) { return document.getElementById(id); }

  // The page's word that the game is elsewhere ("open": in another page; "moved": taken from this one),
  // with its "Play it here"; the table is hidden meanwhile (the page's words fill it: I18N.apply).
  function elsewhere(why, here) {
    document.body.classList.add("solo-away");
    $("solo-elsewhere-open").hidden = why !== "open";
    $("solo-elsewhere-moved").hidden = why !== "moved";
    $("solo-elsewhere").hidden = false;
    const button = $("solo-here");
    button.disabled = false;
    button.onclick = () => { button.disabled = true; here(); };
    button.focus();
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
    return current.ask();
  }

  // A record as a file named by its game's end in local time: barbu-solo-2026-12-06-1432.json.
  function save(text, when) {
    const two = (n) => String(n).padStart(2, "0");
    const stamp = `${when.getFullYear()}-${two(when.getMonth() + 1)}-${two(when.getDate())}-${two(when.getHours())}${two(when.getMinutes())}`;
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text + "\n"], { type: "application/json" }));
    link.download = `barbu-solo-${stamp}.json`;
    link.click();
    URL.revokeObjectURL(link.href);
  }

  async function download() { save(await record(), new Date()); }

  // -- the finished games ------------------------------------------------------------------------

  // What the lobby's list shows of a game that ended, from the table's last state, and its record.
  function finished(state, text) {
    const table = state.table;
    return { ended: Math.round(Date.now() / 1000), ruleset: table.ruleset, players: table.players,
      names: table.seats.map((s) => s.name), totals: state.view.totals, places: table.places, you: YOU, record: text };
  }

  // The finished games kept in this browser, newest first (an entry not of this shape is passed over).
  function games() {
    const list = read(GAMES);
    const whole = (g) => g && typeof g.record === "string" && Number.isFinite(g.ended) && Array.isArray(g.totals)
      && Array.isArray(g.places) && typeof g.totals[g.you] === "number";
    return Array.isArray(list) ? list.filter(whole) : [];
  }

  function quota(e) { return e && (e.name === "QuotaExceededError" || e.name === "NS_ERROR_DOM_QUOTA_REACHED"); }

  // Writes the list, dropping its oldest games until it fits (a full storage must not stop a game);
  // returns how many were kept.
  function store(list) {
    for (let n = list.length; n > 0; n--) {
      try {
        localStorage.setItem(GAMES, JSON.stringify(list.slice(0, n)));
        return n;
      } catch (e) {
        if (!quota(e)) return 0; // no storage at all (private mode): nothing kept
      }
    }
    try { localStorage.removeItem(GAMES); } catch (e) { /* no storage */ }
    return 0;
  }

  function crowded(yes) {
    try {
      if (yes) localStorage.setItem(CROWDED, "1");
      else localStorage.removeItem(CROWDED);
    } catch (e) { /* not said: the list is what it is */ }
  }

  // A finished game at the head of the list (the list unchanged when its record is there already);
  // returns the list as kept.
  function keep(game) {
    const before = games();
    if (before.some((g) => g.record === game.record)) return before;
    const list = [game, ...before].slice(0, MOST);
    const kept = store(list);
    crowded(kept < list.length);
    return list.slice(0, kept);
  }

  // A game deleted from the list (the one with this record); returns the list as kept.
  function forget(game) {
    const list = games().filter((g) => g.record !== game.record);
    const kept = store(list);
    crowded(false);
    return list.slice(0, kept);
  }

  function exported(game) { save(game.record, new Date(game.ended * 1000)); }

  // A new game from the lobby: its setup kept, the game before it forgotten.
  function start(setup) {
    write(SETUP, setup);
    try { localStorage.removeItem(KEPT); } catch (e) { /* nothing kept */ }
  }

  // The end of a game: the same setup again with new deals (opening() draws the seed), on this page,
  // once the game that ended is among the finished games (a click at once would lose it).
  async function again() {
    if (current && current.filing) await current.filing;
    const setup = { ...(read(SETUP) || FIRST) };
    delete setup.seed;
    start(setup);
    location.reload();
  }

  if (here()) early = new WorkerSocket();

  return { here, lobby, socket, record, download, start, again, kept: () => read(KEPT), setup: () => read(SETUP),
    opened: () => opened,
    games, keep, forget, exported, crowded: () => read(CROWDED) === 1, MOST };
})();
