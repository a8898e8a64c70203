"""The coach's reason templates: each states its fact where it is true and is silent where it is not,
on positions the engine deals (fixed deals), from the seat's view alone."""

from __future__ import annotations

from tests.engine_helpers import act, open_hand, skip_doubles, start

from barbu.coach import reasons as R
from barbu.coach.reasons import Reason, explain, reasons_for
from barbu.engine.cards import SUIT_MASKS, parse_card
from barbu.engine.game import CONTRACT, RANK, TRUMP, Game
from barbu.engine.observation import Observation
from barbu.engine.state import State

CLASSIC = Game.classic()
CLUBS_AND_SPADES = ["AC KC QC 2S 3S 4S 5S 6S 7S 8S 9S TS JS", "2C 3C"]  # seat 2 holds no club


def mine(state: State) -> Observation:
    return state.observe(state.current)


def card(text: str) -> int:
    return parse_card(text)


def queen_led() -> Observation:
    """No Queens: seat 0 led the Q♠; seat 1, holding the A♠ and the 2♠, is to play."""
    s = start(CLASSIC, ["QS", "AS 2S"])
    open_hand(s, "no-queens")
    act(s, "QS")
    return mine(s)


def after_a_club_trick() -> Observation:
    """No Tricks: seat 0 led the A♣, seat 2 discarded (no club), seat 0 won and leads again."""
    s = start(CLASSIC, CLUBS_AND_SPADES)
    open_hand(s, "no-tricks")
    act(s, "AC", "2C", "2D", "4C")
    assert s.current == 0
    return mine(s)


def test_takes_says_what_winning_the_trick_would_take() -> None:
    obs = queen_led()
    took = Reason("coach.takes_cards", {"card": "A♠", "cards": "Q♠", "points": -6})
    assert R.takes(obs, card("AS")) == took
    assert R.takes(obs, card("2S")) is None  # stays under the queen
    s = start(CLASSIC, ["QS", "AS 2S"])
    open_hand(s, "no-tricks")
    act(s, "3S")
    assert R.takes(mine(s), card("AS")) == Reason("coach.takes", {"card": "A♠", "points": -2})


def test_takes_is_silent_on_a_lead_and_where_the_trick_scores_nothing() -> None:
    s = start(CLASSIC, ["QS", "AS 2S"])
    open_hand(s, "no-queens")
    assert R.takes(mine(s), card("QS")) is None  # a lead: no trick to take yet
    act(s, "3S")
    assert R.takes(mine(s), card("AS")) is None  # wins, but no queen in the trick: nothing scored


def a_diamond_led_to_kings_and_jacks() -> Observation:
    """No Queens: seat 0 led the 2♦; seat 1 holds the K♦ and the J♦, seat 2 the Q♦, two still to play."""
    s = start(CLASSIC, ["2D", "KD JD", "QD"])
    open_hand(s, "no-queens")
    act(s, "2D")
    return mine(s)


def test_exposed_names_the_costly_cards_still_out_that_could_fall_under_the_card() -> None:
    obs = a_diamond_led_to_kings_and_jacks()
    assert R.exposed(obs, card("KD")) == Reason("coach.exposed", {"card": "K♦", "n": 2, "cards": "Q♦",
                                                                  "points": -6})
    assert R.exposed(obs, card("JD")) is None  # the Q♦ is above it: it could not fall under the J♦
    # The fact that sets the two apart, which nothing else said.
    assert Reason("coach.exposed", {"card": "K♦", "n": 2, "cards": "Q♦", "points": -6}) in explain(
        obs, card("JD"), card("KD"))


def test_exposed_is_silent_on_a_lead_for_the_last_to_play_and_where_cards_cost_nothing() -> None:
    s = start(CLASSIC, ["2D", "KD JD", "QD"])
    open_hand(s, "no-queens")
    assert R.exposed(mine(s), card("2D")) is None  # a lead: no trick to take yet
    act(s, "2D", "KD", "QD")
    assert R.exposed(mine(s), s.legal_actions()[0]) is None  # last to play: nobody can drop anything
    s = start(CLASSIC, ["2D", "KD JD", "QD"])
    open_hand(s, "no-tricks")
    act(s, "2D")
    assert R.exposed(mine(s), card("KD")) is None  # no card costs anything in No Tricks


