"""A drill's position: a hand of a game rebuilt from its seed and actions, and the kind of its decision.

A drill is a decision of the first hand of a game: the deal comes from the game's seed
(:meth:`~barbu.engine.state.State.deal_random`), the declarer is recorded, and the actions of the
hand up to the decision are replayed against the rules, so the seat's view is rebuilt exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from barbu.engine.contracts import Kind
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State

# The kinds of decision a drill asks, in the order the pages list them.
KINDS = ("contract", "trump", "rank", "double", "redouble", "lead", "follow", "discard", "place")
_PHASE_KIND = {Phase.CHOOSE: "contract", Phase.TRUMP: "trump", Phase.START_RANK: "rank",
               Phase.DOUBLE: "double", Phase.REDOUBLE: "redouble"}


def game_for(rules: str, players: int = 4) -> Game:
    """The game of a rule set (family at ``players`` players; classic at four)."""
    if rules == "classic":
        return Game.classic()
    if rules == "family":
        return Game.family(players)
    raise ValueError(f"unknown rule set {rules!r} (classic or family)")


def rebuild(rules: str, players: int, seed: int, first: int, actions: Sequence[int]) -> State:
    """The state after dealing the first hand of game ``seed`` (declarer ``first``) and applying
    ``actions``; an action the rules refuse raises IllegalActionError."""
    state = State(game_for(rules, players), seed=seed, first_declarer=first)
    if not state.deal_random():
        raise ValueError(f"game {seed} is redealt at its first hand: no drill starts there")
    for a in actions:
        state.apply(a)
    return state


def kind_of(obs: Observation) -> str:
    """What the decision at ``obs`` is: a contract, trump, rank or double, or a card that leads,
    follows, discards (void in the suit led) or is placed (Dominoes, Réussite)."""
    if obs.phase in _PHASE_KIND:
        return _PHASE_KIND[obs.phase]
    c = obs.contract
    if c is None or obs.phase != Phase.PLAY:
        raise ValueError(f"no decision to drill at phase {obs.phase.name}")
    if c.kind != Kind.TRICKS:
        return "place"
    if not obs.trick:
        return "lead"
    led = obs.trick[0][1] // 13
    return "follow" if any(a // 13 == led for a in obs.legal) else "discard"
