"""barbu installed as the field installs it: the wheel built once, then each extra alone (and none) in a
new venv, where every command helps or says in one line which extra it needs, and one real command runs.

Slow (a compiled wheel and eight venvs; ./test.sh spreads them over two workers): deselected unless
asked for with ``pytest -m install``.
The dependencies' wheels are gathered once into a wheelhouse (from pip's cache or the index); every
venv installs from it alone (``--no-index``).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tomllib
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.install

EXTRAS = ("", "tui", "web", "rl", "fast", "openspiel", "cluster", "arena-cluster", "notify")
COMMANDS = ("play", "replay", "score", "bench", "serve", "db", "arena", "analyze")
NEEDS = {"serve": "web", "db": "web"}  # the commands whose very help needs an extra (play's does not)
PLAY = ["barbu", "play", "--watch", "--hands", "1", "--delay", "0", "--plain", "--seed", "1",
        "--save", "game.json"]
RECORD = EXAMPLES / "classic_no_queens_golden_doubling.json"
# One real command per extra (the base install's: a replay), run in the venv's folder.
REAL = {
    "": ["barbu", "replay", str(RECORD)],
    "tui": PLAY,
    "web": ["python", "-c", "import sqlite3, subprocess, sys; sqlite3.connect('t.sqlite').close(); "
            "sys.exit(subprocess.call(['barbu', 'db', 'migrate', 't.sqlite']))"],
    "rl": ["python", "-c", "from barbu.env import env; e = env(); e.reset(seed=1); obs = e.last()[0]; "
           "e.step(int(obs['action_mask'].argmax())); print('stepped')"],
    "fast": ["python", "-c", "from barbu.vector import VectorEnv; v = VectorEnv(batch=4, backend='numba'); "
             "v.reset(seed=1); print('reset')"],
    "openspiel": ["barbu", "arena", "--bots", "os-ismcts:5,random,random,random", "--deals", "1",
                  "--no-records", "--quiet"],
    # PostgreSQL and Redis serve the web server: alone, the cluster extra still needs the web one.
    "cluster": ["barbu", "serve", "--db", "postgresql://nobody@127.0.0.1:1/none"],
    "arena-cluster": ["barbu", "arena", "--bots", "basic,random,random,random", "--deals", "1",
                      "--cluster", "--jobs", "1", "--no-records", "--quiet"],
    # Web Push serves the web server too: alone, the notify extra still needs the web one.
    "notify": ["barbu", "serve", "--vapid-private-key", "key.pem"],
}


def run(argv: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BARBU_", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{Path(argv[0]).parent}{os.pathsep}{env.get('PATH', '')}"  # a venv's barbu first
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
                          env=env)


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """barbu's wheel, as ``pip wheel .`` builds it here, and every wheel its extras need.

    Built once per run: with pytest-xdist the workers share one, the first builds it under a lock
    while the others wait (the wheel copies the working copy's compiled engine when it is up to date,
    as ./test.sh leaves it, and compiles it otherwise: a minute).
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        house = tmp_path_factory.mktemp("wheelhouse")
        build_wheelhouse(house)
        yield house
        return
    root = tmp_path_factory.getbasetemp().parent  # this run's, shared by its workers
    house = root / "wheelhouse"
    with open(root / "wheelhouse.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "wheelhouse.done").exists():
            house.mkdir(exist_ok=True)
            build_wheelhouse(house)
            (root / "wheelhouse.done").touch()
    yield house


def build_wheelhouse(house: Path) -> None:
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    built = run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(house), str(ROOT)], house)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next(house.glob("barbu-*.whl"))
    every = ",".join(e for e in EXTRAS if e)
    deps = run([*pip, "wheel", "-q", "-w", str(house), f"barbu[{every}] @ {wheel.as_uri()}"], house)
    assert deps.returncode == 0, deps.stdout + deps.stderr


def make_venv(folder: Path, house: Path, extra: str) -> Path:
    """A new venv with barbu[extra] installed from the wheelhouse alone; its bin folder.

    This pip installs into it (``pip --python``) rather than a pip of its own, and leaves the modules'
    bytecode to their first import (``--no-compile``): a venv's own pip and the bytecode of numba's or
    OpenSpiel's thousands of modules were most of the matrix's time, and neither is what it checks.
    """
    venv.create(folder / "venv", with_pip=False)
    bin_dir = folder / "venv" / "bin"
    spec = f"barbu[{extra}]" if extra else "barbu"
    done = run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "-q",
                "--disable-pip-version-check", "--no-compile", "--no-index", "--find-links", str(house),
                spec], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    return bin_dir


def in_venv(bin_dir: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run([str(bin_dir / argv[0]), *argv[1:]], cwd)


def refused(result: subprocess.CompletedProcess[str], command: str, extra: str) -> bool:
    """Whether the command said in one line, and nothing more, that it needs ``extra``."""
    lines = result.stderr.strip().splitlines()
    return (result.returncode == 2 and len(lines) == 1 and result.stdout == ""
            and lines[0].startswith(f"barbu {command} needs the {extra} extra: pip install 'barbu[{extra}]'"))


@pytest.mark.parametrize("extra", EXTRAS, ids=[e or "base" for e in EXTRAS])
def test_each_extra_alone_gives_a_barbu_whose_every_command_helps_or_says_what_it_needs(
        extra: str, wheelhouse: Path, tmp_path: Path) -> None:
    bin_dir = make_venv(tmp_path, wheelhouse, extra)
    compiled = in_venv(bin_dir, ["python", "-c", "import barbu; print(barbu.COMPILED)"], tmp_path)
    assert compiled.stdout.strip() == "True", compiled.stderr  # the wheel built here has a C compiler
    top = in_venv(bin_dir, ["barbu", "--help"], tmp_path)
    assert top.returncode == 0 and all(f"    {c} " in top.stdout for c in COMMANDS), top.stderr
    for command in COMMANDS:
        helped = in_venv(bin_dir, ["barbu", command, "--help"], tmp_path)
        need = NEEDS.get(command)
        if need is None or need == extra:
            assert helped.returncode == 0 and helped.stdout.startswith(f"usage: barbu {command}"), \
                (command, helped.stderr)
        else:
            assert refused(helped, command, need), (command, helped.stdout, helped.stderr)
    real = in_venv(bin_dir, REAL[extra], tmp_path)
    if extra in ("cluster", "notify"):
        assert refused(real, "serve", "web"), real.stderr
    else:
        assert real.returncode == 0, (real.stdout, real.stderr)
        assert real.stdout.strip(), real.stderr
    if extra != "tui":
        assert refused(in_venv(bin_dir, PLAY, tmp_path), "play", "tui")
    if extra != "rl":  # bench --env needs the rl extra (or bench, which has its packages)
        assert refused(in_venv(bin_dir, ["barbu", "bench", "--env"], tmp_path), "bench --env", "rl")


def test_a_pure_wheel_is_built_when_asked_for(tmp_path: Path) -> None:
    env = {**os.environ, "BARBU_PURE": "1"}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                            str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=900,
                           check=False, env=env)
    assert built.returncode == 0, built.stdout + built.stderr
    assert [p.name for p in tmp_path.glob("*.whl")] == ["barbu-0.1.0-py3-none-any.whl"]


def test_the_extras_are_those_the_matrix_installs() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]
    # dev and native are for working on barbu, bench for run.sh, train and docs for an example and
    # the manual's site: no command needs them (tests/test_cli_extras.py).
    assert set(extras) - {"dev", "native", "bench", "train", "docs"} == {e for e in EXTRAS if e}
