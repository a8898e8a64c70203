"""The coach at the terminal: ``hint`` at any prompt, and a warning before a costly decision.

The terminal game is one person against computers, so the coach is allowed there
(:func:`barbu.coach.coach_allowed` holds for its seats); its reasons are said in English from the
pages' catalogue.
"""

from __future__ import annotations

from collections.abc import Sequence

from barbu.coach import BIG, BUDGET, Advice, Hint, Level, Speaker, hint
from barbu.coach.doubles import pairs
from barbu.coach.explained import advice_from, warning_from
from barbu.coach.reasons import Reason
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.tui import render as r
from barbu.tui.terminal import Terminal

YES = frozenset({"y", "yes"})
NO = frozenset({"n", "no"})


class Coach:
    """The coach of the one person at a terminal table: hints on asking, warnings at ``level``."""

    def __init__(self, term: Terminal, game: Game, names: Sequence[str], level: Level = Level.OFF,
                 big: float = BIG, budget: float = BUDGET, floor: int | None = None) -> None:
        self.term = term
        self.speaker = Speaker(game, names)
        self.level = level
        self.big = big
        self.budget = budget
        self.floor = floor  # deals the search looks at, at least (None: the expert's own)
        # The hint of the decision in progress, so that a warning after a hint says the same.
        self._kept: tuple[tuple[int, int, int, int], Hint] | None = None

    def hint_at(self, obs: Observation) -> Hint:
        """The coach's hint at this decision, made once."""
        key = (obs.hand_no, obs.phase, len(obs.history), len(obs.doubles))
        if self._kept is None or self._kept[0] != key:
            self.term.out(r.span("The coach is thinking…", "dim"))
            self._kept = (key, hint(obs, self.budget, floor=self.floor))
        return self._kept[1]

    def hint(self, obs: Observation) -> None:
        """Print the expert's choice, its gain over the next best and why."""
        self.tell(advice_from(obs, self.hint_at(obs)), "coach.hint", "cyan")

    def settled(self, obs: Observation) -> None:
        """After a hand: the arithmetic of every doubled pair of it."""
        if obs.results:
            for pair in pairs(obs.results[-1], obs.game.players):
                self.term.out(r.span("  " + self.speaker.say(pair.reason()), "dim"))

    def tell(self, advice: Advice, key: str, style: str) -> None:
        say = self.speaker.say
        h = advice.hint
        if advice.against is None:
            self.term.out(r.span(say(Reason("coach.hint.only", {"choice": h.choice})), style))
            return
        slots = {"choice": h.choice, "alternative": advice.against, "gain": round(advice.gain, 1),
                 "cost": round(advice.gain, 1)}
        self.term.out(r.span(say(Reason(key, slots)), style))
        for reason in advice.reasons:
            self.term.out(r.span("  · " + say(reason), "dim"))

    def confirm(self, obs: Observation, intended: int) -> bool:
        """Whether to go on with ``intended``: warn first when the level calls for it at its cost,
        and ask; True when there is no warning or the player says yes."""
        if self.level is Level.OFF or len(obs.legal) < 2:
            return True
        advice = warning_from(obs, self.hint_at(obs), intended, self.level, self.big)
        if advice is None:
            return True
        self.tell(advice, "coach.warn", "bold yellow")
        question = self.speaker.say(Reason("coach.anyway")) + " (y/n) "
        while True:
            answer = self.term.ask(r.span(question, "bold")).strip().lower()
            if answer in YES:
                return True
            if answer in NO:
                return False
