"""The terminal of ``barbu play``: Rich output and line input, the same on a terminal and in a pipe."""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

from rich.console import Console
from rich.text import Text

from barbu.tui import render as r


class Terminal:
    """Rich output and line input that behave the same on a terminal and in a pipe."""

    def __init__(self, console: Console, stdin: TextIO, interactive: bool, echo: bool) -> None:
        self.console = console
        self.stdin = stdin
        self.interactive = interactive
        self.echo = echo
        self.line_open = False  # a narration line is being built up card by card

    @classmethod
    def standard(cls, plain: bool) -> Terminal:
        tty_out = sys.stdout.isatty()
        console = Console(force_terminal=None if tty_out else False, highlight=False, emoji=False,
                          color_system=None if plain else "auto", soft_wrap=False)
        tty_in = sys.stdin.isatty()
        if tty_in and tty_out:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (line editing and history for input())
        return cls(console, sys.stdin, interactive=tty_in and tty_out, echo=not tty_in)

    def out(self, *items: Text | str | object, end: str = "\n", sep: str = " ") -> None:
        """Print; on a terminal text wraps at word boundaries, in a pipe lines stay whole."""
        self.close_line()
        plain = all(isinstance(x, Text | str) for x in items) and not self.console.is_terminal
        self.console.print(*items, end=end, sep=sep, markup=False, soft_wrap=plain)

    def part(self, text: Text) -> None:
        """Add to the narration line in progress (shown at once, newline later)."""
        self.console.print(text, end="", markup=False)
        self.line_open = True
        self.console.file.flush()

    def close_line(self) -> None:
        if self.line_open:
            self.line_open = False
            self.console.print()

    def note(self, text: str) -> None:
        self.out(r.span(text, "yellow"))

    def ask(self, prompt: Text) -> str:
        """One line from the player; EOFError at the end of input."""
        self.close_line()
        if self.interactive:
            return self.console.input(prompt)
        self.console.print(prompt, end="", markup=False)
        self.console.file.flush()
        line = self.stdin.readline()
        if not line:
            self.console.print()
            raise EOFError
        line = line.rstrip("\r\n")
        if self.echo:
            self.console.print(line, markup=False)
        return line
