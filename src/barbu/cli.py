"""The ``barbu`` command: parses arguments and hands each subcommand to its front end."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP


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


def build_parser() -> argparse.ArgumentParser:
    from barbu.bots import level_label, level_named, levels

    parser = argparse.ArgumentParser(prog="barbu", description="The card game Barbu.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    what = "play a game in the terminal against computer players"
    play = sub.add_parser("play", help=what, description=_sentence(what) + " (or watch one); "
                          "the game is saved after every hand and --resume carries it on.")
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

    what = "check a game record or a score sheet against the rules and score it"
    replay = sub.add_parser("replay", help=what, description=_sentence(what) + ": prints the "
                            "score sheet, or the first fault (hand, action and seat counted from 1; "
                            "in the --json error object from 0, as in records).")
    replay.add_argument("file", help="a barbu-record/1 game record or a barbu-sheet/1 score sheet "
                        "(told apart by its format field)")
    replay.add_argument("--json", action="store_true", help="print the result as JSON")

    from barbu.score import DESCRIPTION as SCORE_DESCRIPTION
    from barbu.score import HELP as SCORE_HELP
    from barbu.score import USAGE as SCORE_USAGE
    from barbu.score import add_arguments as add_score_arguments

    add_score_arguments(sub.add_parser("score", help=SCORE_HELP, usage=SCORE_USAGE,
                                       description=SCORE_DESCRIPTION))

    from barbu.tools.bench import add_arguments as add_bench_arguments

    what = "measure the engine's random-playout speed (beside OpenSpiel's when installed)"
    add_bench_arguments(sub.add_parser("bench", help=what, description=_sentence(what) + "."))

    serve = sub.add_parser("serve", help="serve card tables in the browser (friends and computer players)")
    from barbu.web.server import add_arguments

    add_arguments(serve)

    from barbu.web.dbtool import HELP as DB_HELP
    from barbu.web.dbtool import add_arguments as add_db_arguments

    add_db_arguments(sub.add_parser("db", help=DB_HELP))

    from barbu.tools.arena import HELP as ARENA_HELP
    from barbu.tools.arena import add_arguments as add_arena_arguments

    add_arena_arguments(sub.add_parser("arena", help=ARENA_HELP))

    from barbu.tools.analyze import add_arguments as add_analyze_arguments

    what = "replay a game and compare one seat's cards with the expert bot's choices"
    add_analyze_arguments(sub.add_parser("analyze", help=what, description=_sentence(what) + "."))
    return parser


# Each front end is imported only when its command runs: the engine needs none of their packages.
RUNNERS = {
    "play": ("barbu.tui", "run"),
    "score": ("barbu.score", "run"),
    "bench": ("barbu.tools.bench", "run"),
    "arena": ("barbu.tools.arena", "main"),
    "analyze": ("barbu.tools.analyze", "run"),
    "serve": ("barbu.web.server", "run"),
    "db": ("barbu.web.dbtool", "run"),
}


# The exit status of a command ended by SIGPIPE, as the shell reports it (128 + 13).
BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from_caller()
    try:
        status = run_command(args)
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
    except BrokenPipeError:
        # The reader went away (``barbu replay FILE | head -3``): nothing is wrong, and nothing
        # more can be said to it. Python would flush stdout again at exit and complain.
        _silence_stdout()
        return BROKEN_PIPE
    return status


def run_command(args: argparse.Namespace) -> int:
    if args.command == "replay":
        return cmd_replay(args)
    module, function = RUNNERS[args.command]
    return int(getattr(importlib.import_module(module), function)(args))


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
