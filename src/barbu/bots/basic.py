"""The ``basic`` computer player: fast rules of thumb for every decision of both rule sets.

Everything it knows comes from its seat's observation. Hand evaluation is a
handful of risk features per contract, normalised by their average over random
hands, so one number says "this hand is better or worse than usual for that
contract"; card play follows the contract's data (which cards score, whether a
trick is wanted) rather than the contract's name.
"""

from __future__ import annotations

import random
from functools import cache

from barbu.bots import register
from barbu.bots.base import Bot
from barbu.engine.cards import (
    ACE,
    FULL_DECK,
    KING,
    KING_OF_HEARTS,
    QUEEN,
    SUIT_MASKS,
    TEN,
    bits,
    cards_of,
)
from barbu.engine.contracts import Contract, Kind
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, beats, trick_winner

HIGH_WEIGHT = {TEN: 0.2, TEN + 1: 0.35, QUEEN: 0.5, KING: 0.7, ACE: 0.9}


def _suit_cards(hand: int, suit: int) -> list[int]:
    """Ranks held in a suit, low to high."""
    return [c % 13 for c in bits(hand & SUIT_MASKS[suit])]


def _low_count(ranks: list[int]) -> int:
    return sum(1 for r in ranks if r <= 4)


def trick_risk(hand: int) -> float:
    """How many tricks a hand is likely to be forced to take."""
    risk = 0.0
    for s in range(4):
        ranks = _suit_cards(hand, s)
        if not ranks:
            risk -= 0.3  # a void lets you discard
            continue
        guard = 1 + 0.6 * _low_count(ranks)
        risk += sum(HIGH_WEIGHT.get(r, 0.0) for r in ranks) / guard
    return max(risk, 0.05)


