"""``barbu learn``: the tutorial's lessons in the terminal, their positions, then a real hand with the coach.

Without a lesson it lists them with the learner's progress; with one it says what the contract
scores, asks the learner's decision at each prepared position, tells what happened and why, then
plays one hand of the contract against computers through the terminal game (``hint`` at any
prompt, warnings always on). A lesson is done once its hand is played; the progress is a file
under the XDG state folder.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from rich.rule import Rule
from rich.text import Text

from barbu.bots import make_bot
from barbu.coach import Level, Speaker
from barbu.coach.reasons import Reason
from barbu.coach.words import signed
from barbu.engine.cards import card_pretty
from barbu.engine.state import State
from barbu.learn.lessons import Lesson, Outcome, answer, lesson, lessons
from barbu.learn.progress import FileProgress, state_home
from barbu.tui import render as r
from barbu.tui.app import BOT_NAMES, Prompter, QuitGame, Session
from barbu.tui.coaching import Coach
from barbu.tui.parsing import InputError, command_of
from barbu.tui.screen import Screen
from barbu.tui.terminal import Terminal

LEARNER = 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Learn Barbu: a short lesson per contract of each rule set, and one on doubling. "
                     "Without LESSON, list them with your progress.")
    p.add_argument("lesson", nargs="?",
                   help="the lesson to take (an id from the list, e.g. classic-no-queens)")
    p.add_argument("--plain", action="store_true", help="no colours")
    p.add_argument("--delay", type=float, default=None,
                   help="seconds to pause after each computer play in the hand (default 0.4 on a terminal)")
    p.add_argument("--warn", choices=("off", "big", "always"), default="always",
                   help="the coach's warnings before a costly decision in the lesson's hand (default always)")
    p.add_argument("--progress", metavar="FILE", default=None,
                   help="where the lessons done are kept (default: barbu/learn.json in the XDG state folder)")


def title(x: Lesson, speaker: Speaker) -> str:
    """A lesson's title in words: its contract's name, or Doubling."""
    if x.contract is None:
        return speaker.t("learn.doubling.title")
    return speaker.t(f"contract.{x.ruleset}.{x.contract}.name")


def listing(term: Terminal, progress: FileProgress) -> int:
    done = set(progress.done())
    speaker = Speaker(lessons()[0].game, BOT_NAMES)
    for ruleset in ("classic", "family"):
        term.out(r.span(speaker.t(f"learn.rules.{ruleset}"), "bold"))
        for x in lessons():
            if x.ruleset == ruleset:
                mark = "✓" if x.id in done else "·"
                term.out(Text(f"  {mark} {x.id:<22} {title(x, speaker)}"))
    left = len(lessons()) - len(done)
    term.out(Text(f"{left} of {len(lessons())} lessons left. Take one with: barbu learn LESSON"))
    return 0


class Tutor:
    """Takes the learner through one lesson at the terminal."""

    def __init__(self, term: Terminal, x: Lesson, delay: float, progress: FileProgress,
                 warn: Level = Level.ALWAYS) -> None:
        self.term = term
        self.warn = warn
        self.lesson = x
        self.delay = delay
        self.progress = progress
        self.names = ["You", *BOT_NAMES[1:x.players]]
        self.speaker = Speaker(x.game, self.names)

    def run(self) -> int:
        x = self.lesson
        self.term.out(Rule(Text(title(x, self.speaker)), style="cyan"))
        scoring = x.scoring()
        if scoring is not None:
            self.term.out(r.span(f"{scoring.name}: {scoring.description}.", "bold"))
        self.term.out(Text(self.speaker.t(f"learn.lesson.{x.id}.intro")))
        try:
            for i in range(len(x.positions)):
                self.position(i)
        except (QuitGame, EOFError):
            self.term.out(r.span("You left the lesson.", "bold"))
            return 0
        return self.hand()

    def position(self, index: int) -> None:
        x = self.lesson
        p = x.positions[index]
        state = p.state(x.game)
        names = [*self.names[x.players - p.seat:], *self.names[:x.players - p.seat]]  # you at p.seat
        self.speaker = Speaker(x.game, names)
        screen = Screen(self.term, state, names, p.seat)
        prompter = Prompter(self.term, state, names, screen, Coach(self.term, x.game, names))
        self.term.out(Text())
        self.term.out(r.span(f"Position {index + 1} of {len(x.positions)}", "bold underline"))
        obs = state.observe(p.seat)
        screen.show(obs)
        prompter.explain(obs)
        question, _ = prompter.prompt(obs)
        while True:
            text = self.term.ask(question).strip()
            cmd = command_of(text) if text else None
            if cmd == "quit":
                raise QuitGame
            if cmd is not None:  # no hint here: the learner decides, then the coach explains
                self.term.note("Decide first: the expert's answer and why follow your choice. "
                               "(quit leaves the lesson)")
                continue
            try:
                choice = prompter.parse(obs, text)
                if choice not in obs.legal:
                    raise InputError("that is not a legal choice here")
                break
            except InputError as e:
                self.term.out(r.span(f"✗ {e}", "bold red"))
        self.tell(state, index, choice, names)

    def tell(self, state: State, index: int, choice: int, names: list[str]) -> None:
        advice, mine, best = answer(self.lesson, index, choice)
        say = self.speaker.say
        h = advice.hint
        if choice == h.choice:
            self.term.out(r.span(say(Reason("learn.right", {"choice": choice})), "bold green"))
        else:
            self.term.out(r.span(say(Reason("coach.warn", {"choice": h.choice, "alternative": choice,
                                                           "cost": round(advice.gain, 1)})), "bold yellow"))
        for reason in advice.reasons:
            self.term.out(r.span("  · " + say(reason), "dim"))
        self.led_to(mine, names, "learn.led.yours")
        if choice != h.choice:
            self.led_to(best, names, "learn.led.expert")

    def led_to(self, o: Outcome, names: list[str], key: str) -> None:
        trick = ", ".join(f"{names[s]} {card_pretty(c)}" for s, c in o.trick)
        slots: dict[str, str | int | float] = {"choice": o.choice, "score": signed(o.score)}
        if o.winner is not None:
            slots |= {"trick": trick, "who": o.winner}
            self.term.out(Text("  " + self.speaker.say(Reason(key + ".trick", slots))))
        else:
            self.term.out(Text("  " + self.speaker.say(Reason(key, slots))))

    def hand(self) -> int:
        x = self.lesson
        game = x.table_game()
        declarer = LEARNER if x.contract is not None else (LEARNER + 1) % x.players
        seed = random.SystemRandom().randrange(1, 10**9)  # a new hand each time the lesson is taken
        state = State(game, seed=seed, first_declarer=declarer)
        bots = {s: make_bot("basic", seed * 16 + s) for s in range(x.players) if s != LEARNER}
        path = state_home() / "barbu" / "lessons" / f"{x.id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.term.out(Text())
        self.term.out(r.span(self.speaker.t("learn.hand.now"), "bold"))
        session = Session(self.term, state, self.names, LEARNER, bots, self.delay, path, 1, self.warn)
        status = session.play([Text(f"One hand of {game.contracts[0].name}, unrated; the game record: "
                                    f"{path}. Type 'hint' at any prompt.")])
        if state.is_over:
            self.progress.mark(x.id)
            left = len(lessons()) - len(self.progress.done())
            self.term.out(r.span(f"Lesson done. {left} of {len(lessons())} lessons left.", "bold green"))
        return status


def run(args: argparse.Namespace) -> int:
    term = Terminal.standard(plain=bool(args.plain))
    progress = FileProgress(Path(args.progress) if args.progress else None)
    if not args.lesson:
        return listing(term, progress)
    try:
        x = lesson(args.lesson)
    except KeyError as e:
        print(f"barbu learn: {e.args[0]}", file=sys.stderr)
        return 2
    delay = args.delay if args.delay is not None else 0.4 if sys.stdout.isatty() else 0.0
    return Tutor(term, x, delay, progress, Level(args.warn)).run()
