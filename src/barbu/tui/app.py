"""The game loop of ``barbu play``: seats, the player's prompts, computer moves and saving."""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from barbu.bots import Bot, level_label, make_bot
from barbu.coach import Level
from barbu.engine.cards import card_pretty, mask_of, rank_pretty, sorted_cards
from barbu.engine.errors import IllegalActionError, RecordError
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game, seats_of
from barbu.engine.observation import Observation
from barbu.engine.record import dump, load, replay, to_record
from barbu.engine.state import Phase, State
from barbu.tui import render as r
from barbu.tui.coaching import Coach
from barbu.tui.narration import Narrator, _is_you, _possessive
from barbu.tui.parsing import (
    InputError,
    command_of,
    parse_contract,
    parse_play,
    parse_seats,
    parse_start_rank,
    parse_trump,
)
from barbu.tui.screen import Screen
from barbu.tui.terminal import Terminal
from barbu.wording import command, plural, record_names, refusal, say

BOT_NAMES = ("Ann", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus")
DEFAULT_DELAY = 0.4
HUMAN = 0
CARD_EXAMPLES = ("QS", "qs", "Q♠", "10h", "th", "T H", "ten h", "♥K", "queen of spades")
RANK_EXAMPLES = ("9", "q", "ten")  # a rank alone, when it names one playable card
CONTRACT_EXAMPLES = {"classic": ("2", "no-q", "queens"), "family": ("2", "last", "salad")}
TRUMP_EXAMPLES = ("S", "H", "D", "C", "♠", "♥", "♦", "♣")
START_RANK_EXAMPLES = ("A", "K", "Q", "J", "10", "2")


def double_examples(names: Sequence[str]) -> tuple[str, ...]:
    """What the help offers as doubles: seat numbers, then two names of this table."""
    return ("double 2 4", f"{names[2].lower()} {names[3].lower()}", "all", "none")


def help_text(game: Game, names: Sequence[str]) -> str:
    """The help of this game: only what applies to its rules, every example one that parses."""
    lines = ["Commands: help · sheet (score sheet so far) · last (last trick) · show (redraw the "
             "table)", "  · hint (what the expert would choose, and why) · quit (save and leave)",
             f"Cards: {', '.join(CARD_EXAMPLES)}; a rank alone ({', '.join(RANK_EXAMPLES)}) when "
             "it names", "  one playable card; "
             + ("pass (Dominoes, when no card fits)." if game.is_classic else
                "pass (Réussite, when no card fits or to stop after an ace)."),
             "Contracts: the number from the list, the id, the name or its start "
             f"({', '.join(CONTRACT_EXAMPLES[game.ruleset])})."]
    if game.is_classic:
        ranks = START_RANK_EXAMPLES
        lines += [f"Trumps: {', '.join(TRUMP_EXAMPLES[:4])} or {' '.join(TRUMP_EXAMPLES[4:])}. "
                  f"Starting rank: {' '.join(ranks[:-1])} … {ranks[-1]}.",
                  "Doubles and redoubles: seat numbers (from 1, as on the table) or names "
                  f"({', '.join(double_examples(names)[:2])}),",
                  "  all, or none (unless a double is compulsory)."]
    lines.append("Press Enter alone to take the answer shown as (Enter = …).")
    return "\n".join(lines)


class QuitGame(Exception):
    """The player asked to save and leave."""


class Prompter:
    """Asks the player for each decision and reads the answer, until it is one the rules allow."""

    def __init__(self, term: Terminal, state: State, names: list[str], screen: Screen,
                 coach: Coach | None = None) -> None:
        self.term = term
        self.state = state
        self.game = state.game
        self.names = names
        self.screen = screen
        self.coach = coach or Coach(term, state.game, names)

    def turn(self, obs: Observation) -> int:
        """The player's decision at ``obs``, once the engine has taken it (commands answered meanwhile)."""
        self.screen.show(obs)
        if obs.phase == Phase.PLAY and obs.legal == (PASS,):
            # Nothing to decide: the pass is made at once, as at the browser's table, and said.
            self.state.apply(PASS)
            self.term.note("No card of yours fits: you pass.")
            return PASS
        self.explain(obs)
        prompt, default = self.prompt(obs)
        while True:
            text = self.term.ask(prompt).strip()
            if not text and default is None:
                self.term.note("Type your answer, or 'help'.")
                continue
            cmd = command_of(text) if text else None
            if cmd is not None:
                self.command(cmd, obs)
                continue
            try:
                action = default if not text and default is not None else self.parse(obs, text)
                if self.state.is_legal(action) and not self.coach.confirm(obs, action):
                    continue
                self.state.apply(action)
            except InputError as e:
                # Built from what the player typed: its seats already count from 1.
                self.term.out(r.span(f"✗ {e}", "bold red"))
                continue
            except IllegalActionError as e:
                # The engine names seats as data; the player reads names.
                self.term.out(r.span(f"✗ {say(e.said, self.names, by_name=True)}", "bold red"))
                continue
            return action

    def parse(self, obs: Observation, text: str) -> int:
        """The action a line means in this phase; a line that fits another phase is returned
        as that phase's action so the engine can say it is not the time for it."""
        try:
            return self.parse_for_phase(obs, text)
        except InputError:
            try:
                action = self.game.parse_action(text)
            except ValueError:
                action = None
            # At a doubling prompt the seats typed count from 1 and were refused as such: the
            # engine's reading of "double 0" (seats from 0) would answer another question.
            doubling = obs.phase in (Phase.DOUBLE, Phase.REDOUBLE)
            if action is None or (doubling and action >= DOUBLE):
                raise
            return action

    def parse_for_phase(self, obs: Observation, text: str) -> int:
        phase = obs.phase
        if phase == Phase.PLAY:
            return parse_play(text, obs.hand, obs.legal)
        if phase == Phase.CHOOSE:
            return CONTRACT + parse_contract(text, self.game, [a - CONTRACT for a in obs.legal])
        if phase == Phase.TRUMP:
            return TRUMP + parse_trump(text)
        if phase == Phase.START_RANK:
            return RANK + parse_start_rank(text)
        base, choices = _doubling(obs)
        return base + parse_seats(text, self.names, choices)

    def command(self, cmd: str, obs: Observation) -> None:
        if cmd == "quit":
            raise QuitGame
        if cmd == "help":
            self.term.out(r.span(help_text(self.game, self.names), "dim"))
            if obs.contract is not None:
                self.term.out(r.span(f"{obs.contract.name}: {obs.contract.description}.", "dim"))
        elif cmd == "sheet":
            self.screen.show_sheet(obs)
        elif cmd == "last":
            self.screen.show_last(obs)
        elif cmd == "hint":
            self.coach.hint(obs)
        else:
            self.screen.show(obs)
            self.explain(obs)

    # -- what the player is asked ---------------------------------------------

    def explain(self, obs: Observation) -> None:
        """The context of a decision: the contract list, the doubling rules that bind you."""
        if obs.phase == Phase.CHOOSE:
            self.term.out(r.span("Your contracts:", "bold"))
            self.term.out(r.indent(r.contract_menu(obs)))
        elif obs.phase == Phase.DOUBLE:
            self.explain_double(obs)
        elif obs.phase == Phase.REDOUBLE:
            # Those who may be redoubled: a pair towards you may also be a redouble of yours.
            doublers = [self.names[t] for t in seats_of(_doubling(obs)[1])]
            self.term.out(r.span(f"{' and '.join(doublers)} doubled you. A redouble makes that pair "
                               "settle twice the difference.", "dim"))

    def explain_double(self, obs: Observation) -> None:
        declarer = self.names[obs.declarer]
        text = "Doubling is a side bet with each player you double: the better score of the pair " \
               "wins the difference."
        if obs.contract is not None and obs.contract.positive:
            text += f" In {obs.contract.name} you may double only the declarer, {declarer}."
        self.term.out(r.span(text, "dim"))
        owed = obs.owed[obs.seat]
        left = self.game.hands_per_declarer - obs.hand_no % self.game.hands_per_declarer
        if obs.seat in obs.compulsory:
            self.term.out(Text(
                f"Doubling {declarer} is compulsory this hand: you still owe {plural(owed, 'double')} "
                f"and only {left} of {_possessive(declarer)} hand{'s' if left > 1 else ''} "
                f"remain{'s' if left == 1 else ''}, this one included.",
                style="bold yellow"))
        elif owed:
            self.term.out(r.span(f"You must double {declarer} {plural(owed, 'more time')} "
                               f"in {_possessive(declarer)} {plural(left, 'remaining hand')}.", "dim"))

    def prompt(self, obs: Observation) -> tuple[Text, int | None]:
        """The prompt line (choices in brackets) and the action Enter alone takes, if any."""
        phase = obs.phase
        default: int | None = None
        if phase == Phase.PLAY:
            question, choices = self.play_prompt(obs)
            if len(obs.legal) == 1:
                default = obs.legal[0]
        elif phase == Phase.CHOOSE:
            numbers = " ".join(str(a - CONTRACT + 1) for a in obs.legal)
            question, choices = "Choose a contract", r.span(f"{numbers}, or a name", "cyan")
        elif phase == Phase.TRUMP:
            question, choices = "Trump suit", r.span("S H D C", "cyan")
        elif phase == Phase.START_RANK:
            ranks = " ".join(rank_pretty(k) for k in range(12, -1, -1))
            question, choices = "Starting rank", r.span(ranks, "cyan")
        else:
            question, choices = self.double_prompt(obs)
            default = min(obs.legal)  # no one, or the compulsory double of the declarer
        prompt = r.span(question, "bold")
        prompt.append(" [")
        prompt.append_text(choices)
        prompt.append("]")
        if default is not None:
            prompt.append(f" (Enter = {self.describe(default)})", style="dim")
        prompt.append(" > ")
        return prompt, default

    def double_prompt(self, obs: Observation) -> tuple[str, Text]:
        base, targets = _doubling(obs)
        options = [f"{t + 1} {self.names[t]}" for t in seats_of(targets)]
        if len(options) > 1:
            options.append("all")
        verb = "Double" if base == DOUBLE else "Redouble"
        if base in obs.legal:  # doubling no one is allowed unless a double is compulsory
            options.append("none")
        return verb, r.span(", ".join(options), "cyan")

    def play_prompt(self, obs: Observation) -> tuple[str, Text]:
        cards = r.cards_text(sorted_cards(mask_of(a for a in obs.legal if a < 52)))
        if PASS in obs.legal:
            return "You placed an ace: place one more card or stop", cards + r.span(" pass", "cyan")
        return "Your card", cards

    def describe(self, action: int) -> str:
        if action == PASS:
            return "pass"
        if action < 52:
            return card_pretty(action)
        mask = action % 64
        verb = "double" if action < REDOUBLE else "redouble"
        if not mask:
            return "none"
        return f"{verb} " + " ".join(self.names[t] for t in seats_of(mask))


class Session:
    """One sitting at the table: the state, who sits where, and where the record goes."""

    def __init__(self, term: Terminal, state: State, names: list[str], human: int | None,
                 bots: dict[int, Bot], delay: float, save_path: Path, stop_at: int,
                 warn: Level = Level.OFF) -> None:
        self.term = term
        self.state = state
        self.game: Game = state.game
        self.names = names
        self.human = human
        self.bots = bots
        self.delay = delay
        self.save_path = save_path
        self.stop_at = stop_at
        self.viewer = human if human is not None else 0
        self.narrator = Narrator(term, self.game, names, human)
        self.screen = Screen(term, state, names, human)
        self.prompter = Prompter(term, state, names, self.screen, Coach(term, self.game, names, warn))

    # -- the whole sitting ---------------------------------------------------

    def play(self, intro: list[Text]) -> int:
        for line in intro:
            self.term.out(line)
        start = self.state.observe(self.viewer)
        if start.results and start.phase in (Phase.GAME_OVER, Phase.DEAL):
            self.term.out(Text())
            self.screen.show_sheet(start)  # where a resumed game stands
        try:
            self.loop()
        except QuitGame:
            return self.leave("You left the game.", 0)
        except EOFError:
            return self.leave("End of input.", 0)
        except KeyboardInterrupt:
            return self.leave("Interrupted.", 130)
        except BaseException:
            self.save()
            raise
        self.save()  # hand_over has saved, but a resumed game that was already over is written here
        self.finish()
        return 0

    def loop(self) -> None:
        s = self.state
        while not s.is_over and s.hand_no < self.stop_at:
            if s.phase == Phase.DEAL:
                self.deal()
                continue
            seat = s.current
            before = s.observe(self.viewer)
            action = self.prompter.turn(before) if seat == self.human else self.bot_turn(seat)
            self.narrator.narrate(before, seat, action)
            if seat != self.human:
                self.pause()
            if s.hand_no != before.hand_no:
                self.hand_over(before, seat, action)

    def deal(self) -> None:
        s = self.state
        redeals = 0
        while not s.deal_random():
            redeals += 1
        g = self.game
        title = Text(f"Hand {s.hand_no + 1} of {g.num_hands} · ") + self.narrator.subject(
            s.declarer, "declares" if g.is_classic else "chooses")
        self.term.out(Text())
        self.term.out(Rule(title, style="cyan"))
        if redeals:
            whose = _possessive(self.names[s.declarer])
            self.term.note(f"K♥ was set aside and King of Hearts is {whose} last challenge: "
                           "the cards were redealt.")
        if self.human is None:
            for seat in range(g.players):
                self.term.out(Text(f"  {self.names[seat]:<8}") + r.hand_compact(s.observe(seat).hand))
            set_aside = s.observe(self.viewer).set_aside
            if set_aside:
                self.term.out(Text("  ") + r.cards_text(sorted_cards(set_aside)).copy()
                              + r.span("  set aside, face up", "dim"))

    def save(self) -> None:
        dump(to_record(self.state, self.names), self.save_path)

    def leave(self, why: str, status: int) -> int:
        self.save()
        s = self.state
        self.term.out(Text())
        self.term.out(r.span(f"{why} The game is saved in {self.save_path}.", "bold"))
        if s.hand_in_progress:
            self.term.out(r.span(resume_note(s), "dim"))
        self.term.out(Text(f"Continue it with: {command('play', '--resume', self.save_path)}"))
        return status

    def finish(self) -> None:
        s = self.state
        self.term.out(Text())
        if s.is_over:
            winners = s.winners()
            best = "highest" if self.game.is_classic else "lowest"
            verb = "wins" if len(winners) == 1 else "win"
            who = " and ".join(self.names[w] for w in winners)
            if len(winners) == 1 and _is_you(self.names[winners[0]]):
                verb = "win"
            total = s.observe(self.viewer).totals[winners[0]]
            text = Text(f"{who} {verb} with {r.signed(total)} ({best} total wins).",
                        style="bold green")
            self.term.out(Panel(text, title="Game over", expand=False))
        else:
            self.term.out(Text(f"Stopped after {s.hand_no} of {self.game.num_hands} hands, as asked. "
                               f"Continue with: {command('play', '--resume', self.save_path)}"))
        self.term.out(Text(f"Game record: {self.save_path}  "
                           f"(check it with: {command('replay', self.save_path)})"))

    # -- turns ---------------------------------------------------------------

    def bot_turn(self, seat: int) -> int:
        s = self.state
        obs = s.observe(seat)
        action = self.bots[seat].act(obs)
        try:
            s.apply(action)
        except IllegalActionError as e:
            # Said of the bot, with names: the message itself speaks to the one who tried it.
            about = say(e.said_about, self.names, by_name=True)
            self.term.note(f"(the computer player {self.names[seat]} tried an illegal move: it "
                           f"{about}; it plays its first legal one instead)")
            action = obs.legal[0]
            s.apply(action)
        return action

    def pause(self, times: float = 1) -> None:
        if self.delay > 0:
            time.sleep(self.delay * times)

    def hand_over(self, before: Observation, seat: int, action: int) -> None:
        """The hand just ended with ``action``: say what it came to, and save the game."""
        self.narrator.end_of_hand()
        self.screen.hand_result(before, seat, action)
        self.prompter.coach.settled(self.state.observe(self.viewer))
        self.save()
        self.term.out(r.span(f"(saved in {self.save_path})", "dim"))
        if self.human is None:
            self.pause(5)  # time to read the sheet of a demonstration


def _doubling(obs: Observation) -> tuple[int, int]:
    """The action base of this double or redouble, and the seats it may name (a mask)."""
    base = DOUBLE if obs.phase == Phase.DOUBLE else REDOUBLE
    choices = 0
    for a in obs.legal:
        choices |= a - base
    return base, choices


# -- setting up -----------------------------------------------------------------

def _bot_names(count: int, taken: str) -> list[str]:
    pool = [nm for nm in (*BOT_NAMES[1:], BOT_NAMES[0]) if nm.lower() != taken.lower()]
    return pool[:count]


def _default_path(game: Game, seed: int) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("records") / f"barbu-{game.ruleset}-{stamp}-{seed}.json"


def new_game(args: argparse.Namespace) -> tuple[State, list[str]]:
    rules = args.rules or "classic"
    players = 4 if args.players is None else args.players
    game = Game(rules, players, frozenset(args.option or ()))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    state = State(game, seed=seed)
    names = list(BOT_NAMES[:players]) if args.watch else [args.name, *_bot_names(players - 1, args.name)]
    return state, names


def resumed_game(path: str, args: argparse.Namespace | None = None) -> tuple[State, list[str]]:
    return resumed_from(load(path), args)


def resumed_from(doc: dict[str, Any], args: argparse.Namespace | None = None) -> tuple[State, list[str]]:
    """The game a loaded record stands at, checked against the options given with it."""
    result = replay(doc)
    game, names = result.state.game, list(doc["players"])  # replay has checked them
    if args is not None:
        _check_agrees(args, game, doc.get("seed"))
    if not doc.get("hands"):
        # Nothing was played: start afresh from the seed so the first declarer is the same.
        seed = doc.get("seed")
        return State(game, seed=seed if isinstance(seed, int) else None), names
    return result.state, names


def _check_agrees(args: argparse.Namespace, game: Game, seed: object) -> None:
    """Refuse options given with --resume that the record contradicts (it decides the game)."""
    given = {"--rules": (args.rules, game.ruleset), "--players": (args.players, game.players),
             "--option": (None if args.option is None else ", ".join(sorted(set(args.option))) or "none",
                          ", ".join(sorted(game.options)) or "none"),
             "--seed": (args.seed, seed)}
    for flag, (asked, recorded) in given.items():
        if asked is not None and asked != recorded:
            what = f"its seed is {recorded}" if flag == "--seed" else f"it is {describe_game(game)}"
            raise ResumeConflict(f"{flag} {asked} contradicts the record: {what}; "
                                 f"leave {flag} out to resume it")


def resume_note(state: State) -> str:
    """What ``--resume`` will do with the hand in progress (the record holds it only in play)."""
    if state.phase == Phase.PLAY:
        return "The hand in progress is saved as far as it went: --resume carries it on from there."
    chosen = "contract and doubles are" if state.game.is_classic else "challenge is"
    return ("The hand in progress is not saved before its play begins: --resume deals it again "
            f"with the same cards, and its {chosen} chosen again.")


def describe_game(game: Game) -> str:
    """``a family game with 3 players``, ``a classic game with 4 players and the option overtrump``."""
    text = f"a {game.ruleset} game with {game.players} players"
    if not game.is_classic:
        return text
    options = sorted(game.options)
    if not options:
        return text + " and no option flag"
    return text + f" and the option{'s' if len(options) > 1 else ''} {', '.join(options)}"


class ResumeConflict(ValueError):
    """An option of ``play --resume`` that the record being resumed contradicts."""


def intro_lines(state: State, names: list[str], human: int | None, bot: str, path: Path,
                resumed: str | None) -> list[Text]:
    g = state.game
    opts = f", options: {', '.join(sorted(g.options))}" if g.options else ""
    head = r.span(f"Barbu — {g.ruleset} rules, {g.players} players{opts}", "bold")
    if human is None:
        who = Text(f"A demonstration: {', '.join(names)}, computer players of level {bot}.")
    else:
        you = "You sit" if _is_you(names[human]) else f"You are {names[human]}, sitting"
        who = Text(f"{you} at seat {human + 1}; the computer players, of level {bot}, are "
                   f"{', '.join(names[s] for s in range(g.players) if s != human)}.")
    win = "highest" if g.is_classic else "lowest"
    lines = [head, who, r.span(f"{g.num_hands} hands; the {win} total wins. Seed {state.seed}.", "dim")]
    if resumed is not None:
        lines.append(r.span(f"Resuming {resumed}: {plural(state.hand_no, 'hand')} played.", "bold"))
    lines.append(Text(f"The game is saved after every hand in {path}"))
    if human is not None:
        lines.append(r.span("Type 'help' at any prompt for the commands and what you can type.", "dim"))
    return lines


def main(args: argparse.Namespace) -> int:
    term = Terminal.standard(plain=bool(args.plain))
    doc: dict[str, Any] = {}
    try:
        if args.resume:
            doc = load(args.resume)
            state, names = resumed_from(doc, args)
        else:
            state, names = new_game(args)
        human = None if args.watch else HUMAN
        bots = {s: make_bot(args.bot, state.seed * 16 + s) for s in range(state.game.players)
                if s != human}
        if args.hands is not None and args.hands < 1:
            raise ValueError("--hands must be at least 1")
    except RecordError as e:
        print(refusal("play --resume", args.resume, e, record_names(doc)), file=sys.stderr)
        return 1
    except ResumeConflict as e:
        print(f"barbu play --resume {args.resume}: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"barbu play: {e}", file=sys.stderr)
        return 2
    path = Path(args.save) if args.save else Path(args.resume) if args.resume else \
        _default_path(state.game, state.seed)
    delay = args.delay if args.delay is not None else DEFAULT_DELAY if sys.stdout.isatty() else 0.0
    stop_at = state.hand_no + args.hands if args.hands else state.game.num_hands
    warn = Level(getattr(args, "warn", None) or "off")
    session = Session(term, state, names, human, bots, delay, path, stop_at, warn)
    intro = intro_lines(state, names, human, level_label(args.bot), path, args.resume)
    try:
        return session.play(intro)
    except BrokenPipeError:
        # The reader went away (| head): the record is saved; leave without a second error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
