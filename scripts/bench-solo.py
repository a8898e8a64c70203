"""The figures of Barbu without a server (docs/static.md), measured in Debian's chromium on this machine.

    .venv/bin/python scripts/bench-solo.py [--hands 1] [--warm 3] [--expert 0.1,0.2,0.3]

It builds the static folder (`barbu static`), serves it with a static file server that counts the bytes
it sends, and prints:
- the cold start (a browser never there: from opening /play/ to the table drawn) and the bytes of that
  first visit (the service worker keeping the site included), and the size of the interpreter's
  snapshot the worker keeps; the warm starts (the same browser again, everything from its cache, the
  interpreter from its snapshot) and their bytes, then as many without the snapshot (the reference:
  Python started and the engine imported at every start, as before the snapshot was kept);
- a computer's decision in the worker (Pyodide): p50, p95 and the slowest, at `strong` and at `expert`
  with each budget asked (seconds of work a decision, barbu.bots.expert).
Figures of one run on a shared machine: run it twice and compare, nothing here is asserted.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_web_browser import CHROMIUM, DESKTOP, FLAGS  # noqa: E402

from barbu.web.http.site import build  # noqa: E402

SENT = [0]  # bytes the server sent, bodies and headers


class Counting(http.server.SimpleHTTPRequestHandler):
    """Python's static file server, counting what it writes and saying nothing."""

    def setup(self) -> None:
        super().setup()
        wfile = self.wfile
        write = wfile.write

        def counted(data: bytes) -> int:
            SENT[0] += len(data)
            return write(data)
        wfile.write = counted  # type: ignore[method-assign]

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(folder: Path) -> str:
    handler = functools.partial(Counting, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def drawn(page: Any) -> None:
    page.wait_for_function("() => typeof T !== 'undefined' && T.view !== null", timeout=120000)


def start(context: Any, url: str, keep: bool, snapshot: bool = True) -> tuple[float, int]:
    """Seconds from opening the table page to its first state drawn, and the bytes sent meanwhile (with
    ``keep``: until the service worker kept the whole site, as a first visit does)."""
    before = SENT[0]
    page = context.new_page()
    began = time.perf_counter()
    page.goto(f"{url}/play/?delay=0" + ("" if snapshot else "&snapshot=0"))
    drawn(page)
    seconds = time.perf_counter() - began
    opened = page.evaluate("Solo.opened()")
    print(f"   (the worker opened in {opened['seconds']:.2f} s, Python ready after "
          f"{opened['pyodide']:.2f} s, started from {opened.get('from', '?')})")
    if keep:
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=120000)
        page.wait_for_function("""async () => { const c = await caches.open((await caches.keys())[0]);
            return (await c.keys()).some((r) => r.url.endsWith('.wasm')); }""", timeout=120000)
        size = page.wait_for_function("""async () => {
            const r = await (await caches.open('barbu-solo-snapshot')).match('/solo-snapshot');
            return r ? (await r.arrayBuffer()).byteLength : 0; }""", timeout=120000).json_value()
        print(f"   (the interpreter kept with the engine imported: a snapshot of {size / 1e6:.1f} MB, "
              "written in the browser, never sent)")
    page.close()
    return seconds, SENT[0] - before


DRIVE = """async ([setup]) => {
  const worker = new Worker("/static/solo-worker.mjs", { type: "module" });
  const config = await (await fetch("/solo.json")).json();
  return await new Promise((resolve, reject) => {
    const decided = [];
    worker.onmessage = ({ data }) => {
      if (data.type === "failed") reject(new Error(data.message));
      if (data.type === "opened") worker.postMessage({ type: "hello" });
      if (data.type === "decided" && data.seat !== 0) decided.push(data.ms);
      if (data.type !== "events") return;
      const state = data.events.filter((e) => e.type === "state").pop();
      if (!state) return;
      if (state.table.over) { worker.terminate(); resolve(decided); }
      else if (state.table.waiting.includes(0)) {
        worker.postMessage({ type: "ready", hand: state.table.hand_no });
      }
      else if (state.view.current === 0 && state.view.legal.join() !== "pass") {
        worker.postMessage({ type: "act", action: state.view.legal[0] });
      }
    };
    worker.postMessage({ type: "open", pyodide: config.pyodide, engine: config.engine, setup, delay: 0 });
  });
}"""


def decisions(context: Any, url: str, level: str, hands: int) -> list[float]:
    page = context.new_page()
    page.goto(f"{url}/rules/classic")
    setup = {"ruleset": "classic", "players": 4, "rounds": hands, "seed": 41, "levels": [level] * 3}
    ms: list[float] = page.evaluate(DRIVE, [setup])
    page.close()
    return ms


def line(level: str, ms: list[float]) -> str:
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"{level:<12} decisions {len(ms):>3}  p50 {statistics.median(ms):7.0f} ms  p95 {p95:7.0f} ms  "
            f"slowest {ordered[-1]:7.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1, help="hands played for each level's decisions (1)")
    parser.add_argument("--warm", type=int, default=3, help="warm starts measured after the first visit (3)")
    parser.add_argument("--expert", default="0.1,0.2,0.3", help="expert budgets to measure, in seconds")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "site"
        build(folder)
        url = serve(folder)
        with sync_playwright() as p:
            profile = str(Path(tmp) / "profile")
            context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                           args=FLAGS, viewport=DESKTOP)
            cold, first = start(context, url, keep=True)
            print(f"cold start {cold:5.2f} s, first visit {first / 1e6:6.2f} MB sent (the site kept)")
            # Chromium keeps the compiled WebAssembly once it has run a few times: the later visits differ.
            for visit in range(2, 2 + args.warm):
                warm, later = start(context, url, keep=False)
                print(f"warm start {warm:5.2f} s (visit {visit}), {later / 1e6:6.3f} MB sent")
            # The reference, in the same browser: Python started and the engine imported at each start.
            for visit in range(2 + args.warm, 2 + 2 * args.warm):
                warm, later = start(context, url, keep=False, snapshot=False)
                print(f"warm start {warm:5.2f} s (visit {visit}) without the snapshot (the reference)")
            print(line("strong", decisions(context, url, "strong", args.hands)))
            for budget in args.expert.split(","):
                print(line(f"expert:{budget}", decisions(context, url, f"expert:{budget}", args.hands)))
            context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
