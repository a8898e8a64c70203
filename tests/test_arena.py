"""The arena: duplicate structure, determinism across processes, the interval arithmetic, records."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from barbu.bots import Bot
from barbu.cli import main as cli_main
from barbu.engine.cards import KH_MASK
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.record import load, replay
from barbu.tools.arena import (
    DEAL,
    ArenaError,
    Config,
    TaskResult,
    _drive,
    compare,
    deal_state,
    interval,
    play_task,
    record_name,
    run_match,
    run_tasks,
    seating,
    summarize,
    tasks_of,
)


def _strip_timing(summary: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in summary.items() if k not in ("timing", "records")}


# -- arithmetic --------------------------------------------------------------

def test_interval_of_a_known_sample() -> None:
    iv = interval([1.0, 2.0, 3.0, 4.0])
    assert iv.mean == 2.5 and iv.n == 4
    assert iv.half == pytest.approx(1.96 * math.sqrt(5 / 3) / 2)
    assert (iv.low, iv.high) == pytest.approx((2.5 - iv.half, 2.5 + iv.half))
    assert math.isnan(interval([7.0]).half) and interval([7.0]).mean == 7.0
    assert interval([7.0]).to_json()["half_width"] is None


def test_compare_pairs_levels_per_board_and_signs_penalties() -> None:
    rows = [[3.0, 1.0, 0.0], [1.0, 0.0, -1.0]]
    out = compare(rows, ("a", "b", "b"), sign=1)
    diff = out["levels"][0]["diff"]
    # a − mean(b, b): 3 − 0.5 = 2.5, then 1 − (−0.5) = 1.5
    assert (out["levels"][0]["a"], out["levels"][0]["b"]) == ("a", "b")
    assert diff.mean == pytest.approx(2.0)
    assert diff.half == pytest.approx(1.96 * math.sqrt(0.5) / math.sqrt(2))
    # edge of bot 1: 1 − (3 + 0)/2 = −0.5, then 0 − (1 − 1)/2 = 0
    assert out["per_bot"][1]["edge"].mean == pytest.approx(-0.25)
    assert out["per_bot"][0]["mean"].mean == pytest.approx(2.0)
    penalties = compare(rows, ("a", "b", "b"), sign=-1)
    assert penalties["levels"][0]["diff"].mean == pytest.approx(-2.0)
    assert penalties["per_bot"][1]["edge"].mean == pytest.approx(0.25)


def test_summary_of_hand_made_results() -> None:
    cfg = Config(("a", "b", "b"), "family")
    scores = {0: (10, 20, 30), 1: (0, 40, 60), 2: (100, 0, 50)}
    results = [TaskResult(DEAL, 0, r, seating(3, r), (("king", scores[r]),), (), ((0.5,), (), (1.5, 2.5)))
               for r in range(3)]
    s = summarize(cfg, results)
    # rotation 1 seats bots (2, 0, 1) and rotation 2 bots (1, 2, 0)
    means = [row["mean"]["mean"] for row in s["deals"]["per_bot"]]
    assert means == pytest.approx([100 / 3, 60.0, 10.0])
    # penalties: a vs b is mean(b) − a = 35 − 100/3
    assert s["deals"]["levels"][0]["diff"]["mean"] == pytest.approx(35 - 100 / 3)
    assert s["better"] == "lower"
    assert list(s["deals"]["contracts"]) == ["king"]
    t = s["timing"]["per_bot"]
    assert t["0:a"]["calls"] == 3 and t["0:a"]["median"] == 1.5 and t["0:a"]["p95"] == 2.5


# -- structure of a match ----------------------------------------------------

@pytest.mark.parametrize(("rules", "players"), [("classic", 4), ("family", 3)])
def test_every_bot_holds_every_seat_of_every_deal_once(tmp_path: Path, rules: str, players: int) -> None:
    cfg = Config(("random",) * players, rules, seed=5, out=str(tmp_path))
    deals = 8
    results = run_tasks(cfg, tasks_of(players, deals, 0), jobs=1)
    game = cfg.game
    for k in range(deals):
        mine = [r for r in results if r.board == k]
        held = sorted((bot, seat) for r in mine for seat, bot in enumerate(r.seats))
        assert held == [(b, s) for b in range(players) for s in range(players)]
        docs = [load(tmp_path / record_name(DEAL, k, r.rotation)) for r in mine]
        assert all(len(d["hands"]) == 1 for d in docs)
        first = docs[0]["hands"][0]
        for d in docs:
            hand = d["hands"][0]
            assert (hand["deal"], hand["set_aside"]) == (first["deal"], first["set_aside"])
            assert hand["declarer"] == k % players
            assert hand["contract"] == game.contracts[k % 7].id
        # the players' names say which bot sat where
        assert [d["players"] for d in docs] == [[f"{b}:random" for b in r.seats] for r in mine]


def test_records_replay_to_the_scores_played(tmp_path: Path) -> None:
    cfg = Config(("random",) * 3, "family", seed=2, out=str(tmp_path))
    results = run_tasks(cfg, tasks_of(3, 7, 1), jobs=1)
    assert len(list(tmp_path.glob("*.json"))) == len(results) == 3 * 8
    for res in results:
        out = replay(load(tmp_path / record_name(res.kind, res.board, res.rotation))).to_json()
        assert [tuple(h["scores"]) for h in out["hands"]] == [s for _, s in res.hands]
        assert [h["contract"] for h in out["hands"]] == [c for c, _ in res.hands]
        if res.kind == DEAL:
            assert not out["complete"]
        else:
            assert out["complete"] and tuple(out["winners"]) == res.winners


def test_forced_king_with_king_set_aside_is_redealt(tmp_path: Path) -> None:
    game = Game.family(3)
    k = next(k for k in range(0, 7 * 400, 7) if deal_state(game, 9, k).redeals)
    state = deal_state(game, 9, k)
    assert not state.set_aside & KH_MASK
    cfg = Config(("random",) * 3, "family", seed=9, out=str(tmp_path))
    res = play_task(cfg, DEAL, k, 1)
    assert res.hands[0][0] == "king"
    assert replay(load(tmp_path / record_name(DEAL, k, 1))).hands[0].scores == res.hands[0][1]


def test_same_numbers_with_one_or_two_jobs() -> None:
    cfg = Config(("basic", "random", "random"), "family", seed=3)
    one = run_match(cfg, deals=6, games=1, jobs=1)
    two = run_match(cfg, deals=6, games=1, jobs=2)
    assert _strip_timing(one) == _strip_timing(two)
    assert one["timing"]["per_bot"]["0:basic"]["calls"] == two["timing"]["per_bot"]["0:basic"]["calls"]
    assert "win_rate" in one["games"]


@pytest.mark.parametrize("rules,players", [("classic", 4), ("family", 5)])
def test_one_contract_plays_the_deals_a_full_match_gives_it(rules: str, players: int) -> None:
    full = Config(("basic", "random") + ("random",) * (players - 2), rules, seed=4)
    contract = full.game.contracts[3].id
    only = Config(full.bots, rules, seed=4, contract=contract)
    for board in range(3):
        deal = 7 * board + 3
        assert only.deal_number(board) == deal
        a, b = (play_task(cfg, DEAL, k, 1) for cfg, k in ((only, board), (full, deal)))
        assert a.hands == b.hands and a.hands[0][0] == contract
    summary = run_match(only, deals=2, games=0)
    assert summary["contract"] == contract and list(summary["deals"]["contracts"]) == [contract]


def test_one_contracts_records_are_named_by_their_deal_of_the_full_match(tmp_path: Path) -> None:
    cfg = Config(("basic", "random", "random", "random"), seed=4, out=str(tmp_path), contract="no-king")
    run_match(cfg, deals=2, games=0)
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == [record_name(DEAL, d, r) for d in (4, 11) for r in range(4)]
    assert load(tmp_path / names[0])["hands"][0]["contract"] == "no-king"


def test_one_contract_names_itself_in_the_report_and_the_journal(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "run.journal"
    argv = ["arena", "--bots", "basic,random,random,random", "--deals", "2", "--contract", "no-king",
            "--journal", str(journal), "--no-records", "--quiet"]
    assert cli_main(argv) == 0
    assert "2 deals of no-king" in capsys.readouterr().out
    assert json.loads(journal.read_text().splitlines()[0])["contract"] == "no-king"
    # The same journal for the whole match (or another contract) is another match: refused.
    assert cli_main([a for a in argv if a not in ("--contract", "no-king")]) == 2
    assert "journal" in capsys.readouterr().err


class _Cheat(Bot):
    name = "cheat"

    def act(self, obs: Observation) -> int:
        return 999


def test_an_illegal_bot_action_names_the_bot() -> None:
    state = deal_state(Game.classic(), 1, 0)
    with pytest.raises(ArenaError, match="bot X chose an illegal action"):
        _drive(state, [_Cheat()] * 4, lambda s: bool(s.history), lambda seat: "bot X")


# -- command line ------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["--bots", "random,random,random", "--players", "4", "--deals", "1"],
    ["--bots", "random,nobody,random,random", "--deals", "1"],
    ["--bots", "random,random,random,random"],
    ["--bots", "random,random,random,random", "--rules", "family", "--option", "overtrump", "--deals", "1"],
    ["--bots", "random,random,random,random", "--deals", "1", "--contract", "salad"],
    ["--bots", "random,random,random,random", "--deals", "1", "--games", "1", "--contract", "trumps"],
])
def test_bad_arguments_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["arena", *argv, "--no-records", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("barbu arena: ")


def test_console_script_shows_basic_ahead_of_random(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "barbu"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "barbu.cli"]
    summary_file = tmp_path / "summary.json"
    proc = subprocess.run(
        [*cmd, "arena", "--bots", "basic,random,random,random", "--deals", "4", "--seed", "1",
         "--jobs", "2", "--out", str(tmp_path / "rec"), "--json", str(summary_file)],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "basic vs random" in proc.stdout and "higher is better" in proc.stdout
    summary = json.loads(summary_file.read_text())
    pair = summary["deals"]["levels"][0]
    assert (pair["a"], pair["b"]) == ("basic", "random")
    assert pair["diff"]["mean"] > 0 and pair["diff"]["n"] == 4
    assert len(list((tmp_path / "rec").glob("deal*-rot*.json"))) == 16


def test_the_bots_may_be_named_by_what_they_mean_and_the_match_keeps_the_technical_names() -> None:
    import argparse

    from barbu.tools.arena import add_arguments, config_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    by_meaning = config_of(parser.parse_args(["--bots", "hard,easy,medium,expert", "--deals", "1"]))
    by_name = config_of(parser.parse_args(["--bots", "strong,basic,pimc,expert", "--deals", "1"]))
    assert by_meaning.bots == by_name.bots == ("strong", "basic", "pimc", "expert")
    with pytest.raises(ArenaError, match=r"unknown bot level 'harder' \(one of .*hard \(strong\)"):
        config_of(parser.parse_args(["--bots", "harder,easy,easy,easy", "--deals", "1"]))
    assert "hard (strong)" in " ".join(parser.format_help().split())
