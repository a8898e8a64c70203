"""The pages' catalogues read on the server, so that a sheet's exports speak the reader's language.

The same JSON files as the pages (``static/i18n/<lang>.json``): no second set of strings. A key a
language lacks is said in English, and a language the server has no catalogue for is English.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CATALOGUES = Path(__file__).resolve().parents[1] / "static" / "i18n"
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SLOT = re.compile(r"\{(\w+)\}")


def languages() -> list[str]:
    """The languages with a catalogue, by code (``en``, ``fr``, …)."""
    return sorted(p.stem for p in CATALOGUES.glob("*.json"))


def plural_form(lang: str, n: int) -> str:
    """The CLDR cardinal form a whole number takes in ``lang`` (as Intl.PluralRules chooses it)."""
    if lang in ("zh", "id", "my"):
        return "other"
    if lang == "fr":
        return "one" if n in (0, 1) else "other"
    if lang == "be":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        return "few" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else "many"
    return "one" if n == 1 else "other"


class Words:
    """One language's words, English where they are missing."""

    def __init__(self, lang: str, words: Mapping[str, Any], english: Mapping[str, Any]) -> None:
        self.lang = lang
        self.words = words
        self.english = english

    def t(self, key: str, **args: object) -> str:
        """The text of ``key`` with its slots filled; a count's form is chosen by ``args["n"]``."""
        value = self.words.get(key, self.english.get(key))
        if value is None:
            return f"[{key}]"
        if isinstance(value, dict):
            n = args.get("n")
            form = plural_form(self.lang, n) if isinstance(n, int) else "other"
            value = value.get(form, value["other"])
        return _SLOT.sub(lambda m: str(args[m.group(1)]) if m.group(1) in args else m.group(0), str(value))

    def contract(self, ruleset: str, contract: str, trump: str | None = None,
                 start_rank: str | None = None) -> str:
        """What a hand was played as: "Atout ♥", "Dominos à partir du V" (as the page writes it)."""
        name = self.t(f"contract.{ruleset}.{contract}.name")
        if trump:
            name += f" {SUIT_SYMBOL[trump]}"
        if start_rank:
            name += " " + self.t("sheet.from-rank", rank=self.t(f"rank.{start_rank}"))
        return name


def words(lang: str | None) -> Words:
    """The words of ``lang``; English for a language the server has no catalogue of."""
    return _words(lang if lang in languages() else "en")


@functools.cache
def _words(lang: str) -> Words:
    english = _read("en")
    return Words(lang, english if lang == "en" else _read(lang), english)


def _read(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    return data
