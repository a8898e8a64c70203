"""A second, deliberately naive reading of RULES.md that re-checks and re-scores finished hands.

It shares no rule code with the engine: it walks a hand's deal and actions, asserts that every
action was allowed (follow suit, must trump, lead restrictions, placements, passes, early ends)
and computes the contract scores from the card values written out in RULES.md.
"""

from __future__ import annotations

from barbu.engine.cards import HEART_CARDS, KH_MASK, QUEENS, SUIT_MASKS, card_str
from barbu.engine.game import PASS, Game
from barbu.engine.state import HandRecord

ACE_H = 13 + 12
HEART_LEAD_ALWAYS = {("classic", "no-hearts")}
HEART_LEAD_FIRST = {"king", "hearts", "salad"}
TARGETS = {"no-queens": QUEENS, "queens": QUEENS, "no-hearts": HEART_CARDS, "hearts": HEART_CARDS,
           "no-king": KH_MASK, "king": KH_MASK}
CLASSIC_TOTALS = {"no-tricks": -26, "no-queens": -24, "no-hearts": -30, "no-last-two": -30,
                  "no-king": -20, "trumps": 65, "dominoes": 65}


def _has(mask: int, c: int) -> bool:
    return bool(mask >> c & 1)


def trick_points(contract: str, index: int, cards: list[int], hand_size: int) -> int:
    """Points of one trick for its taker, straight from the tables of RULES.md."""
    taken = sum(1 << c for c in cards)
    queens = (taken & QUEENS).bit_count()
    hearts = (taken & HEART_CARDS).bit_count()
    king = _has(taken, 13 + 11)
    last = index == hand_size - 1
    table = {
        "no-tricks": -2, "no-queens": -6 * queens, "no-hearts": -2 * hearts - 4 * _has(taken, ACE_H),
        "no-last-two": -10 * (index == 11) - 20 * (index == 12), "no-king": -20 * king, "trumps": 5,
        "king": 100 * king, "queens": 25 * queens, "hearts": 10 * hearts, "tricks": 10,
        "last-trick": 100 * last,
    }
    table["salad"] = sum(table[k] for k in ("king", "queens", "hearts", "tricks", "last-trick"))
    return table[contract]


def _check_lead(game: Game, h: HandRecord, hand: int, c: int, trick_no: int) -> None:
    only_hearts = not hand & ~HEART_CARDS
    heart_rule = ((game.ruleset, h.contract) in HEART_LEAD_ALWAYS
                  or (h.contract == "no-king" and "heart-lead" in game.options)
                  or (h.contract in HEART_LEAD_FIRST and trick_no == 0))
    if heart_rule:
        assert c // 13 != 1 or only_hearts, f"heart {card_str(c)} led in {h.contract}"
    elif h.contract == "no-king":
        assert c != 13 + 11 or hand == KH_MASK, "K♥ led while holding other cards"


def _check_follow(game: Game, h: HandRecord, hand: int, c: int, led: int) -> None:
    follow = hand & SUIT_MASKS[led]
    if follow:
        assert c // 13 == led, f"{card_str(c)} does not follow suit"
    elif h.trump is not None and hand & SUIT_MASKS[h.trump]:
        assert c // 13 == h.trump, f"{card_str(c)} is not a trump though void in the suit led"


