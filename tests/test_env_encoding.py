"""barbu.env's action ids and observation arrays, checked against the engine over random games."""

from __future__ import annotations

import doctest
import itertools
import random
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest
from tests.conftest import ROOT

from barbu.engine.cards import RANKS, SUIT_MASKS, SUITS, card_str, cards_of
from barbu.engine.contracts import CLASSIC_OPTIONS, Kind
from barbu.engine.game import PASS, Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State
from barbu.env import actions
from barbu.env.encoding import decode, encode, layout, obs_size

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

GAMES = [Game.classic(), Game.classic(CLASSIC_OPTIONS), *(Game.family(n) for n in range(3, 7))]
IDS = ["classic", "classic-options", "family3", "family4", "family5", "family6"]


def random_states(game: Game, seed: int, every: int) -> Iterator[State]:
    """A random game's states: every one before the play, one in ``every`` of the play, the last."""
    rng = random.Random(seed)
    state = State(game, seed=seed)
    step = 0
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random()
            continue
        if step % every == 0 or state.phase != Phase.PLAY:
            yield state
        state.apply(rng.choice(state.legal_actions()))
        step += 1
    yield state


def played_by(obs: Observation) -> list[list[str]]:
    out: list[list[int]] = [[] for _ in range(obs.game.players)]
    for s, a in obs.history:
        if a != PASS:
            out[s].append(a)
    return [[card_str(c) for c in sorted(cards)] for cards in out]


def voids_by(obs: Observation) -> list[str]:
    """The suits each seat has failed to follow, trick by trick (and trumps it did not ruff with)."""
    n = obs.game.players
    shown: list[set[int]] = [set() for _ in range(n)]
    c = obs.contract
    if c is not None and c.kind == Kind.TRICKS:
        for k in range(0, len(obs.history), n):
            trick = obs.history[k:k + n]
            led = trick[0][1] // 13
            for s, card in trick[1:]:
                if card // 13 != led:
                    shown[s].add(led)
                    if obs.trump is not None and card // 13 != obs.trump:
                        shown[s].add(obs.trump)
    return ["".join(SUITS[x] for x in sorted(v)) for v in shown]


def pairs(masks: list[int]) -> list[list[int]]:
    return sorted([a, b] for a, m in enumerate(masks) for b in range(len(masks)) if m >> b & 1)


def expected_view(state: State, obs: Observation) -> dict[str, object]:
    """What decode must give for ``obs``, worked out from the observation (and the true doubles)."""
    g, c = obs.game, obs.contract
    tricks_play = obs.phase == Phase.PLAY and c is not None and c.kind == Kind.TRICKS
    return {
        "phase": obs.phase.name.lower(),
        "current": obs.current if obs.current >= 0 else None,
        "declarer": obs.declarer, "leader": obs.leader if tricks_play else None,
        "contract": c.id if c is not None else None,
        "trump": SUITS[obs.trump] if obs.trump is not None else None,
        "start_rank": RANKS[obs.start_rank] if obs.start_rank is not None else None,
        "ace_extra": obs.ace_extra,
        "hand": [card_str(x) for x in cards_of(obs.hand)],
        "set_aside": [card_str(x) for x in cards_of(obs.set_aside)],
        "lines": [[RANKS[lo], RANKS[hi]] if lo >= 0 else None for lo, hi in obs.lines],
        "played": played_by(obs),
        "trick": [[s, card_str(x)] for s, x in obs.trick],
        "last_trick": [[s, card_str(x)] for s, x in obs.last_trick],
        "captured": [[card_str(x) for x in cards_of(m)] for m in obs.captured],
        "voids": voids_by(obs),
        "available": [[g.contracts[i].id for i in range(7) if m >> i & 1] for m in obs.available],
        "doubles": pairs(state.doubled) if obs.doubles else [],
        "redoubles": pairs(state.redoubled) if obs.doubles else [],
        "compulsory": sorted(obs.compulsory), "owed": list(obs.owed),
        "out_order": list(obs.out_order),
        "hand_sizes": list(obs.hand_sizes), "tricks_won": list(obs.tricks_won),
        "trick_no": obs.trick_no, "points": list(obs.points), "totals": list(obs.totals),
        "hand_no": obs.hand_no,
    }


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_decode_gives_back_what_the_observation_holds(game: Game) -> None:
    seen_phases: set[Phase] = set()
    seen_kinds: set[Kind] = set()
    rng = random.Random(1)
    for state in random_states(game, seed=11, every=5):
        seat = rng.randrange(game.players)
        obs = state.observe(seat)
        x = encode(obs)
        assert x.shape == (obs_size(game),) and x.dtype == np.float32
        assert decode(x, game, seat=seat) == expected_view(state, obs)
        seen_phases.add(obs.phase)
        if obs.contract is not None:
            seen_kinds.add(obs.contract.kind)
    want = {Phase.CHOOSE, Phase.PLAY, Phase.GAME_OVER}
    want |= {Phase.TRUMP, Phase.START_RANK, Phase.DOUBLE, Phase.REDOUBLE} if game.is_classic else set()
    assert want <= seen_phases and len(seen_kinds) == 2


