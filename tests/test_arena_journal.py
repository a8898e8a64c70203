"""The arena's journal: a run cut part-way and started again ends as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from barbu.tools import arena
from barbu.tools.arena import ArenaError, Config, TaskResult, journal_header, play_task, run_match
from barbu.tools.journal import Journal

FAMILY = Config(("basic", "random", "basic"), "family", seed=9)
CLASSIC = Config(("basic", "random", "basic", "random"), seed=2)


def _match(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in ("timing", "records")}


def _calls(summary: dict[str, Any]) -> dict[str, int]:
    return {name: t["calls"] for name, t in summary["timing"]["per_bot"].items()}


def _whole_lines(path: Path) -> int:
    """Lines written so far, whole ones only (the writer may be in the middle of one)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class _Cut(Exception):
    """Stands for the end of a session in the middle of a match."""


def _cut_after(monkeypatch: pytest.MonkeyPatch, tasks: int) -> list[tuple[str, int, int]]:
    """Make play_task fail after ``tasks`` calls; returns the list of the tasks it was asked."""
    asked: list[tuple[str, int, int]] = []

    def play(cfg: Config, kind: str, board: int, rotation: int) -> TaskResult:
        if len(asked) == tasks:
            raise _Cut
        asked.append((kind, board, rotation))
        return play_task(cfg, kind, board, rotation)

    monkeypatch.setattr(arena, "play_task", play)
    return asked


