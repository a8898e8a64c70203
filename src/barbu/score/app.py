"""The loop of ``barbu score``: a new or resumed sheet, one hand after another, and the commands."""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from barbu.engine.errors import RecordError, SheetError
from barbu.engine.game import Game
from barbu.engine.record import ReplayResult, dump, load
from barbu.engine.scoresheet import FORMAT, add_hand, new_sheet, replace_hand, replay_sheet, undo_last
from barbu.engine.sheet import format_sheet
from barbu.score.entry import HandEntry
from barbu.tui.parsing import InputError, parse_seat_order
from barbu.wording import command, plural, record_names, refusal, say

HELP = ("At any prompt: sheet (the sheet so far) · undo (take back the last hand) · edit N (enter hand N "
        "again) · back (the count before) · help · quit (the sheet is already saved).\n"
        "Players by name (or the start of it) or seat number from 1; counts in seat order, e.g. 4 3 3 3.")
_EDIT = re.compile(r"^edit\s+(\d+)$")
_SHOWN = {"sheet": "sheet", "scores": "sheet", "help": "help", "?": "help"}
_LEAVING = {"quit": "quit", "exit": "quit", "undo": "undo"}


class Command(Exception):
    """A command typed at a prompt that leaves the hand being entered: quit, undo, edit N."""

    def __init__(self, word: str, hand: int = 0) -> None:
        super().__init__(word)
        self.word = word
        self.hand = hand  # edit: the hand's number, from 1


