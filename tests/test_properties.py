"""Property tests over random legal games of both rule sets and every table size.

Each game is driven by a seeded random player, hypothesis choosing the seeds (and the classic
options); every finished hand is re-checked by the independent reading in ``tests/oracle.py``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine_helpers import NAMES, snapshot
from tests.oracle import CLASSIC_TOTALS, contract_scores, family_total

from barbu.engine.cards import parse_card
from barbu.engine.contracts import CLASSIC_OPTIONS
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import PASS, Game
from barbu.engine.record import replay, to_record
from barbu.engine.state import REQUIRED_DOUBLES, Phase, State

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

TABLES = [("classic", 4), ("family", 3), ("family", 4), ("family", 5), ("family", 6)]
SEEDS = st.integers(min_value=0, max_value=2**40)
OPTIONS = st.frozensets(st.sampled_from(CLASSIC_OPTIONS))
CARD_TEXT = re.compile(r"^[2-9TJQKA][SHDC]$")
CHECKED = settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHEAP = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def make_game(ruleset: str, players: int, options: frozenset[str]) -> Game:
    return Game.classic(options) if ruleset == "classic" else Game.family(players)


def json_cards(value: Any, skip: tuple[str, ...] = ("hand", "legal")) -> Iterator[str]:
    """Every card written anywhere in a JSON value, except under the keys in ``skip``."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from json_cards(v, skip)
    elif isinstance(value, list):
        for v in value:
            yield from json_cards(v, skip)
    elif isinstance(value, str) and CARD_TEXT.match(value):
        yield value


def check_view(state: State, seat: int, deep: bool) -> None:
    """``seat``'s observation shows its own cards and nobody else's."""
    obs = state.observe(seat)
    n = state.game.players
    others = 0
    for s in range(n):
        if s != seat:
            others |= state.hands[s]
    if state.hand_in_progress:
        assert obs.hand == state.hands[seat]
    else:
        assert obs.hand == 0
    public = obs.hand | obs.set_aside | obs.played
    for pairs in (obs.trick, obs.last_trick):
        for _, c in pairs:
            public |= 1 << c
    for m in obs.captured:
        public |= m
    assert not public & others, "another seat's hidden card is visible"
    if seat == state.current:
        assert obs.legal == tuple(state.legal_actions())
    else:
        assert obs.legal == ()
    if deep:
        data = obs.to_json()
        json.dumps(data)
        assert {parse_card(x) for x in data["hand"]} == {c for c in range(52) if obs.hand >> c & 1}
        for text in json_cards(data):
            assert not others >> parse_card(text) & 1, f"{text} of another seat shown to seat {seat}"


def run_game(game: Game, seed: int) -> State:
    """A random game with every per-step property checked."""
    rng = random.Random(seed)
    state = State(game, seed=seed)
    played = 0
    steps = 0
    while not state.is_over:
        steps += 1
        if state.phase == Phase.DEAL:
            check_view(state, rng.randrange(game.players), deep=True)
            state.deal_random()
            played = 0
            continue
        seat = state.current
        legal = state.legal_actions()
        assert legal, "the player to act always has a legal action"
        check_view(state, seat, deep=steps % 11 == 0)
        check_view(state, rng.randrange(game.players), deep=steps % 13 == 0)
        action = rng.choice(legal)
        if state.phase == Phase.PLAY and action != PASS:
            assert state.hands[seat] >> action & 1, "only the holder plays a card"
            assert not played >> action & 1, "a card is played once"
            played |= 1 << action
        hand_no = state.hand_no
        state.apply(action)
        if state.hand_no != hand_no:
            played = 0
    return state


def quick_game(game: Game, seed: int, play_seed: int, steps: int | None = None) -> State:
    """A random game (or its first ``steps`` steps) without per-step checks."""
    rng = random.Random(play_seed)
    state = State(game, seed=seed)
    while not state.is_over and (steps is None or steps > 0):
        if steps is not None:
            steps -= 1
        state.deal_random() if state.phase == Phase.DEAL else state.apply(rng.choice(state.legal_actions()))
    return state


