"""research/dominoes-doubles.py: a run's Dominoes scores cut into the places' points and the rest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.script_helpers import RESEARCH, load_script

from barbu.tools.arena import Config, run_match

SCRIPT = RESEARCH / "dominoes-doubles.py"


def test_every_dominoes_score_is_counted_once_and_places_are_places(tmp_path: Path) -> None:
    journal = tmp_path / "a.journal"
    cfg = Config(("strong", "basic", "basic", "basic"), seed=3, contract="dominoes")
    run_match(cfg, deals=3, games=0, journal=str(journal))
    parts = load_script("dominoes-doubles").split(journal, 0)
    assert len(parts["bot-place"]) + len(parts["bot-other"]) == 3 * 4  # one seat, four rotations
    assert len(parts["rest-place"]) + len(parts["rest-other"]) == 3 * 4 * 3
    assert parts["bot-other"] and parts["rest-other"]  # these deals have doubles (strong's, basic's)
    assert set(parts["bot-place"] + parts["rest-place"]) <= {45, 20, 5, -5}
    assert not set(parts["bot-other"] + parts["rest-other"]) & {45, 20, 5, -5}
    # Doubles move points between players: the four scores of a hand add up to 65 all the same.
    every = [x for xs in parts.values() for x in xs]
    assert sum(every) == 65 * 3 * 4
    out = subprocess.run([sys.executable, str(SCRIPT), str(journal)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "bot 0" in out.stdout and "the others" in out.stdout


def test_a_run_without_dominoes_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "f.journal"
    run_match(Config(("basic", "random", "random"), "family", seed=3), deals=1, games=0, journal=str(journal))
    with pytest.raises(SystemExit, match="no Dominoes"):
        load_script("dominoes-doubles").split(journal, 0)
