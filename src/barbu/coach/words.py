"""The coach's reasons in words, from the pages' own catalogues (``web/static/i18n``), read as files.

The terminal says them in English; the same function says them in any language with a catalogue.
Seats become names, contract ids and suit letters the catalogue's words, actions what they do, and
points take their sign.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from barbu.coach.reasons import Reason, Slot
from barbu.engine.cards import card_pretty, rank_pretty
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game, seats_of

# The catalogues ship with the package (package data); read as files, not through the web server.
CATALOGUES = Path(__file__).resolve().parents[1] / "web" / "static" / "i18n"
SEATS = frozenset({"who", "other", "declarer"})
SIGNED = frozenset({"points", "other_points", "won", "gain"})
ACTIONS = frozenset({"choice", "alternative"})
_SLOT = re.compile(r"\{(\w+)\}")


@functools.cache
def catalogue(lang: str = "en") -> dict[str, Any]:
    """A language's catalogue (English for one the package has none of)."""
    path = CATALOGUES / f"{lang}.json"
    if not path.is_file():
        path = CATALOGUES / "en.json"
    words: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return words


def signed(x: float) -> str:
    """Points with their sign, as the sheets write them: ``+20``, ``−6``, ``+2.5``."""
    text = f"{abs(x):g}" if float(x).is_integer() else f"{abs(x):.1f}"
    return ("−" if x < 0 else "+") + text if x else "0"


class Speaker:
    """Says reasons in one language at one table (its game and its players' names)."""

    def __init__(self, game: Game, names: Sequence[str], lang: str = "en") -> None:
        self.game = game
        self.names = list(names)
        self.words = catalogue(lang)

    def t(self, key: str) -> str:
        value = self.words.get(key, catalogue("en").get(key, f"[{key}]"))
        return str(value["other"] if isinstance(value, dict) else value)

    def action(self, action: int) -> str:
        """What an action does, for people: ``Q♠``, ``No Queens``, ``Hearts``, ``double Ben``."""
        if action < 52:
            return card_pretty(action)
        if action == PASS:
            return self.t("coach.action.pass")
        if CONTRACT <= action < CONTRACT + len(self.game.contracts):
            return self.t(f"contract.{self.game.ruleset}.{self.game.contracts[action - CONTRACT].id}.name")
        if TRUMP <= action < TRUMP + 4:
            return self.t(f"suit.{'SHDC'[action - TRUMP]}")
        if RANK <= action < RANK + 13:
            return rank_pretty(action - RANK)
        seats = seats_of((action - DOUBLE) % 64)
        if not seats:
            return self.t("coach.action.no-double")
        verb = "coach.action.redouble" if action >= REDOUBLE else "coach.action.double"
        return self.t(verb).replace("{who}", ", ".join(self.names[s] for s in seats))

    def slot(self, name: str, value: Slot, slots: dict[str, Slot]) -> str:
        if name in SEATS and isinstance(value, int):
            return self.names[value]
        if name in SIGNED and isinstance(value, int | float):
            return signed(value)
        if name in ACTIONS and isinstance(value, int):
            return self.action(value)
        if name == "contract":
            return self.t(f"contract.{slots.get('ruleset', self.game.ruleset)}.{value}.name")
        if name in ("led", "trump") and isinstance(value, str):
            return self.t(f"suit.{value}")
        return str(value)

    def say(self, reason: Reason) -> str:
        """The reason in words, every slot filled."""
        slots = dict(reason.slots)
        text = self.t(reason.key)
        return _SLOT.sub(lambda m: self.slot(m.group(1), slots[m.group(1)], slots)
                         if m.group(1) in slots else m.group(0), text)