def check_hands(state: State) -> None:
    game = state.game
    n = game.players
    for h in state.history:
        assert list(h.contract_scores) == contract_scores(game, h)
        cards = [a for a in h.actions if a != PASS]
        assert len(cards) == len(set(cards))
        assert sum(h.scores) == sum(h.contract_scores)
        if game.is_classic:
            assert sum(h.contract_scores) == CLASSIC_TOTALS[h.contract]
        else:
            assert h.scores == h.contract_scores
            assert sum(h.contract_scores) == family_total(h.contract, h.set_aside, game.hand_size)
    assert state.totals == [sum(h.scores[s] for h in state.history) for s in range(n)]


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
@CHECKED
@given(seed=SEEDS, options=OPTIONS)
def test_random_games_keep_every_rule(ruleset: str, players: int, seed: int,
                                      options: frozenset[str]) -> None:
    game = make_game(ruleset, players, options)
    state = run_game(game, seed)
    assert state.is_over and len(state.history) == game.num_hands
    check_hands(state)
    per = game.hands_per_declarer
    for k in range(0, game.num_hands, per):
        block = state.history[k:k + per]
        assert len({h.declarer for h in block}) == 1
    for seat in range(players):
        mine = sorted(h.contract for h in state.history if h.declarer == seat)
        assert mine == sorted(c.id for c in game.contracts)
        if game.is_classic:
            for d in range(players):
                if d != seat:
                    made = sum((seat, d) in h.doubles for h in state.history if h.declarer == d)
                    assert made >= REQUIRED_DOUBLES
    best = max(state.totals) if game.is_classic else min(state.totals)
    assert state.winners() == [s for s in range(players) if state.totals[s] == best]


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
@CHEAP
@given(seed=SEEDS, options=OPTIONS, stop=st.none() | st.integers(min_value=0, max_value=2000))
def test_record_round_trip_gives_the_same_scores(ruleset: str, players: int, seed: int,
                                                 options: frozenset[str], stop: int | None) -> None:
    game = make_game(ruleset, players, options)
    state = quick_game(game, seed, seed, stop)
    doc = json.loads(json.dumps(to_record(state, NAMES[:players])))
    result = replay(doc)
    out = result.to_json()
    assert out["totals"] == state.totals
    assert out["complete"] == state.is_over
    assert out["winners"] == state.winners()
    expected = [{"declarer": h.declarer, "contract": h.contract,
                 "contract_scores": list(h.contract_scores), "scores": list(h.scores)}
                for h in state.history]
    if state.phase == Phase.PLAY:
        current = state.current_record()
        expected.append({"declarer": current.declarer, "contract": current.contract,
                         "contract_scores": list(current.contract_scores),
                         "scores": list(current.scores), "finished": False})
    assert out["hands"] == expected
    assert (result.state.hand_no, result.state.declarer) == (state.hand_no, state.declarer)
    if state.phase == Phase.PLAY:
        assert result.state.hands == state.hands and result.state.current == state.current
    again = replay(json.loads(json.dumps(to_record(result.state, NAMES[:players]))))
    assert again.to_json() == out


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
@CHEAP
@given(seed=SEEDS, options=OPTIONS, steps=st.integers(min_value=0, max_value=2000),
       depth=st.integers(min_value=1, max_value=60))
def test_push_pop_and_copy(ruleset: str, players: int, seed: int, options: frozenset[str],
                           steps: int, depth: int) -> None:
    game = make_game(ruleset, players, options)
    state = quick_game(game, seed, seed, steps)
    rng = random.Random(seed + 1)
    if state.phase == Phase.DEAL:
        state.deal_random()
    before = snapshot(state)

    pushed = 0
    while pushed < depth and state.legal_actions():
        state.push(rng.choice(state.legal_actions()))
        pushed += 1
    for _ in range(pushed):
        state.pop()
    assert snapshot(state) == before

    twin = state.copy()
    assert snapshot(twin) == before
    while twin.legal_actions() and twin.hand_no == state.hand_no:
        twin.apply(rng.choice(twin.legal_actions()))
    if twin.phase == Phase.DEAL:
        twin.deal_random()
    assert snapshot(state) == before, "playing on a copy changes the original"
    twin_view = snapshot(twin)
    if state.legal_actions():
        state.apply(state.legal_actions()[0])
    assert snapshot(twin) == twin_view, "playing on the original changes the copy"


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_the_seed_fixes_every_deal(ruleset: str, players: int, seed: int) -> None:
    game = make_game(ruleset, players, frozenset())
    a, b = quick_game(game, seed, seed), quick_game(game, seed, seed)
    assert a.history == b.history and a.totals == b.totals
    if game.is_classic:  # classic deals do not depend on the play (family redeals may)
        other = quick_game(game, seed, seed + 1)
        assert [h.deal for h in other.history] == [h.deal for h in a.history]


KNOWN_RULES = {"wrong-phase", "unknown-action", "not-your-card", "no-pass", "must-place", "placement",
               "lead-king", "lead-heart-first", "lead-heart", "king-first", "follow-suit", "must-trump",
               "overtrump", "contract-used", "king-set-aside", "double-self", "double-positive",
               "double-twice", "compulsory-double", "redouble-target"}


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
@CHEAP
@given(seed=SEEDS, options=OPTIONS, steps=st.integers(min_value=0, max_value=2000),
       tries=st.lists(st.integers(min_value=-3, max_value=260), min_size=1, max_size=8))
def test_illegal_actions_are_refused_and_change_nothing(ruleset: str, players: int, seed: int,
                                                       options: frozenset[str], steps: int,
                                                       tries: list[int]) -> None:
    game = make_game(ruleset, players, options)
    state = quick_game(game, seed, seed, steps)
    legal = state.legal_actions()
    assert [a for a in range(-3, 261) if state.is_legal(a)] == sorted(legal)
    if state.phase == Phase.PLAY:  # the held cards the rules forbid now, and a pass
        tries += [c for c in range(52) if state.hands[state.current] >> c & 1] + [PASS]
    before = snapshot(state)
    for action in tries:
        if action in legal:
            continue
        with pytest.raises(IllegalActionError) as info:
            state.apply(action)
        assert info.value.rule in KNOWN_RULES and str(info.value)
        assert info.value.seat == (state.current if state.current >= 0 else None)
        assert snapshot(state) == before
