"""Ratings of the people who play on the server: openskill's Plackett–Luce model, computer levels as anchors.

Plackett–Luce is the model openskill offers for games of several players ranked against each
other, which is what a finished Barbu game is: every seat has a place by its total (the engine's
:meth:`Game.places`). Every seat is its own team of one. People start at the model's default
(μ 25, σ 25/3) and move after every rated game; each computer level keeps a fixed skill
(:data:`ANCHORS`, measured by ``research/calibrate-ratings.py`` from games of the levels against
each other), so a person's first game against computers already says something, and a computer
never drifts with the people it meets. A level without an anchor plays at the default skill,
unchanged.

>>> me = Skill.new()
>>> after = rate_game("classic", ["person:ann", "computer:random", "computer:random", "computer:basic"],
...                   [1, 3, 4, 2], {"person:ann": me})
>>> sorted(after), after["person:ann"].mu > me.mu
(['person:ann'], True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PERSON = "person:"  # entrant keys: "person:<profile id>" or "computer:<level>"
COMPUTER = "computer:"


@dataclass(frozen=True)
class Skill:
    """A player's estimated skill: mean ``mu`` and uncertainty ``sigma``, in openskill's units."""

    mu: float
    sigma: float

    @classmethod
    def new(cls) -> Skill:
        """The skill of someone who has not played yet."""
        return cls(MODEL.mu, MODEL.sigma)

    @property
    def ordinal(self) -> float:
        """The rating shown and ranked by: μ − 3σ, a skill the player very likely has at least.

        >>> round(Skill.new().ordinal, 6)
        0.0
        """
        return self.mu - 3 * self.sigma


# Measured with `research/calibrate-ratings.py --rules classic --games 10 --jobs 1` (40 whole games,
# each level in each seat in turn; mean places 4.00, 2.73, 1.77, 1.50). The scale is openskill's:
# the four levels started at 25, where a new person starts. `random` came last in every game, so
# its μ says only "far below": no game bounded it from below.
CLASSIC_ANCHORS = {
    "random": Skill(-10.0, 5.8),
    "basic": Skill(24.8, 4.9),
    "pimc": Skill(39.7, 4.9),
    "strong": Skill(45.8, 5.1),
}
# Family: `--rules family --games 10 --jobs 1` (40 games of 4 players; mean places 3.98, 2.65,
# 1.80, 1.55); these anchors serve every table size.
FAMILY_ANCHORS = {
    "random": Skill(-6.3, 5.8),
    "basic": Skill(25.2, 4.8),
    "pimc": Skill(36.7, 4.9),
    "strong": Skill(44.5, 5.0),
}
# `expert` has not been calibrated in whole games yet (research/calibrate-ratings.py costs hours of
# expert play): it beats `strong` on duplicate deals (+5.0 classic, +8.1 family points a hand,
# docs/RESULTS.md), but a whole game's places are another measure, so until it is calibrated it
# stands at `strong`'s anchor. That understates it: losing to it costs a person a little more, and
# beating it earns a little less, than a calibrated anchor would.
for _anchors in (CLASSIC_ANCHORS, FAMILY_ANCHORS):
    _anchors["expert"] = _anchors["strong"]
ANCHORS: dict[str, dict[str, Skill]] = {"classic": CLASSIC_ANCHORS, "family": FAMILY_ANCHORS}


def anchor(ruleset: str, level: str) -> Skill:
    """The fixed skill of a computer level under a rule set (the default for an unmeasured level)."""
    return ANCHORS.get(ruleset, {}).get(level, Skill.new())


def skill_of(ruleset: str, entrant: str, people: Mapping[str, Skill]) -> Skill:
    if entrant.startswith(COMPUTER):
        return anchor(ruleset, entrant.removeprefix(COMPUTER))
    return people.get(entrant, Skill.new())


def rate_game(ruleset: str, entrants: Sequence[str], places: Sequence[int],
              people: Mapping[str, Skill]) -> dict[str, Skill]:
    """The new skills of the people of one finished game; computers keep their anchors.

    ``entrants[s]`` is who sat in seat ``s`` and ``places[s]`` its place (1 = best, equal totals
    equal places). ``people`` holds the skills the people had before (missing: new players). A
    person may hold only one seat of a game: a ValueError otherwise, since a player cannot be
    ranked against themselves.
    """
    if len(entrants) != len(places) or len(entrants) < 2:
        raise ValueError("a rated game needs a place for each of its two or more seats")
    persons = [e for e in entrants if not e.startswith(COMPUTER)]
    if len(set(persons)) != len(persons):
        raise ValueError("a person holds two seats of this game: it cannot be rated")
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in (skill_of(ruleset, e, people) for e in entrants)]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return {e: Skill(team[0].mu, team[0].sigma) for e, team in zip(entrants, rated, strict=True)
            if not e.startswith(COMPUTER)}
