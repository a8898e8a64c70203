// The solo table's engine, off the page's thread: Pyodide runs barbu's own Python (the zip the build
// makes of the engine, the bots and barbu.solo), which answers the page with the very messages
// `barbu serve` sends over its socket. No rule of the game is written here.
//
// From the page: {type: "open", pyodide: URL, engine: URL, setup | kept, delay} once, then the socket's messages
// (hello, act, ready, sync, ping) and {type: "record"}. To the page: {type: "events", events},
// {type: "kept", kept} after every change (the page stores it: the game survives a reload),
// {type: "record", text}, {type: "opened", seconds, pyodide}, {type: "decided", ms, seat} after each computer's
// move (or forced pass), {type: "failed", message}.
let py = null;
let table = null;
let delay = 0; // milliseconds before each computer's move, so that the person can follow it
let stepping = null;

const PROGRAM = `
import json
from barbu.engine.game import Game
from barbu.solo.table import SoloTable

def open_table(setup_json, kept_json):
    if kept_json:
        return SoloTable.restore(json.loads(kept_json))
    s = json.loads(setup_json)
    game = Game(s["ruleset"], s["players"], frozenset(s.get("options", [])), rounds=s.get("rounds", 0))
    return SoloTable(game, s["seed"], s["levels"], s.get("name") or "You")

def answer(table, text):
    return json.dumps(table.handle(json.loads(text)), ensure_ascii=False)

def step(table):
    return json.dumps(table.step(), ensure_ascii=False)

def kept(table):
    return json.dumps(table.snapshot())
`;

async function open(msg) {
  const started = performance.now();
  const { loadPyodide } = await import(new URL(`${msg.pyodide}pyodide.mjs`, location.href).href);
  py = await loadPyodide({ indexURL: new URL(msg.pyodide, location.href).href });
  const loaded = performance.now();
  const zip = await fetch(msg.engine);
  if (!zip.ok) throw new Error(`the engine (${msg.engine}) could not be loaded: ${zip.status}`);
  py.unpackArchive(await zip.arrayBuffer(), "zip", { extractDir: "/solo" });
  py.runPython("import sys; sys.path.insert(0, '/solo')");
  py.runPython(PROGRAM);
  const openTable = py.globals.get("open_table");
  table = openTable(JSON.stringify(msg.setup || null), msg.kept ? JSON.stringify(msg.kept) : "");
  openTable.destroy();
  delay = Number(msg.delay) || 0;
  // The seconds it took, Pyodide's share first (the figures of scripts/bench-solo.py).
  postMessage({ type: "opened", seconds: (performance.now() - started) / 1000, pyodide: (loaded - started) / 1000 });
}

function call(name, ...args) {
  const fn = py.globals.get(name);
  try { return fn(table, ...args); } finally { fn.destroy(); }
}

function post(eventsText) {
  const events = JSON.parse(eventsText);
  if (!events.length) return null;
  postMessage({ type: "events", events });
  postMessage({ type: "kept", kept: JSON.parse(call("kept")) });
  return events;
}

// The computers' moves, one at a time with the pause between them, until the person is to act.
function keepStepping() {
  clearTimeout(stepping);
  stepping = setTimeout(() => {
    const started = performance.now();
    const events = post(call("step"));
    if (events) {
      // How long the move took, for the figures (scripts/bench-solo.py): the seat's decision and its state.
      postMessage({ type: "decided", ms: performance.now() - started, seat: events[events.length - 1].last.seat });
      keepStepping();
    }
  }, delay);
}

async function handle(msg) {
  if (msg.type === "open") {
    await open(msg);
    return;
  }
  if (!table) return;
  if (msg.type === "record") {
    postMessage({ type: "record", text: table.record() });
    return;
  }
  post(call("answer", JSON.stringify(msg)));
  keepStepping();
}

// Messages are handled in order, each after the one before it is done (the loading is slow).
let busy = Promise.resolve();
onmessage = (ev) => {
  const msg = ev.data;
  busy = busy.then(async () => {
    try {
      await handle(msg);
    } catch (e) {
      postMessage({ type: "failed", message: String(e && e.message ? e.message : e) });
    }
  });
};