def a_diamond_led_to_a_void() -> Observation:
    """No King of Hearts: seat 0 led the 2♦; seat 1, without diamonds, holds the K♥ and the 9♠."""
    s = start(CLASSIC, ["2D", "KH 9S AS KS QS JS TS 8S 7S 6S AC KC QC"])
    open_hand(s, "no-king")
    act(s, "2D")
    assert not s.hands[1] & SUIT_MASKS[card("2D") // 13]  # no diamond in seat 1's hand: it discards
    return mine(s)


def test_sheds_says_a_costly_card_is_discarded_into_another_s_trick() -> None:
    obs = a_diamond_led_to_a_void()
    assert R.sheds(obs, card("KH")) == Reason("coach.sheds", {"card": "K♥", "points": -20, "who": 0})
    assert R.sheds(obs, card("9S")) is None  # a card that costs nothing
    # "K♥ stays under 2♦" and "9♠ stays under 2♦" set nothing apart: only the shedding is said.
    assert explain(obs, card("KH"), card("9S")) == [Reason("coach.sheds", {"card": "K♥", "points": -20,
                                                                           "who": 0})]


def test_sheds_is_silent_when_following_suit_and_on_a_lead() -> None:
    s = start(CLASSIC, ["2H", "KH 9S"])
    open_hand(s, "no-king")
    assert R.sheds(mine(s), card("2H")) is None  # a lead
    act(s, "2H")
    assert R.sheds(mine(s), card("KH")) is None  # following hearts: it takes the trick, no discard


def test_ducks_names_who_keeps_the_trick() -> None:
    obs = queen_led()
    assert R.ducks(obs, card("2S")) == Reason("coach.ducks", {"card": "2♠", "best": "Q♠", "who": 0})
    assert R.ducks(obs, card("AS")) is None


def test_void_shown_names_the_player_who_did_not_follow() -> None:
    obs = after_a_club_trick()
    assert R.void_shown(obs, card("KC")) == Reason("coach.void_shown", {"who": 2, "suit": "♣"})
    assert R.void_shown(obs, card("2S")) is None  # everyone followed spades (none led yet)


def test_still_out_counts_the_suit_with_the_others() -> None:
    obs = after_a_club_trick()
    # 3♣ with seat 1, 5♣ to J♣ with seat 3 (the 4♣ has gone).
    assert R.still_out(obs, card("KC")) == Reason("coach.still_out", {"suit": "♣", "n": 8})
    assert R.still_out(obs, card("2S")) == Reason("coach.still_out", {"suit": "♠", "n": 3})
    queen = queen_led()
    assert R.still_out(queen, card("AS")) is None  # following, not leading


def test_suit_gone_where_nobody_else_holds_the_suit() -> None:
    s = start(CLASSIC, ["2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"])
    open_hand(s, "no-tricks")
    assert R.still_out(mine(s), card("AD")) == Reason("coach.suit_gone", {"suit": "♦"})
    assert R.still_out(after_a_club_trick(), card("KC")) != Reason("coach.suit_gone", {"suit": "♣"})


def test_master_is_the_highest_card_still_in_play() -> None:
    obs = after_a_club_trick()
    assert R.master(obs, card("KC")) == Reason("coach.master", {"card": "K♣", "n": 8})
    assert R.master(obs, card("QC")) is None  # the K♣ in the same hand is higher
    assert R.master(obs, card("JS")) is None  # Q♠ K♠ A♠ are out


def test_danger_held_warns_of_a_costly_card_in_an_unled_suit() -> None:
    s = start(CLASSIC, ["KH 2H 6H 2S", "3H", "4H", "5H"])
    open_hand(s, "no-king")
    obs = mine(s)
    assert R.danger_held(obs, card("2H")) == Reason("coach.danger_held", {"card": "K♥", "suit": "♥",
                                                                          "points": -20})
    assert R.danger_held(obs, card("2S")) is None  # not the suit of the K♥
    assert R.danger_held(obs, card("KH")) is None  # the K♥ itself is no other card held
    act(s, "2H", "3H", "4H", "5H")  # hearts have now been led
    assert R.danger_held(s.observe(0), card("6H")) is None


def test_contract_cards_reads_what_the_contract_punishes() -> None:
    s = start(CLASSIC, ["QS QH AH"])
    obs = mine(s)
    queens = CONTRACT + CLASSIC.contract_index("no-queens")
    assert R.contract_cards(obs, queens) == Reason("coach.contract_cards", {
        "contract": "no-queens", "ruleset": "classic", "cards": "Q♠ Q♥", "points": -12})
    assert R.contract_cards(obs, CONTRACT + CLASSIC.contract_index("no-tricks")) is None  # no card scores
    no_king = CONTRACT + CLASSIC.contract_index("no-king")
    assert R.contract_cards(obs, no_king) is None  # the K♥ is not held


def test_trump_length_counts_the_suit_named() -> None:
    s = start(CLASSIC, ["AH KH 2H 2D 3D 4D 5D 6D 7D 8D 9D TD JD"])
    act(s, "trumps")
    obs = mine(s)
    assert R.trump_length(obs, TRUMP + 1) == Reason("coach.trump_length", {"suit": "♥", "n": 3, "card": "A♥"})
    assert R.trump_length(obs, TRUMP + 0) is None  # seat 0 holds no spade


def test_rank_held_counts_the_openers() -> None:
    s = start(CLASSIC, ["JS JH JD 2C", "JC"])
    act(s, "dominoes")
    obs = mine(s)
    assert R.rank_held(obs, RANK + 9) == Reason("coach.rank_held", {"rank": "J", "n": 3})
    s2 = start(CLASSIC, ["2S", "AS AH AD AC"])
    act(s2, "dominoes")
    assert R.rank_held(mine(s2), RANK + 12) is None  # seat 0 holds no ace


def dominoes_from_the_jack() -> State:
    s = start(CLASSIC, ["JS TS QS JH"])
    act(s, "dominoes", "rank J")
    skip_doubles(s)
    return s


def test_opens_names_the_cards_a_placement_frees_for_the_others() -> None:
    obs = mine(dominoes_from_the_jack())
    assert R.opens(obs, card("JH")) == Reason("coach.opens", {"card": "J♥", "cards": "Q♥ 10♥"})
    assert R.opens(obs, card("JS")) is None  # 10♠ and Q♠ are seat 0's own


def test_explain_keeps_only_what_sets_the_two_apart() -> None:
    obs = queen_led()
    told = explain(obs, card("2S"), card("AS"))
    assert Reason("coach.ducks", {"card": "2♠", "best": "Q♠", "who": 0}) in told
    assert Reason("coach.takes_cards", {"card": "A♠", "cards": "Q♠", "points": -6}) in told
    shared = set(map(repr, reasons_for(obs, card("2S")))) & set(map(repr, reasons_for(obs, card("AS"))))
    assert not shared & set(map(repr, told))
    assert explain(obs, card("2S"), card("2S")) == []


def test_every_template_has_its_words_in_english() -> None:
    from barbu.coach.words import catalogue
    keys = {"coach.takes", "coach.takes_cards", "coach.ducks", "coach.void_shown", "coach.still_out",
            "coach.suit_gone", "coach.master", "coach.danger_held", "coach.contract_cards",
            "coach.trump_length", "coach.rank_held", "coach.opens", "coach.exposed", "coach.sheds"}
    assert len(R.TEMPLATES) == 12
    assert keys <= catalogue("en").keys()


def test_over_random_games_every_reason_is_said_whole_and_every_template_speaks() -> None:
    """Every legal choice of random games of every table: each reason's words are filled (no slot
    left), and each template states its fact somewhere."""
    import random

    from tests.engine_helpers import EVERY_TABLE

    from barbu.coach.words import Speaker
    from barbu.engine.state import Phase

    heard: set[str] = set()
    for k, game in enumerate(EVERY_TABLE):
        rng = random.Random(k)
        speaker = Speaker(game, ["Ann", "Ben", "Cleo", "Dan", "Eve", "Fay"][:game.players])
        state = State(game, seed=k)
        while not state.is_over and state.hand_no < 2 * game.players:
            if state.phase == Phase.DEAL:
                state.deal_random()
                continue
            obs = state.observe(state.current)
            for action in obs.legal:
                for reason in reasons_for(obs, action):
                    text = speaker.say(reason)
                    assert "{" not in text and "[" not in text, (reason, text)
                    assert_true_of_the_deal(state, action, reason)
                    heard.add(reason.key)
            state.apply(rng.choice(obs.legal))
    assert {"coach.takes", "coach.takes_cards", "coach.ducks", "coach.void_shown", "coach.still_out",
            "coach.master", "coach.danger_held", "coach.contract_cards", "coach.trump_length",
            "coach.rank_held", "coach.opens", "coach.exposed", "coach.sheds"} <= heard


def assert_true_of_the_deal(state: State, action: int, reason: Reason) -> None:
    """A reason's fact checked against the whole deal, hidden hands included."""
    from barbu.engine.cards import SUIT_MASKS, SUIT_SYMBOLS
    others = 0
    for seat, hand in enumerate(state.hands):
        if seat != state.current:
            others |= hand
    suit = action // 13 if action < 52 else -1
    if reason.key == "coach.still_out":
        assert reason.slots["n"] == (others & SUIT_MASKS[suit]).bit_count()
    elif reason.key == "coach.suit_gone":
        assert not others & SUIT_MASKS[suit]
    elif reason.key == "coach.void_shown":
        who = int(reason.slots["who"])
        assert SUIT_SYMBOLS[suit] == reason.slots["suit"] and not state.hands[who] & SUIT_MASKS[suit]
    elif reason.key == "coach.master":
        assert not others & SUIT_MASKS[suit] & ~((2 << action) - 1)
    elif reason.key == "coach.exposed":  # each card named is another's, of the suit and under this one
        under = [parse_card(x.replace("10", "T")) for x in str(reason.slots["cards"]).split()]
        assert under and all(others >> x & 1 and x // 13 == suit and x < action for x in under)
    elif reason.key == "coach.sheds":  # a discard: nothing of the suit led in the hand
        led = state.observe(state.current).trick[0][1] // 13
        assert suit != led and not state.hands[state.current] & SUIT_MASKS[led]
    elif reason.key == "coach.opens":
        freed = [parse_card(x.replace("10", "T")) for x in str(reason.slots["cards"]).split()]
        assert all(others >> x & 1 for x in freed)
