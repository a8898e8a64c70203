"""The card faces in Chromium (issue #37, item 10): the hand and the trick drawn from the SVG deck with
their names kept, a card back for the others' hands, and the four-colour deck recolouring clubs."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from tests.test_web_browser import CHROMIUM, serious_violations, serving
from tests.test_web_table_browser import next_target, open_table
from tests.web_helpers import fresh_db

from barbu.web.http.endpoints import ASSETS

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)",
)]

I18N = Path(__file__).resolve().parent.parent / "src" / "barbu" / "web" / "static" / "i18n"
SPRITE = ASSETS.url("cards/cards.svg")  # stamped: the server writes it on cards.js's tag
GOLDEN = Path(__file__).resolve().parent / "data" / "classic_no_queens_golden_doubling.json"
# Each card of the hand: its name, its accessible name, the symbol its face is drawn from, and
# whether that symbol is in the sprite the page was served.
HAND = """async (sprite) => {
  const doc = new DOMParser().parseFromString(await (await fetch(sprite)).text(), 'image/svg+xml');
  return [...document.querySelectorAll('#hand .card')].map((c) => {
    const use = c.querySelector('svg.face use');
    const href = use ? use.getAttribute('href') : '';
    return {card: c.dataset.card, label: c.getAttribute('aria-label'), href,
            hidden: use ? use.closest('svg').getAttribute('aria-hidden') : null,
            drawn: !!doc.getElementById(href.split('#')[1] || '-'),
            width: use ? use.getBoundingClientRect().width : 0};
  });
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("faces"), "faces.db")) as url:
        yield url


def card_name(lang: str, card: str) -> str:
    words = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return str(words["table.card"].replace("{rank}", words[f"table.rank.{card[0]}"])
               .replace("{suit}", words[f"table.suit.{card[1]}"]))


def playing(page: Any) -> None:
    """Play on until Ann has a card to play (the contract chosen, the doubles passed)."""
    target = next_target(page)
    while target is not None and not page.locator("#hand button.card.legal").count():
        handle = target.element_handle()
        target.click()
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
        target = next_target(page)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_each_card_of_the_hand_is_drawn_from_its_face_and_keeps_its_name(
        server: str, desktop: Any, lang: str) -> None:
    page = open_table(desktop, server, lang=lang)
    playing(page)
    cards = page.evaluate(HAND, SPRITE)
    assert len(cards) == 13
    for c in cards:
        assert c["href"] == f"{SPRITE}#{c['card']}" and c["drawn"] and c["hidden"] == "true", c
        assert c["width"] > 30, c  # the face fills the card
        assert c["label"].startswith(card_name(lang, c["card"]) + ", "), c
    legal = page.locator("#hand button.card.legal").first
    name = legal.get_attribute("aria-label")
    assert page.get_by_role("button", name=name, exact=True).count() == 1
    legal.focus()
    assert page.evaluate("document.activeElement.classList.contains('legal')")
    assert serious_violations(page, f"axe-card-faces-{lang}.json") == []
    assert page.errors == []
    page.close()


def test_the_other_players_hands_show_a_card_back_with_their_count(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    shown = page.evaluate("""() => T.meta.seats.map((_, s) => {
      const box = s === T.you ? document.querySelector('#me-info .seat')
        : document.querySelector(`.felt .seat[data-seat="${s}"]`);
      const back = box.querySelector('.backs');
      return {you: s === T.you, size: T.view.hand_sizes[s], label: box.getAttribute('aria-label'),
              href: back ? back.querySelector('use').getAttribute('href') : null,
              count: back ? back.textContent : null, hidden: back ? back.getAttribute('aria-hidden') : null};
    })""")
    assert sum(1 for s in shown if not s["you"]) == 3
    for s in shown:
        if s["you"]:
            assert s["href"] is None, s
            continue
        assert s["href"] == f"{SPRITE}#back" and s["count"] == str(s["size"]) and s["hidden"] == "true", s
        assert f"{s['size']} cards" in s["label"], s  # a screen reader still hears the count
    assert page.errors == []
    page.close()


def green(png: bytes) -> int:
    """How many pixels of a screenshot are clearly green (the four-colour deck's clubs)."""
    data = Image.open(io.BytesIO(png)).convert("RGB").tobytes()
    pixels = zip(data[0::3], data[1::3], data[2::3], strict=True)
    return sum(1 for r, g, b in pixels if g > r + 50 and g > b + 30)


def test_the_four_colour_deck_draws_a_club_green(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    club = page.locator("#hand .card.s-C").first
    assert club.count(), "the deal has a club"
    before = green(club.screenshot())
    page.click("#btn-settings")
    page.check("#set-fourColour")
    page.click("#settings-close")
    after = green(page.locator("#hand .card.s-C").first.screenshot())
    assert before == 0 and after > 40, (before, after)
    assert page.evaluate("getComputedStyle(document.body).getPropertyValue('--suit-C').trim()") == "#15803d"
    page.evaluate("localStorage.removeItem('barbu.settings')")  # the other tests' pages: two colours
    page.close()


def test_the_replay_draws_the_trick_whole_and_the_hands_by_their_corner(server: str, desktop: Any) -> None:
    page = desktop.new_page()
    page.goto(f"{server}/replay?lang=en")
    page.wait_for_selector("#rp-drop:not([hidden])")
    page.set_input_files("#rp-file", str(GOLDEN))
    page.wait_for_selector("#rp-view:not([hidden])")
    page.keyboard.press("ArrowRight")  # the first card led
    drawn = page.evaluate("""() => [...document.querySelectorAll('#rp-view .card')].map((c) => ({
      label: c.getAttribute('aria-label'), trick: !!c.closest('.rp-played'),
      box: c.querySelector('svg.face').getAttribute('viewBox'),
      href: c.querySelector('svg.face use').getAttribute('href')}))""")
    trick = [c for c in drawn if c["trick"]]
    assert len(trick) == 1 and len(drawn) == 52
    for c in drawn:
        assert c["href"].startswith(f"{SPRITE}#"), c
        assert c["label"] == card_name("en", c["href"][-2:]), c
        assert (c["box"] == "0 0 225 314") == c["trick"], c  # the trick's card whole, the hands' a corner
    page.close()
