"""What the commands refuse, and how they say it: counted from 1, with names, never a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES, play_random

from barbu.cli import main
from barbu.engine.errors import IllegalDealError
from barbu.engine.game import Game
from barbu.engine.record import dump, to_record
from barbu.engine.state import Phase, State

BARBU = Path(sys.executable).parent / "barbu"
NAMES = ["Ann", "Ben", "Cleo", "Dan"]
REUSSITE = EXAMPLES / "family_reussite_ace_extra.json"  # Ann, Ben, Cleo, Dan; one Réussite round
Capture = pytest.CaptureFixture[str]


def _record(tmp_path: Path, hands: int = 2, seed: int = 3) -> tuple[Path, dict[str, Any]]:
    doc = to_record(play_random(Game.classic(), seed, hands), NAMES)
    path = tmp_path / "game.json"
    dump(doc, path)
    return path, doc


def _said(argv: list[str], capsys: Capture) -> tuple[str, str]:
    """Run a command that refuses; its stderr line and its stdout."""
    assert main(argv) == 1, argv
    out = capsys.readouterr()
    assert "Traceback" not in out.err and out.err.count("\n") == 1, out.err
    return out.err.strip(), out.out


# -- analyze ------------------------------------------------------------------------

@pytest.mark.parametrize(("flags", "who"), [([], "seat 1 (Ann)"), (["--seat", "2"], "seat 2 (Ben)"),
                                            (["--seat", "4"], "seat 4 (Dan)")])
def test_analyze_heads_its_report_with_the_seat_it_analyses(flags: list[str], who: str,
                                                           capsys: Capture) -> None:
    assert main(["analyze", str(REUSSITE), "--seconds", "0.01", *flags]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith(f"Analysis of the cards of {who} by the expert bot")
    # Contracts by name, as people read them, not the record's id.
    assert "hand 1: Réussite" in text and "reussite" not in text


@pytest.mark.parametrize("seat", ["0", "5"])
def test_analyze_says_the_seat_typed_as_it_was_typed(seat: str, capsys: Capture) -> None:
    line, _ = _said(["analyze", str(REUSSITE), "--seat", seat], capsys)
    assert line.endswith(f"--seat {seat}: there is no seat {seat} in this record "
                         "(its seats are 1 to 4)")
    assert "(Ann)" not in line and "seat 6" not in line and "seat 1 " not in line


@pytest.mark.parametrize(("argv", "words"), [
    (["analyze", str(REUSSITE), "--seconds", "0"], "argument --seconds: must be a number of seconds above 0"),
    (["analyze", str(REUSSITE), "--seconds", "-3"], "--seconds: must be a number of seconds above 0, not -3"),
    (["bench", "--rounds", "0"], "argument --rounds: must be 1 or more, not 0"),
    (["bench", "--seconds", "-1"], "argument --seconds: must be a number of seconds above 0, not -1"),
    (["bench", "--seconds", "0"], "argument --seconds: must be a number of seconds above 0, not 0"),
])
def test_counts_that_mean_nothing_are_refused(argv: list[str], words: str, capsys: Capture) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert words in capsys.readouterr().err


def test_the_strong_bot_refuses_to_average_no_sample() -> None:
    from barbu.bots.strong import StrongBot

    state = State(Game.classic(), seed=1)
    state.deal_random()
    obs = state.observe(state.current)
    with pytest.raises(ValueError, match="at least one sampled deal"):
        StrongBot(1).evaluate(obs, obs.legal, 0)


# -- files that cannot be records ----------------------------------------------------------

def _commands(path: Path) -> list[list[str]]:
    return [["replay", str(path)], ["replay", str(path), "--json"], ["analyze", str(path)],
            ["play", "--resume", str(path)]]


def test_a_number_too_long_for_python_is_refused_in_words(tmp_path: Path, capsys: Capture) -> None:
    path, doc = _record(tmp_path, 1)
    text = re.sub(r'"declarer": \d+', '"declarer": ' + "9" * 5000, json.dumps(doc), count=1)
    path.write_text(text, encoding="utf-8")
    for argv in _commands(path):
        line, out = _said(argv, capsys)
        assert line == f"barbu {' '.join(a for a in argv[:-1] if a != str(path))}: {path}: " \
                       "not a barbu record: a number in it is too long" or argv[-1] == "--json"
        assert "4300" not in line and "Exceeds" not in line
        if "--json" in argv:
            assert json.loads(out)["error"]["message"] == "not a barbu record: a number in it is too long"


@pytest.mark.parametrize("content", ["", "  \n"])
def test_an_empty_file_is_said_to_be_empty(tmp_path: Path, content: str, capsys: Capture) -> None:
    path = tmp_path / "empty.json"
    path.write_text(content, encoding="utf-8")
    for argv in _commands(path):
        line, _ = _said(argv, capsys)
        assert line.endswith("not a barbu record: the file is empty") and "Expecting value" not in line


def test_a_missing_format_is_said_to_be_missing(tmp_path: Path, capsys: Capture) -> None:
    path, doc = _record(tmp_path, 1)
    del doc["format"]
    dump(doc, path)
    line, _ = _said(["replay", str(path)], capsys)
    assert line.endswith("the field 'format' is missing (it is 'barbu-record/1')")
    assert "None" not in line


# -- seats and actions in the messages --------------------------------------------------

@pytest.mark.parametrize(("value", "shown"), [(10**30, str(10**30)), (-1, "-1"), (4, "4"),
                                              (10**40, "a number of 41 digits")])
def test_a_declarer_that_is_no_seat_is_quoted_as_the_record_has_it(
        tmp_path: Path, value: int, shown: str, capsys: Capture) -> None:
    for hand in (0, 1):
        path, doc = _record(tmp_path)
        doc["hands"][hand]["declarer"] = value
        dump(doc, path)
        line, _ = _said(["replay", str(path)], capsys)
        assert line.endswith(f"hand {hand + 1}: the field 'declarer' must be a seat 0 to 3 "
                             f"(a record counts its seats from 0), not {shown}"), line
        assert line.count("seat ") == 1  # the value is no seat: it is not counted as one


def test_a_seat_of_the_record_is_named_and_counted_from_1(tmp_path: Path, capsys: Capture) -> None:
    path, doc = _record(tmp_path)
    first = doc["hands"][0]["declarer"]  # who declares hand 2 as well, by the rotation
    other = (first + 1) % 4
    doc["hands"][1]["declarer"] = other
    dump(doc, path)
    words = (f"hand 2, seat {other + 1} ({NAMES[other]}): the declarer of this hand must be "
             f"seat {first + 1} ({NAMES[first]}) (rotation of the rules), not seat {other + 1} "
             f"({NAMES[other]})")
    for argv in (["replay", str(path)], ["play", "--resume", str(path)]):
        line, _ = _said(argv, capsys)
        assert line.endswith(words), line
    _, out = _said(["replay", str(path), "--json"], capsys)
    error = json.loads(out)["error"]
    assert (error["hand"], error["seat"]) == (1, other)
    assert error["message"] == (f"the declarer of this hand must be seat {first} (rotation of the "
                                f"rules), not seat {other}")


def test_an_action_after_the_end_of_a_hand_is_counted_one_way(tmp_path: Path, capsys: Capture) -> None:
    path, doc = _record(tmp_path, 1)
    actions = doc["hands"][0]["actions"]
    n = len(actions)
    actions.append(actions[0])
    dump(doc, path)
    line, _ = _said(["replay", str(path)], capsys)
    assert line.endswith(f"hand 1, action {n + 1}: the hand ended after action {n}; "
                         f"action {n + 1} is one too many"), line
    _, out = _said(["replay", str(path), "--json"], capsys)
    error = json.loads(out)["error"]
    assert error["action"] == n
    assert error["message"] == f"the hand ended after action {n - 1}; action {n} is one too many"


# -- the names of a record -------------------------------------------------------------

@pytest.mark.parametrize(("players", "words"), [
    (["Ann", "", "Cleo", "Dan"], "the field 'players' has a blank name (the name of seat 1)"),
    (["Ann", "Ben", "  ", "Dan"], "the field 'players' has a blank name (the name of seat 2)"),
    (["Ann", "Ben", "Ann", "Dan"], "the field 'players' names 'Ann' twice: each player needs a "
                                   "name of his own"),
    (["Ann", "Ben", "Ann ", "Dan"], "the field 'players' names 'Ann' twice"),
])
def test_blank_or_repeated_names_are_refused(tmp_path: Path, players: list[str], words: str,
                                            capsys: Capture) -> None:
    path, doc = _record(tmp_path, 1)
    doc["players"] = players
    dump(doc, path)
    line, out = _said(["replay", str(path), "--json"], capsys)
    assert words in line and json.loads(out)["error"]["message"].startswith(words)


# -- the public record of a game in progress ----------------------------------------------

def test_the_public_record_of_a_game_in_progress_is_recognised(tmp_path: Path, capsys: Capture) -> None:
    path, doc = _record(tmp_path, 2)
    # What a web table gives a seated reader while the game runs (RECORD.md).
    del doc["seed"]
    for hand in doc["hands"]:
        hand["own_deal"] = hand.pop("deal")[2]
    doc["seat"] = 2
    dump(doc, path)
    for argv in (["replay", str(path)], ["analyze", str(path)], ["play", "--resume", str(path)]):
        line, _ = _said(argv, capsys)
        assert "this is the public record of a game still being played" in line
        assert "download the record again once the game is over" in line
        assert "hand 1" not in line


# -- the engine's own sentences -----------------------------------------------------------

def test_one_card_set_aside_is_one_card() -> None:
    state = State(Game.family(3), seed=1)
    with pytest.raises(IllegalDealError) as info:
        state.deal([(1 << 17) - 1, ((1 << 17) - 1) << 17, ((1 << 18) - 1) << 34], 0)
    assert str(info.value).startswith("1 card must be set aside with 3 players, not 0")


def test_the_overtrump_refusal_writes_cards_as_everywhere_else() -> None:
    for seed in range(200):
        state = State(Game("classic", 4, frozenset({"overtrump"})), seed=seed)
        state.deal_random()
        state.apply(state.game.parse_action("trumps"))
        while state.phase != Phase.PLAY:
            state.apply(state.legal_actions()[0])
        while state.phase == Phase.PLAY:
            for card in range(52):
                if state.hands[state.current] >> card & 1 and not state.is_legal(card):
                    err = state.illegal(card)
                    if err.rule == "overtrump":
                        assert "(" in err.message and err.message.endswith(" can)")
                        listed = err.message.rsplit("(", 1)[1].removesuffix(" can)").split()
                        assert all(c[-1] in "♠♥♦♣" for c in listed), err.message
                        return
            state.apply(state.legal_actions()[0])
    pytest.fail("no overtrump refusal in 200 deals")


# -- output to a reader who has gone ------------------------------------------------------

@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path, flags: list[str]) -> None:
    path, _ = _record(tmp_path, 3)
    read, write = os.pipe()
    os.close(read)  # no reader at all: the first write fails, whatever the timing
    try:
        done = subprocess.run([str(BARBU), "replay", str(path), *flags], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode == 141