@dataclass
class Keeper:
    """The sheet kept in FILE, and the terminal it is kept from."""

    doc: dict[str, Any]
    path: Path
    stdin: TextIO
    out: TextIO

    @property
    def names(self) -> list[str]:
        return list(self.doc["players"])

    def say(self, text: str) -> None:
        print(self.fit(text), file=self.out, flush=True)

    def fit(self, text: str) -> str:
        """Text wrapped at word boundaries to a terminal's width (piped output keeps whole lines)."""
        if not self.out.isatty():
            return text
        width = shutil.get_terminal_size().columns - 1
        return "\n".join(textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False,
                                        replace_whitespace=False, drop_whitespace=True) if line else line
                         for line in text.split("\n"))

    def ask(self, prompt: str) -> str:
        """One line from the player; sheet and help are answered here, the others raise Command."""
        while True:
            self.out.write(self.fit(prompt) + (" " if prompt.endswith(" ") else ""))
            self.out.flush()
            line = self.stdin.readline()
            if not line:
                self.say("")
                raise Command("quit")
            if not self.stdin.isatty():
                self.out.write(line)  # a transcript reads as a session
            word = " ".join(line.lower().split())
            if word in _SHOWN:
                self.say(self.sheet() if _SHOWN[word] == "sheet" else HELP)
                continue
            if word in _LEAVING:
                raise Command(_LEAVING[word])
            edit = _EDIT.match(word)
            if edit:
                raise Command("edit", int(edit.group(1)))
            return line.rstrip("\n")

    # -- the sheet ---------------------------------------------------------------

    def result(self) -> ReplayResult:
        return replay_sheet(self.doc)

    def sheet(self) -> str:
        result = self.result()
        if not result.hands:
            return "No hand on the sheet yet."
        return format_sheet(result.state.game, result.hands, self.names, result.state.winners())

    def people(self, e: SheetError) -> str:
        """A refusal said with names: "Ann has already chosen …" for "the player has …"."""
        return say(e.said, self.names, by_name=True)

    def store(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        dump(doc, self.path)

    # -- the loop ----------------------------------------------------------------

    def run(self) -> int:
        while True:
            try:
                if self.result().state.is_over:
                    self.game_over()
                else:
                    self.next_hand()
            except Command as c:
                if c.word == "quit":
                    self.say(f"The sheet is in {self.path}; carry on with: {command('score', self.path)}")
                    return 0
                self.command(c)

    def next_hand(self) -> None:
        state = self.result().state
        self.say("\n" + self.header(state.game, state.hand_no, state.declarer))
        hand = HandEntry(state, self.names, self.ask, self.say).enter()
        self.keep(add_hand, hand)

    def header(self, game: Game, k: int, declarer: int) -> str:
        name = self.names[declarer]
        if not game.is_classic:
            return f"Round {k + 1} of {game.num_hands}: {name} chooses"
        per = game.hands_per_declarer
        return f"Hand {k + 1} of {game.num_hands}: {name} declares ({k % per + 1} of {per})"

    def keep(self, change: Any, *args: Any, done: str = "") -> None:
        """Apply a sheet change (add, replace, undo), store it and show the sheet; say a refusal."""
        try:
            doc = change(self.doc, *args)
        except SheetError as e:
            where = f"hand {e.hand + 1}: " if e.hand is not None else ""
            self.say(f"Not changed: {where}{self.people(e)}")
            return
        self.store(doc)
        self.say(f"{done}{self.sheet()}\nSaved to {self.path}.")

    def command(self, c: Command) -> None:
        if c.word == "undo":
            self.keep(undo_last, done=f"Hand {len(self.doc['hands'])} taken back.\n")
            return
        self.edit(c.hand - 1)

    def edit(self, k: int) -> None:
        hands = self.doc["hands"]
        if not 0 <= k < len(hands):
            self.say(f"There is no hand {k + 1} to edit: the sheet has {plural(len(hands), 'hand')}.")
            return
        state = replay_sheet({**self.doc, "hands": hands[:k]}).state
        header = self.header(state.game, k, state.declarer)
        self.say(f"\nEditing {header[0].lower()}{header[1:]}")
        hand = HandEntry(state, self.names, self.ask, self.say).enter()
        self.keep(replace_hand, k, hand)

    def game_over(self) -> None:
        self.say("\nThe game is over.\n" + self.sheet())
        while True:  # until a command: the sheet stays open to edits
            self.ask("The game is over: edit N, undo, sheet or quit? ")


# -- starting ----------------------------------------------------------------

def main(args: argparse.Namespace) -> int:
    words = list(args.words)
    if words[0] == "new" and len(words) == 2:
        keeper = start_new(Path(words[1]), args)
    elif len(words) == 1 and words[0] != "new":
        keeper = resume(Path(words[0]), args)
    else:
        return usage("give a FILE: barbu score new FILE --names … starts one, barbu score FILE carries it on")
    return keeper if isinstance(keeper, int) else keeper.run()


def usage(message: str) -> int:
    print(f"barbu score: {message}", file=sys.stderr)
    return 2


def start_new(path: Path, args: argparse.Namespace) -> Keeper | int:
    if path.exists():
        return usage(f"{path} already exists: carry it on with {command('score', path)}")
    try:
        names = _names(args.names)
        game = _game(args, len(names))
        first = _first(args.first, names)
    except (ValueError, InputError) as e:
        return usage(str(e))
    keeper = Keeper(new_sheet(game, names, first), path, sys.stdin, sys.stdout)
    keeper.store(keeper.doc)
    rules = "classic Barbu" if game.is_classic else f"family Barbu, {len(names)} players"
    options = f" ({', '.join(sorted(game.options))})" if game.options else ""
    keeper.say(f"New score sheet {path}: {rules}{options}, {', '.join(names)}; "
               f"{names[first]} {'declares' if game.is_classic else 'chooses'} first.\n{HELP}")
    return keeper


def _names(text: str | None) -> list[str]:
    names = [n.strip() for n in (text or "").split(",")]
    if not text or not all(names):
        raise ValueError("name the players in seat order: --names Ann,Ben,Cleo,Dan")
    if len({n.lower() for n in names}) < len(names):
        raise ValueError("the players need different names")
    return names


def _game(args: argparse.Namespace, count: int) -> Game:
    players = args.players if args.players is not None else count
    if players != count:
        raise ValueError(f"--players {players}, but {plural(count, 'name')} given")
    if args.rules == "family":
        if args.option:
            raise ValueError("the option flags belong to the classic rules")
        return Game.family(players)
    if players != 4:
        raise ValueError("classic Barbu is played by exactly 4 players")
    return Game.classic(tuple(args.option or ()))


def _first(text: str | None, names: list[str]) -> int:
    if text is None:
        return 0
    if text.strip().lower() == "random":
        return random.randrange(len(names))
    seats = parse_seat_order(text, names)
    if len(seats) != 1:
        raise ValueError("--first names one player (or random)")
    return seats[0]


def resume(path: Path, args: argparse.Namespace) -> Keeper | int:
    given = [f"--{k}" for k in ("rules", "players", "names", "option", "first") if getattr(args, k)]
    if given:
        return usage(f"{', '.join(given)} belong to barbu score new; {path} carries on as it is")
    doc: dict[str, Any] = {}
    try:
        doc = load(path)
        if doc.get("format") != FORMAT:
            raise RecordError(f"not a score sheet: its format is {doc.get('format')!r}, not '{FORMAT}'")
        replay_sheet(doc)
    except RecordError as e:
        print(refusal("score", str(path), e, record_names(doc)), file=sys.stderr)
        return 1
    keeper = Keeper(doc, path, sys.stdin, sys.stdout)
    keeper.say(f"Score sheet {path}, carried on.\n{HELP}\n{keeper.sheet()}")
    return keeper
