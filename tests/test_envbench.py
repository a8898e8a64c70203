"""barbu bench --env: a tiny run prints one row per table and OpenSpiel's, each with its figures."""

from __future__ import annotations

import importlib.util
import re

import pytest

from barbu.cli import main
from barbu.tools.envbench import REFERENCE, Row, print_rows

ROW = re.compile(r"^  (?P<name>.+?) +(?P<rate>[\d,]+) +(?P<ratio>[\d.]+|-) +(?P<parts>.*)$")


def rows_of(text: str) -> dict[str, re.Match[str]]:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "steps/s" in line and "× Hearts" in line)
    found = {}
    for line in lines[at + 1:]:
        m = ROW.match(line)
        if m:
            found[m["name"]] = m
    return found


def test_bench_env_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--env", "--seconds", "0.2", "--rounds", "1", "--batches", "1,16"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("barbu.env benchmark")
    rows = rows_of(out)
    names = [f"barbu.env {t} (AEC)" for t in ("classic", "family4", "family6")]
    hearts = importlib.util.find_spec("pyspiel") is not None
    backends = ["numpy"] + (["numba"] if importlib.util.find_spec("numba") else [])
    batched = [f"barbu.vector {b}, {n}" for b in backends for n in ("1 game", "16 games")]
    assert list(rows) == names + ([REFERENCE] if hearts else []) + batched
    for name in batched:
        assert rows[name]["parts"].split()[::2] == ["apply", "deal", "mask", "obs"], name
        assert int(rows[name]["rate"].replace(",", "")) > 0
    for name in names:
        parts = rows[name]["parts"].split()
        assert parts[::2] == ["last", "choose", "step", "apply", "track"], name
        assert int(rows[name]["rate"].replace(",", "")) > 0
    if hearts:
        assert rows[REFERENCE]["ratio"] == "1.0"
        assert rows[REFERENCE]["parts"].split()[::2] == ["tensor", "mask", "apply"]


def test_extra_rows_are_compared_with_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    print_rows([Row("a", 2000.0, {"x": 1.5}), Row(REFERENCE, 500.0)], extra=[Row("batched", 50000.0)])
    rows = rows_of(capsys.readouterr().out)
    assert [rows[n]["ratio"] for n in ("a", REFERENCE, "batched")] == ["4.0", "1.0", "100.0"]
    assert rows["a"]["parts"] == "x 1.5"
