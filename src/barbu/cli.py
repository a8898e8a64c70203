"""The ``barbu`` command: parses arguments and hands each subcommand to its front end."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP
from barbu.extras import foreign, missing_extra


def _add_game_args(p: argparse.ArgumentParser) -> None:
    # No defaults in the namespace: with --resume an option given must agree with the record.
    p.add_argument("--rules", choices=("classic", "family"), default=None,
                   help="rule set: %(choices)s (default classic)")
    p.add_argument("--players", type=int, default=None,
                   help="number of players (default 4; classic: 4, family: 3 to 6)")
    p.add_argument("--option", action="append", default=None, choices=CLASSIC_OPTIONS,
                   metavar="FLAG", help="classic option flag, repeatable (default none): "
                   + "; ".join(f"{k}: {v}" for k, v in OPTION_HELP.items()))
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the deals, for a reproducible game (default: a random one)")


def _sentence(phrase: str) -> str:
    return phrase[0].upper() + phrase[1:]


def version() -> str:
    """The installed distribution's version, or the package's own when it is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("barbu")
    except PackageNotFoundError:
        from barbu import __version__

        return __version__


@dataclass(frozen=True)
class Command:
    """A subcommand: its one-line help, what adds its arguments, what runs it, the extra it needs."""

    help: str
    arguments: str  # "module:function" adding the arguments to the subcommand's parser
    runner: str  # "module:function" taking the parsed arguments, returning the exit status
    extra: str | None = None  # the extra its front end needs (None: the base install has all)


# Each front end is imported only when its command runs (or its help is asked for): the engine
# needs none of their packages, and a missing extra is said in one line by the command that needs it.
COMMANDS = {
    "play": Command("play a game in the terminal against computer players", "barbu.cli:play_arguments",
                    "barbu.tui:run", "tui"),
    "learn": Command("learn Barbu: a lesson per contract with the coach, in the terminal",
                     "barbu.tui.lessons:add_arguments", "barbu.tui.lessons:run", "tui"),
    "drill": Command("practise decisions from computer games, answered and explained (a record kept)",
                     "barbu.tui.drill:add_arguments", "barbu.tui.drill:run", "tui"),
    "replay": Command("check a game record or a score sheet against the rules and score it",
                      "barbu.cli:replay_arguments", "barbu.cli:cmd_replay"),
    "score": Command("keep the score of a game played with a real deck", "barbu.cli:score_arguments",
                     "barbu.score:run"),
    "bench": Command("measure the engine's random-playout speed (beside OpenSpiel's when installed)",
                     "barbu.cli:bench_arguments", "barbu.tools.bench:run"),
    "serve": Command("serve card tables in the browser (friends and computer players)",
                     "barbu.web.serve:add_arguments", "barbu.web.serve:run", "web"),
    "static": Command("write a folder any static web host serves: solo play, the rules, the score keeper",
                      "barbu.web.http.site:add_arguments", "barbu.web.http.site:run", "web"),
    "db": Command("bring a database's layout up to date, or move an SQLite database into PostgreSQL",
                  "barbu.web.storage.dbtool:add_arguments", "barbu.web.storage.dbtool:run", "web"),
    "arena": Command("play duplicate matches between computer players and measure who is better",
                     "barbu.tools.arena:add_arguments", "barbu.tools.arena:main"),
    "analyze": Command("replay a game and compare one seat's cards with the expert bot's choices",
                       "barbu.cli:analyze_arguments", "barbu.tools.analyze:run"),
}
EVERY = "*"  # build_parser's default: every subcommand with its arguments


class MissingExtra(Exception):
    """A subcommand's front end needs packages of an extra that is not installed."""


def _load(name: str, reference: str) -> Callable[..., Any]:
    """The function ``module:function`` of command ``name``; MissingExtra when a package is missing."""
    module, _, function = reference.partition(":")
    try:
        found: Callable[..., Any] = getattr(importlib.import_module(module), function)
    except ModuleNotFoundError as e:
        if not foreign(e):
            raise
        raise MissingExtra(missing_extra(f"barbu {name}", e, COMMANDS[name].extra)) from None
    return found


