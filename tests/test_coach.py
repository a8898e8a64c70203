"""The coach: the expert's hint from a seat's view only, warnings by level, doubling and illegal
choices explained, the rule that keeps it from tables with people, and ``hint`` at the terminal."""

from __future__ import annotations

import argparse
import io
import random
from pathlib import Path

import pytest
from rich.console import Console
from tests.engine_helpers import act, make_deal, open_hand, start

from barbu.bots import make_bot
from barbu.coach import Level, Speaker, advise, coach_allowed, coach_refusal, hint, illegal_reason, warn
from barbu.coach.advice import Hint, caution
from barbu.coach.doubles import Pair, pairs, stakes
from barbu.coach.reasons import Reason
from barbu.engine.cards import parse_card
from barbu.engine.doubling import settle, settled_pairs
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import DOUBLE, Game
from barbu.engine.observation import HandSummary
from barbu.engine.state import Phase, State
from barbu.tui import app
from barbu.tui.coaching import Coach

CLASSIC = Game.classic()
NAMES = ["Ann", "Ben", "Cleo", "Dan"]


def queen_to_seat_0(spec: list[str]) -> State:
    """No Queens declared by seat 1, who leads the Q♠; seats 2 and 3 follow; seat 0 plays last."""
    state = State(CLASSIC, seed=3, first_declarer=1)
    hands, aside = make_deal(CLASSIC, spec)
    assert state.deal(hands, aside)
    open_hand(state, "no-queens")
    act(state, "QS", "3S", "4S")
    assert state.current == 0
    return state


SPEC = ["AS 2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", "QS 5S 6S", "3S 7S", "4S 8S"]


def test_the_hint_values_every_legal_choice_and_chooses_the_best() -> None:
    obs = queen_to_seat_0(SPEC).observe(0)
    h = hint(obs, 0.01, stop=None, floor=16)  # small, and replayable whatever the machine
    assert set(h.values) == set(obs.legal) == {parse_card("AS"), parse_card("2S")}
    assert h.choice == parse_card("2S") and h.values[h.choice] == max(h.values.values())
    assert h.cost(parse_card("AS")) > 0 and h.cost(h.choice) == 0


def test_the_hint_sees_only_the_seats_view() -> None:
    """Two deals alike for seat 0 but for the others' hidden cards: the same hint, value for value."""
    other = ["AS 2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", "QS 5S 6S", "3S 8S", "4S 7S"]
    a = hint(queen_to_seat_0(SPEC).observe(0), 0.01, seed=7, stop=None, floor=16)
    b_state = queen_to_seat_0(other)
    assert b_state.hands != queen_to_seat_0(SPEC).hands
    b = hint(b_state.observe(0), 0.01, seed=7, stop=None, floor=16)
    assert a == b


