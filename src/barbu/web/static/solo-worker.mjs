// The solo table's engine, off the page's thread: Pyodide runs barbu's own Python (the zip the build
// makes of the engine, the bots and barbu.solo), which answers the page with the very messages
// `barbu serve` sends over its socket. No rule of the game is written here.
//
// From the page: {type: "open", pyodide: URL, engine: URL, setup | kept, delay, snapshot} once, then the socket's messages
// (hello, act, ready, sync, ping) and {type: "record"}. To the page: {type: "events", events},
// {type: "kept", kept} after every change (the page stores it: the game survives a reload),
// {type: "record", text}, {type: "opened", seconds, pyodide}, {type: "decided", ms, seat} after each computer's
// move (or forced pass), {type: "failed", message}.
let py = null;
let table = null;
let delay = 0; // milliseconds before each computer's move, so that the person can follow it
let stepping = null;

// Imported before the snapshot is made, so that a restored interpreter has every level ready.
const PROGRAM = `
import json
from barbu.engine.game import Game
from barbu.solo.table import SoloTable
import barbu.bots.basic, barbu.bots.pimc, barbu.bots.strong, barbu.bots.expert

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

// The interpreter as it stands once the engine is imported (Pyodide's memory snapshot), kept in this
// browser: a later visit starts from it instead of starting Python and importing barbu again, which is
// most of a warm start. One snapshot is kept, under the engine's and Pyodide's addresses: another
// engine or Pyodide makes a new one. Cache Storage only exists where service workers do (https or
// localhost); elsewhere every start is a cold one.
const SNAPSHOTS = "barbu-solo-snapshot"; // the service worker's update clears it with its other caches
const SNAPSHOT = new URL("/solo-snapshot", location.href).href; // a name in the cache, never fetched

function snapshotKey(msg) { return `${msg.pyodide} ${msg.engine}`; }

// Called only where Cache Storage exists (startPython's "keeping").
async function keptSnapshot(msg) {
  try {
    const found = await (await caches.open(SNAPSHOTS)).match(SNAPSHOT);
    if (!found || found.headers.get("x-barbu-snapshot") !== snapshotKey(msg)) return null;
    return new Uint8Array(await found.arrayBuffer());
  } catch (e) {
    return null; // storage refused (private mode, quota): start from scratch
  }
}

async function keepSnapshot(msg, bytes) {
  try {
    const headers = { "content-type": "application/octet-stream", "x-barbu-snapshot": snapshotKey(msg) };
    await (await caches.open(SNAPSHOTS)).put(SNAPSHOT, new Response(bytes, { headers }));
  } catch (e) { /* not kept: the next visit starts from scratch again */ }
}

async function forgetSnapshot() {
  try { await caches.delete(SNAPSHOTS); } catch (e) { /* nothing kept */ }
}

// Pyodide, from the kept snapshot when there is one that loads; else started and filled with the
// engine, and its snapshot kept for the next visit.
async function startPython(msg, loadPyodide, engine) {
  const indexURL = new URL(msg.pyodide, location.href).href;
  const keeping = Boolean(self.caches) && msg.snapshot !== false;
  const snapshot = keeping ? await keptSnapshot(msg) : null;
  if (snapshot) {
    try {
      const restored = await loadPyodide({ indexURL, _loadSnapshot: snapshot });
      restored.unpackArchive(engine, "zip", { extractDir: "/solo" }); // for what imports itself later
      // The snapshot's random generator is the same at every visit: seed it afresh.
      restored.runPython("import random; random.seed()");
      return { py: restored, from: "snapshot" };
    } catch (e) {
      await forgetSnapshot(); // unreadable by this Pyodide: started from scratch below, and kept anew
    }
  }
  const fresh = await loadPyodide({ indexURL, _makeSnapshot: keeping });
  fresh.unpackArchive(engine, "zip", { extractDir: "/solo" });
  fresh.runPython("import sys; sys.path.insert(0, '/solo')");
  fresh.runPython(PROGRAM);
  if (keeping) keepSnapshot(msg, fresh.makeMemorySnapshot()); // written while the game starts
  return { py: fresh, from: "scratch" };
}

async function open(msg) {
  const started = performance.now();
  const [{ loadPyodide }, zip] = await Promise.all([
    import(new URL(`${msg.pyodide}pyodide.mjs`, location.href).href), fetch(msg.engine)]);
  if (!zip.ok) throw new Error(`the engine (${msg.engine}) could not be loaded: ${zip.status}`);
  const started_ = await startPython(msg, loadPyodide, await zip.arrayBuffer());
  py = started_.py;
  const loaded = performance.now();
  const openTable = py.globals.get("open_table");
  table = openTable(JSON.stringify(msg.setup || null), msg.kept ? JSON.stringify(msg.kept) : "");
  openTable.destroy();
  delay = Number(msg.delay) || 0;
  // The seconds it took, Python's share first (the figures of scripts/bench-solo.py).
  postMessage({ type: "opened", seconds: (performance.now() - started) / 1000, pyodide: (loaded - started) / 1000,
                from: started_.from });
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