def build_parser(only: str | None = EVERY) -> argparse.ArgumentParser:
    """The ``barbu`` parser: every subcommand with its arguments, or only those of ``only`` (None:
    of none, enough for ``barbu --help``). MissingExtra when ``only`` is a command whose extra is
    missing; with EVERY such a command keeps its help and takes no arguments."""
    parser = argparse.ArgumentParser(prog="barbu", description="The card game Barbu.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=_sentence(command.help) + ".")
        if only in (EVERY, name):
            try:
                _load(name, command.arguments)(p)
            except MissingExtra as e:
                if only == name:
                    raise
                p.description = str(e)
    return parser


def play_arguments(play: argparse.ArgumentParser) -> None:
    from barbu.bots import level_label, level_named, levels

    play.description = _sentence(COMMANDS["play"].help) + (
        " (or watch one); the game is saved after every hand and --resume carries it on.")
    _add_game_args(play)
    play.add_argument("--bot", default="basic", type=level_named, choices=levels(), metavar="LEVEL",
                      help="level of the computer players: "
                      + ", ".join(level_label(lv) for lv in levels()) + " (default: easy)")
    play.add_argument("--resume", metavar="FILE", help="continue the game saved in FILE")
    play.add_argument("--watch", action="store_true", help="watch computer players play a game")
    play.add_argument("--name", default="You", help="your name on the score sheet (default %(default)s)")
    play.add_argument("--save", metavar="FILE",
                      help="where to save the record (default: ./records/, or the --resume FILE)")
    play.add_argument("--delay", type=float, default=None,
                      help="seconds to pause after each computer play (default 0.4 when output is a "
                      "terminal, else 0)")
    play.add_argument("--hands", type=int, default=None,
                      help="stop after this many hands (default: play to the end)")
    play.add_argument("--plain", action="store_true", help="no colours")
    play.add_argument("--warn", choices=("off", "big", "always"), default="off",
                      help="the coach warns before a decision the expert judges costly: off (the "
                      "default), big (mistakes of 3 points or more) or always; type 'hint' at any "
                      "prompt for its advice")


def replay_arguments(replay: argparse.ArgumentParser) -> None:
    replay.description = _sentence(COMMANDS["replay"].help) + (
        ": prints the score sheet, or the first fault (hand, action and seat counted from 1; "
        "in the --json error object from 0, as in records).")
    replay.add_argument("file", help="a barbu-record/1 game record or a barbu-sheet/1 score sheet "
                        "(told apart by its format field)")
    replay.add_argument("--json", action="store_true", help="print the result as JSON")


def score_arguments(p: argparse.ArgumentParser) -> None:
    from barbu.score import DESCRIPTION, USAGE, add_arguments

    p.usage, p.description = USAGE, DESCRIPTION
    add_arguments(p)


def bench_arguments(p: argparse.ArgumentParser) -> None:
    from barbu.tools.bench import add_arguments

    add_arguments(p)


def analyze_arguments(p: argparse.ArgumentParser) -> None:
    from barbu.tools.analyze import add_arguments

    add_arguments(p)


def _named(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: the first word that is not an option (barbu's own
    options, --help and --version, take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


# The exit status of a command ended by SIGPIPE, as the shell reports it (128 + 13).
BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    name = _named(words)
    try:
        args = build_parser(name if name in COMMANDS else None).parse_args(words)
        from_caller()
        status = run_command(args)
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
    except MissingExtra as e:
        print(e, file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``barbu replay FILE | head -3``): nothing is wrong, and nothing
        # more can be said to it. Python would flush stdout again at exit and complain.
        _silence_stdout()
        return BROKEN_PIPE
    return status


def run_command(args: argparse.Namespace) -> int:
    return int(_load(args.command, COMMANDS[args.command].runner)(args))


def _silence_stdout() -> None:
    """Point standard output at the null device (the usual recipe after a broken pipe)."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (a test's capture): there is nothing to flush at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def from_caller() -> None:
    """Work in the folder run.sh was called from, so that file arguments mean what they say.

    run.sh changes to its own folder to find the venv and passes the caller's in the
    environment.
    """
    import os

    from barbu.wording import CALLER_CWD_ENV

    caller = os.environ.get(CALLER_CWD_ENV)
    if caller:
        os.chdir(caller)


def cmd_replay(args: argparse.Namespace) -> int:
    from barbu.engine.errors import RecordError
    from barbu.engine.record import load, replay
    from barbu.engine.scoresheet import FORMAT as SHEET
    from barbu.engine.scoresheet import replay_sheet
    from barbu.engine.sheet import format_sheet
    from barbu.wording import record_names, report_refusal

    doc: dict[str, object] = {}
    try:
        doc = load(args.file)
        result = replay_sheet(doc) if doc.get("format") == SHEET else replay(doc)
    except RecordError as e:
        return report_refusal("replay", args.file, e, doc, args.json)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        names = record_names(doc)
        print(format_sheet(result.state.game, result.hands, names, result.state.winners()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
