"""The mypyc-compiled modules: in use when built, refused when stale, and playing exactly as the source."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.script_helpers import SCRIPTS, load_script

import barbu

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

PACKAGE = Path(barbu.__file__).parent
ROOT = Path(__file__).resolve().parents[1]
COMPILED_MODULES = tuple(f"barbu.engine.{m}" for m in (
    "cards", "contracts", "core", "scoring", "cardplay", "bidding", "state", "playout")) + tuple(
    f"barbu.bots.{m}" for m in ("policy", "fitted", "sampling", "endgame"))


def test_the_engine_build_is_the_one_this_run_expects() -> None:
    # test.sh runs the suite twice and says which build each run must be testing.
    expected = os.environ.get("BARBU_EXPECT")
    if expected is None:
        pytest.skip("BARBU_EXPECT not set (./test.sh sets it)")
    assert barbu.COMPILED is (expected == "compiled")
    for name in COMPILED_MODULES:
        path = importlib.import_module(name).__file__ or ""
        assert path.endswith(".py") != barbu.COMPILED, path


def _probe(env: dict[str, str]) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "tests.native_probe"], env={**os.environ, **env},
                         cwd=ROOT, check=True, capture_output=True, text=True, timeout=300)
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.mark.skipif(not barbu.COMPILED, reason="no compiled engine in this run")
def test_compiled_and_pure_builds_play_alike() -> None:
    compiled = _probe({})
    pure = _probe({"BARBU_PURE": "1"})
    assert compiled["compiled"] is True and pure["compiled"] is False
    assert compiled["values"], "the probe computed no values of the bots' compiled modules"
    for part in ("playouts", "refusals", "bots", "values"):
        assert compiled[part] == pure[part], f"the builds differ in {part}"


def copy_and_import(tmp_path: Path, spoil: Callable[[Path], None]) -> str:
    """Copy the package, spoil the copy and import it afresh: it must load pure. Returns stderr."""
    copy = tmp_path / "barbu"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    spoil(copy)
    code = "import barbu, barbu.engine.state; print(barbu.COMPILED, barbu.engine.state.__file__)"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("BARBU_PURE", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.split() == ["False", str(copy / "engine" / "state.py")]
    return out.stderr


@pytest.mark.skipif(not barbu.COMPILED, reason="no compiled engine in this run")
# A compiled source, and one that is not compiled but whose types the compiled sampler checks.
@pytest.mark.parametrize("source", ["engine/state.py", "engine/observation.py"])
def test_a_build_older_than_its_sources_is_not_used(tmp_path: Path, source: str) -> None:
    def edit(copy: Path) -> None:
        with (copy / source).open("a") as text:
            text.write("\n# edited after the build\n")

    warned = copy_and_import(tmp_path, edit)
    assert f"compiled engine is older than {source}" in warned


@pytest.mark.skipif(not barbu.COMPILED, reason="no compiled engine in this run")
def test_a_build_of_the_flat_layout_is_not_used(tmp_path: Path) -> None:
    # Built before the engine moved to barbu/engine/: its stamp names sources that are gone.
    def stamp_of_the_old_layout(copy: Path) -> None:
        (copy / "_native" / "SOURCES").write_text(f"{'0' * 64}  state.py\n")

    warned = copy_and_import(tmp_path, stamp_of_the_old_layout)
    assert "compiled engine is older than state.py" in warned


@pytest.mark.skipif(not barbu.COMPILED, reason="no compiled engine in this run")
def test_a_build_missing_one_of_its_modules_is_not_used_at_all(tmp_path: Path) -> None:
    # Half compiled is worse than pure: a compiled playout refuses a pure engine's State.
    def lose_one(copy: Path) -> None:
        next((copy / "_native" / "bots").glob("sampling.*")).unlink()

    warned = copy_and_import(tmp_path, lose_one)
    assert "compiled build is incomplete (bots/sampling." in warned


@pytest.mark.skipif(not barbu.COMPILED, reason="no compiled engine in this run")
def test_a_wheel_copies_the_working_copys_build_only_while_it_is_current(tmp_path: Path) -> None:
    # setup.py copies scripts/build-native.py's build into a wheel instead of compiling again: only a
    # whole build of today's sources will do.
    script: Any = load_script("build-native", SCRIPTS)
    copy = tmp_path / "barbu"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert script.current(copy / "_native")
    next((copy / "_native" / "bots").glob("sampling.*")).unlink()
    assert not script.current(copy / "_native")
    shutil.copytree(PACKAGE / "_native", copy / "_native", dirs_exist_ok=True)
    with (copy / "engine" / "observation.py").open("a") as text:
        text.write("\n# edited after the build\n")
    assert not script.current(copy / "_native")
