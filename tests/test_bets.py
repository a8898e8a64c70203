"""scripts/bets.py: every doubled pair of a bot's hands, by who bet, and what it moved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.script_helpers import SCRIPTS, load_script

from barbu.engine.record import replay
from barbu.tools.arena import Config, run_match

SCRIPT = SCRIPTS / "bets.py"


def test_each_pair_of_the_bots_hands_is_read_once_and_its_settlement_adds_up(tmp_path: Path) -> None:
    run_match(Config(("strong", "basic", "basic", "basic"), seed=3, out=str(tmp_path)), deals=7, games=0)
    bets = load_script("bets")
    records = sorted(tmp_path.glob("deal*-rot*.json"))
    assert len(records) == 7 * 4
    seen = 0
    for path in records:
        record = json.loads(path.read_text(encoding="utf-8"))
        me = next(s for s, name in enumerate(record["players"]) if name.startswith("0:"))
        hands, got = bets.bets_of(record, 0)
        (hand,) = replay(record).hands
        assert hands == 1
        # What the bets moved is the bot's score less its contract points: nothing else moves any.
        assert sum(b.moved for b in got) == hand.scores[me] - hand.contract_scores[me]
        pairs = {frozenset(p) for p in hand.doubles if me in p}
        assert len(got) == len(pairs)
        assert all(not b.mine for b in got if b.declarer)  # a declarer never doubles
        seen += len(got)
    assert seen  # strong and basic do bet on these deals
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "bot 0: 28 hands in 28 records" in out.stdout and f"all bets: {seen} pairs" in out.stdout


def test_a_family_run_or_an_empty_folder_is_refused(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["bets.py", str(tmp_path)])
    with pytest.raises(SystemExit, match="no arena records"):
        load_script("bets").main()
    run_match(Config(("basic", "random", "random"), "family", seed=3, out=str(tmp_path)), deals=1, games=0)
    with pytest.raises(SystemExit, match="family rules have no doubles"):
        load_script("bets").main()
