"""Deals consistent with what one seat knows, and the states they give, for sampling-based bots.

A seat knows its own cards, every card played face up, the set-aside cards
(family) and what the play revealed: a player who did not follow suit is void in
it, one who did not trump is also out of trumps, a heart led under a heart rule
means nothing else was held, a Dominoes/Réussite pass means none of the cards
that fitted then, and under ``king-first`` a player who let a chance pass has no
K♥. :func:`sample_state` deals the unseen cards to the other seats under those
constraints and rebuilds the hand in progress as a :class:`~barbu.state.State`.

>>> import random
>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> s = State(Game.classic(), seed=4)
>>> _ = s.deal_random()
>>> obs = s.observe(s.current)
>>> guess = sample_state(obs, random.Random(1))
>>> guess.hands[obs.seat] == s.hands[obs.seat], guess.phase == s.phase
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from barbu.engine.cards import ACE, FULL_DECK, HEARTS, KH_MASK, SUIT_MASKS
from barbu.engine.contracts import Contract, Kind, Lead
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State, fitting_cards, place_card, split_doubles

_NOT_HEARTS = FULL_DECK & ~SUIT_MASKS[HEARTS]


def excluded_cards(obs: Observation) -> list[int]:
    """For each seat, a mask of unseen cards the play has shown it cannot hold."""
    n = obs.game.players
    out = [0] * n
    c = obs.contract
    if c is None or not obs.history:
        return out
    if c.kind == Kind.TRICKS:
        _trick_constraints(obs, c, out)
    else:
        _layout_constraints(obs, c, out)
    return out


def _trick_constraints(obs: Observation, c: Contract, out: list[int]) -> None:
    n = obs.game.players
    trump = obs.trump if obs.trump is not None else -1
    trick: list[int] = []
    trick_no = 0
    for seat, card in obs.history:
        if not trick:
            heart_rule = c.lead == Lead.NO_HEART_UNLESS_ONLY_HEARTS or (
                c.lead == Lead.NO_HEART_FIRST_TRICK and trick_no == 0)
            if heart_rule and card // 13 == HEARTS:
                out[seat] |= _NOT_HEARTS  # led a heart, so held nothing else
        else:
            led = trick[0] // 13
            suit = card // 13
            if suit != led:
                out[seat] |= SUIT_MASKS[led]
                if c.trumps and suit != trump:
                    out[seat] |= SUIT_MASKS[trump]
            if c.king_first and card != HEARTS * 13 + 11 and (suit != led or led == HEARTS):
                out[seat] |= KH_MASK  # would have had to play K♥
            if c.overtrump and suit == trump:
                above = [x for x in trick if x // 13 == trump]
                if above and card < max(above):  # must beat the top trump when able: could not
                    out[seat] |= SUIT_MASKS[trump] & ~((2 << max(above)) - 1)
        trick.append(card)
        if len(trick) == n:
            trick = []
            trick_no += 1


def _layout_constraints(obs: Observation, c: Contract, out: list[int]) -> None:
    """Replay the public layout; a forced pass shows the passer held none of the fitting cards."""
    lo, hi = [-1] * 4, [-1] * 4
    start = obs.start_rank if c.kind == Kind.DOMINOES and obs.start_rank is not None else -1
    extra = False  # the next action is the optional one after an ace
    for seat, action in obs.history:
        if action == PASS:
            if not extra and start >= 0:
                out[seat] |= fitting_cards(lo, hi, start)
            extra = False
            continue
        start = place_card(lo, hi, action, start, obs.set_aside)
        extra = c.kind == Kind.REUSSITE and action % 13 == ACE


def sample_hands(obs: Observation, rng: random.Random, tries: int = 20, infer: bool = True) -> list[int]:
    """Current hands for every seat: this seat's own, the others' drawn from the unseen cards.

    Cards go to seats that may hold them, most constrained first; when no consistent
    deal turns up in ``tries`` attempts (possible only through very tight constraints)
    the constraints are dropped rather than fail.
    """
    n = obs.game.players
    unseen = obs.unseen
    excluded = excluded_cards(obs) if infer else [0] * n
    need = [0 if s == obs.seat else obs.hand_sizes[s] for s in range(n)]
    cards = [c for c in range(52) if unseen >> c & 1]
    for attempt in range(tries + 1):
        strict = attempt < tries
        hands = _try_deal(cards, need, excluded if strict else [0] * n, rng)
        if hands is not None:
            hands[obs.seat] = obs.hand
            return hands
    raise AssertionError("unconstrained deal failed")


def _try_deal(cards: list[int], need: list[int], excluded: list[int],
              rng: random.Random) -> list[int] | None:
    n = len(need)
    room = list(need)
    allowed = {c: [s for s in range(n) if room[s] and not excluded[s] >> c & 1] for c in cards}
    order = sorted(cards, key=lambda c: (len(allowed[c]), rng.random()))
    hands = [0] * n
    for c in order:
        seats = [s for s in allowed[c] if room[s]]
        if not seats:
            return None
        total = sum(room[s] for s in seats)
        k = rng.random() * total
        for s in seats:
            k -= room[s]
            if k < 0:
                break
        hands[s] |= 1 << c
        room[s] -= 1
    return hands


Watcher = Callable[[State, int], None]  # told each play of the hand, on the state it was made in


def sample_state(obs: Observation, rng: random.Random, infer: bool = True,
                 watch: Watcher | None = None) -> State:
    """A full state of the hand in progress, with the hidden cards drawn by :func:`sample_hands`.

    Only this hand is rebuilt: scores of earlier hands are left out, since the bots
    judge a decision by the hand's own outcome. ``infer=False`` ignores what the play
    revealed and only keeps the cards seen (the plain PIMC baseline). ``watch``, when given,
    is called with the rebuilt state and each play of the hand just before it is replayed,
    which lets a bot judge how likely the sampled deal makes the plays it saw.
    """
    g = obs.game
    n = g.players
    hands = sample_hands(obs, rng, infer=infer) if obs.phase != Phase.DEAL else [0] * n
    for seat, action in obs.history:
        if action < 52:
            hands[seat] |= 1 << action  # give back what was played: the deal as it was
    per = g.hands_per_declarer
    first = (obs.declarer - obs.hand_no // per) % n
    state = State(g, seed=rng.getrandbits(32), first_declarer=first)
    state.hand_no = obs.hand_no
    state.declarer = obs.declarer
    state.leader = state.current = obs.declarer
    state.used = [((1 << len(g.contracts)) - 1) & ~m for m in obs.available]
    doubles, redoubles = split_doubles(obs.doubles, obs.declarer, n)
    # Doubles already made in this hand are counted again when they are replayed below.
    state.dbl_count = [2 - o - (doubles[s] >> obs.declarer & 1) for s, o in enumerate(obs.owed)]
    state._accept_deal(hands, obs.set_aside)
    _replay_setup(state, obs, doubles, redoubles)
    for _, action in obs.history:
        if watch is not None:
            watch(state, action)
        state._do(action)
    return state


def _replay_setup(state: State, obs: Observation, doubles: list[int], redoubles: list[int]) -> None:
    """Contract, trump, starting rank and the doubling decisions made so far, as observed."""
    g = obs.game
    if obs.contract is None:
        return
    state._do(CONTRACT + g.contract_index(obs.contract.id))
    if state.phase == Phase.TRUMP and obs.trump is not None:
        state._do(TRUMP + obs.trump)
    if state.phase == Phase.START_RANK and obs.start_rank is not None:
        state._do(RANK + obs.start_rank)
    while state.phase == Phase.DOUBLE and not (obs.phase == Phase.DOUBLE and state.current == obs.current):
        state._do(DOUBLE + doubles[state.current])
    while state.phase == Phase.REDOUBLE and not (
            obs.phase == Phase.REDOUBLE and state.current == obs.current):
        state._do(REDOUBLE + redoubles[state.current])
