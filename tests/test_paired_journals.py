"""research/paired-journals.py: two arena journals of the same deals, compared deal by deal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.script_helpers import RESEARCH, load_script

from barbu.tools.arena import Config, interval, run_match

SCRIPT = RESEARCH / "paired-journals.py"


def _edges(journal: Path, bot: int) -> dict[int, float]:
    edges: dict[int, float] = load_script("paired-journals").edges(journal, bot)
    return edges


@pytest.mark.parametrize("rules,players", [("classic", 4), ("family", 3)])
def test_the_edges_are_those_the_arena_prints(tmp_path: Path, rules: str, players: int) -> None:
    journal = tmp_path / "a.journal"
    cfg = Config(("basic",) + ("random",) * (players - 1), rules, seed=6)
    summary = run_match(cfg, deals=4, games=0, journal=str(journal))
    edges = _edges(journal, 0)
    assert sorted(edges) == [0, 1, 2, 3]
    # The arena's edge is signed the same way (positive better, family's penalties reversed).
    assert sum(edges.values()) / 4 == pytest.approx(summary["deals"]["per_bot"][0]["edge"]["mean"])


def test_two_line_ups_on_the_same_deals_are_paired(tmp_path: Path) -> None:
    a, b, other = tmp_path / "a.journal", tmp_path / "b.journal", tmp_path / "c.journal"
    run_match(Config(("basic", "random", "random", "random"), seed=6), deals=3, games=0, journal=str(a))
    run_match(Config(("random",) * 4, seed=6), deals=3, games=0, journal=str(b))
    run_match(Config(("random",) * 4, seed=7), deals=3, games=0, journal=str(other))
    edges = _edges(a, 0), _edges(b, 0)
    out = subprocess.run([sys.executable, str(SCRIPT), str(a), str(b)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    diff = sum(edges[0][k] - edges[1][k] for k in range(3)) / 3
    assert out.stdout.splitlines()[0] == "3 deals in both; bot 0: basic in A, random in B"
    assert out.stdout.splitlines()[2].startswith(f"A minus B: {diff:+.2f} ± ")
    refused = subprocess.run([sys.executable, str(SCRIPT), str(a), str(other)],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "not of the same deals: seed differ" in refused.stderr


def test_a_run_of_one_contract_pairs_with_the_same_deals_of_a_full_run(tmp_path: Path) -> None:
    full, one = tmp_path / "full.journal", tmp_path / "one.journal"
    bots = ("basic", "random", "random", "random")
    run_match(Config(bots, seed=6), deals=10, games=0, journal=str(full))
    run_match(Config(bots, seed=6, contract="no-hearts"), deals=2, games=0, journal=str(one))
    # No Hearts is the third contract: boards 0 and 1 of the one-contract run are deals 2 and 9.
    a, b = _edges(one, 0), _edges(full, 0)
    assert sorted(a) == [2, 9]
    assert a == {k: b[k] for k in (2, 9)}  # the same deals played the same way by the same bots
    out = subprocess.run([sys.executable, str(SCRIPT), str(one), str(full)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith("2 deals in both")
    assert out.stdout.splitlines()[2].startswith("A minus B: +0.00 ± 0.00")


def test_merged_puts_a_runs_deals_in_place_of_the_full_runs_own(tmp_path: Path) -> None:
    full, one = tmp_path / "full.journal", tmp_path / "one.journal"
    run_match(Config(("random",) * 4, seed=6), deals=10, games=0, journal=str(full))
    run_match(Config(("basic", "random", "random", "random"), seed=6, contract="no-hearts"),
              deals=2, games=0, journal=str(one))
    a, b = _edges(one, 0), _edges(full, 0)
    assert a.keys() == {2, 9} and a != {k: b[k] for k in a}  # basic plays its deals otherwise
    out = subprocess.run([sys.executable, str(SCRIPT), str(one), str(full), "--merged"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    merged = interval([a.get(k, b[k]) for k in range(10)])
    assert out.stdout.splitlines()[3] == (
        f"B with A's 2 deals in place: edge {merged.mean:+.2f} ± {merged.half:.2f}  "
        f"[{merged.low:+.2f}, {merged.high:+.2f}] over 10 deals")


def test_several_runs_of_one_contract_are_read_as_one_run(tmp_path: Path) -> None:
    full, hearts, tricks = tmp_path / "full.journal", tmp_path / "h.journal", tmp_path / "t.journal"
    bots = ("basic", "random", "random", "random")
    run_match(Config(("random",) * 4, seed=6), deals=10, games=0, journal=str(full))
    run_match(Config(bots, seed=6, contract="no-hearts"), deals=2, games=0, journal=str(hearts))
    run_match(Config(bots, seed=6, contract="no-tricks"), deals=2, games=0, journal=str(tricks))
    a = _edges(hearts, 0) | _edges(tricks, 0)
    b = _edges(full, 0)
    assert sorted(a) == [0, 2, 7, 9]  # No Tricks is the first contract, No Hearts the third
    out = subprocess.run([sys.executable, str(SCRIPT), str(hearts), str(tricks), str(full), "--merged"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    diff = interval([a[k] - b[k] for k in sorted(a)])
    merged = interval([a.get(k, b[k]) for k in range(10)])
    lines = out.stdout.splitlines()
    assert lines[0] == "4 deals in both; bot 0: basic in A, random in B"
    assert lines[2] == f"A minus B: {diff.mean:+.2f} ± {diff.half:.2f}  [{diff.low:+.2f}, {diff.high:+.2f}]"
    assert lines[3].startswith(f"B with A's 4 deals in place: edge {merged.mean:+.2f} ± ")
    twice = subprocess.run([sys.executable, str(SCRIPT), str(hearts), str(hearts), str(full)],
                           capture_output=True, text=True)
    assert twice.returncode == 2 and "holds deals another A journal holds: [2, 9]" in twice.stderr