def test_voids_shown_are_true_of_the_hidden_hands() -> None:
    for game in GAMES:
        for state in random_states(game, seed=3, every=3):
            obs = state.observe(0)
            voids = decode(encode(obs), game, seat=0)["voids"]
            assert isinstance(voids, list)
            for s, suits in enumerate(voids):
                for suit in suits:
                    assert not state.hands[s] & SUIT_MASKS[SUITS.index(suit)], (s, suit)


def test_seats_are_relative_to_the_observer() -> None:
    game = Game.family(5)
    state = next(s for s in random_states(game, seed=2, every=7) if s.phase == Phase.PLAY and s.trick)
    for seat in range(5):
        obs = state.observe(seat)
        rel = decode(encode(obs), game)
        assert rel["current"] == (state.current - seat) % 5
        assert rel["declarer"] == (state.declarer - seat) % 5
        assert rel["hand_sizes"] == [obs.hand_sizes[(seat + r) % 5] for r in range(5)]
        assert rel["trick"] == [[(s - seat) % 5, card_str(x)] for s, x in obs.trick]


def test_the_layout_is_contiguous_and_documented() -> None:
    for game in GAMES:
        lay = layout(game)
        fields = list(lay.fields.values())
        assert fields[0].offset == 0 and fields[-1].end == lay.size == obs_size(game)
        assert all(a.end == b.offset for a, b in itertools.pairwise(fields))
        assert all(f.doc for f in fields)
        assert all(f.scale == 0 for f in fields if f.offset < lay.nbits)


def test_decode_refuses_an_array_of_another_table() -> None:
    obs = next(random_states(Game.family(3), 1, 1)).observe(0)
    with pytest.raises(ValueError, match="entries"):
        decode(encode(obs), Game.family(4))


# -- action ids ----------------------------------------------------------------


def test_every_table_has_one_id_per_engine_action() -> None:
    for game in GAMES:
        for seat in range(game.players):
            table = actions.engine_table(game.players, seat)
            assert len(table) == actions.NUM_ACTIONS
            known = [a for a in table if a >= 0]
            assert len(set(known)) == len(known)
            for i, a in enumerate(table):
                if a >= 0:
                    assert actions.to_engine(i, seat, game) == a
                    assert actions.from_engine(a, seat, game) == i


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_legal_actions_map_to_ids_and_back(game: Game) -> None:
    for state in random_states(game, seed=5, every=2):
        if state.is_over:
            continue
        legal = state.legal_actions()
        ids = actions.legal_ids(legal, state.current, game)
        assert len(set(ids)) == len(ids)
        assert [actions.to_engine(i, state.current, game) for i in ids] == legal


def test_double_ids_count_seats_from_the_actor() -> None:
    g = Game.classic()
    for seat in range(4):
        for k in (1, 2, 3):
            target = (seat + k) % 4
            bit = 1 << (k - 1)
            assert actions.to_engine(actions.DOUBLE_ID + bit, seat, g) == g.parse_action(f"double {target}")
            assert actions.to_engine(actions.REDOUBLE_ID + bit, seat, g) == g.parse_action(
                f"redouble {target}")
    assert actions.action_name(actions.DOUBLE_ID, g) == "double none"
    with pytest.raises(ValueError, match="beyond"):
        actions.to_engine(actions.DOUBLE_ID + 0b100, 0, Game.family(3))


def test_action_names_are_distinct() -> None:
    for game in (Game.classic(), Game.family(4)):
        names = [actions.action_name(i, game) for i in range(actions.NUM_ACTIONS)]
        assert len(set(names)) == actions.NUM_ACTIONS
        assert names[actions.CONTRACT_ID:actions.TRUMP_ID] == [c.id for c in game.contracts]
    with pytest.raises(ValueError):
        actions.action_name(actions.NUM_ACTIONS, Game.classic())


def test_docs_rl_describes_every_field_and_its_example_runs() -> None:
    text = (ROOT / "docs" / "RL.md").read_text(encoding="utf-8")
    for game in (Game.classic(), Game.family(6)):
        for name in layout(game).fields:
            assert f"| `{name}` |" in text, name
    assert "191 + 230 n + 3 n²" in text
    assert all(obs_size(Game("family", n)) == 191 + 230 * n + 3 * n * n for n in range(3, 7))
    failed, attempted = doctest.testfile(str(ROOT / "docs" / "RL.md"), module_relative=False)
    assert attempted > 0 and failed == 0


def test_the_encoder_and_the_action_ids_need_no_pettingzoo() -> None:
    # Gymnasium, when installed, is loaded to register barbu/Classic-v0 (barbu.env's import);
    # without it, the encoder and the ids still import, and PettingZoo is never loaded.
    code = ("import sys; sys.modules['gymnasium'] = None; import barbu.env.encoding, barbu.env.actions; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pettingzoo', 'gymnasium')))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip() == "['gymnasium']"  # the blocked name alone: nothing was imported
    import barbu.env

    assert barbu.env.raw_env is barbu.env.BarbuEnv
    with pytest.raises(AttributeError):
        _ = barbu.env.no_such_thing  # type: ignore[attr-defined]
