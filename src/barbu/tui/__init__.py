"""The terminal game (``barbu play``): you against computer players, or a demonstration game.

The game is saved as a record (RECORD.md) after every hand and whenever you leave,
so ``barbu play --resume FILE`` carries on where it stopped.
"""

from __future__ import annotations

import argparse
import sys

from barbu.extras import missing_extra


def run(args: argparse.Namespace) -> int:
    """Play the game the ``play`` subcommand's arguments describe; returns the exit status."""
    try:
        from barbu.tui.app import main
    except ModuleNotFoundError as e:  # Rich is an optional extra
        if (e.name or "").split(".")[0] != "rich":
            raise
        print(missing_extra("barbu play", e, "tui"), file=sys.stderr)
        return 2
    return main(args)
