"""``barbu drill`` end to end: the real console script through pipes, one drill answered right and one
wrong, the record kept under $XDG_STATE_HOME and carried on by the next run."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from barbu.learn import drills as d

BARBU = str(Path(sys.executable).parent / "barbu")


def drill(args: list[str], stdin: str, state: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_STATE_HOME": str(state), "COLUMNS": "100"}
    return subprocess.run([BARBU, "drill", "--plain", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=60, check=False)


def keys_for(seed: int, rules: str, contract: str, right: list[bool]) -> tuple[str, list[d.Drill]]:
    """What to type to answer the drills the command will pick (right or wrong), as it picks them."""
    rec, rng, typed, shown = d.Record(), random.Random(seed), [], []
    for ok in right:
        x = d.pick(rec, rng, rules=rules, contract=contract)
        choice = x.key if ok else x.tempting()
        typed.append(str(x.shown().index(choice) + 1))
        rec.add(d.answer(x, choice))
        shown.append(x)
    return "\n".join(typed) + "\n", shown


def test_a_drill_answered_right_then_one_wrong_is_told_explained_and_recorded(tmp_path: Path) -> None:
    typed, picked = keys_for(4, "classic", "no-queens", [True, False])
    args = ["--rules", "classic", "--contract", "no-queens"]
    run = drill([*args, "--seed", "4"], "x\n" + typed + "q\n", tmp_path)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Drill: No Queens: " in out and "Your hand" in out and out.count("Your choice (1, 2, 3") >= 2
    assert "Type one of 1, 2, 3" in out  # "x" is not a choice: asked again
    assert "Right: " in out and "Not the best: the expert chooses" in out
    assert "  · " in out  # the coach's reasons, in words
    record = json.loads((tmp_path / "barbu" / "drills.json").read_text())
    assert record["contracts"]["classic:no-queens"][:2] == [1, 2]
    assert record["recent"] == [x.id for x in picked]
    again = drill([*args, "--count", "1", "--seed", "9"], "1\n", tmp_path)
    assert again.returncode == 0 and "Your record: " in again.stdout and " of 3" in again.stdout, again.stdout


def test_a_contract_without_drills_is_refused_naming_those_there_are(tmp_path: Path) -> None:
    run = drill(["--rules", "classic", "--contract", "salad"], "", tmp_path)
    assert run.returncode == 2 and "no drills of contract 'salad'" in run.stderr and "no-queens" in run.stderr
