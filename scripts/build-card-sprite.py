"""Build the browser table's card faces (src/barbu/web/static/cards/cards.svg) from an SVG deck.

    npm pack @younestouati/playing-cards-standard-deck@3.0.0 && tar xzf younestouati-*.tgz
    .venv/bin/python scripts/build-card-sprite.py package/cards

The deck (LGPL-3.0; docs/browser.md, "Card faces") has one SVG file a card, named ``<rank><suit>.svg``
(rank 1-13, suit c d h s), each drawn the same way: a ``suit`` and a ``numeral`` shape in its defs,
the four corner marks as the first four ``<use>`` of its group, then the pips or the court figure.
This script makes one sprite of ``<symbol id="QC">`` (the engine's card names) and ``<symbol id="back">``:

- the corner marks (rank and suit) are drawn larger than the deck has them and the rest of the face a
  little smaller, so that a card's index reads on a phone, where a card is 40 px wide;
- every suit shape and numeral is filled with ``var(--suit-C, #000)`` (C D H S), so that the page's
  four-colour deck recolours the pips and indices through CSS;
- the shapes the 52 cards share are kept once; the back is drawn here (the deck has none that fits).
"""

from __future__ import annotations

import argparse
import re
import xml.etree.ElementTree as ET
from pathlib import Path

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
OUT = Path(__file__).resolve().parent.parent / "src" / "barbu" / "web" / "static" / "cards" / "cards.svg"
RANKS = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T", 11: "J", 12: "Q",
         13: "K"}
SUITS = {"c": "C", "d": "D", "h": "H", "s": "S"}
W, H = 225, 314  # every face's viewBox
INDEX = 1.75  # the corner marks' growth, about their corner
FACE = 0.76  # the pips' and figure's size, about the card's centre: clear of the larger corners
ACE = 1.9  # an ace's one pip, as large as a real ace's (the deck draws it the size of a 2's)
# Where the deck puts its corner marks, the same on every card: rank and suit top left, then turned.
MARKS = ["translate(7 12)", "matrix(.4 0 0 .4 6 51)", "matrix(-1 0 0 -1 218 302)",
         "matrix(-.4 0 0 -.4 218 263)"]
CORNER = (3.0, 6.0)  # the point the top-left marks grow from (the bottom-right ones: its mirror)
HEADER = """<!-- The card faces of barbu's browser table, built by scripts/build-card-sprite.py from
     "playing-cards-standard-deck" 3.0.0 (npm @younestouati/playing-cards-standard-deck), itself from
     Responsive Playing Cards (Mike Hall, Warren Lockhart) and Vectorized Playing Cards 1.3
     (Copyright 2011 Chris Aguilar). Licence: GNU LGPL 3.0 or later (LICENSE beside this file).
     The back is barbu's own. -->"""


