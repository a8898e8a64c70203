"""The Dominoes and Réussite layouts at the browser's table: ranks over their columns, in the page's words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import ROOT
from tests.test_web_browser import CHROMIUM, DESKTOP, PHONE
from tests.test_web_table_browser import open_table, server  # noqa: F401  (fixture)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

RANKS = "23456789TJQKA"
CATALOGUES = ROOT / "src" / "barbu" / "web" / "static" / "i18n"

# Where each rank label and each card of the layout stands across the page.
PLACES = """() => ({
  labels: [...document.querySelectorAll('#layout .layout-ranks [data-rank]')].map((el) => {
    const r = el.getBoundingClientRect(); return [el.dataset.rank, el.textContent, r.left, r.right]; }),
  cards: [...document.querySelectorAll('#layout .layout-row .card')].map((el) => {
    const r = el.getBoundingClientRect(); return [el.dataset.card, (r.left + r.right) / 2]; }),
  wide: document.documentElement.scrollWidth })"""


@pytest.fixture
def context(chrome: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    size = request.param
    ctx = chrome.new_context(viewport=size, has_touch=size is PHONE, is_mobile=size is PHONE)
    yield ctx
    ctx.close()


def place_first_card(page: Any, contract: str) -> None:
    """Ann names ``contract`` (Dominoes from a rank she holds), says no double, places her first card."""
    page.click(f"#decision button[data-action={contract}]")
    if contract == "dominoes":
        rank = page.evaluate("T.view.hand[0][0]")
        page.click(f"#decision button[data-action='rank {rank}']")
    for _ in range(20):
        page.wait_for_function("""() => !$('layout').hidden || document.querySelector(
          '#double-none:not(.sent), #double-submit:not(.sent)')""", timeout=30000)
        if page.locator("#layout:not([hidden])").count():
            break
        page.locator("#double-none:not(.sent), #double-submit:not(.sent)").first.click()
    page.locator("#hand button.card.legal").first.click()
    page.wait_for_selector("#layout .layout-row .card")
    # Ann's turn again and nothing moving: her card and the computers' after it have all landed (a card
    # still flying stands between columns; between two computers' cards there is a moment of no animation).
    page.wait_for_function("T.view.legal.length > 0 && document.getAnimations().length === 0")


@pytest.mark.parametrize("context", [DESKTOP, PHONE], indirect=True, ids=["desktop", "phone"])
@pytest.mark.parametrize(("ruleset", "contract", "lang"), [
    ("classic", "dominoes", "en"), ("classic", "dominoes", "fr"), ("family", "reussite", "zh"),
    ("family", "reussite", "fr"),
])
def test_the_layout_names_its_ranks_over_their_columns(server: str, context: Any,  # noqa: F811
                                                       ruleset: str, contract: str, lang: str) -> None:
    page = open_table(context, server, ruleset, lang)
    place_first_card(page, contract)
    words = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    seen = page.evaluate(PLACES)
    assert [(r, text) for r, text, _, _ in seen["labels"]] == [(r, words[f"rank.{r}"]) for r in RANKS]
    # Each card placed stands under its rank's label: a gap in a row reads as the card it is.
    spans = {r: (left, right) for r, _, left, right in seen["labels"]}
    assert seen["cards"]
    for card, middle in seen["cards"]:
        left, right = spans[card[0]]
        assert left <= middle <= right, (card, middle, left, right)
    assert seen["wide"] <= page.viewport_size["width"]
    assert page.errors == []
    page.close()
