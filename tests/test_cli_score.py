"""End to end: ``barbu score`` and ``barbu replay`` on score sheets, through the installed console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES

from barbu.engine.record import dump, load
from barbu.engine.scoresheet import replay_sheet

BARBU = Path(sys.executable).parent / "barbu"
SHEETS = EXAMPLES / "sheets"
NAMES = "Ann,Ben,Cleo,Dan"
# Hand 1: the doubling example of RULES.md 1.5, typed as a score keeper would.
NO_QUEENS = ["queens", "ann cleo dan", "ann", "", "cleo", "", "", "ann", "cleo", "dan", "dan"]


def barbu(*args: str | Path, lines: list[str] | None = None,
          cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    assert BARBU.exists(), f"console script not installed next to {sys.executable}"
    stdin = "".join(f"{line}\n" for line in lines) if lines is not None else ""
    return subprocess.run([str(BARBU), *map(str, args)], input=stdin, capture_output=True,
                          text=True, encoding="utf-8", timeout=120, check=False, cwd=cwd)


# -- barbu replay on a sheet ------------------------------------------------------------------------

def test_replay_prints_the_json_of_a_sheet() -> None:
    out = barbu("replay", SHEETS / "classic_doubling_example.json", "--json")
    assert out.returncode == 0 and out.stderr == ""
    expected = json.loads((SHEETS / "classic_doubling_example.expected.json").read_text(encoding="utf-8"))
    expected.pop("why")
    assert json.loads(out.stdout) == expected


def test_replay_prints_the_score_sheet_of_a_sheet() -> None:
    out = barbu("replay", SHEETS / "family_salad.json")
    assert out.returncode == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0].split()[-5:] == ["Ann", "Ben", "Cleo", "Dan", "Eve"]
    assert next(x for x in lines if "Salad" in x).split()[-5:] == ["+195", "+85", "+85", "+165", "0"]
    assert next(x for x in lines if "totals" in x).split()[-5:] == ["+245", "+85", "+85", "+165", "+25"]


def test_replay_refuses_a_sheet_whose_count_does_not_add_up(tmp_path: Path) -> None:
    doc = load(SHEETS / "classic_doubling_example.json")
    doc["hands"][1]["result"]["tricks"] = [5, 3, 2, 2]
    path = tmp_path / "bad.json"
    dump(doc, path)
    out = barbu("replay", path, "--json")
    assert out.returncode == 1
    assert json.loads(out.stdout) == {"error": {
        "hand": 1, "action": None, "seat": None, "message": "13 tricks in all, but these add up to 12"}}
    assert out.stderr.strip() == f"barbu replay: {path}: hand 2: 13 tricks in all, but these add up to 12"


def test_replay_refuses_a_repeated_contract_naming_the_player(tmp_path: Path) -> None:
    doc = load(SHEETS / "classic_doubling_example.json")
    doc["hands"][2] = {**doc["hands"][0]}
    path = tmp_path / "again.json"
    dump(doc, path)
    out = barbu("replay", path)
    assert out.returncode == 1 and out.stdout == ""
    assert "hand 3, seat 1 (Ann): the player has already chosen No Queens" in out.stderr


# -- barbu score ---------------------------------------------------------------------------------

def test_help_lists_the_choices_and_defaults() -> None:
    out = barbu("score", "--help")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    for words in ("barbu score new FILE", "barbu score FILE", "classic, family (default classic)",
                  "default: the first player named", "dominoes-40", "edit N", "undo"):
        assert words in text, words


def test_a_game_kept_over_two_sessions_with_an_edit_and_an_undo(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    first = barbu("score", "new", path, "--names", NAMES, lines=[
        *NO_QUEENS,
        "no tricks", "", "", "", "4 3 3 2", "4 3 3 3",  # a count that does not add up, then one that does
        "edit 1", *NO_QUEENS[:-1], "cleo",  # hand 1 again: Cleo took the Q♣
        "quit"])
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "Hand 1 of 28: Ann declares (1 of 7)" in out
    assert "  13 tricks in all, but these add up to 12" in out
    assert "Editing hand 1 of 28" in out
    assert "carry on with: " in out and f" score {path}" in out
    doc = load(path)
    assert doc["format"] == "barbu-sheet/1" and len(doc["hands"]) == 2
    assert doc["hands"][0]["result"]["queens"] == {"S": 0, "H": 2, "D": 3, "C": 2}
    assert replay_sheet(doc).to_json()["hands"][0]["scores"] == [0, 24, -36, -12]

    second = barbu("score", path, lines=[
        "sheet",
        "trumps", "h", "", "", "", "", "5 3 2 3",
        "undo",
        "trumps", "spades", "", "", "ann", "", "5 3 2 3",  # Dan doubles Ann this time; Ann does not redouble
        "edit 1", "no tricks", "", "", "", "4 3 3 3",  # hand 2 would become a repeat
        "quit"])
    assert second.returncode == 0, second.stderr
    assert "Score sheet" in second.stdout and "Hand 3 taken back." in second.stdout
    assert ("Not changed: hand 2: after this edit, this later hand no longer fits: Ann has already "
            "chosen No Tricks in this game") in second.stdout
    doc = load(path)
    assert [h["contract"] for h in doc["hands"]] == ["no-queens", "no-tricks", "trumps"]
    assert doc["hands"][2]["trump"] == "S" and doc["hands"][2]["doubles"] == [[3, 0]]
    assert replay_sheet(doc).to_json()["hands"][2]["scores"] == [35, 15, 10, 5]
    replayed = barbu("replay", path, "--json")
    assert json.loads(replayed.stdout)["totals"] == replay_sheet(doc).to_json()["totals"]


def test_compulsory_doubles_are_shown_and_ticked(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    nobody = ["", "", ""]
    five = ["no tricks", *nobody, "4 3 3 3", "queens", *nobody, "ann", "ben", "cleo", "dan",
            "hearts", *nobody, "ann", "4 3 3 3", "last two", *nobody, "ben cleo",
            "king", *nobody, "dan"]
    out = barbu("score", "new", path, "--names", NAMES, "--first", "ben", lines=[
        *five, "trumps", "c", "", "", "no", "", "", "4 3 3 3", "quit"])
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Doubles still owed to Ben, with 2 of Ben's hands to go (this one included): " \
           "Ann 2, Cleo 2, Dan 2" in text
    assert "Compulsory in this hand: Ann, Cleo and Dan must double Ben" in text
    assert "Cleo doubles ([x] Ben, compulsory; Enter: Ben): " in text
    assert "Ann skipped a compulsory double of the declarer (Ben)" in text
    doc = load(path)
    assert doc["first_declarer"] == 1 and len(doc["hands"]) == 6
    assert sorted(doc["hands"][5]["doubles"]) == [[0, 1], [2, 1], [3, 1]]


def test_a_family_round_with_its_set_aside_cards(tmp_path: Path) -> None:
    path = tmp_path / "family.json"
    out = barbu("score", "new", path, "--rules", "family", "--names", "Ann,Ben,Cleo,Dan,Eve", lines=[
        "KH 2C", "king", "queens", "ben", "cleo", "dan", "eve",
        "QS", "2", "QS 2C", "queens", "eve", "none", "cleo", "dan",
        "", "reussite", "cleo ann", "quit"])
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Round 1 of 35: Ann chooses" in text
    assert "Ann may not choose King of Hearts: K♥ is set aside this round" in text
    assert "  2 cards are set aside, not 1" in text
    assert "Who took Q♠?" not in text.split("Round 2")[1].split("Round 3")[0]  # set aside: not asked
    assert "nobody at the table is called 'none'" in text  # known set-aside cards: a queen in play
    doc = load(path)
    assert [h.get("set_aside") for h in doc["hands"]] == [["KH", "2C"], ["QS", "2C"], None]
    assert replay_sheet(doc).to_json()["totals"] == [-50, 25, -50, 50, 50]


@pytest.mark.parametrize(("args", "words"), [
    (["score", "new", "{path}"], "--names Ann,Ben,Cleo,Dan"),
    (["score", "new", "{path}", "--names", "Ann,Ben,Cleo"], "exactly 4 players"),
    (["score", "new", "{path}", "--names", "Ann,Ben,ann,Dan"], "different names"),
    (["score", "new", "{path}", "--names", NAMES, "--first", "zoe"], "nobody at the table is called 'zoe'"),
    (["score", "new", "{path}", "--rules", "family", "--names", NAMES, "--option", "overtrump"],
     "classic rules"),
    (["score", "{path}", "extra"], "give a FILE"),
], ids=["no-names", "three-classic", "same-names", "unknown-first", "family-option", "two-files"])
def test_a_bad_command_line_is_refused(tmp_path: Path, args: list[str], words: str) -> None:
    path = tmp_path / "x.json"
    out = barbu(*[a.replace("{path}", str(path)) for a in args])
    assert out.returncode == 2 and words in out.stderr and not path.exists()


def test_resuming_refuses_what_is_not_a_sheet_and_new_keeps_an_existing_file(tmp_path: Path) -> None:
    record = EXAMPLES / "classic_no_queens_golden_doubling.json"
    out = barbu("score", record)
    assert out.returncode == 1 and "not a score sheet" in out.stderr
    path = tmp_path / "s.json"
    path.write_text((SHEETS / "classic_doubling_example.json").read_text(encoding="utf-8"), encoding="utf-8")
    kept = path.read_text(encoding="utf-8")
    out = barbu("score", "new", path, "--names", NAMES)
    assert out.returncode == 2 and "already exists" in out.stderr
    out = barbu("score", path, "--names", NAMES)
    assert out.returncode == 2 and "--names belong to barbu score new" in out.stderr
    assert path.read_text(encoding="utf-8") == kept
