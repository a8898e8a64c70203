"""The load check script still runs: two tables for a few seconds, and a person against computers who
asks the coach (the figures themselves are not judged)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_the_load_check_runs_and_reports() -> None:
    # The tables play one hand each; --seconds bounds the wait for the coach's first answer.
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "loadtest.py"), "--tables", "2",
                          "--hint-tables", "1", "--seconds", "30"], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert "2 tables x 4 computer players" in text and "actions per second" in text
    assert "p50" in text and "p95" in text and "p99" in text
    assert "hidden cards shown to watchers: 0; error events: 0" in text
    # The hint-asking table got an answer (the script waits for a first one) and no refusal.
    assert "at 1 table(s) of one person against 3 computers" in text and "hint latency" in text
    assert "hint errors: 0" in text
