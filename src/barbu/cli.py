"""The ``barbu`` command: parses arguments and hands each subcommand to its front end."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP


def _add_game_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", choices=("classic", "family"), default="classic",
                   help="rule set (default classic)")
    p.add_argument("--players", type=int, default=4, help="number of players (family: 3 to 6)")
    p.add_argument("--option", action="append", default=[], choices=CLASSIC_OPTIONS,
                   metavar="FLAG", help="classic option flag, repeatable: "
                   + "; ".join(f"{k}: {v}" for k, v in OPTION_HELP.items()))
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (reproducible game)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="barbu", description="The card game Barbu.")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game in the terminal against computer players")
    _add_game_args(play)
    play.add_argument("--bot", default="basic", help="level of the computer players (default basic)")
    play.add_argument("--resume", metavar="FILE", help="continue the game saved in FILE")
    play.add_argument("--watch", action="store_true", help="watch computer players play a game")
    play.add_argument("--name", default="You", help="your name on the score sheet")
    play.add_argument("--save", metavar="FILE",
                      help="where to save the record (default: ./records/, or the --resume FILE)")
    play.add_argument("--delay", type=float, default=None,
                      help="seconds to pause after each computer play (default 0.4 when output is a "
                      "terminal, else 0)")
    play.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    play.add_argument("--plain", action="store_true", help="no colours")

    replay = sub.add_parser("replay", help="check a game record against the rules and score it")
    replay.add_argument("file", help="a barbu-record/1 JSON file")
    replay.add_argument("--json", action="store_true", help="print the result as JSON")

    from barbu.tools.bench import add_arguments as add_bench_arguments

    add_bench_arguments(sub.add_parser(
        "bench", help="measure the engine's random-playout speed (beside OpenSpiel's when installed)"))

    serve = sub.add_parser("serve", help="serve card tables in the browser (friends and computer players)")
    from barbu.web.server import add_arguments

    add_arguments(serve)

    from barbu.tools.arena import HELP as ARENA_HELP
    from barbu.tools.arena import add_arguments as add_arena_arguments

    add_arena_arguments(sub.add_parser("arena", help=ARENA_HELP))

    from barbu.tools.analyze import add_arguments as add_analyze_arguments

    add_analyze_arguments(sub.add_parser(
        "analyze", help="replay a game and compare one seat's cards with the strong bot's choices"))
    return parser


# Each front end is imported only when its command runs: the engine needs none of their packages.
RUNNERS = {
    "play": ("barbu.tui", "run"),
    "bench": ("barbu.tools.bench", "run"),
    "arena": ("barbu.tools.arena", "main"),
    "analyze": ("barbu.tools.analyze", "run"),
    "serve": ("barbu.web.server", "run"),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "replay":
        return cmd_replay(args)
    module, function = RUNNERS[args.command]
    return int(getattr(importlib.import_module(module), function)(args))


def cmd_replay(args: argparse.Namespace) -> int:
    from barbu.engine.errors import RecordError
    from barbu.engine.record import load, replay
    from barbu.engine.sheet import format_sheet

    try:
        doc = load(args.file)
        result = replay(doc)
    except RecordError as e:
        where = []
        if e.hand is not None:
            where.append(f"hand {e.hand}")
        if e.action is not None:
            where.append(f"action {e.action}")
        if e.seat is not None:
            where.append(f"seat {e.seat}")
        print(f"barbu replay: record refused ({', '.join(where) or 'record'}): {e.message}",
              file=sys.stderr)
        if args.json:
            print(json.dumps(e.to_json(), ensure_ascii=False))
        return 1
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        names = [str(p) for p in doc.get("players", [])]
        print(format_sheet(result.state.game, result.hands, names, result.state.winners()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
