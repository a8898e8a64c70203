"""The score keeper (``barbu score``): the score sheet of a game played at a table with real cards.

The sheet (RECORD.md, ``barbu-sheet/1``) is stored after every hand; the engine's
:mod:`barbu.engine.scoresheet` checks and scores it, and this package only asks and shows.
"""

from __future__ import annotations

import argparse

USAGE = ("barbu score new FILE --names A,B,… [--rules classic|family] [--players N] "
         "[--option FLAG …] [--first NAME|random]\n       barbu score FILE")
HELP = "keep the score of a game played with a real deck"
DESCRIPTION = (
    "Keep the score sheet of a game played at a table with real cards: 'barbu score new FILE "
    "--names Ann,Ben,Cleo,Dan' starts one, 'barbu score FILE' carries it on. Each hand asks for "
    "the contract, the trump suit or starting rank, the doubles (compulsory ones ticked) and the "
    "counts (tricks, queens, hearts, who went out …), checks each as it is typed, and stores the "
    "sheet in FILE at once. At any prompt: sheet, undo (take back the last hand), edit N (enter "
    "hand N again), back (the count before), help, quit. Hands and seats count from 1.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP

    p.add_argument("words", nargs="+", metavar="FILE",
                   help="'new FILE' starts a sheet in FILE; FILE alone carries one on")
    p.add_argument("--rules", choices=("classic", "family"), default=None,
                   help="rule set, with new: %(choices)s (default classic)")
    p.add_argument("--players", type=int, default=None,
                   help="number of players, with new (default: as many as --names; classic: 4, "
                   "family: 3 to 6)")
    p.add_argument("--names", default=None, metavar="A,B,…",
                   help="the players in seat order, clockwise, with new (required): Ann,Ben,Cleo,Dan")
    p.add_argument("--option", action="append", default=None, choices=CLASSIC_OPTIONS,
                   metavar="FLAG", help="classic option flag, with new, repeatable (default none): "
                   + "; ".join(f"{k}: {v}" for k, v in OPTION_HELP.items()))
    p.add_argument("--first", default=None, metavar="NAME|random",
                   help="the first declarer (family: chooser), with new: a player's name, or random "
                   "(default: the first player named)")


def run(args: argparse.Namespace) -> int:
    """Keep the sheet the ``score`` subcommand's arguments name; returns the exit status."""
    from barbu.score.app import main

    return main(args)
