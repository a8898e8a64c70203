"""Practice drills in the terminal (``barbu drill``): a seat's view, the choices one key each, the answer
and why, and the learner's record per contract, kept under the user's XDG state folder."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

from barbu.coach import Speaker
from barbu.coach.words import catalogue
from barbu.learn.drills import Answer, Drill, Record, answer, categories, pick
from barbu.learn.positions import game_for
from barbu.tui import render as r
from barbu.tui.terminal import Terminal

KEYS = "1234"
# The seats from the learner's (four players in both rule sets' drills), as the drills' page names them.
SEAT_NAMES = tuple(str(catalogue("en")[f"drills.seat.{k}"]) for k in range(4))
QUIT = frozenset({"q", "quit", "exit"})


def record_path() -> Path:
    """``$XDG_STATE_HOME/barbu/drills.json`` (``~/.local/state/barbu/drills.json`` by default)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "barbu" / "drills.json"


def load_record(path: Path) -> Record:
    try:
        return Record.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return Record()  # none yet, or unreadable: a learner starts a new one rather than stop


def save_record(path: Path, record: Record) -> None:
    """Written whole to a file beside it, then moved over it, so a cut never leaves half a record."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record.to_json()), encoding="utf-8")
    os.replace(tmp, path)


def names_for(drill: Drill) -> list[str]:
    """Seats named from the drill's seat: "You", then the others clockwise."""
    n = drill.players
    return [SEAT_NAMES[(s - drill.seat) % n] for s in range(n)]


def contract_name(speaker: Speaker, category: str) -> str:
    rules, cid = category.split(":")
    return speaker.t(f"contract.{rules}.{cid}.name") + ("" if rules == "classic" else " (family)")


class Drills:
    """One learner's drill session at a terminal."""

    def __init__(self, term: Terminal, record: Record, path: Path, rng: random.Random) -> None:
        self.term, self.record, self.path, self.rng = term, record, path, rng

    def show(self, drill: Drill, speaker: Speaker) -> tuple[int, ...]:
        obs = drill.observation()
        heading = speaker.t("drills.heading")
        title = "Drill: " + heading.format(contract=contract_name(speaker, drill.category),
                                           kind=speaker.t(f"drills.kind.{drill.kind}"))
        self.term.out(r.span(title, "bold magenta"))
        self.term.out(r.status(obs, names_for(drill), self.term.console.width))
        shown = drill.shown()
        for k, a in zip(KEYS, shown, strict=False):
            self.term.out(r.span(f"  {k}  ", "bold cyan") + r.span(speaker.action(a)))
        return shown

    def ask(self, shown: tuple[int, ...]) -> int | None:
        """The choice the learner types (its key), or None to stop."""
        keys = KEYS[:len(shown)]
        while True:
            prompt = r.span(f"Your choice ({', '.join(keys)}; q to stop): ", "bold")
            line = self.term.ask(prompt).strip().lower()
            if line in QUIT:
                return None
            if len(line) == 1 and line in keys:
                return shown[keys.index(line)]
            self.term.note(f"Type one of {', '.join(keys)}, or q.")

    def tell(self, a: Answer, speaker: Speaker) -> None:
        d = a.drill
        key = speaker.action(d.key)
        if a.right:
            self.term.out(r.span(f"Right: {key} is the expert's choice.", "bold green"))
            reasons = d.reasons[d.tempting()]
        else:
            self.term.out(r.span(f"Not the best: the expert chooses {key}; {speaker.action(a.choice)} costs "
                                 f"about {a.cost:g} points.", "bold yellow"))
            reasons = a.reasons
        for reason in reasons:
            self.term.out(r.span("  · " + speaker.say(reason), "dim"))

    def standing(self, speaker: Speaker) -> None:
        right = sum(t.right for t in self.record.tallies.values())
        asked = sum(t.asked for t in self.record.tallies.values())
        line = f"Your record: {right} right of {asked}"
        weak = self.record.weakest()
        if weak is not None:
            line += f"; your weakest contract: {contract_name(speaker, weak)}"
        self.term.out(r.span(line, "bold"))

    def one(self, rules: str | None, contract: str | None) -> bool:
        """One drill: shown, answered, told and recorded; False when the learner stops."""
        drill = pick(self.record, self.rng, rules=rules, contract=contract)
        speaker = Speaker(game_for(drill.rules, drill.players), names_for(drill))
        shown = self.show(drill, speaker)
        choice = self.ask(shown)
        if choice is None:
            return False
        a = answer(drill, choice)
        self.record.add(a)
        save_record(self.path, self.record)  # stored before it is acknowledged
        self.tell(a, speaker)
        self.standing(speaker)
        self.term.out("")
        return True


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", choices=("classic", "family"), help="drills of one rule set (default: both)")
    p.add_argument("--contract", metavar="ID", help="drills of one contract (no-queens, salad …)")
    p.add_argument("--count", type=int, default=0, metavar="N", help="stop after N drills (default: go on)")
    p.add_argument("--seed", type=int, help="seed of the drills' order (default: a fresh one)")
    p.add_argument("--plain", action="store_true", help="no colours")
    p.add_argument("--record", metavar="FILE",
                   help="the record's file (default: drills.json under $XDG_STATE_HOME/barbu)")


def contract_of(args: argparse.Namespace) -> tuple[str | None, str | None] | str:
    """The rules and contract asked for, or a refusal naming the contracts there are."""
    if args.contract is None:
        return args.rules, None
    found = [c for c in categories(args.rules) if c.split(":")[1] == args.contract]
    if not found:
        known = sorted({c.split(":")[1] for c in categories(args.rules)})
        return f"no drills of contract {args.contract!r}: one of {', '.join(known)}"
    rules = args.rules or found[0].split(":")[0]
    return rules, args.contract


def run(args: argparse.Namespace) -> int:
    """``barbu drill``: drills until the learner stops, the input ends or ``--count`` are done."""
    asked = contract_of(args)
    if isinstance(asked, str):
        print(f"barbu drill: {asked}", file=sys.stderr)
        return 2
    if args.count < 0:
        print("barbu drill: --count is a number of drills, 0 or more", file=sys.stderr)
        return 2
    path = Path(args.record) if args.record else record_path()
    session = Drills(Terminal.standard(args.plain), load_record(path), path, random.Random(args.seed))
    done = 0
    try:
        while (not args.count or done < args.count) and session.one(*asked):
            done += 1
    except (EOFError, KeyboardInterrupt):
        session.term.out("")
    session.term.out(r.span(f"Your record is kept in {path}", "dim"))
    return 0
