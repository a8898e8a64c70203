"""Helpers for the engine tests: scripted deals, action scripts, state snapshots and refusals."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from barbu.engine.cards import bits, card_str, parse_cards
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import Game
from barbu.engine.state import _SLOTS, Phase, State
from barbu.tools.arena import deal_state

NAMES = ("Ann", "Ben", "Cleo", "Dan", "Eve", "Fay")
# One game of every table: classic plain and with all four options, family for 3 to 6 players.
EVERY_TABLE = [Game.classic(), Game.classic(("heart-lead", "king-first", "overtrump", "dominoes-40")),
               *(Game.family(n) for n in (3, 4, 5, 6))]


def make_deal(game: Game, spec: Sequence[str], set_aside: str = "") -> tuple[list[int], int]:
    """Hands holding the cards named in ``spec`` (one string per seat, may be partial).

    Cards nobody was given are handed out lowest index first (2♠ … A♣), to seat 0
    until it is full, then seat 1, and so on, so a test names only the cards it cares about.
    """
    n = game.players
    hands = [parse_cards(t) for t in spec] + [0] * (n - len(spec))
    aside = parse_cards(set_aside)
    used = aside
    for h in hands:
        assert not used & h, f"{card_str(next(bits(used & h)))} is in two hands"
        used |= h
    rest = [c for c in range(52) if not used >> c & 1]
    for seat in range(n):
        while hands[seat].bit_count() < game.hand_size:
            hands[seat] |= 1 << rest.pop(0)
    assert aside.bit_count() == game.set_aside_count, "wrong number of set-aside cards"
    return hands, aside


def start(game: Game, spec: Sequence[str], set_aside: str = "", declarer: int = 0) -> State:
    """A state whose first hand is dealt as ``spec`` says, the declarer to choose."""
    state = State(game, seed=0, first_declarer=declarer)
    hands, aside = make_deal(game, spec, set_aside)
    assert state.deal(hands, aside)
    return state


def act(state: State, *texts: str) -> None:
    """Apply actions written in notation (``"QS"``, ``"pass"``, ``"double 0,2"`` …)."""
    for text in texts:
        state.apply(state.game.parse_action(text))


def skip_doubles(state: State) -> None:
    """Answer every double and redouble with the least allowed (nothing unless compulsory)."""
    while state.phase in (Phase.DOUBLE, Phase.REDOUBLE):
        state.apply(state.legal_actions()[0])


def open_hand(state: State, contract: str, extra: str | None = None) -> None:
    """Choose ``contract`` (with ``extra`` such as ``"trump H"``), then no doubles."""
    act(state, contract)
    if extra:
        act(state, extra)
    skip_doubles(state)
    assert state.phase == Phase.PLAY


def held(state: State, seat: int) -> str:
    return " ".join(card_str(c) for c in bits(state.hands[seat]))


def snapshot(state: State) -> tuple[Any, ...]:
    """Everything a state holds, and every seat's view of it, as comparable values."""
    core = tuple(list(v) if isinstance(v, list) else v
                 for name in _SLOTS if name != "_undo"
                 for v in [getattr(state, name)])
    views = tuple(state.observe(s) for s in range(state.game.players))
    return core, views


def refused(state: State, action: int | str, rule: str, *words: str) -> IllegalActionError:
    """Assert that ``action`` is refused for ``rule``, with ``words`` in the message, state unchanged."""
    code = state.game.parse_action(action) if isinstance(action, str) else action
    before = snapshot(state)
    seat = state.current
    assert code not in state.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        state.apply(code)
    err = info.value
    assert err.rule == rule, str(err)
    assert err.seat == (seat if seat >= 0 else None)
    for w in words:
        assert w.lower() in str(err).lower(), f"{w!r} not in {str(err)!r}"
    assert snapshot(state) == before
    return err


Chooser = Callable[[State, random.Random], int | None]


def drive(state: State, rng: random.Random, policy: Chooser | None = None,
          until: Callable[[State], bool] | None = None) -> State:
    """Play random legal actions (or ``policy``'s, when it returns one) until ``until`` or the end."""
    while not state.is_over and not (until and until(state)):
        if state.phase == Phase.DEAL:
            state.deal_random()
            continue
        action = policy(state, rng) if policy else None
        state.apply(rng.choice(state.legal_actions()) if action is None else action)
    return state


def choose(contract: str) -> Chooser:
    """A policy that declares ``contract`` whenever it is allowed and doubles nobody."""
    def policy(state: State, rng: random.Random) -> int | None:
        if state.phase == Phase.CHOOSE:
            code = state.game.parse_action(contract)
            return code if code in state.legal_actions() else None
        if state.phase in (Phase.DOUBLE, Phase.REDOUBLE):
            return state.legal_actions()[0]
        return None
    return policy


def avoid_king(seat: int) -> Chooser:
    """A policy under which ``seat`` chooses King of Hearts only when nothing else is left."""
    def policy(state: State, rng: random.Random) -> int | None:
        if state.phase == Phase.CHOOSE and state.current == seat:
            legal = state.legal_actions()
            others = [a for a in legal if state.game.action_str(a) != "king"]
            return rng.choice(others or legal)
        return None
    return policy


def one_hand(game: Game, contract: str, seed: int) -> State:
    """A state after one random hand of ``contract`` (no doubles)."""
    state = State(game, seed=seed)
    return drive(state, random.Random(seed), choose(contract), until=lambda s: s.hand_no == 1)


def dominoes_ending(seed: int, k: int, left: int, rng: random.Random,
                    card: Callable[[State, random.Random], int] | None = None) -> State | None:
    """The arena's classic deal ``7k + 6`` (Dominoes) of ``seed``, its rank and doubles drawn at
    random, placed at random (or by ``card``) until ``left`` cards are still held; None when the
    hand ends first."""
    game = Game.classic()
    state = deal_state(game, seed, len(game.contracts) * k + game.contract_index("dominoes"))
    while state.hand_no == 0 and state.hand_in_progress and (
            state.phase != Phase.PLAY or sum(h.bit_count() for h in state.hands) > left):
        if card is not None and state.phase == Phase.PLAY:
            state.apply(card(state, rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state if state.hand_no == 0 and state.hand_in_progress else None
