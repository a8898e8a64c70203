"""Bots from outside barbu in the arena: by import path, by entry point, as a class; match() as a call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from barbu import bots
from barbu.bots import levels, make_bot
from barbu.bots.plugins import PlugIn
from barbu.cli import main as cli_main
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.state import State
from barbu.tools.arena import ArenaError, match

EXAMPLES = Path(__file__).parents[1] / "examples"
PLUGIN = "plugin_bot:PolicyBot"
RUN_ONLY = ("timing", "records", "jobs")  # what may differ between two runs of the same match


def _same(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in RUN_ONLY}


@pytest.fixture
def examples_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/ on the import path, as PYTHONPATH=examples puts it (workers inherit it)."""
    monkeypatch.syspath_prepend(str(EXAMPLES))


@pytest.mark.usefixtures("examples_importable")
def test_a_bot_named_by_import_path_plays_in_worker_processes_as_in_one(tmp_path: Path) -> None:
    bots = [PLUGIN, "basic", "random", "random"]
    one = match(bots, deals=2, seed=3)
    two = match(bots, deals=2, seed=3, jobs=2)
    assert one["bots"][0] == f"0:{PLUGIN}" and one["deals"]["boards"] == 2
    assert _same(one) == _same(two) and two["jobs"] == 2
    calls = two["timing"]["per_bot"][f"0:{PLUGIN}"]["calls"]
    assert calls > 0


@pytest.mark.usefixtures("examples_importable")
def test_match_returns_what_barbu_arena_json_saves(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    argv = ["arena", "--bots", f"{PLUGIN},random,random,random", "--deals", "2", "--seed", "5",
            "--jobs", "2", "--no-records", "--quiet", "--json", str(out)]
    assert cli_main(argv) == 0
    saved = json.loads(out.read_text(encoding="utf-8"))
    returned = match([PLUGIN, "random", "random", "random"], deals=2, seed=5, jobs=2)
    assert _same(json.loads(json.dumps(returned))) == _same(saved)
    assert set(returned) == set(saved)


@pytest.mark.usefixtures("examples_importable")
def test_a_class_is_named_by_its_import_path() -> None:
    from plugin_bot import PolicyBot

    summary = match([PolicyBot, "random", "random"], rules="family", deals=1, jobs=2)
    assert summary["bots"] == [f"0:{PLUGIN}", "1:random", "2:random"]
    local = type("Local", (PolicyBot,), {})  # made here: no module holds it
    with pytest.raises(ArenaError, match="no import path"):
        match([lambda seed: PolicyBot(seed), "random", "random"], rules="family", deals=1)
    with pytest.raises(ArenaError, match="no import path"):
        match([local(), "random", "random"], rules="family", deals=1)


def _install_entry_point(folder: Path, name: str, value: str) -> None:
    """A distribution's metadata declaring one bot in the barbu.bots group, as pip would install it."""
    info = folder / "mybots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mybots\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[barbu.bots]\n{name} = {value}\n", encoding="utf-8")


@pytest.mark.usefixtures("examples_importable")
def test_a_bot_named_by_its_entry_point_plays_in_worker_processes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _install_entry_point(tmp_path, "linear", PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    # The level is registered for this test only: the tests after it see the levels as installed.
    monkeypatch.setattr(bots, "_FACTORIES", dict(bots._FACTORIES))
    assert "linear" in levels()
    summary = match(["linear", "random", "random", "random"], deals=2, jobs=2)
    assert summary["bots"][0] == "0:linear"
    by_path = match([PLUGIN, "random", "random", "random"], deals=2)
    assert summary["deals"]["per_bot"] == by_path["deals"]["per_bot"]  # the same bot, the same play
    with pytest.raises(SystemExit):
        cli_main(["arena", "--help"])
    assert "linear" in " ".join(capsys.readouterr().out.split())


class Duck:
    """A bot by protocol alone: no subclass of Bot, just act()."""

    def __init__(self, seed: int | None) -> None:
        self.seed = seed

    def act(self, obs: Observation) -> int:
        return obs.legal[-1]


def no_act(seed: int | None) -> object:
    return object()


def test_any_object_with_act_is_a_bot_and_anything_else_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    bot = make_bot(f"{__name__}:Duck", seed=2)
    assert isinstance(bot, PlugIn) and bot.name == f"{__name__}:Duck" and not bot.cheats
    state = State(Game.classic(), seed=1)
    state.deal_random()
    obs = state.observe(state.current)
    assert bot.act(obs) == obs.legal[-1]
    for name, words in ((f"{__name__}:no_act", "has no act(observation) method"),
                        ("no_such_module_here:Bot", "cannot import no_such_module_here"),
                        (f"{__name__}:Missing", f"{__name__} has no Missing"),
                        (f"{__name__}:EXAMPLES", "is not a factory")):
        with pytest.raises(ArenaError, match=words.replace("(", r"\(").replace(")", r"\)")):
            match([name, "random", "random", "random"], deals=1)
    assert cli_main(["arena", "--bots", "no_such_module_here:Bot,random,random,random", "--deals", "1",
                     "--no-records", "--quiet"]) == 2
    assert "cannot import no_such_module_here" in capsys.readouterr().err


@pytest.mark.usefixtures("examples_importable")
def test_a_plugin_plays_on_a_dask_cluster_as_here() -> None:
    pytest.importorskip("distributed")
    bots = [PLUGIN, "random", "random", "random"]
    here = match(bots, deals=2, seed=2)
    there = match(bots, deals=2, seed=2, cluster="", jobs=2)
    assert there["cluster"] == "local"
    assert _same(here) == {k: v for k, v in _same(there).items() if k != "cluster"}


def test_the_example_plugs_its_bot_into_the_arena_with_two_processes() -> None:
    run = subprocess.run([sys.executable, str(EXAMPLES / "plugin_bot.py"), "--deals", "2", "--jobs", "2"],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"0:{PLUGIN} against three basic bots, 2 deals × 4 rotations: edge ")
    assert "95% interval [" in run.stdout


def test_the_installed_bots_are_read_again_only_when_a_folder_of_the_path_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A server asks at every table made: the scan of every installed distribution cost 70 ms a request.
    from barbu.bots import plugins

    scans = []
    real = plugins.entry_points
    monkeypatch.setattr(plugins, "entry_points", lambda **kw: scans.append(kw) or real(**kw))
    monkeypatch.syspath_prepend(str(tmp_path))
    first = plugins.registered()
    assert plugins.registered() == first and len(scans) == 1
    _install_entry_point(tmp_path, "linear", PLUGIN)  # a package installed meanwhile
    assert "linear" in plugins.registered() and len(scans) == 2
    assert "linear" in plugins.registered() and len(scans) == 2
