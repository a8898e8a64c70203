"""The browser table's card faces (static/cards/cards.svg): the whole deck and its back, self-contained."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

CARDS = Path(__file__).resolve().parent.parent / "src" / "barbu" / "web" / "static" / "cards"
SVG = "{http://www.w3.org/2000/svg}"
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "SHDC"]


@pytest.fixture(scope="module")
def sprite() -> ET.Element:
    return ET.parse(CARDS / "cards.svg").getroot()


def symbols(sprite: ET.Element) -> dict[str, ET.Element]:
    return {el.get("id", ""): el for el in sprite.iter(f"{SVG}symbol")}


def test_every_face_of_the_deck_and_the_back_is_a_symbol(sprite: ET.Element) -> None:
    found = symbols(sprite)
    assert sorted(found) == sorted([*DECK, "back"])
    for card, el in found.items():
        assert el.get("viewBox") == "0 0 225 314", card
        assert len(list(el.iter())) > 3, f"{card} is drawn with nothing on it"


def test_the_sprite_refers_to_nothing_outside_itself(sprite: ET.Element) -> None:
    ids = {el.get("id") for el in sprite.iter() if el.get("id")}
    refs = [el.get("href", "") for el in sprite.iter(f"{SVG}use")]
    assert refs and all(ref.startswith("#") and ref[1:] in ids for ref in refs)
    text = (CARDS / "cards.svg").read_text(encoding="utf-8")
    assert not re.search(r"<image|url\((?!#)|@import", text)


def test_each_suit_is_inked_with_its_own_colour_variable(sprite: ET.Element) -> None:
    """The four-colour deck recolours a card's pips and index through --suit-C, -D, -H, -S."""
    for card, el in symbols(sprite).items():
        if card == "back":
            continue
        inks = {use.get("style") for use in el.iter(f"{SVG}use")}
        default = "#d40000" if card[1] in "HD" else "#000"
        assert inks == {f"fill:var(--suit-{card[1]},{default})"}, card


def test_the_licence_of_the_deck_is_beside_it() -> None:
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in (CARDS / "LICENSE").read_text(encoding="utf-8")
    assert "GNU GENERAL PUBLIC LICENSE" in (CARDS / "GPL-3").read_text(encoding="utf-8")
    assert "Chris Aguilar" in (CARDS / "cards.svg").read_text(encoding="utf-8")[:2000]
