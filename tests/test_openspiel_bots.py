"""The os-ismcts and os-mcts levels: OpenSpiel's bots seated by the arena, fair and cheating."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

from barbu.bots import levels, make_bot
from barbu.bots.openspiel import IsmctsBot, MctsBot
from barbu.engine.game import Game
from barbu.engine.record import load, replay
from barbu.tools.arena import DEAL, Config, deal_state, play_task


@pytest.fixture(autouse=True)
def few_simulations(monkeypatch: pytest.MonkeyPatch) -> None:
    # The searches' strength is measured by the arena, not here: these tests need legal play.
    monkeypatch.setattr(IsmctsBot, "simulations", 6)
    monkeypatch.setattr(MctsBot, "simulations", 6)


def test_the_cheating_level_is_offered_only_to_the_arena() -> None:
    assert "os-ismcts" in levels() and "os-mcts" not in levels()
    assert {"os-ismcts", "os-mcts"} <= set(levels(cheats=True))
    assert make_bot("os-mcts").cheats and not make_bot("os-ismcts").cheats


def test_a_search_takes_its_simulation_count_from_its_name() -> None:
    bot = make_bot("os-mcts:200", seed=1)
    assert isinstance(bot, MctsBot) and bot.simulations == 200 and bot.name == "os-mcts:200"
    assert make_bot("os-ismcts:50").simulations == 50  # type: ignore[attr-defined]
    assert MctsBot.simulations == 6  # the level's own count (800, set to 6 here) is left alone
    for bad in ("os-mcts:0", "os-mcts:", "os-mcts:1.5", "os-ismcts:many"):
        with pytest.raises(ValueError, match="whole number above zero"):
            make_bot(bad)


def test_the_simulation_count_reaches_openspiels_bot() -> None:
    state = deal_state(Game.classic(), seed=3, k=0)
    while len(state.legal_actions()) == 1:  # a forced action is answered without a search
        state.apply(state.legal_actions()[0])
    bot = make_bot("os-mcts:37", seed=1)
    bot.show(state)
    bot.act(state.observe(state.current))
    (search,) = bot._bots.values()  # type: ignore[attr-defined]
    assert search.max_simulations == 37


def test_listing_the_levels_does_not_load_openspiel() -> None:
    code = "import sys, barbu.bots; barbu.bots.levels(); print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip() == "False"


def test_os_mcts_refuses_to_play_without_the_true_state() -> None:
    state = deal_state(Game.classic(), seed=1, k=0)
    bot = make_bot("os-mcts", seed=1)
    with pytest.raises(RuntimeError, match="only `barbu arena` seats it"):
        bot.act(state.observe(state.current))
    other = deal_state(Game.classic(), seed=2, k=0)
    bot.show(other)  # the state of another table
    with pytest.raises(RuntimeError, match="true deal"):
        bot.act(state.observe(state.current))


@pytest.mark.parametrize(("rules", "bots"), [
    ("classic", ("os-ismcts", "os-mcts", "basic", "random")),
    ("family", ("os-ismcts", "os-mcts", "random")),
    ("family", ("os-ismcts", "basic", "basic", "basic", "os-mcts"))])
# Deal k plays contract k mod 7: No Tricks / King of Hearts, Trumps / Salad, Dominoes / Réussite.
@pytest.mark.parametrize("deal", [0, 5, 6])
def test_openspiel_bots_play_arena_deals_legally(tmp_path: Path, rules: str, bots: tuple[str, ...],
                                                 deal: int) -> None:
    cfg = Config(bots, rules, out=str(tmp_path))
    result = play_task(cfg, DEAL, deal, rotation=1)  # the arena checks every action
    assert len(result.hands) == 1 and result.hands[0][0] == cfg.game.contracts[deal].id
    assert all(result.times)
    record = next(tmp_path.glob("*.json"))
    assert replay(load(record)).hands[0].scores == result.hands[0][1]


def test_os_mcts_reads_the_true_deal() -> None:
    state = deal_state(Game.classic(), seed=5, k=0)
    seat = state.current
    bot = MctsBot(seed=1)
    bot.show(state)
    assert bot.deal(state.observe(seat)) == state.dealt
    # os-ismcts starts from a deal drawn from the seat's view: its own cards, the rest redrawn.
    drawn = IsmctsBot(seed=1).deal(state.observe(seat))
    assert drawn[seat] == state.dealt[seat] and drawn != state.dealt


def test_the_arena_seats_a_search_with_its_count_and_refuses_a_bad_one() -> None:
    import argparse

    from barbu.tools.arena import ArenaError, add_arguments, config_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    cfg = config_of(parser.parse_args(["--bots", "os-mcts:200,basic,basic,basic", "--deals", "1"]))
    assert cfg.bots[0] == "os-mcts:200"
    with pytest.raises(ArenaError, match="whole number above zero, not 'x'"):
        config_of(parser.parse_args(["--bots", "os-mcts:x,basic,basic,basic", "--deals", "1"]))
