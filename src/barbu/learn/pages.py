"""The lessons as the browser shows them: each position as the learner's seat sees it and, for every
legal choice, the answer in one language's words (the coach's reasons and what the choice led to).

Made once per lesson and language (a position's answers need the computers to play its hand on):
the lessons do not change while a server runs.
"""

from __future__ import annotations

import functools
from typing import Any

from barbu.coach import Speaker
from barbu.coach.reasons import Reason
from barbu.coach.words import signed
from barbu.engine.cards import card_str, sorted_cards
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.learn.lessons import Lesson, Outcome, Position, answer, lesson

OTHERS = ("Ann", "Ben", "Cleo", "Dan", "Eve")  # the computers' names at a lesson's positions


def names_for(seat: int, players: int, you: str) -> list[str]:
    """The table's names with the learner's word for "you" at ``seat``."""
    others = iter(OTHERS)
    return [you if s == seat else next(others) for s in range(players)]


def view_of(game: Game, obs: Observation) -> dict[str, Any]:
    """What the page draws of a position: the seat's hand, its legal choices, the trick so far, the
    doubles, who declares, the points so far (the seat's view only)."""
    return {"seat": obs.seat, "declarer": obs.declarer, "phase": obs.phase.name.lower(),
            "contract": obs.contract.id if obs.contract else None,
            "trump": None if obs.trump is None else "SHDC"[obs.trump],
            "hand": [card_str(c) for c in sorted_cards(obs.hand)],
            "legal": [game.action_str(a) for a in obs.legal],
            "trick": [[s, card_str(c)] for s, c in obs.trick],
            "lines": [list(x) for x in obs.lines] if obs.lines else [],
            "doubles": [list(d) for d in obs.doubles], "points": list(obs.points),
            "tricks_won": list(obs.tricks_won), "hand_sizes": list(obs.hand_sizes)}


def led_to(speaker: Speaker, o: Outcome, key: str) -> str:
    """What a choice led to, in words: the trick it went into and who took it, and the hand's score."""
    slots: dict[str, str | int | float] = {"choice": o.choice, "score": signed(o.score)}
    if o.winner is None:
        return speaker.say(Reason(key, slots))
    trick = ", ".join(f"{speaker.names[s]} {speaker.action(c)}" for s, c in o.trick)
    return speaker.say(Reason(key + ".trick", slots | {"trick": trick, "who": o.winner}))


def answered(x: Lesson, index: int, choice: int, speaker: Speaker) -> dict[str, Any]:
    """The answer to ``choice`` at position ``index``: right or not, the coach's words, what it led to."""
    advice, mine, best = answer(x, index, choice)
    h = advice.hint
    right = choice == h.choice
    head = Reason("learn.right", {"choice": choice}) if right else Reason(
        "coach.warn", {"choice": h.choice, "alternative": choice, "cost": round(advice.gain, 1)})
    lines = [speaker.say(head), *(speaker.say(r) for r in advice.reasons),
             led_to(speaker, mine, "learn.led.yours")]
    if not right:
        lines.append(led_to(speaker, best, "learn.led.expert"))
    return {"right": right, "expert": x.game.action_str(h.choice), "lines": lines}


def position_page(x: Lesson, index: int, lang: str) -> dict[str, Any]:
    p: Position = x.positions[index]
    game = x.game
    obs = p.state(game).observe(p.seat)
    speaker = Speaker(game, [], lang)
    speaker.names = names_for(p.seat, game.players, speaker.t("table.you"))
    labels = {game.action_str(a): speaker.action(a) for a in obs.legal}
    return {"names": speaker.names, "view": view_of(game, obs), "labels": labels,
            "answers": {game.action_str(a): answered(x, index, a, speaker) for a in obs.legal}}


@functools.lru_cache(maxsize=128)  # every lesson in every language fits
def lesson_page(lesson_id: str, lang: str) -> dict[str, Any]:
    """A lesson as the browser shows it in ``lang``; KeyError for an unknown lesson."""
    x = lesson(lesson_id)
    return {"id": x.id, "ruleset": x.ruleset, "contract": x.contract, "players": x.players,
            "positions": [position_page(x, i, lang) for i in range(len(x.positions))]}
