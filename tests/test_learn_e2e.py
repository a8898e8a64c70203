"""End to end: ``barbu learn`` lists the lessons with the progress kept under the XDG state folder, and
a lesson runs whole through pipes: its positions answered, then its hand through the terminal game
with the coach's warnings on and ``hint`` at a prompt, the lesson then kept as done."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from barbu.learn.lessons import lesson

BARBU = str(Path(sys.executable).parent / "barbu")
PROMPT = re.compile(r"\[(?P<choices>[^\]\n]*)\](?: \(Enter = [^)\n]*\))? > \Z|\(y/n\) \Z")


def learn(args: list[str], home: Path, answers: list[str | None] | None = None,
          timeout: float = 90) -> tuple[int, str]:
    """Run ``barbu learn ARGS`` with its state under ``home``; each prompt is answered by the next of
    ``answers`` while there are some (None: as the others), then by its first choice (Enter where
    there is a default) and any warning by "y". The exit status and everything printed."""
    env = {**os.environ, "XDG_STATE_HOME": str(home), "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.Popen([BARBU, "learn", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    queue, raw, deadline = list(answers or []), b"", time.monotonic() + timeout
    while True:
        ready, _, _ = select.select([proc.stdout.fileno()], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            proc.kill()
            pytest.fail("barbu learn stopped answering:\n" + raw.decode()[-2000:])
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        raw += chunk
        m = PROMPT.search(raw[-2000:].decode("utf-8", "replace"))
        if m is None:
            continue
        reply = queue.pop(0) if queue else None
        if reply is not None:
            pass
        elif m["choices"] is None:
            reply = "y"
        else:
            reply = "" if "(Enter = " in raw[-300:].decode("utf-8", "replace") else \
                m["choices"].replace(",", " ").split()[0]
        proc.stdin.write((reply + "\n").encode())
        proc.stdin.flush()
    return proc.wait(timeout=10), raw.decode()


def test_the_list_shows_every_lesson_and_what_is_left(tmp_path: Path) -> None:
    status, out = learn([], tmp_path)
    assert status == 0 and "15 of 15 lessons left" in out
    assert "classic-doubling" in out and "family-reussite" in out and "Réussite" in out
    status, out = learn(["classic-nothing"], tmp_path)
    assert status == 2 and "no lesson 'classic-nothing'" in out


def test_a_lesson_runs_through_its_positions_and_its_hand_and_is_kept_done(tmp_path: Path) -> None:
    x = lesson("family-last-trick")
    card = x.positions[0].natural[0]  # a natural choice the expert's beats
    # A hint asked at a position (refused: decide first), the positions, the hand's contract (its only
    # one), then a hint at the hand's first card.
    # Warnings off (they are the terminal game's, tested with `barbu play --warn`): one search, the hint.
    status, out = learn([x.id, "--warn", "off"], tmp_path,
                        ["hint", card, *[None] * (len(x.positions) - 1), None, "hint"])
    assert status == 0, out[-2000:]
    assert "Last Trick: 100 for the last trick." in out  # the engine's own table says it
    assert "Decide first" in out
    assert "is estimated to lose" in out and "The expert’s estimate for this hand" in out
    assert "With the expert's" in out and "Position 2 of" in out
    assert "The expert would choose" in out  # the hint typed at the hand's first card
    assert "Lesson done. 14 of 15 lessons left." in out
    record = json.loads(next((tmp_path / "barbu" / "lessons").glob("*.json")).read_text())
    assert record["contracts"] == ["last-trick"] and record["rounds"] == 1 and len(record["hands"]) == 1
    assert json.loads((tmp_path / "barbu" / "learn.json").read_text())["done"] == [x.id]
    status, out = learn([], tmp_path)
    assert "✓ family-last-trick" in out and "14 of 15 lessons left" in out
