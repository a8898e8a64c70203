"""The arena on a Dask cluster: the same summary and records as a local run, and clear refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from barbu.cli import main as cli_main
from barbu.tools import cluster
from barbu.tools.arena import ArenaError, Config, run_match

distributed = pytest.importorskip("distributed")

RUN_ONLY = ("timing", "records", "jobs", "cluster")  # what may differ between two runs of a match


def _match(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in RUN_ONLY}


def _calls(summary: dict[str, Any]) -> dict[str, int]:
    return {name: t["calls"] for name, t in summary["timing"]["per_bot"].items()}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _arena(tmp: Path, name: str, *argv: str) -> dict[str, Any]:
    out = tmp / name
    code = cli_main(["arena", *argv, "--out", str(out / "records"), "--json", str(out / "s.json"),
                     "--quiet"])
    assert code == 0
    summary: dict[str, Any] = json.loads((out / "s.json").read_text(encoding="utf-8"))
    return summary


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a running two-worker cluster, as a user would give it."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local.scheduler_address


def test_a_local_cluster_gives_the_local_summary_and_records(tmp_path: Path) -> None:
    match = ["--bots", "basic,random,basic,basic", "--deals", "2", "--seed", "7"]  # random: seeds carry over
    here = _arena(tmp_path, "here", *match, "--jobs", "1")
    there = _arena(tmp_path, "there", *match, "--cluster", "--jobs", "2")
    assert there["cluster"] == "local" and there["deals"]["boards"] == 2
    assert _match(here) == _match(there)
    assert _calls(here) == _calls(there)
    assert len(_files(tmp_path / "here" / "records")) == 8
    assert _files(tmp_path / "here" / "records") == _files(tmp_path / "there" / "records")


def test_a_schedulers_address_gives_the_local_family_summary(scheduler: str, tmp_path: Path) -> None:
    match = ["--bots", "random,basic,basic", "--rules", "family", "--deals", "2", "--seed", "4"]
    here = _arena(tmp_path, "here", *match)
    journal = tmp_path / "run.journal"
    there = _arena(tmp_path, "there", *match, "--cluster", scheduler, "--journal", str(journal))
    assert there["cluster"] == scheduler and there["better"] == "lower"
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 1 + 2 * 3  # header, deals × rotations
    assert _match(here) == _match(there)
    assert _calls(here) == _calls(there)
    assert _files(tmp_path / "here" / "records") == _files(tmp_path / "there" / "records")


def test_workers_with_another_barbu_are_refused(scheduler: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "own_version", lambda: "0.0.0-elsewhere")
    with pytest.raises(ArenaError, match=r"Dask worker .* has barbu .* but this machine has barbu "
                                         r"0\.0\.0-elsewhere .*install barbu"):
        run_match(Config(("basic",) * 3, "family"), deals=1, games=0, cluster=scheduler)


@pytest.mark.timeout(60)
def test_a_wrong_address_fails_with_a_clear_message(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--bots", "basic,basic,basic,basic", "--deals", "1", "--no-records", "--quiet",
            "--cluster-timeout", "1"]
    assert cli_main([*argv, "--cluster", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("barbu arena: cannot reach a Dask scheduler at 'tcp://127.0.0.1:9' within 1 s")
    assert cli_main([*argv, "--cluster", "tpc://127.0.0.1:8786"]) == 2
    assert "unknown address scheme 'tpc'" in capsys.readouterr().err
