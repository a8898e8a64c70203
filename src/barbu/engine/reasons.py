"""Why an action is illegal: the rule it breaks, said to the player who tried it and about them.

:meth:`State.illegal <barbu.engine.state.State.illegal>` builds its error from
:func:`why_illegal`; this runs only when an action is refused, never on the hot paths.
"""

from __future__ import annotations

from barbu.engine.cards import KH_MASK, SUIT_MASKS, SUIT_NAMES, card_pretty, sorted_cards
from barbu.engine.contracts import Contract, Lead
from barbu.engine.core import CHOOSE_P, DOUBLE_P, PLAY_P, RANK_P, REDOUBLE_P, TRICKS_K, TRUMP_P, StateCore
from barbu.engine.errors import Phrase, Seat
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, seats_of
from barbu.engine.hand import PHASE_TASK

Reason = tuple[str, str | Phrase, str | Phrase]  # the rule's id, the message, the same about the player

# The actions each phase expects, from the first to the one after the last.
_EXPECTS = {PLAY_P: (0, 53), CHOOSE_P: (CONTRACT, CONTRACT + 8),
            TRUMP_P: (TRUMP, TRUMP + 4), RANK_P: (RANK, RANK + 13),
            DOUBLE_P: (DOUBLE, DOUBLE + 64), REDOUBLE_P: (REDOUBLE, REDOUBLE + 64)}


def why_illegal(state: StateCore, action: int) -> Reason:
    """The rule ``action`` breaks in ``state``, where it is known not to be legal."""
    g = state.game
    phase = state.phase
    try:
        text = g.action_str(action)
    except ValueError:
        unknown = f"{action!r} is not an action of Barbu"
        return "unknown-action", unknown, f"tried {unknown}"
    lo, hi = _EXPECTS.get(phase, (0, 0))
    if not lo <= action < hi:
        task = PHASE_TASK[phase]
        return ("wrong-phase", f"it is time to {task}, not '{text}'",
                f"cannot play '{text}' now: it is time to {task}")
    if phase == PLAY_P:
        return _why_card_illegal(state, action)
    if phase == CHOOSE_P:
        c = g.contracts[action - CONTRACT]
        if state.used[state.declarer] >> (action - CONTRACT) & 1:
            return ("contract-used", f"{c.name} has already been chosen by this player",
                    f"has already chosen {c.name} in this game")
        why = "K♥ is set aside this round"
        return "king-set-aside", f"{c.name} may not be chosen: {why}", f"may not choose {c.name}: {why}"
    if phase == DOUBLE_P:
        return _why_double_illegal(state, action - DOUBLE)
    if phase == REDOUBLE_P:
        return ("redouble-target", "you may redouble only players who doubled you",
                "may redouble only players who doubled them")
    return "illegal", f"'{text}' is not allowed now", f"may not play '{text}' now"


def _why_double_illegal(state: StateCore, mask: int) -> Reason:
    seat = state.current
    assert state.contract is not None
    if mask >> seat & 1:
        return "double-self", "you cannot double yourself", "cannot double themselves"
    bad = mask & ~state.double_targets(seat)
    declarer = Seat(state.declarer)
    if bad:
        t = Seat(seats_of(bad)[0])
        if state.contract.positive:
            name = state.contract.name
            return ("double-positive",
                    Phrase("in {c} you may double only the declarer ({d})", c=name, d=declarer),
                    Phrase("may double only the declarer ({d}) in {c}", c=name, d=declarer))
        answer = "answer with a redouble after the doubling round"
        return ("double-twice", Phrase("{t} has already doubled you: {a}", t=t, a=answer),
                Phrase("may not double {t}, who has already doubled them: {a}", t=t, a=answer))
    owed, left = state.owed_doubles(seat), state.hands_left_for_declarer()
    # The hands left are the declarer's, not the doubler's: say whose.
    why = (f"still owe {owed} double{'s' if owed > 1 else ''} and only {left} of the "
           f"declarer's hands remain{'' if left > 1 else 's'}, this one included")
    return ("compulsory-double",
            Phrase("doubling the declarer ({d}) is compulsory: you {w}", d=declarer, w=why),
            Phrase("skipped a compulsory double of the declarer ({d}): they {w}",
                   d=declarer, w=why))


def _why_card_illegal(state: StateCore, action: int) -> Reason:
    c = state.contract
    assert c is not None
    hand = state.hands[state.current]
    if action == PASS:
        if c.kind == TRICKS_K:
            return ("no-pass", "you cannot pass in a trick game: play a card",
                    "cannot pass in a trick game")
        return ("must-place", "you may not pass while you can place a card",
                "may not pass while holding a card that can be placed")
    name = card_pretty(action)
    if not hand >> action & 1:
        return "not-your-card", f"you do not hold {name}", f"does not hold {name}"
    if c.kind != TRICKS_K:
        why = "" if state.start_rank < 0 else (
            f": a suit opens with its {card_pretty(state.start_rank)[:-1]} and grows one card "
            "at a time at either end")
        return "placement", f"{name} cannot be placed{why}", f"cannot place {name}{why}"
    if not state.trick:
        return _why_lead_illegal(c)
    return _why_follow_illegal(state, c, action, hand)


def _why_follow_illegal(state: StateCore, c: Contract, action: int, hand: int) -> Reason:
    """Why a card held may not follow to the trick in progress."""
    led = state.trick[0] // 13
    follow = hand & SUIT_MASKS[led]
    legal = state.legal_mask()
    if legal == KH_MASK and c.king_first:
        must = "must play K♥ at the first chance (option king-first)"
        return "king-first", f"you {must}", must
    if follow and action // 13 != led:
        return ("follow-suit", f"you must follow suit: {SUIT_NAMES[led]} were led and you hold some",
                f"must follow suit: {SUIT_NAMES[led]} were led and they hold some")
    if c.trumps and not follow and action // 13 != state.trump:
        trump = f"so must play a trump ({SUIT_NAMES[state.trump]})"
        return ("must-trump", f"you cannot follow {SUIT_NAMES[led]}, {trump}",
                f"cannot follow {SUIT_NAMES[led]}, {trump}")
    can = " ".join(card_pretty(x) for x in sorted_cards(legal))
    must = f"must beat the highest trump in the trick ({can} can)"
    return "overtrump", f"you {must}", must


def _why_lead_illegal(c: Contract) -> Reason:
    if c.lead == Lead.NO_KH_UNLESS_LAST_CARD:
        return ("lead-king", f"in {c.name}, K♥ may be led only when it is your last card",
                f"may lead K♥ in {c.name} only as their last card")
    if c.lead == Lead.NO_HEART_FIRST_TRICK:
        return ("lead-heart-first", "no heart may be led to the first trick while you hold another suit",
                "may not lead a heart to the first trick while holding another suit")
    return ("lead-heart", f"in {c.name} a heart may not be led while you hold another suit",
            f"may not lead a heart in {c.name} while holding another suit")
