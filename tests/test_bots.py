"""Computer players: legal answers in every phase, decisions that depend on the seat's view only."""

from __future__ import annotations

import gc
import random

import pytest

from barbu.bots import levels, make_bot
from barbu.bots.base import Bot
from barbu.bots.expert import ExpertBot
from barbu.bots.sampling import excluded_cards, sample_state
from barbu.engine.game import PASS, Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State
from barbu.tools.arena import deal_state

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)


def _table(g: Game) -> str:
    """A short test id for a table: classic4+overtrump, family5."""
    return f"{g.ruleset}{g.players}" + "".join(f"+{o}" for o in sorted(g.options))


FAST_LEVELS = ["random", "basic"]


def _reachable(obj: object, limit: int = 20000) -> list[object]:
    """Every object reachable from ``obj`` through references (bounded)."""
    seen: dict[int, object] = {}
    stack = [obj]
    while stack and len(seen) < limit:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen[id(x)] = x
        stack.extend(gc.get_referents(x))
    return list(seen.values())


def test_levels_are_all_selectable_by_name() -> None:
    assert {"random", "basic", "pimc", "strong"} <= set(levels())
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster")


@pytest.mark.parametrize("level", FAST_LEVELS)
@pytest.mark.parametrize("game", [Game.classic(), Game.classic(("king-first", "overtrump")),
                                  Game.family(3), Game.family(4), Game.family(6)],
                         ids=lambda g: f"{g.ruleset}-{g.players}")
def test_fast_bots_play_whole_games_legally(level: str, game: Game) -> None:
    state = State(game, seed=11)
    bots = [make_bot(level, seed=i) for i in range(game.players)]
    phases = set()
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random()
            continue
        phases.add(state.phase)
        state.apply(bots[state.current].act(state.observe(state.current)))  # apply() checks legality
    assert Phase.PLAY in phases and Phase.CHOOSE in phases


# expert:0.01 is strong's own number of deals and the expert's weights: its budget buys no more.
@pytest.mark.parametrize("level", ["pimc", "strong", "expert:0.01"])
@pytest.mark.parametrize("game", [Game.classic(), Game.family(5)], ids=["classic", "family5"])
def test_search_bots_answer_every_kind_of_decision(level: str, game: Game) -> None:
    state = State(game, seed=2)
    bot = make_bot(level, seed=1)
    seen = set()
    rng = random.Random(2)
    while state.hand_no < 2:
        if state.phase == Phase.DEAL:
            state.deal_random()
            continue
        obs = state.observe(state.current)
        # Search on only a few decisions per hand keeps the test short; the rest are random.
        if state.phase != Phase.PLAY or rng.random() < 0.15:
            action = bot.act(obs)
            assert action in obs.legal
            seen.add(state.phase)
        else:
            action = rng.choice(obs.legal)
        state.apply(action)
    assert Phase.CHOOSE in seen and Phase.PLAY in seen


def _twin(state: State, seat: int, rng: random.Random) -> State:
    """Another state with the same view for ``seat`` but other hidden cards."""
    return sample_state(state.observe(seat), rng)


@pytest.mark.parametrize("level", ["basic", "pimc", "strong", "expert:0.01"])
def test_a_decision_depends_on_the_seats_view_only(level: str) -> None:
    """Two games that look the same from a seat but hide different cards get the same answer."""
    rng = random.Random(5)
    state = State(Game.classic(), seed=5)
    state.deal_random()
    while state.phase != Phase.PLAY or state.trick_no < 3:
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current
    twin = _twin(state, seat, random.Random(99))
    assert twin.observe(seat) == state.observe(seat)
    others = [s for s in range(4) if s != seat]
    assert any(twin.hands[s] != state.hands[s] for s in others)
    one = _replayable(make_bot(level, seed=7)).act(state.observe(seat))
    two = _replayable(make_bot(level, seed=7)).act(twin.observe(seat))
    assert one == two


def _replayable(bot: Bot) -> Bot:
    """The bot with the expert's CPU-time safety stop lifted: on a busy machine the stop, not the
    work budget, can end a decision, and then the same view gets answers that differ by timing."""
    return bot.make_replayable() if isinstance(bot, ExpertBot) else bot


def test_an_observation_holds_no_hidden_cards() -> None:
    """Nothing reachable from a seat's observation is the State or another seat's hand."""
    rng = random.Random(8)
    state = State(Game.classic(), seed=8)
    state.deal_random()
    for _ in range(15):
        state.apply(rng.choice(state.legal_actions()))
    for seat in range(4):
        obs = state.observe(seat)
        reachable = _reachable(obs)
        assert not any(isinstance(x, State) for x in reachable)
        hidden = {state.hands[s] for s in range(4) if s != seat}
        ints = {x for x in reachable if type(x) is int}
        assert not hidden & ints
        assert obs.hand == state.hands[seat]


def test_sampled_deals_respect_what_the_play_revealed() -> None:
    for seed in range(12):
        rng = random.Random(seed)
        game = Game.classic(("king-first", "overtrump")) if seed % 2 else Game.family(3 + seed % 4)
        state = State(game, seed=seed)
        while state.hand_no < 2:
            if state.phase == Phase.DEAL:
                state.deal_random()
                continue
            obs = state.observe(state.current)
            excluded = excluded_cards(obs)
            for s in range(game.players):
                assert not excluded[s] & state.hands[s], "inference excluded a card the seat holds"
            world = sample_state(obs, rng)
            assert world.observe(obs.seat).to_json() | {"results": [], "totals": []} == \
                obs.to_json() | {"results": [], "totals": []}
            for s in range(game.players):
                assert not excluded[s] & world.hands[s]
            state.apply(rng.choice(obs.legal))


def test_observation_type_is_what_bots_get() -> None:
    state = State(Game.family(4), seed=1)
    state.deal_random()
    assert isinstance(state.observe(state.current), Observation)


@pytest.mark.parametrize("game", [Game.classic(("overtrump",)), Game.classic(("king-first", "overtrump")),
                                  Game.family(4)], ids=_table)
def test_sampled_deals_keep_every_real_play_legal(game: Game) -> None:
    """What a play showed (voids, a trump under the top one when overtrumping is a rule) is kept
    in every sampled deal, so the real plays stay legal there."""
    checked = 0
    for k in range(5, 5 + 7 * 6, 7):  # Trumps deals (the sixth contract of the table)
        state = deal_state(game, 3, k)
        rng = random.Random(k)
        hand_no = state.hand_no
        while state.hand_no == hand_no and state.hand_in_progress:
            obs = state.observe(state.current)
            if state.phase == Phase.PLAY and obs.history:

                def legal(world: State, action: int, deal: int = k) -> None:
                    assert action == PASS or world.legal_mask() >> action & 1, (deal, action)

                for _ in range(3):
                    sample_state(obs, rng, watch=legal)
                checked += 1
            state.apply(rng.choice(obs.legal))
    assert checked > 100