def card_risk(hand: int, contract: Contract) -> float:
    """Expected share of the contract's card points a hand will take (relative units)."""
    risk = 0.0
    for c in bits(hand):
        pts = abs(contract.card_points[c])
        if pts:
            ranks = _suit_cards(hand, c // 13)
            below = sum(1 for r in ranks if r < c % 13 - 2)
            risk += pts * (0.35 + 0.65 / (1 + 0.7 * below)) * (0.4 + 0.6 * (c % 13) / 12)
    return risk + 0.15 * trick_risk(hand) * sum(abs(p) for p in contract.card_points) / 13


def early_tricks_free(c: Contract, trick_no: int, hand_size: int) -> bool:
    """Whether only the last tricks score and trick ``trick_no`` is still well before them:
    then taking it costs nothing, and shedding high cards keeps them out of the last tricks."""
    return (bool(c.last_tricks) and not c.per_trick and not c.scoring_cards
            and trick_no < hand_size - len(c.last_tricks) - 3)


def last_risk(hand: int) -> float:
    """How likely a hand is to be left with winners at the end."""
    high = sum(HIGH_WEIGHT.get(c % 13, 0.0) for c in bits(hand))
    low = sum(1 for c in bits(hand) if c % 13 <= 3)
    return max(0.1, high - 0.2 * low + 0.5)


def trump_strength(hand: int, trump: int) -> float:
    """Rough count of tricks a hand takes with ``trump`` as trumps."""
    tricks = 0.0
    trumps = _suit_cards(hand, trump)
    tricks += max(0, len(trumps) - 3) * 0.8 + sum(HIGH_WEIGHT.get(r, 0) * 1.1 for r in trumps)
    for s in range(4):
        if s == trump:
            continue
        ranks = _suit_cards(hand, s)
        tricks += 0.9 * (ACE in ranks) + 0.5 * (KING in ranks and len(ranks) >= 2)
        if not ranks and trumps:
            tricks += 0.5
    return tricks


def domino_distance(hand: int, rank: int) -> float:
    """How far a hand's cards are from a starting rank (small is good)."""
    return sum(abs(c % 13 - rank) for c in bits(hand)) - 2.0 * sum(
        1 for c in bits(hand) if c % 13 == rank)


def best_trump(hand: int) -> int:
    return max(range(4), key=lambda s: (trump_strength(hand, s), s))


def best_start_rank(hand: int) -> int:
    return min(range(13), key=lambda r: (domino_distance(hand, r), abs(r - 6)))


def _feature(contract: Contract, hand: int) -> float:
    """A risk (negative contracts) or strength (positive ones) number for a hand."""
    if contract.kind != Kind.TRICKS:
        return 1.0 / (1.0 + max(0.0, domino_distance(hand, best_start_rank(hand))))
    if contract.positive:
        return trump_strength(hand, best_trump(hand))
    risk = 0.0
    if contract.per_trick:
        risk += abs(contract.per_trick) * trick_risk(hand)
    if any(contract.card_points):
        risk += card_risk(hand, contract)
    if contract.last_tricks:
        risk += sum(abs(x) for x in contract.last_tricks) * 0.1 * last_risk(hand)
    return max(risk, 0.01)


@cache
def _average_feature(contract: Contract, hand_size: int, deck: int = FULL_DECK) -> float:
    rng = random.Random(12345)
    total = 0.0
    samples = 300
    cards_in_play = cards_of(deck)  # all 52 but in Mini-Barbu: the same draws as from range(52)
    for _ in range(samples):
        cards = rng.sample(cards_in_play, hand_size)
        total += _feature(contract, sum(1 << c for c in cards))
    return total / samples


def relative(contract: Contract, hand: int, hand_size: int, deck: int = FULL_DECK) -> float:
    """This hand's feature over the average hand's from ``deck``: >1 means more risk (or more strength)."""
    return _feature(contract, hand) / _average_feature(contract, hand_size, deck)


def expected_gain(contract: Contract, hand: int, players: int, hand_size: int,
                  deck: int = FULL_DECK) -> float:
    """How much better than an average hand this one does in the contract, in points.

    The sign convention is the player's: for classic scores and family penalties alike,
    more risk is worse and more strength (positive contracts, Réussite) is better.
    """
    table_total = _table_total(contract, hand_size)
    average = table_total / players
    ratio = relative(contract, hand, hand_size, deck)
    if contract.positive or contract.kind != Kind.TRICKS:
        # Strength: more is better in classic positive contracts and in Réussite.
        gain = abs(average) * (ratio - 1)
    else:
        gain = -abs(average) * (ratio - 1)
    return gain


def _table_total(contract: Contract, hand_size: int) -> float:
    if contract.kind != Kind.TRICKS:
        return float(sum(contract.out_scores))
    return (contract.per_trick * hand_size + sum(contract.card_points) + sum(contract.last_tricks))


class BasicBot(Bot):
    """Rules of thumb: contracts that suit the hand, shed danger, win tricks in Trumps, block in Dominoes."""

    name = "basic"

    def act(self, obs: Observation) -> int:
        if len(obs.legal) == 1:
            return obs.legal[0]
        phase = obs.phase
        if phase == Phase.CHOOSE:
            return self.choose_contract(obs)
        if phase == Phase.TRUMP:
            return TRUMP + best_trump(obs.hand)
        if phase == Phase.START_RANK:
            return RANK + best_start_rank(obs.hand)
        if phase in (Phase.DOUBLE, Phase.REDOUBLE):
            return self.double(obs)
        assert obs.contract is not None
        if obs.contract.kind == Kind.TRICKS:
            return self.play_trick(obs, obs.contract)
        return self.place(obs)

    # -- bidding ---------------------------------------------------------------

    def choose_contract(self, obs: Observation) -> int:
        g = obs.game
        best, best_gain = obs.legal[0], float("-inf")
        for a in obs.legal:
            c = g.contracts[a - CONTRACT]
            gain = expected_gain(c, obs.hand, g.players, g.hand_size, g.deck)
            if gain > best_gain:
                best, best_gain = a, gain
        return best

    def _my_edge(self, obs: Observation) -> float:
        """How much better than average this hand is for the contract (0 = average)."""
        assert obs.contract is not None
        g = obs.game
        ratio = relative(obs.contract, obs.hand | _played_by(obs, obs.seat), g.hand_size, g.deck)
        return ratio - 1 if obs.contract.positive else 1 - ratio

    def double(self, obs: Observation) -> int:
        base = DOUBLE if obs.phase == Phase.DOUBLE else REDOUBLE
        masks = [a - base for a in obs.legal]
        everyone = max(masks, key=lambda m: m.bit_count())
        must = min(masks, key=lambda m: m.bit_count())  # the compulsory part, if any
        edge = self._my_edge(obs)
        declarer_bit = 1 << obs.declarer
        if obs.phase == Phase.REDOUBLE:
            return base + (everyone if edge > 0.25 else must)
        if edge > 0.45:
            return base + everyone
        if edge > 0.15 and declarer_bit & everyone:
            return base + (must | declarer_bit)
        return base + must

    # -- trick play ------------------------------------------------------------

    def play_trick(self, obs: Observation, c: Contract) -> int:
        legal = [a for a in obs.legal if a < 52]
        if c.positive:
            return self._play_to_win(obs, legal)
        if early_tricks_free(c, obs.trick_no, obs.game.hand_size):
            return max(legal, key=lambda x: (x % 13, -x))
        return self._play_to_lose(obs, legal, c)

    def _danger(self, obs: Observation, c: Contract, card: int) -> float:
        """How bad it is to keep ``card`` (higher: get rid of it sooner)."""
        higher, lower = _unseen_around(obs.unseen, card)
        danger = abs(c.card_points[card]) * 1.5
        danger += (card % 13) / 12 * 4 + lower * 0.3 - higher * 0.4
        if c.king_first and card == KING_OF_HEARTS:
            danger += 100
        return danger

    def _winning(self, obs: Observation) -> int:
        """The card winning the trick so far."""
        cards = [x for _, x in obs.trick]
        return cards[trick_winner(cards, -1 if obs.trump is None else obs.trump)]

    def _play_to_lose(self, obs: Observation, legal: list[int], c: Contract) -> int:
        if not obs.trick:
            return self._lead_low(obs, legal, c)
        best = self._winning(obs)
        trump = obs.trump if obs.trump is not None else -1
        safe = [x for x in legal if not beats(x, best, trump)]
        if safe:
            return max(safe, key=lambda x: (self._danger(obs, c, x), x))
        last = len(obs.trick) == obs.game.players - 1
        if last:
            # Taking it anyway: with the highest card that does not add points.
            return max(legal, key=lambda x: (-abs(c.card_points[x]), x % 13))
        return min(legal, key=lambda x: (abs(c.card_points[x]), x % 13))

    def _lead_low(self, obs: Observation, legal: list[int], c: Contract) -> int:
        def risk(card: int) -> tuple[float, int]:
            higher, lower = _unseen_around(obs.unseen, card)
            win = 1.0 if higher == 0 else (lower / (lower + higher)) ** 2
            return win * 3 + abs(c.card_points[card]) * 0.5 + (card % 13) * 0.01, card

        return min(legal, key=risk)

    def _play_to_win(self, obs: Observation, legal: list[int]) -> int:
        trump = obs.trump if obs.trump is not None else -1
        unseen = obs.unseen
        if not obs.trick:
            def top(card: int) -> bool:
                return _unseen_around(unseen, card)[0] == 0
            winners = [x for x in legal if top(x)]
            trumps = [x for x in legal if x // 13 == trump]
            if trumps and top(max(trumps)) and unseen & SUIT_MASKS[trump]:
                return max(trumps)  # draw the opponents' trumps with a sure winner
            side = [x for x in winners if x // 13 != trump]
            if side:
                return max(side)
            non_trump = [x for x in legal if x // 13 != trump] or legal
            counts = [(obs.hand & SUIT_MASKS[x // 13]).bit_count() for x in non_trump]
            shortest = min(counts)
            return min((x for x, n in zip(non_trump, counts, strict=True) if n == shortest),
                       key=lambda x: x % 13)
        best = self._winning(obs)
        beating = [x for x in legal if beats(x, best, trump)]
        if beating:
            return min(beating, key=lambda x: (x // 13 == trump, x % 13))
        return min(legal, key=lambda x: (x // 13 == trump, x % 13))

    # -- Dominoes and Réussite ---------------------------------------------------

    def place(self, obs: Observation) -> int:
        cards = [a for a in obs.legal if a != PASS]
        if not cards:
            return PASS
        if obs.start_rank is None:
            return self._opening_card(obs, cards)
        return max(cards, key=lambda x: (self._placement_value(obs, x), -abs(x % 13 - 6), x))

    def _opening_card(self, obs: Observation, cards: list[int]) -> int:
        rank = min(range(13), key=lambda r: (domino_distance(obs.hand, r), abs(r - 6)))
        options = [x for x in cards if x % 13 == rank] or cards
        return max(options, key=lambda x: ((obs.hand & SUIT_MASKS[x // 13]).bit_count(), x))

    def _placement_value(self, obs: Observation, card: int) -> float:
        """Playing toward my own cards is good; opening the way for others is bad."""
        suit, rank = divmod(card, 13)
        lo = obs.lines[suit][0]
        mine = obs.hand & ~(1 << card)
        directions: tuple[int, ...] = (-1, 1) if lo < 0 else (-1,) if rank < lo else (1,)
        value = 0.0
        for step in directions:
            r, dist = rank + step, 1
            while 0 <= r <= ACE:
                if mine >> (suit * 13 + r) & 1:
                    value += 3.0 if dist == 1 else 1.0 / dist
                elif dist == 1 and not obs.set_aside >> (suit * 13 + r) & 1:
                    value -= 1.0  # the next card is someone else's
                r += step
                dist += 1
        if obs.contract is not None and obs.contract.kind == Kind.REUSSITE and rank == ACE:
            value += 1.5  # an ace earns another placement
        return value


def _unseen_around(unseen: int, card: int) -> tuple[int, int]:
    """How many unseen cards of ``card``'s suit are higher, and how many lower."""
    suit_unseen = unseen & SUIT_MASKS[card // 13]
    higher = (suit_unseen >> card >> 1).bit_count()
    return higher, suit_unseen.bit_count() - higher


def _played_by(obs: Observation, seat: int) -> int:
    m = 0
    for s, a in obs.history:
        if s == seat and a < 52:
            m |= 1 << a
    return m


register("basic", BasicBot)
