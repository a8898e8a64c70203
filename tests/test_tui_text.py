"""What the terminal game says: hints that parse, numbering from 1, plurals, wrapping, the sheet."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from barbu.engine.cards import parse_cards
from barbu.engine.game import Game
from barbu.engine.sheet import display_width, format_sheet, initials
from barbu.engine.state import HandRecord, State
from barbu.tui import app
from barbu.tui.parsing import InputError, parse_play, parse_start_rank, read_card

NAMES = ["You", "Ben", "Cleo", "Dan"]


def _suggestions(message: str) -> list[str]:
    return message.split("e.g. ", 1)[1].split(" or ")


@pytest.mark.parametrize("typed", ["queen", "q", "Q", "ten", "10"])
def test_the_hint_after_an_ambiguous_rank_suggests_what_parses(typed: str) -> None:
    hand = parse_cards("QS QH TS TD 2C")
    legal = [c.bit_length() - 1 for c in (parse_cards("QS"), parse_cards("QH"),
                                           parse_cards("TS"), parse_cards("TD"))]
    with pytest.raises(InputError) as info:
        parse_play(typed, hand, legal)
    suggestions = _suggestions(str(info.value))
    assert len(suggestions) == 2
    for text in suggestions:
        assert parse_play(text, hand, legal) in legal, text


def test_ten_is_a_rank_wherever_a_rank_is_accepted() -> None:
    ten_h = parse_cards("TH").bit_length() - 1
    hand = parse_cards("TH 2C")
    assert parse_play("ten", hand, [ten_h]) == ten_h
    assert read_card("ten of hearts") == read_card("ten h") == ten_h
    assert parse_start_rank("ten") == parse_start_rank("10") == 8


def test_sheet_numbers_hands_from_1_and_names_the_doublers() -> None:
    h = HandRecord(0, 0, (), 0, "no-queens", None, None, ((1, 0), (0, 1), (2, 3)), (),
                   (-6, 0, -6, -12), (-18, 12, 0, -18))
    text = format_sheet(Game.classic(), [h], ["Ann", "Ben", "Cleo", "Dan"], [])
    row = text.splitlines()[1]
    assert row.split()[:2] == ["1", "Ann"]
    assert "B××A C×D" in row
    legend = " ".join(text.split("\nDoubles: ")[1].split())
    assert "(A Ann, B Ben, C Cleo, D Dan)" in legend and "Ben doubled Ann" in legend


def test_the_sheet_names_its_declarers_as_its_columns_do() -> None:
    """`barbu replay` said "Computer" for computers 2 to 4 (the declarer's column cut names at 8)."""
    hands = [HandRecord(k, k, (), 0, "no-queens", None, None, (), (), (0, 0, 0, 0), (0, 0, 0, 0))
             for k in range(4)]
    names = ["Léa", "Computer 2", "Computer 3", "Computer 4"]
    rows = format_sheet(Game.classic(), hands, names, []).splitlines()[1:5]
    assert [row.split("  ")[1].strip() for row in rows] == names


def test_long_lines_wrap_at_word_boundaries_on_a_terminal() -> None:
    out = io.StringIO()
    console = Console(file=out, width=40, force_terminal=True, color_system=None)
    term = app.Terminal(console, io.StringIO(), interactive=False, echo=False)
    words = [f"word{i}" for i in range(30)]
    term.out(" ".join(words))
    lines = out.getvalue().splitlines()
    assert len(lines) > 1 and all(len(line) <= 40 for line in lines)
    assert [w for line in lines for w in line.split()] == words  # no word cut in two


def test_counts_agree_with_their_nouns(tmp_path: Path) -> None:
    state = State(Game.classic(), seed=1)
    state.deal_random()
    while state.hand_no < 1:
        state.apply(state.legal_actions()[0])
    lines = app.intro_lines(state, NAMES, 0, "basic", tmp_path / "r.json", "r.json")
    text = "\n".join(line.plain for line in lines)
    assert "Resuming r.json: 1 hand played." in text
    assert "at seat 1;" in text
    assert app._possessive("You") == "your" and app._possessive("Ben") == "Ben's"



def _doubled_hand(doubles: tuple[tuple[int, int], ...]) -> HandRecord:
    return HandRecord(0, 0, (), 0, "no-queens", None, None, doubles, (),
                      (-6, 0, -6, -12), (-18, 12, 0, -18))


@pytest.mark.parametrize(("names", "marks"), [
    (["Tess", "Computer 2", "Computer 3", "Computer 4"], ["T", "C2", "C3", "C4"]),  # the web's
    (["0:basic", "1:random", "2:basic", "3:random"], ["B0", "R1", "B2", "R3"]),  # the arena's
    (["Ann", "Ben", "Dan", "Dee"], ["A", "B", "Da", "De"]),
])
def test_doubles_marks_are_short_letters_that_tell_players_apart(names: list[str], marks: list[str]) -> None:
    assert initials(names) == marks
    text = format_sheet(Game.classic(), [_doubled_hand(((1, 0), (0, 1), (2, 3)))], names, [])
    lines = text.splitlines()
    cell = lines[1][lines[0].index("doubles"):].split("  ")[0]
    assert cell == f"{marks[1]}××{marks[0]} {marks[2]}×{marks[3]}"
    width = max(display_width(line) for line in lines[:3])
    assert all(display_width(line) <= max(80, width) for line in lines)
    legend = " ".join(text.split("\nDoubles: ")[1].split())
    assert "(" + ", ".join(f"{m} {n}" for m, n in zip(marks, names, strict=True)) + ")" in legend
    assert all(line.count("(") == line.count(")") or "(" not in line or line.endswith(",")
               for line in lines[3:])  # an entry such as "C2 Computer 2" is not cut in two


def test_every_mark_has_a_letter_and_none_is_twice() -> None:
    for names in (["1", "2", "3", "4"], ["Ann", "ann", "ANN", "Anna"], ["日本", "日本語", "Ben", "Ben2"]):
        marks = initials(names)
        assert len({m.casefold() for m in marks}) == 4, marks
        assert all(m[0].isalpha() and len(m) <= 3 for m in marks), marks


def test_the_doubles_legend_only_when_someone_doubled() -> None:
    text = format_sheet(Game.classic(), [_doubled_hand(())], ["Ann", "Ben", "Cleo", "Dan"], [])
    assert "Doubles:" not in text


def test_wide_names_line_up_on_the_sheet() -> None:
    names = ["日本語", "Ben", "Zoé", "Dan"]
    text = format_sheet(Game.classic(), [_doubled_hand(((1, 0),))], names, [])
    rows = text.splitlines()[:3]
    # The score columns end at the same column of the terminal on every row.
    assert len({display_width(row) for row in rows}) == 1, rows
    # The contract starts below its heading, although the declarer's name is 3 characters wide 6.
    assert display_width(rows[1][:rows[1].index("No Queens")]) == rows[0].index("contract")
