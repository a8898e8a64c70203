"""End to end: ``barbu replay FILE [--json]`` through the installed console script."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES, play_random
from tests.engine_helpers import NAMES, drive

from barbu.engine.errors import RecordError
from barbu.engine.game import Game
from barbu.engine.record import dump, load, replay, to_record
from barbu.engine.state import Phase, State

BARBU = Path(sys.executable).parent / "barbu"
EXAMPLE_FILES = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    assert BARBU.exists(), f"console script not installed next to {sys.executable}"
    return subprocess.run([str(BARBU), "replay", *map(str, args)], capture_output=True,
                          text=True, encoding="utf-8", timeout=60, check=False)


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    path = tmp_path / name
    dump(doc, path)
    return path


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_examples_json_output_is_exactly_the_expected(path: Path) -> None:
    out = run(path, "--json")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text(encoding="utf-8"))
    expected.pop("why")
    assert json.loads(out.stdout) == expected
    assert out.stdout.count("\n") == 1  # one JSON object on one line


def test_score_sheet_of_the_golden_example() -> None:
    out = run(EXAMPLES / "classic_no_queens_golden_doubling.json")
    assert out.returncode == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert all(name in lines[0] for name in NAMES[:4])
    hand_line = next(line for line in lines if "No Queens" in line)
    totals = next(line for line in lines if "totals" in line)
    for line in (hand_line, totals):
        assert line.split()[-4:] == ["-12", "+24", "-12", "-24"]


def test_complete_game_through_the_command(tmp_path: Path) -> None:
    game = Game.classic(("king-first",))
    state = play_random(game, 21)
    path = write(tmp_path, "game.json", to_record(state, NAMES[:4]))
    out = run(path, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data == replay(load(path)).to_json()
    assert data["complete"] is True and data["winners"] == state.winners()
    assert data["totals"] == state.totals and len(data["hands"]) == 28
    sheet = run(path)
    assert sheet.returncode == 0 and sheet.stdout.count("\n") > 28


def test_unfinished_last_hand_is_reported_not_refused(tmp_path: Path) -> None:
    doc = to_record(play_random(Game.family(6), 3, hands=2), NAMES[:6])
    doc["hands"][1]["actions"] = doc["hands"][1]["actions"][:5]
    out = run(write(tmp_path, "part.json", doc), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["hands"][1]["finished"] is False and "finished" not in data["hands"][0]
    assert data["complete"] is False and data["winners"] == []


def _bad_record() -> tuple[dict[str, Any], RecordError]:
    doc = to_record(play_random(Game.classic(), 5, hands=2), NAMES[:4])
    bad = copy.deepcopy(doc)
    actions = bad["hands"][1]["actions"]
    actions[len(actions) // 2] = "ZZ"
    with pytest.raises(RecordError) as info:
        replay(bad)
    return bad, info.value


def test_bad_record_with_json(tmp_path: Path) -> None:
    bad, err = _bad_record()
    out = run(write(tmp_path, "bad.json", bad), "--json")
    assert out.returncode == 1
    data = json.loads(out.stdout)
    assert data == err.to_json()
    assert data["error"]["hand"] == 1 and data["error"]["action"] == len(bad["hands"][1]["actions"]) // 2
    assert data["error"]["seat"] is not None
    # The --json object counts from 0 as records do; the sentence for a person counts from 1.
    seat = data["error"]["seat"]
    where = f"hand 2, action {data['error']['action'] + 1}, seat {seat + 1} ({NAMES[seat]})"
    path = tmp_path / "bad.json"
    assert out.stderr.strip() == f"barbu replay: {path}: {where}: {err.message}"


def test_bad_record_without_json(tmp_path: Path) -> None:
    bad, err = _bad_record()
    out = run(write(tmp_path, "bad.json", bad))
    assert out.returncode == 1 and out.stdout == ""
    assert ": hand 2, action" in out.stderr and err.message in out.stderr


def test_rule_broken_in_play_is_named(tmp_path: Path) -> None:
    doc = load(EXAMPLES / "classic_no_queens_golden_doubling.json")
    doc["hands"][0]["actions"][1] = "8C"  # seat 1 holds spades and must follow A♠
    out = run(write(tmp_path, "revoke.json", doc), "--json")
    assert out.returncode == 1
    assert json.loads(out.stdout)["error"] == {
        "hand": 0, "action": 1, "seat": 1,
        "message": "the player must follow suit: spades were led and they hold some"}
    assert ": hand 1, action 2, seat 2 (Ben): the player must follow suit" in out.stderr


def test_missing_compulsory_double_has_no_action(tmp_path: Path) -> None:
    state = State(Game.classic(), seed=2, first_declarer=3)
    drive(state, random.Random(2), lambda s, r: s.legal_actions()[0]
          if s.phase in (Phase.DOUBLE, Phase.REDOUBLE) else None, until=lambda s: s.hand_no == 6)
    doc = to_record(state, NAMES[:4])
    doc["hands"][5]["doubles"] = [p for p in doc["hands"][5]["doubles"] if p != [1, 3]]
    out = run(write(tmp_path, "lazy.json", doc), "--json")
    assert out.returncode == 1
    err = json.loads(out.stdout)["error"]
    assert (err["hand"], err["action"], err["seat"]) == (5, None, 1)
    assert "compulsory" in err["message"]
    assert ": hand 6, seat 2 (Ben): " in out.stderr


def test_doubles_of_the_golden_deal_rescored(tmp_path: Path) -> None:
    doc = load(EXAMPLES / "classic_no_queens_golden_doubling.json")
    doc["hands"][0]["doubles"] = [[1, 0], [0, 1], [3, 0]]
    doc["hands"][0]["declarer"] = 0
    good = run(write(tmp_path, "ok.json", doc), "--json")
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["hands"][0]["scores"] == [-12, 12, -6, -18]
    doc["hands"][0]["doubles"] = [[9, 0]]
    out = run(write(tmp_path, "bad.json", doc), "--json")
    assert out.returncode == 1
    err = json.loads(out.stdout)["error"]
    assert (err["hand"], err["action"]) == (0, None) and "pair" in err["message"]


def test_malformed_json_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "barbu-record/1",\n "hands": [}', encoding="utf-8")
    out = run(path, "--json")
    assert out.returncode == 1
    err = json.loads(out.stdout)["error"]
    assert (err["hand"], err["action"], err["seat"]) == (None, None, None)
    assert err["message"].startswith("not a JSON document") and "line 2" in err["message"]
    assert out.stderr.startswith(f"barbu replay: {path}: not a JSON document")


def test_bad_format_field_and_missing_file(tmp_path: Path) -> None:
    doc = load(EXAMPLES / "family_salad_example.json")
    doc["format"] = "barbu-record/9"
    out = run(write(tmp_path, "fmt.json", doc), "--json")
    assert out.returncode == 1 and "'format'" in json.loads(out.stdout)["error"]["message"]
    gone = run(tmp_path / "nowhere.json")
    assert gone.returncode == 1 and "cannot read" in gone.stderr and gone.stdout == ""


def test_usage_error_without_a_file() -> None:
    out = run()
    assert out.returncode == 2 and "usage" in out.stderr.lower()
