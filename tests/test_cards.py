"""Card notation and masks, action notation, and the static facts of a game."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from barbu.engine.cards import (
    FULL_DECK,
    HEART_CARDS,
    KH_MASK,
    QUEENS,
    RANK_MASKS,
    SUIT_MASKS,
    bits,
    card,
    card_pretty,
    card_str,
    cards_of,
    highest,
    lowest,
    mask_of,
    mask_str,
    parse_card,
    parse_cards,
    parse_rank,
    parse_suit,
    sorted_cards,
)
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)


@pytest.mark.parametrize(("text", "canonical"), [
    ("QS", "QS"), ("qs", "QS"), ("Q♠", "QS"), ("10h", "TH"), ("th", "TH"), ("♥K", "KH"),
    ("2c", "2C"), ("A♦", "AD"), (" 9 d ", "9D"), ("S2", "2S"), ("K♡", "KH"),
])
def test_parse_card_accepts_forgiving_notation(text: str, canonical: str) -> None:
    assert card_str(parse_card(text)) == canonical


@pytest.mark.parametrize("text", ["", "Q", "1S", "XS", "QX", "11H", "AAS", "pass"])
def test_parse_card_refuses_non_cards(text: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        parse_card(text)


def test_every_card_round_trips_through_both_notations() -> None:
    strs = {card_str(c) for c in range(52)}
    assert len(strs) == 52
    for c in range(52):
        assert parse_card(card_str(c)) == c
        assert parse_card(card_pretty(c)) == c
        assert card(c % 13, c // 13) == c
    assert card_pretty(parse_card("TD")) == "10♦"
    assert card_pretty(parse_card("QS")) == "Q♠"


def test_card_order_ace_high_in_every_suit() -> None:
    for suit in range(4):
        ranks = [card_str(c)[0] for c in sorted_cards(SUIT_MASKS[suit])]
        assert "".join(ranks) == "AKQJT98765432"


def test_parse_cards_and_mask_str() -> None:
    m = parse_cards("2c AS th kh 10d")
    assert m.bit_count() == 5
    assert mask_str(m) == "AS KH TH TD 2C"
    assert parse_cards("") == 0
    with pytest.raises(ValueError, match="twice"):
        parse_cards("AS KH as")


def test_masks_partition_the_deck() -> None:
    assert sum(SUIT_MASKS) == FULL_DECK == sum(RANK_MASKS)
    assert all(m.bit_count() == 13 for m in SUIT_MASKS)
    assert all(m.bit_count() == 4 for m in RANK_MASKS)
    assert mask_str(QUEENS) == "QS QH QD QC"
    assert SUIT_MASKS[1] == HEART_CARDS and 1 << parse_card("KH") == KH_MASK


def test_mask_helpers() -> None:
    m = parse_cards("3S QH 2C")
    assert list(bits(m)) == sorted(bits(m)) == [parse_card(x) for x in ("3S", "QH", "2C")]
    assert mask_of(bits(m)) == m
    assert highest(m) == parse_card("2C") and lowest(m) == parse_card("3S")


@pytest.mark.parametrize(("text", "suit"), [("S", 0), ("hearts", 1), ("Diamond", 2), ("♣", 3)])
def test_parse_suit(text: str, suit: int) -> None:
    assert parse_suit(text) == suit


@pytest.mark.parametrize(("text", "rank"), [("A", 12), ("ace", 12), ("10", 8), ("T", 8),
                                            ("jack", 9), ("2", 0)])
def test_parse_rank(text: str, rank: int) -> None:
    assert parse_rank(text) == rank


@pytest.mark.parametrize(("fn", "text"), [(parse_suit, "X"), (parse_rank, "1"), (parse_rank, "14")])
def test_parse_suit_and_rank_refuse(fn: object, text: str) -> None:
    with pytest.raises(ValueError):
        fn(text)  # type: ignore[operator]


@pytest.mark.parametrize("game", [Game.classic(), Game.family(3), Game.family(6)],
                         ids=["classic", "family3", "family6"])
def test_every_action_code_round_trips(game: Game) -> None:
    codes = [*range(52), PASS, *(CONTRACT + i for i in range(len(game.contracts))),
             *(TRUMP + s for s in range(4)), *(RANK + r for r in range(13)),
             *(DOUBLE + m for m in range(1 << game.players)),
             *(REDOUBLE + m for m in range(1 << game.players))]
    texts = [game.action_str(a) for a in codes]
    assert len(set(texts)) == len(codes)
    for a, t in zip(codes, texts, strict=True):
        assert game.parse_action(t) == a


def test_action_notation_examples() -> None:
    g = Game.classic()
    assert g.action_str(g.parse_action("double 2 0")) == "double 0,2"
    assert g.action_str(DOUBLE) == "double none"
    assert g.action_str(REDOUBLE + 0b1000) == "redouble 3"
    assert g.parse_action("knock") == g.parse_action("stop") == PASS
    assert g.action_str(g.parse_action("from jack")) == "rank J"
    with pytest.raises(ValueError, match="no seat 4"):
        g.parse_action("double 4")
    with pytest.raises(ValueError):
        g.action_str(CONTRACT + 7)


def test_game_sizes() -> None:
    g = Game.classic()
    assert (g.hand_size, g.set_aside_count, g.num_hands, g.hands_per_declarer) == (13, 0, 28, 7)
    sizes = {n: (Game.family(n).hand_size, Game.family(n).set_aside_count, Game.family(n).num_hands)
             for n in range(3, 7)}
    assert sizes == {3: (17, 1, 21), 4: (13, 0, 28), 5: (10, 2, 35), 6: (8, 4, 42)}


@pytest.mark.parametrize(("args", "words"), [
    (("classic", 5), "exactly 4"), (("family", 2), "3 to 6"), (("family", 7), "3 to 6"),
    (("poker", 4), "rule set"), (("classic", 4, frozenset({"no-such"})), "unknown option"),
    (("family", 4, frozenset({"overtrump"})), "classic"),
])
def test_game_refuses_bad_setups(args: tuple[object, ...], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Game(*args)  # type: ignore[arg-type]


def test_declarer_rotation_of_the_game() -> None:
    classic, family = Game.classic(), Game.family(5)
    assert [classic.declarer_of(2, h) for h in range(28)] == [2] * 7 + [3] * 7 + [0] * 7 + [1] * 7
    assert [family.declarer_of(3, h) for h in range(7)] == [3, 4, 0, 1, 2, 3, 4]


@given(st.integers(min_value=0, max_value=FULL_DECK))
def test_cards_of_lists_every_bit_of_a_mask_once_low_to_high(mask: int) -> None:
    expected = [c for c in range(52) if mask >> c & 1]
    assert cards_of(mask) == expected == list(bits(mask))
    assert mask_of(cards_of(mask)) == mask
