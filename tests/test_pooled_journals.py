"""research/pooled-journals.py: runs of one line-up on other deals, read as one match."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.script_helpers import RESEARCH

from barbu.tools.arena import Config, run_match

SCRIPT = RESEARCH / "pooled-journals.py"
BOTS = ("basic", "random", "random", "random")


def _pool(*journals: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, journals)], capture_output=True, text=True)


def _figures(line: str) -> tuple[int, float, float]:
    """The deals, the edge and its half-width of one printed line."""
    words = line.split()
    at = words.index("deals")
    return int(words[at - 1]), float(words[at + 2]), float(words[at + 4])


def test_two_seeds_pool_into_one_sample_of_their_deals(tmp_path: Path) -> None:
    a, b = tmp_path / "a.journal", tmp_path / "b.journal"
    first = run_match(Config(BOTS, seed=6), deals=4, games=0, journal=str(a))
    second = run_match(Config(BOTS, seed=7), deals=3, games=0, journal=str(b))
    out = _pool(a, b)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "bot 0: basic, line-up basic,random,random,random, classic rules"
    # Each seed's line is what its own run printed.
    for line, summary in ((lines[1], first), (lines[2], second)):
        edge = summary["deals"]["per_bot"][0]["edge"]
        assert _figures(line) == (edge["n"], pytest.approx(edge["mean"], abs=0.005),
                                  pytest.approx(edge["half_width"], abs=0.005))
    assert lines[1].startswith("seed 6") and lines[2].startswith("seed 7")
    # The pooled line is the mean over all seven deals, not the mean of the two runs' means.
    n, mean, _ = _figures(lines[3])
    edges_a = first["deals"]["per_bot"][0]["edge"]["mean"] * 4
    edges_b = second["deals"]["per_bot"][0]["edge"]["mean"] * 3
    assert lines[3].startswith("all") and n == 7
    assert mean == pytest.approx((edges_a + edges_b) / 7, abs=0.005)
    # Every contract line counts the deals of that contract: deal k plays contract k mod 7.
    contracts = {line.split()[0]: _figures(line)[0] for line in lines[4:]}
    assert contracts == {"no-tricks": 2, "no-queens": 2, "no-hearts": 2, "no-last-two": 1}


def test_one_contract_runs_pool_with_a_whole_match_of_another_seed(tmp_path: Path) -> None:
    whole, hearts, hearts_again = tmp_path / "w.journal", tmp_path / "h.journal", tmp_path / "h2.journal"
    run_match(Config(BOTS, seed=7), deals=2, games=0, journal=str(whole))
    one = run_match(Config(BOTS, seed=6, contract="no-hearts"), deals=2, games=0, journal=str(hearts))
    out = _pool(hearts, whole)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert _figures(lines[1])[0] == 2 and lines[1].startswith("seed 6")
    assert _figures(lines[3])[0] == 4
    # Seed 7's two deals are No Tricks and No Queens: the No Hearts line is the one-contract run.
    hearts_line = next(line for line in lines[4:] if line.startswith("no-hearts"))
    hearts_edge = one["deals"]["per_bot"][0]["edge"]["mean"]
    assert _figures(hearts_line)[:2] == (2, pytest.approx(hearts_edge, abs=0.005))
    # The same deals twice (one run read twice, or played again into another journal) are refused.
    run_match(Config(BOTS, seed=6, contract="no-hearts"), deals=1, games=0, journal=str(hearts_again))
    twice = _pool(hearts, hearts_again)
    assert twice.returncode == 2
    assert "holds deals of seed 6 another journal holds: [2]" in twice.stderr


def test_another_line_up_is_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a.journal", tmp_path / "b.journal"
    run_match(Config(BOTS, seed=6), deals=2, games=0, journal=str(a))
    run_match(Config(("random",) * 4, seed=7), deals=2, games=0, journal=str(b))
    out = _pool(a, b)
    assert out.returncode == 2 and "is another match: its bots differ" in out.stderr
    garbage = tmp_path / "g.journal"
    garbage.write_text("not json\n", encoding="utf-8")
    out = _pool(garbage)
    assert out.returncode == 2 and "is not an arena journal" in out.stderr
