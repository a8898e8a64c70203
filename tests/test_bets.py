"""research/bets.py: every doubled pair of a bot's hands, by who bet, and what it moved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.script_helpers import RESEARCH, load_script

from barbu.engine.record import replay
from barbu.tools.arena import Config, run_match

SCRIPT = RESEARCH / "bets.py"


def test_each_pair_of_the_bots_hands_is_read_once_and_its_settlement_adds_up(tmp_path: Path) -> None:
    run_match(Config(("basic", "basic", "basic", "basic"), seed=3, out=str(tmp_path)), deals=7, games=0)
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
    assert seen  # basic does bet on these deals
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


def test_one_hands_pairs_read_by_who_bet_and_who_redoubled() -> None:
    # No Queens, seat 0 declares. Seat 2 doubles 0, 1 and 3; seat 3 doubles 0 and 1; the declarer
    # redoubles 3, then seat 1 redoubles 2. From bot 2's seat (the record's third player).
    from barbu.engine.game import Game
    from barbu.engine.record import to_record
    from barbu.engine.state import State

    state = State(Game.classic(), seed=4, first_declarer=0)
    assert state.deal_random()
    for seat, text in ((0, "no-queens"), (1, "double none"), (2, "double 0,1,3"), (3, "double 0,1"),
                       (0, "redouble 3"), (1, "redouble 2")):
        assert state.current == seat
        state.apply(state.game.parse_action(text))
    while not state.history:
        state.apply(state.legal_actions()[0])
    record = to_record(state, ["0:x", "1:x", "2:expert", "3:x"])
    bets = load_script("bets")
    hands, got = bets.bets_of(record, 2)
    c = state.history[0].contract_scores
    assert hands == 1 and sorted(got) == sorted([
        bets.Bet("no-queens", False, True, False, c[2] - c[0]),  # 2 doubled the declarer
        bets.Bet("no-queens", False, True, True, 2 * (c[2] - c[1])),  # 2 doubled 1, 1 redoubled
        bets.Bet("no-queens", False, True, False, c[2] - c[3])])
    assert sum(b.moved for b in got) == state.history[0].scores[2] - c[2]
    _, got = bets.bets_of(record, 0)  # the declarer: doubled by 2 and by 3, redoubled 3 back
    assert sorted(got) == sorted([bets.Bet("no-queens", True, False, False, c[0] - c[2]),
                                  bets.Bet("no-queens", True, False, True, 2 * (c[0] - c[3]))])
