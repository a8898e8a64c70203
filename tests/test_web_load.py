"""The load check script still runs: two tables for a few seconds (the figures themselves are not judged)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_the_load_check_runs_and_reports() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "loadtest.py"), "--tables", "2",
                          "--seconds", "8"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert "2 tables x 4 computer players" in text and "actions per second" in text
    assert "p50" in text and "p95" in text and "p99" in text
    assert "hidden cards shown to watchers: 0; error events: 0" in text