@pytest.mark.parametrize("cfg,deals,games", [(FAMILY, 2, 0), (CLASSIC, 2, 1)])
def test_a_cut_run_resumed_ends_as_an_uninterrupted_one(
        cfg: Config, deals: int, games: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = run_match(cfg, deals, games)
    journal = tmp_path / "run.journal"
    total = cfg.players * (deals + games)
    asked = _cut_after(monkeypatch, 3)
    with pytest.raises(_Cut):
        run_match(cfg, deals, games, journal=str(journal))
    assert len(_lines(journal)) == 1 + 3  # the header and the three boards played
    assert len(asked) == 3
    asked = _cut_after(monkeypatch, total)
    resumed = run_match(cfg, deals, games, journal=str(journal))
    assert len(asked) == total - 3
    assert _match(resumed) == _match(whole)
    assert _calls(resumed) == _calls(whole)
    assert len(_lines(journal)) == 1 + total
    again = run_match(cfg, deals, games, journal=str(journal))  # complete: nothing left to play
    assert _match(again) == _match(whole) and len(_lines(journal)) == 1 + total


def test_the_resumed_run_plays_only_what_the_journal_lacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = tmp_path / "run.journal"
    _cut_after(monkeypatch, 4)
    with pytest.raises(_Cut):
        run_match(CLASSIC, 3, 0, journal=str(journal))
    first = [(e["kind"], e["board"], e["rotation"]) for e in _lines(journal)[1:]]
    asked = _cut_after(monkeypatch, 100)
    run_match(CLASSIC, 3, 0, journal=str(journal))
    assert len(first) == 4 and len(asked) == 12 - 4 and not set(first) & set(asked)


def test_a_line_cut_by_a_crash_is_dropped_and_replayed(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    whole = run_match(CLASSIC, 2, 0, journal=str(journal))
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:5]) + lines[5][: len(lines[5]) // 2], encoding="utf-8")
    resumed = run_match(CLASSIC, 2, 0, journal=str(journal))
    assert _match(resumed) == _match(whole)
    assert len(_lines(journal)) == len(lines)  # every line whole again


def test_a_journal_of_another_match_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    run_match(CLASSIC, 1, 0, journal=str(journal))
    before = journal.read_bytes()
    other = Config(CLASSIC.bots, seed=CLASSIC.seed + 1)
    with pytest.raises(ArenaError, match=r"written by another run \(seed 2 there, 3 now\)"):
        run_match(other, 1, 0, journal=str(journal))
    with pytest.raises(ArenaError, match=r"deals 1 there, 2 now"):
        run_match(CLASSIC, 2, 0, journal=str(journal))
    assert journal.read_bytes() == before


def test_a_damaged_journal_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    run_match(CLASSIC, 1, 0, journal=str(journal))
    journal.write_text(journal.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    with pytest.raises(ArenaError, match="is damaged"):
        run_match(CLASSIC, 1, 0, journal=str(journal))


def test_a_killed_arena_command_goes_on_where_it_stopped(tmp_path: Path) -> None:
    """The real case: the process is killed (the end of a session), then started again."""
    # Quick bots (random's seeds must carry over a resumption) over enough deals to be killed midway.
    argv = [sys.executable, "-m", "barbu.cli", "arena", "--bots", "random,basic,basic,basic",
            "--deals", "40", "--seed", "3", "--quiet"]
    journal = tmp_path / "run.journal"
    proc = subprocess.Popen([*argv, "--journal", str(journal)], stdout=subprocess.DEVNULL)
    while proc.poll() is None and _whole_lines(journal) < 3:
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    cut = _whole_lines(journal) - 1
    assert 2 <= cut < 160, "the run ended before it could be killed"
    resumed = subprocess.run([*argv, "--journal", str(journal), "--json", str(tmp_path / "r.json")],
                             capture_output=True, text=True, timeout=300, check=True)
    whole = subprocess.run([*argv, "--out", str(tmp_path / "whole"), "--json", str(tmp_path / "w.json")],
                           capture_output=True, text=True, timeout=300, check=True)
    r, w = (json.loads((tmp_path / f).read_text(encoding="utf-8")) for f in ("r.json", "w.json"))
    assert _match(r) == _match(w) and _calls(r) == _calls(w)
    assert resumed.stdout.split("decision time")[0] == whole.stdout.split("decision time")[0]
    assert f"{cut} of 160 boards × rotations already in journal" in resumed.stderr
    # Without --out the records go beside the journal, those of both runs together.
    assert r["records"] == str(tmp_path / "run.records")
    assert _records(tmp_path / "run.records") == _records(tmp_path / "whole")
    assert len(_records(tmp_path / "whole")) == 160


def _records(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def test_a_journal_in_use_by_another_run_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    with (Journal(journal, journal_header(CLASSIC, 1, 0)),
          pytest.raises(ArenaError, match="is in use by another run")):
        run_match(CLASSIC, 1, 0, journal=str(journal))
    run_match(CLASSIC, 1, 0, journal=str(journal))  # free again once the first run is over
    assert len(_lines(journal)) == 1 + 4


def test_so_far_reads_the_first_complete_boards_and_plays_nothing(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    journal = tmp_path / "run.journal"
    _cut_after(monkeypatch, 2 * 3 + 2)  # two deals, and two rotations of the third
    with pytest.raises(_Cut):
        run_match(FAMILY, deals=5, games=0, journal=str(journal))
    monkeypatch.undo()
    monkeypatch.setattr(arena, "play_task", lambda *a: pytest.fail("--so-far played a board"))
    so_far = arena.so_far(FAMILY, 5, 0, str(journal))
    assert so_far["so_far"]["deals"] == 2 and so_far["deals"]["boards"] == 2
    monkeypatch.undo()
    assert _match({k: v for k, v in so_far.items() if k != "so_far"}) == _match(run_match(FAMILY, 2, 0))
    # The journal was not taken, and a journal of another match is refused in words.
    with Journal(journal, journal_header(FAMILY, 5, 0)) as jr:
        assert len(jr.entries) == 8
        assert arena.so_far(FAMILY, 5, 0, str(journal))["so_far"]["deals"] == 2
    with pytest.raises(ArenaError, match="another run"):
        arena.so_far(FAMILY, 6, 0, str(journal))
    with pytest.raises(ArenaError, match="cannot read"):
        arena.so_far(FAMILY, 5, 0, str(tmp_path / "none.journal"))


def test_so_far_on_the_command_line_needs_a_journal(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from barbu.cli import main

    argv = ["arena", "--bots", "basic,random,basic", "--rules", "family", "--deals", "2", "--quiet"]
    assert main([*argv, "--so-far"]) == 2
    assert "--journal" in capsys.readouterr().err
    journal = tmp_path / "run.journal"
    assert main([*argv, "--no-records", "--journal", str(journal)]) == 0
    capsys.readouterr()
    assert main([*argv, "--journal", str(journal), "--so-far"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("so far (2 of 2 deals complete") and "records:" not in out
    assert not (tmp_path / "run.records").exists()