def test_one_legal_choice_is_forced_and_only_the_seat_to_act_is_advised() -> None:
    state = queen_to_seat_0(["AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "QS", "3S", "4S"])
    h = hint(state.observe(0))
    assert h.forced and h.choice == parse_card("AS") and h.cost(h.choice) == 0
    with pytest.raises(ValueError, match="only the seat to act"):
        hint(state.observe(1))


def test_warnings_follow_the_level() -> None:
    h = Hint(0, 1, {1: 0.0, 2: -2.0, 3: -6.0})
    assert caution(h, 2, Level.OFF) is None and caution(h, 1, Level.ALWAYS) is None
    assert caution(h, 2, Level.BIG) is None  # 2 points: under the big mistakes' 3
    assert caution(h, 3, Level.BIG) is not None and caution(h, 2, Level.ALWAYS) is not None
    warned = caution(h, 3, Level.BIG)
    assert warned is not None and warned.cost == 6.0
    assert warn(queen_to_seat_0(SPEC).observe(0), parse_card("AS"), Level.OFF) is None


def test_a_warning_says_the_cost_and_why() -> None:
    obs = queen_to_seat_0(SPEC).observe(0)
    told = warn(obs, parse_card("AS"), Level.ALWAYS, budget=0.01, stop=None, floor=16)
    assert told is not None and told.against == parse_card("AS") and told.gain > 0
    keys = [r.key for r in told.reasons]
    assert "coach.takes_cards" in keys and "coach.ducks" in keys and keys[-1] == "coach.value"
    said = [Speaker(CLASSIC, NAMES).say(r) for r in told.reasons]
    assert "A♠ would take the trick as it stands, with Q♠: −6." in said
    assert "2♠ stays under Q♠: Ben keeps the trick as it stands." in said
    plain = advise(obs, budget=0.01, stop=None, floor=16)
    assert plain.against == parse_card("AS") and plain.gain == pytest.approx(told.gain)


def test_a_double_is_explained_against_each_player() -> None:
    s = start(CLASSIC, ["QS QH QD QC"])
    act(s, "no-queens")
    assert s.phase == Phase.DOUBLE
    obs = s.observe(s.current)
    h = hint(obs, 0.01, stop=None, floor=8)
    told = stakes(obs, h)
    targets = [r.slots["who"] for r in told if r.key == "coach.double_means"]
    assert targets == [t for t in range(4) if t != obs.seat]
    edges = {r.slots["who"]: r.slots["points"] for r in told if r.key == "coach.double_edge"}
    assert edges == {t: round(h.edges[t], 1) for t in targets}
    assert h.values[DOUBLE] == 0.0  # no double: no bet
    for a in obs.legal:  # a double is worth the sum of the bets it makes
        assert h.values[a] == pytest.approx(sum(h.edges[t] for t in range(4) if (a - DOUBLE) >> t & 1))
    assert not any(r.key == "coach.double_compulsory" for r in told)


def test_a_compulsory_double_is_said_to_be_one() -> None:
    state = State(CLASSIC, seed=3, first_declarer=1)
    for _ in range(5):  # Ben declares five hands and nobody doubles him
        state.deal_random()
        while state.phase != Phase.DEAL:
            state.apply(state.legal_actions()[0])
    state.deal_random()
    while state.phase != Phase.DOUBLE:
        state.apply(state.legal_actions()[0])
    obs = state.observe(state.current)
    assert obs.seat in obs.compulsory
    told = stakes(obs, hint(obs, 0.01, stop=None, floor=8))
    assert Reason("coach.double_compulsory", {"who": 1, "n": 2}) in told


def test_every_pair_of_a_finished_hand_says_its_arithmetic() -> None:
    hand = HandSummary(0, 2, "no-last-two", None, None, ((0, 1),), (-10, -30, 0, 0), (10, -50, 0, 0))
    assert pairs(hand, 4) == [Pair(0, 1, 1, -10, -30, 20)]
    said = Speaker(CLASSIC, ["you", "Ben", "Cleo", "Dan"]).say(pairs(hand, 4)[0].reason())
    assert said == "you doubled Ben: you −10, Ben −30, so you +20 from the pair."
    redoubled = HandSummary(0, 1, "no-last-two", None, None, ((0, 1), (1, 0)), (-10, -30, 0, 0),
                            (30, -70, 0, 0))
    assert pairs(redoubled, 4) == [Pair(0, 1, 2, -10, -30, 40)]
    assert pairs(redoubled, 4)[0].reason().key == "coach.pair.redoubled"


def test_the_pairs_add_up_to_the_engine_s_settlement() -> None:
    rng = random.Random(5)
    for _ in range(200):
        scores = [rng.randrange(-30, 1) for _ in range(4)]
        doubled = [rng.randrange(16) & ~(1 << s) for s in range(4)]
        redoubled = [rng.randrange(16) & doubled_by(doubled, s) for s in range(4)]
        moved = list(scores)
        for a, b, _, won in settled_pairs(scores, doubled, redoubled):
            moved[a] += won
            moved[b] -= won
        assert moved == settle(scores, doubled, redoubled)


def doubled_by(doubled: list[int], seat: int) -> int:
    return sum(1 << t for t in range(4) if doubled[t] >> seat & 1)


def test_an_illegal_card_is_explained_by_the_engine_s_rule() -> None:
    state = queen_to_seat_0(SPEC)
    obs = state.observe(0)
    with pytest.raises(IllegalActionError) as e:
        state.apply(parse_card("2H"))
    why = illegal_reason(obs, parse_card("2H"), e.value)
    assert why.key == "error.illegal:follow-suit" and why.slots["led"] == "S"
    assert Speaker(CLASSIC, NAMES).say(why) == "You must follow suit: Spades were led and you hold some."


def test_the_coach_is_refused_where_another_person_sits() -> None:
    assert coach_allowed([True, False, False, False])
    assert not coach_allowed([True, True, False, False])
    assert not coach_allowed([True, False, False, False], rated=True)
    refused = coach_refusal([False, True, True, False])
    assert refused is not None and refused.key == "coach.refused.people"


def terminal_session(tmp_path: Path, lines: list[str], state: State,
                     level: Level) -> tuple[app.Session, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    stdin = io.StringIO("".join(line + "\n" for line in lines))
    term = app.Terminal(console, stdin, interactive=False, echo=True)
    bots = {s: make_bot("random", s) for s in (1, 2, 3)}
    session = app.Session(term, state, ["Zoé", "Ben", "Cleo", "Dan"], 0, bots, 0.0, tmp_path / "r.json", 1)
    session.prompter.coach = Coach(term, CLASSIC, ["Zoé", "Ben", "Cleo", "Dan"], level, budget=0.01, floor=16)
    return session, out


def test_hint_at_the_terminal_and_a_warning_before_a_costly_card(tmp_path: Path) -> None:
    state = queen_to_seat_0(SPEC)
    session, out = terminal_session(tmp_path, ["hint", "AS", "n", "2S"], state, Level.ALWAYS)
    session.play([])
    text = out.getvalue()
    assert "The expert would choose 2♠: +" in text and " over A♠ (estimated)." in text
    assert "A♠ is estimated to lose" in text and "Play it anyway? (y/n) n" in text
    assert state.actions[:4] == [parse_card(c) for c in ("QS", "3S", "4S", "2S")]  # warned off the A♠


def test_the_play_command_takes_the_warning_level() -> None:
    from barbu.cli import build_parser
    args = build_parser().parse_args(["play", "--warn", "big"])
    assert isinstance(args, argparse.Namespace) and Level(args.warn) is Level.BIG


def test_the_coach_imports_the_engine_and_the_bots_and_only_front_ends_import_it() -> None:
    """Only the front ends and the learning material over the coach (barbu.learn: the lessons and
    drills the front ends show) import it; the engine and the bots never do."""
    from tests.test_architecture import package_graph
    graph = package_graph()
    coach = {m for m in graph if m == "barbu.coach" or m.startswith("barbu.coach.")}
    assert "barbu.coach.reasons" in coach
    outside = {i for m in coach for i in graph[m]
               if not i.startswith(("barbu.engine", "barbu.bots", "barbu.coach"))}
    assert outside == set()
    users = {m for m, imports in graph.items() if m not in coach and imports & coach}
    front = ("barbu.tui", "barbu.web", "barbu.cli")
    assert users and all(u.startswith((*front, "barbu.learn")) for u in users), users
    learn = {m for m in graph if m.startswith("barbu.learn")}
    learners = {m for m, imports in graph.items() if imports & learn} - learn
    assert all(u.startswith(front) for u in learners), learners  # and only front ends import learn


def test_the_speaker_says_actions_points_and_contracts_in_the_catalogue_s_words() -> None:
    from barbu.coach.words import signed
    from barbu.engine.game import CONTRACT, RANK, REDOUBLE, TRUMP
    speaker = Speaker(CLASSIC, NAMES)
    said = [speaker.action(a) for a in (parse_card("TH"), CONTRACT + 1, TRUMP + 3, RANK + 9, DOUBLE,
                                         DOUBLE + 0b0110, REDOUBLE + 0b1000)]
    assert said == ["10♥", "No Queens", "Clubs", "J", "no double", "double Ben, Cleo", "redouble Dan"]
    assert [signed(x) for x in (20, -6, 2.5, 0, -0.25)] == ["+20", "−6", "+2.5", "0", "−0.2"]
    french = Speaker(CLASSIC, NAMES, "fr")
    void = Reason("coach.void_shown", {"who": 1, "suit": "♣"})
    assert french.say(void) == "Ben a montré qu’il n’a plus de ♣."
    assert french.action(CONTRACT + 1) == "Pas de dames"
