#!/usr/bin/env python3
"""Time one whole classic game in Chromium against three computers, for a quick scripted player.

Starts ``barbu serve`` (its default ``--bot-delay``) on a throwaway database, makes the table with
the lobby's one tap at the chosen pace, then plays Ann's seat: THINK seconds after the page asks,
the first contract offered, no double, any legal card, "Next hand" at once; the page keeps each
finished trick TRICK_PAUSE seconds (its Settings). Prints the game's wall time. No assertion: a
figure to read, as in issue #37 item 12 (a whole game at "fast" in under 10 minutes).

    .venv/bin/python scripts/pace-game.py --pace fast --think 0.3 --trick-pause 0.6
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
# What the page may ask of Ann, in the order a quick player answers it.
WANT = ["#summary-dialog[open] #summary-next",
        "#decision:not([hidden]) button[data-action]:not(.sent):not([disabled])",
        "#double-none:not(.sent)", "#double-submit:not(.sent)",
        "#hand button.card.legal:not([aria-disabled])", "#hand-actions button:not(.sent):not([disabled])"]
READY = "() => (T.meta && T.meta.over) || " + json.dumps(WANT) + ".some(s => document.querySelector(s))"


def serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    exe = Path(sys.executable).parent / "barbu"
    proc = subprocess.Popen([str(exe), "serve", "--port", str(port), "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=1)
            return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("the server did not start")


def play(page: Any, think: float, hands: int) -> int:
    """Ann's game until it is over or ``hands`` hands are done; the number of clicks."""
    clicks = 0
    while True:
        page.wait_for_function(READY, timeout=120000)
        if page.evaluate(f"T.meta && (T.meta.over || T.meta.hand_no >= {hands})"):
            return clicks
        for selector in WANT:
            found = page.locator(selector)
            if found.count():
                page.wait_for_timeout(think * 1000)
                try:
                    found.first.click(timeout=2000)
                    clicks += 1
                except Exception:  # redrawn meanwhile: look again
                    pass
                break


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pace", choices=["slow", "normal", "fast"], default="fast")
    ap.add_argument("--think", type=float, default=0.3, help="seconds Ann takes for each click")
    ap.add_argument("--trick-pause", type=float, default=0.6, help="the page's pause after a trick")
    ap.add_argument("--hands", type=int, default=28, help="stop after this many hands (28: the whole game)")
    ap.add_argument("--port", type=int, default=8765)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    proc = serve(Path(tempfile.mkdtemp()) / "pace.db", args.port)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            settings = json.dumps({"trickPause": args.trick_pause, "pace": args.pace})
            page.add_init_script(f"localStorage.setItem('barbu.settings', '{settings}')")
            page.goto(f"http://127.0.0.1:{args.port}/")
            page.wait_for_function("document.getElementById('quick-line').textContent !== ''")
            page.fill("#create-name", "Ann")
            page.click("#quick-play")
            page.wait_for_url("**/table/**")
            start = time.monotonic()
            clicks = play(page, args.think, args.hands)
            took = time.monotonic() - start
            meta = page.evaluate("T.meta")
            print(f"pace {meta['pace']}, think {args.think} s, trick pause {args.trick_pause} s: "
                  f"{took:.0f} s ({took / 60:.1f} min) for {meta['hand_no']} hands, {clicks} clicks")
            browser.close()
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