def tag(el: ET.Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


def href(el: ET.Element) -> str:
    return el.get(f"{{{XLINK}}}href") or el.get("href") or ""


def attrs(el: ET.Element, skip: tuple[str, ...] = ()) -> str:
    """An element's attributes as SVG text (namespaces dropped, the ones in ``skip`` left out)."""
    out = []
    for key, value in el.attrib.items():
        name = key.rsplit("}", 1)[-1]
        if name not in skip:
            out.append(f'{name}="{escape(value)}"')
    return " ".join(out)


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def serialise(el: ET.Element) -> str:
    """An element and its children as compact SVG text, without namespace prefixes."""
    inner = "".join(serialise(child) for child in el)
    head = f"{tag(el)} {attrs(el)}".strip()
    return f"<{head}>{inner}</{tag(el)}>" if inner else f"<{head}/>"


class Sprite:
    """The shapes kept once (suit marks, numerals) and the symbols built so far."""

    def __init__(self) -> None:
        self.shapes: dict[str, str] = {}  # path data -> id
        self.symbols: list[str] = []

    def shape(self, d: str, prefix: str) -> str:
        if d not in self.shapes:
            self.shapes[d] = f"{prefix}{len(self.shapes)}"
        return self.shapes[d]

    def defs(self) -> str:
        return "".join(f'<path id="{i}" d="{d}"/>' for d, i in self.shapes.items())


def ink(suit: str, red: bool) -> str:
    return f"fill:var(--suit-{suit},{'#d40000' if red else '#000'})"


def face(sprite: Sprite, path: Path, card: str) -> str:
    """One card's ``<symbol>``: larger corner marks over the deck's pips or figure, made smaller."""
    root = ET.parse(path).getroot()
    defs = {el.get("id"): el.get("d", "") for el in root.iter() if tag(el) == "path" and el.get("id")}
    ids = {f"#{name}": sprite.shape(d, "k") for name, d in defs.items()}
    # The last group: a few files keep the small-size layout of the deck's origin in a group before it.
    group = [el for el in root if tag(el) == "g"][-1]
    if [el.get("transform") for el in list(group)[:4]] != MARKS:
        raise SystemExit(f"{path}: its first four shapes are not the corner marks")
    suit, red = card[1], root.get("fill", "").lower() == "#d40000"
    marks: list[str] = []
    body: list[str] = []
    for n, el in enumerate(group):
        if tag(el) == "use":
            text = f'<use href="#{ids[href(el)]}" {attrs(el, ("href",))} style="{ink(suit, red)}"/>'
        else:
            text = serialise(el)
        (marks if n < 4 else body).append(text)
    fill, size = root.get("fill", "#000"), ACE if card[0] == "A" else FACE
    cx, cy, (x0, y0) = W / 2, H / 2, CORNER
    grow = f"{x0 * (1 - INDEX):g} {y0 * (1 - INDEX):g}"
    mirror = f"{(W - x0) * (1 - INDEX):g} {(H - y0) * (1 - INDEX):g}"
    return (f'<symbol id="{card}" viewBox="0 0 {W} {H}"><rect width="{W}" height="{H}" rx="11" fill="#fff"/>'
            f'<g fill="{fill}" transform="matrix({size} 0 0 {size} {cx * (1 - size):g} {cy * (1 - size):g})">'
            f'{"".join(body)}</g>'
            f'<g transform="matrix({INDEX} 0 0 {INDEX} {grow})">{"".join(marks[:2])}</g>'
            f'<g transform="matrix({INDEX} 0 0 {INDEX} {mirror})">{"".join(marks[2:])}</g></symbol>')


def back() -> str:
    """The back shown for the other players' hands: a navy lattice inside a white border."""
    return (f'<symbol id="back" viewBox="0 0 {W} {H}"><rect width="{W}" height="{H}" rx="11" fill="#fff"/>'
            f'<rect x="10" y="10" width="{W - 20}" height="{H - 20}" rx="7" fill="#1e3a8a"/>'
            '<clipPath id="back-clip"><rect x="14" y="14" width="197" height="286" rx="5"/></clipPath>'
            '<g clip-path="url(#back-clip)" stroke="#93c5fd" stroke-width="3" fill="none">'
            f'{lattice_lines()}</g>'
            '<rect x="14" y="14" width="197" height="286" rx="5" fill="none" stroke="#bfdbfe" '
            'stroke-width="2"/>'
            '<circle cx="112.5" cy="157" r="34" fill="#1e3a8a" stroke="#bfdbfe" stroke-width="4"/>'
            '<path d="M112.5 133 131 157 112.5 181 94 157z" fill="#bfdbfe"/></symbol>')


def lattice_lines() -> str:
    """Diagonals both ways across the back's inner panel, 20 units apart."""
    lines = []
    for k in range(-300, 520, 20):
        lines.append(f"M{k} 14l300 300M{k} 14l-300 300")
    return f'<path d="{"".join(lines)}"/>'


def build(folder: Path) -> str:
    sprite = Sprite()
    for number, rank in RANKS.items():
        for letter, suit in SUITS.items():
            sprite.symbols.append(face(sprite, folder / f"{number}{letter}.svg", rank + suit))
    return (f'<svg xmlns="{SVG}">{HEADER}<defs>{sprite.defs()}</defs>'
            f'{"".join(sprite.symbols)}{back()}</svg>\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cards", type=Path, help="the deck's folder of <rank><suit>.svg files")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    text = build(args.cards)
    if re.search(r'id="(suit|numeral)"', text):
        raise SystemExit("a deck's own shape id was left in the sprite")
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(text.encode())} bytes")


if __name__ == "__main__":
    main()
