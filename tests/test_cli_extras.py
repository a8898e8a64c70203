"""The barbu command without an extra's packages: every other command works, the ones that need it
say so in one line (tests/test_install_matrix.py checks the same in real installs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import play_random

from barbu.engine.game import Game
from barbu.engine.record import dump, to_record

WEB = ("starlette", "uvicorn", "websockets", "reportlab", "uharfbuzz", "argon2", "openskill")
RL = ("gymnasium", "pettingzoo", "numpy")
EVERY_EXTRA = (*WEB, *RL, "rich", "psycopg", "redis", "distributed", "numba", "pyspiel")
NAMES = ["Ann", "Ben", "Cleo", "Dan"]


def barbu(argv: list[str], blocked: tuple[str, ...],
          cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``barbu ARGV`` in a fresh interpreter where the ``blocked`` packages cannot be imported."""
    code = ("import sys\n"
            f"for name in {blocked!r}: sys.modules[name] = None  # import raises ModuleNotFoundError\n"
            "from barbu.cli import main\n"
            f"sys.exit(main({argv!r}))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          check=False, cwd=cwd)


def one_line_refusal(run: subprocess.CompletedProcess[str], words: str) -> None:
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert run.stderr.strip() == words, run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


@pytest.mark.parametrize("command", ["play", "replay", "score", "bench", "arena", "analyze"])
def test_every_command_but_the_servers_helps_without_any_extra(command: str) -> None:
    run = barbu([command, "--help"], EVERY_EXTRA)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"usage: barbu {command}") and run.stderr == ""


@pytest.mark.parametrize("argv", [["serve"], ["serve", "--help"], ["db", "--help"], ["static", "--help"],
                                  ["db", "migrate", "x.sqlite"]])
def test_the_servers_say_in_one_line_that_they_need_the_web_extra(argv: list[str]) -> None:
    run = barbu(argv, EVERY_EXTRA)
    found = run.stderr.strip().rpartition("(")[2].removesuffix(" is not installed)")
    assert found in WEB  # the first of them the server imports
    one_line_refusal(run, f"barbu {argv[0]} needs the web extra: pip install 'barbu[web]' "
                     f"({found} is not installed)")
    # Whichever of its packages is the one missing.
    one_line_refusal(barbu(argv, ("openskill",)), f"barbu {argv[0]} needs the web extra: pip install "
                     "'barbu[web]' (openskill is not installed)")


def test_barbu_help_lists_every_command_without_any_extra() -> None:
    run = barbu(["--help"], EVERY_EXTRA)
    assert run.returncode == 0, run.stderr
    listed = run.stdout.split("positional arguments:")[1]
    for command in ("play", "replay", "score", "bench", "serve", "db", "arena", "analyze"):
        assert f"\n    {command} " in listed


def test_replay_and_arena_run_without_any_extra(tmp_path: Path) -> None:
    dump(to_record(play_random(Game.classic(), 3, 1), NAMES), tmp_path / "g.json")
    run = barbu(["replay", "g.json"], EVERY_EXTRA, cwd=tmp_path)
    assert run.returncode == 0 and "Ann" in run.stdout, run.stderr
    run = barbu(["arena", "--bots", "basic,random,random,random", "--deals", "1", "--no-records",
                 "--quiet"], EVERY_EXTRA)
    assert run.returncode == 0 and "0:basic" in run.stdout, run.stderr


def test_play_says_it_needs_the_tui_extra() -> None:
    one_line_refusal(barbu(["play", "--watch", "--hands", "1"], ("rich",)),
                     "barbu play needs the tui extra: pip install 'barbu[tui]' (rich is not installed)")


def test_bench_env_says_it_needs_the_rl_extra() -> None:
    one_line_refusal(barbu(["bench", "--env", "--seconds", "0.01"], RL),
                     "barbu bench --env needs the rl extra: pip install 'barbu[rl]' "
                     "(numpy is not installed)")


def test_arena_cluster_says_it_needs_the_arena_cluster_extra() -> None:
    run = barbu(["arena", "--bots", "random,random,random,random", "--deals", "1", "--no-records",
                 "--quiet", "--cluster"], ("distributed",))
    assert run.returncode == 2 and "pip install 'barbu[arena-cluster]'" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


def test_barbu_help_imports_no_front_end() -> None:
    code = ("import sys\nfrom barbu.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
            "    pass\nprint(sorted(m for m in sys.modules if m.startswith(('barbu.web', 'barbu.tools', "
            "'barbu.tui', 'barbu.bots', 'barbu.score'))), file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         check=True)
    assert run.stderr.strip() == "[]"


def test_the_arena_runs_as_a_module() -> None:
    run = subprocess.run([sys.executable, "-m", "barbu.tools.arena", "--help"], capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 0 and run.stdout.startswith("usage: python -m barbu.tools.arena"), run.stderr
    run = subprocess.run([sys.executable, "-m", "barbu.tools.arena", "--bots", "basic,random,random,random",
                          "--deals", "1", "--jobs", "2", "--no-records", "--quiet"], capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0 and "0:basic" in run.stdout, run.stderr


def test_every_extra_is_named_for_its_packages() -> None:
    import tomllib

    from tests.conftest import ROOT

    from barbu.extras import MODULES

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]
    # dev and native are for working on barbu, bench for run.sh's benchmark, train for
    # examples/train_maskable_ppo.py, docs for the manual's site (mkdocs.yml): no command needs them.
    assert set(MODULES.values()) == set(extras) - {"dev", "native", "bench", "train", "docs"}
    # The modules imported under another name than their distribution's (dask comes with distributed).
    # py_vapid comes with pywebpush.
    distribution = {"argon2": "argon2_cffi", "dask": "distributed", "pyspiel": "open_spiel",
                    "py_vapid": "pywebpush"}
    for module, extra in MODULES.items():
        packages = " ".join(extras[extra]).lower().replace("-", "_")
        assert distribution.get(module, module) in packages, (module, extra)
