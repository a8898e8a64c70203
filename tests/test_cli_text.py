"""The command line as a person meets it: files that are not records, numbering, help, version."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import play_random

from barbu.bots import level_label, levels
from barbu.cli import build_parser, main
from barbu.engine.game import Game
from barbu.engine.record import dump, to_record

NAMES = ["Ann", "Ben", "Cleo", "Dan"]
NOT_RECORDS = {
    "binary.json": bytes(range(256)) * 4,
    "latin1.json": '{"players": ["Zoé"]}'.encode("latin-1"),
    "text.json": b"hello, this is not JSON\n",
}


def _bad(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(NOT_RECORDS[name])
    return path


def _commands(path: Path) -> list[list[str]]:
    return [["replay", str(path)], ["analyze", str(path)], ["play", "--resume", str(path)]]


@pytest.mark.parametrize("name", NOT_RECORDS)
def test_a_file_that_is_not_a_record_is_refused_in_words(tmp_path: Path, name: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = _bad(tmp_path, name)
    for argv in _commands(path):
        assert main(argv) == 1, argv
        out = capsys.readouterr()
        assert out.out == ""
        line = out.err.strip()
        assert "\n" not in line and line.startswith(f"barbu {' '.join(argv[:-1])}: {path}: ")
        assert "Traceback" not in line and "codec" not in line
        expected = "not UTF-8 text" if name != "text.json" else "not a JSON document"
        assert expected in line


@pytest.mark.parametrize("name", ["binary.json", "latin1.json", "text.json", "missing", "folder"])
def test_the_json_error_object_for_any_unreadable_file(tmp_path: Path, name: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    if name == "folder":
        path = tmp_path / "records"
        path.mkdir()
    else:
        path = tmp_path / name if name == "missing" else _bad(tmp_path, name)
    for command in ("replay", "analyze"):
        assert main([command, str(path), "--json"]) == 1
        out = capsys.readouterr()
        error = json.loads(out.out)["error"]
        assert (error["hand"], error["action"], error["seat"]) == (None, None, None)
        assert error["message"] in out.err
        if name == "folder":
            assert error["message"] == "cannot read it: it is a folder, not a file"
        if name == "missing":
            assert error["message"] == "cannot read it: no such file or directory"


def test_version_comes_from_the_installed_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version as installed

    from barbu.cli import version

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"barbu {installed('barbu')}" == f"barbu {version()}"


@pytest.mark.parametrize("command", ["play", "replay", "analyze", "bench"])
def test_every_subcommand_help_says_what_it_does(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    _, _, rest = text.partition("\n\n")
    assert rest.split("\n")[0][:1].isupper(), f"no description after the usage of {command}"


def test_every_option_of_every_subcommand_is_explained() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    bare = [f"{name} {action.option_strings or action.dest}" for name, sub in commands.items()
            for action in sub._actions if not action.help and action.dest != "help"]
    assert bare == []
    arena_help = " ".join(commands["arena"].format_help().split())
    assert "random, easy (basic), medium (pimc), hard (strong), expert" in arena_help


def test_play_help_lists_bot_levels_and_defaults() -> None:
    text = build_parser()._subparsers._group_actions[0].choices["play"].format_help()  # type: ignore[union-attr]
    flat = " ".join(text.split())
    # os-ismcts joins the list where OpenSpiel is installed.
    assert f"{', '.join(level_label(lv) for lv in levels())} (default: easy)" in flat
    assert "random, easy (basic), medium (pimc), hard (strong), expert" in flat
    assert "(default You)" in flat and "(default classic)" in flat


def _record(tmp_path: Path, game: Game, hands: int) -> Path:
    state = play_random(game, 3, hands)
    path = tmp_path / "game.json"
    dump(to_record(state, NAMES[:game.players]), path)
    return path


@pytest.mark.parametrize(("flags", "words"), [
    (["--rules", "family"], "--rules family contradicts the record: it is a classic game with "
                            "4 players and no option flag; leave --rules out to resume it"),
    (["--players", "5"], "--players 5 contradicts the record: it is a classic game with 4 players"),
    (["--option", "overtrump"], "--option overtrump contradicts the record: it is a classic game "
                                "with 4 players and no option flag"),
    (["--seed", "99"], "--seed 99 contradicts the record: its seed is 3; leave --seed out"),
])
def test_resume_refuses_options_the_record_contradicts(tmp_path: Path, flags: list[str], words: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = _record(tmp_path, Game.classic(), 1)
    assert main(["play", "--resume", str(path), *flags, "--hands", "1"]) == 1
    assert words in capsys.readouterr().err
    # The same options in agreement with the record are accepted.
    agreeing = {"--rules": "classic", "--players": "4", "--seed": "3"}
    args = ["play", "--resume", str(path), "--watch", "--hands", "1", "--delay", "0", "--plain"]
    if flags[0] in agreeing:
        assert main([*args, flags[0], agreeing[flags[0]]]) == 0
        assert "Resuming" in capsys.readouterr().out


def test_file_arguments_are_relative_to_the_folder_run_sh_was_called_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    caller = tmp_path / "caller"
    caller.mkdir()
    (caller / "records").mkdir()
    dump(to_record(play_random(Game.classic(), 3, 1), NAMES), caller / "records" / "g.json")
    elsewhere = tmp_path / "repo"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # where run.sh has gone
    monkeypatch.setenv("BARBU_CALLER_CWD", str(caller))
    assert main(["replay", "records/g.json", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hands"]


def test_the_resume_hint_is_a_command_that_works_as_printed(tmp_path: Path) -> None:
    import os
    import shlex
    import subprocess
    import sys

    barbu = str(Path(sys.executable).parent / "barbu")
    env = {**os.environ, "PATH": "/usr/bin:/bin", "BARBU_PURE": "1"}  # barbu is not on PATH
    env.pop("BARBU_LAUNCHER", None)
    env.pop("BARBU_CALLER_CWD", None)
    first = subprocess.run([barbu, "play", "--watch", "--hands", "1", "--delay", "0", "--plain",
                            "--seed", "5"], capture_output=True, text=True, cwd=tmp_path, env=env,
                           timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    hint = first.stdout.split("Continue with: ", 1)[1].splitlines()[0]
    again = subprocess.run([*shlex.split(hint), "--hands", "1", "--delay", "0", "--plain"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
                           check=False)
    assert again.returncode == 0, (hint, again.stderr)
    assert "Resuming" in again.stdout and "1 hand played" in again.stdout


def test_the_hint_names_run_sh_as_its_caller_typed_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from barbu.wording import command

    monkeypatch.setenv("BARBU_LAUNCHER", "../barbu/run.sh")
    assert command("play", "--resume", "records/my game.json") == \
        "../barbu/run.sh play --resume 'records/my game.json'"


def _synopsis(command: str) -> str:
    """The usage block of ``command`` in the manual (docs/): the indented lines after its heading."""
    docs = Path(__file__).parent.parent / "docs"
    pages = "\n".join(p.read_text(encoding="utf-8") for p in sorted(docs.glob("*.md")))
    section = re.split(rf"^#+ barbu {command} ", pages, maxsplit=1, flags=re.MULTILINE)[1]
    block = section.split("\n\n", 2)[1]
    assert block.startswith("    "), block
    return block


@pytest.mark.parametrize("command", ["play", "replay", "arena", "analyze", "bench", "serve"])
def test_the_manual_synopsis_lists_every_option(command: str) -> None:
    parser = build_parser()._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    options = {o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"}
    text = _synopsis(command)
    assert sorted(o for o in options if o not in text) == []


def test_play_takes_a_level_by_what_it_means_or_by_its_name() -> None:
    parser = build_parser()
    assert [parser.parse_args(["play", "--bot", b]).bot for b in ("easy", "hard", "expert", "pimc")] == \
        ["basic", "strong", "expert", "pimc"]