def score_tricks(game: Game, h: HandRecord) -> list[int]:
    """Contract scores of a finished trick hand; asserts that every card was legal."""
    n, size = game.players, game.hand_size
    hands = list(h.deal)
    targets = TARGETS.get(h.contract, 0) & ~h.set_aside
    scores = [0] * n
    leader, fallen = h.declarer, 0
    actions = list(h.actions)
    expected_len = 0 if TARGETS.get(h.contract) and not targets else n * size
    for trick_no, k in enumerate(range(0, len(actions), n)):
        cards = actions[k:k + n]
        assert len(cards) == n, "a finished hand ends on a whole trick"
        led = cards[0] // 13
        for i, c in enumerate(cards):
            seat = (leader + i) % n
            assert _has(hands[seat], c), f"seat {seat} plays {card_str(c)} without holding it"
            if i == 0:
                _check_lead(game, h, hands[seat], c, trick_no)
            else:
                _check_follow(game, h, hands[seat], c, led)
            hands[seat] &= ~(1 << c)
        trump = -1 if h.trump is None else h.trump
        best = max(range(n), key=lambda i: (cards[i] // 13 == trump, cards[i] // 13 == led,
                                            cards[i] % 13))
        leader = (leader + best) % n
        scores[leader] += trick_points(h.contract, trick_no, cards, size)
        fallen |= sum(1 << c for c in cards)
        if targets and not targets & ~fallen:
            expected_len = k + n
            break
    assert len(actions) == expected_len, f"{h.contract} hand should end after {expected_len} actions"
    return scores


def _placeable(hand: int, placed: int, start: int | None) -> int:
    """The cards of ``hand`` that may be placed next to the lines of ``placed`` (incl. set aside)."""
    if start is None:
        return hand  # the Réussite opening: any card
    out = 0
    for suit in range(4):
        base = suit * 13
        if not _has(placed, base + start):
            out |= hand & 1 << (base + start)
            continue
        lo = hi = start
        while lo > 0 and _has(placed, base + lo - 1):
            lo -= 1
        while hi < 12 and _has(placed, base + hi + 1):
            hi += 1
        for r in (lo - 1, hi + 1):
            if 0 <= r <= 12:
                out |= hand & 1 << (base + r)
    return out


def score_layout(game: Game, h: HandRecord) -> list[int]:
    """Contract scores of a finished Dominoes or Réussite hand; asserts every action was legal."""
    n = game.players
    reussite = h.contract == "reussite"
    outs = (-100, -50) if reussite else (
        (40, 25, 10, -10) if "dominoes-40" in game.options else (45, 20, 5, -5))
    needed = 2 if reussite else n - 1
    hands = list(h.deal)
    placed = h.set_aside
    start = None if reussite else h.start_rank
    seat, extra, out = h.declarer, False, []
    for j, a in enumerate(h.actions):
        assert hands[seat], f"seat {seat} is out and takes no turn"
        can = _placeable(hands[seat], placed, start)
        if a == PASS:
            assert extra or not can, f"seat {seat} passes holding a placeable card (action {j})"
            extra = False
        else:
            assert _has(can, a), f"{card_str(a)} cannot be placed (action {j})"
            hands[seat] &= ~(1 << a)
            placed |= 1 << a
            if start is None:
                start = a % 13
            if not hands[seat]:
                out.append(seat)
                if len(out) == needed:
                    assert j == len(h.actions) - 1, "the hand goes on after it ended"
                    break
            elif reussite and a % 13 == 12:
                extra = True
                continue
            extra = False
        seat = next((seat + k) % n for k in range(1, n + 1) if hands[(seat + k) % n])
    assert len(out) == needed, "a finished hand ends when enough players are out"
    scores = [0] * n
    for place, s in enumerate(out):
        scores[s] = outs[place]
    if not reussite:
        last = next(s for s in range(n) if s not in out)
        scores[last] = outs[-1]
    return scores


def contract_scores(game: Game, h: HandRecord) -> list[int]:
    """The oracle's contract scores of any finished hand."""
    if h.contract in ("dominoes", "reussite"):
        return score_layout(game, h)
    return score_tricks(game, h)


def family_total(contract: str, set_aside: int, hand_size: int) -> int:
    """Sum of a family round's scores given the set-aside cards (RULES.md 2.3)."""
    king = 0 if set_aside & KH_MASK else 100
    queens = 25 * (4 - (set_aside & QUEENS).bit_count())
    hearts = 10 * (13 - (set_aside & HEART_CARDS).bit_count())
    parts = {"king": king, "queens": queens, "hearts": hearts, "tricks": 10 * hand_size,
             "last-trick": 100, "reussite": -150}
    parts["salad"] = king + queens + hearts + 10 * hand_size + 100
    return parts[contract]
