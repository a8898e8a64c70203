"""The card table teaches its rules in Chromium (issue #37, items 13-15): who is winning the trick,
the finished trick left in view, what the contract costs for everyone, why a card cannot be played."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, ROOMY, serving
from tests.test_web_table_browser import open_table
from tests.test_web_table_round2 import act_once
from tests.web_helpers import fresh_db

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)",
)]

I18N_DIR = Path(__file__).resolve().parent.parent / "src" / "barbu" / "web" / "static" / "i18n"
RANKS = "23456789TJQKA"
# The page at rest on Ann's turn (or on the hand's summary): every state received is drawn.
AT_REST = """() => (document.querySelector('#summary-dialog[open]') !== null) || (Motion.pending === 0
  && !T.shownTrick && T.latest && T.latest.view === T.view && T.view.current === T.you)"""


def catalogue(lang: str) -> dict[str, str]:
    words: dict[str, str] = json.loads((I18N_DIR / f"{lang}.json").read_text(encoding="utf-8"))
    return words


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("teach"), "teach.db"), *ROOMY) as url:
        yield url


def play_until(page: Any, condition: str, what: str, seconds: float = 150) -> None:
    """Play on as Ann until ``condition`` (JavaScript, on ``v`` the view) holds with the page at rest."""
    deadline = time.monotonic() + seconds
    while True:
        page.wait_for_function(AT_REST, timeout=30000)
        page.wait_for_timeout(400)  # the last card's travel is over
        if page.evaluate(f"(() => {{ const v = T.view; return Boolean({condition}); }})()"):
            return
        assert time.monotonic() < deadline, f"never: {what}"
        if page.locator("#summary-dialog[open]").count():
            page.click("#summary-next")
            page.wait_for_selector("#summary-dialog[open]", state="detached", timeout=15000)
            continue
        act_once(page)


def winner(trick: list[list[Any]], trump: str | None) -> int:
    """The seat winning a trick so far: the highest trump, else the highest card of the suit led."""
    best = trick[0]
    for seat, card in trick[1:]:
        if (card[1] == best[1][1] and RANKS.index(card[0]) > RANKS.index(best[1][0])) or (
                card[1] == trump and best[1][1] != trump):
            best = [seat, card]
    return int(best[0])


ON_TRICK = "v.phase === 'play' && v.trick.length > 0"


# ---------------------------------------------------------------- 13. who is winning the trick

def test_the_trick_marks_the_card_winning_it_and_says_who(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    play_until(page, ON_TRICK, "a trick under way on Ann's turn")
    view = page.evaluate("T.view")
    best = winner(view["trick"], view.get("trump"))
    marked = page.eval_on_selector_all("#trick .played.winning",
                                       "els => els.map((e) => Number(e.dataset.seat))")
    assert marked == [best]
    name = page.evaluate(f"T.meta.seats[{best}].name")
    said = catalogue("en")["table.winning"].replace("{name}", name)
    assert page.text_content("#trick-state") == said  # the words a screen reader finds in the trick
    page.wait_for_function("s => document.getElementById('live').textContent.includes(s)", arg=said,
                           timeout=5000)  # and hears after the card that made it so
    assert page.locator("#trick .played.winning .win-mark").is_visible()
    assert page.errors == []
    page.close()


def test_a_finished_trick_stays_in_view_until_the_next_card_is_led(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    play_until(page, "v.phase === 'play' && v.trick.length === 0 && v.last_trick.length === 4",
               "Ann to lead after a whole trick")
    shown = page.eval_on_selector_all("#trick .played .card", "els => els.map((e) => e.dataset.card)")
    last = page.evaluate("T.view.last_trick.map(([s, c]) => c)")
    assert shown == last  # not hidden by "your turn": the trick stays until a card is led
    taker = page.evaluate("T.meta.seats[T.view.leader].name")
    assert page.text_content("#trick .caption") == catalogue("en")["table.taken-by"].replace("{name}", taker)
    led = page.locator("#hand button.card.legal:not([aria-disabled])").first
    card = led.get_attribute("data-card")
    led.click()
    page.wait_for_function(f"document.querySelector('#trick .played .card').dataset.card === '{card}'",
                           timeout=15000)
    assert page.evaluate("document.querySelectorAll('#trick .played.done').length") == 0
    assert page.errors == []
    page.close()


# ---------------------------------------------------------------- 14. what the contract costs

def fixed_words(template: str) -> list[str]:
    """The words of a catalogue line between its slots, each long enough to say something."""
    return [w.strip(" ,;") for w in re.split(r"\{[a-z_]+\}", template) if len(w.strip(" ,;")) > 2]


@pytest.mark.parametrize(("ruleset", "lang"), [("classic", "en"), ("family", "fr")])
def test_every_player_sees_what_the_contract_costs_all_hand_long(
        server: str, desktop: Any, ruleset: str, lang: str) -> None:
    # Ann is not the declarer: a computer chooses, and Ann still sees what the contract costs.
    page = open_table(desktop, server, ruleset=ruleset, lang=lang, seat=1)
    words = catalogue(lang)
    for plays in (1, 4):
        play_until(page, f"v.phase === 'play' && v.hand.length <= 13 - {plays} + 1 && v.contract",
                   "Ann to play in a contract")
        contract = page.evaluate("T.view.contract")
        figures = page.evaluate("T.meta.contracts.find((c) => c.id === T.view.contract).figures")
        legend = page.locator("#legend")
        assert legend.is_visible()
        text = legend.text_content() or ""
        assert words[f"contract.{ruleset}.{contract}.name"] in text
        template = words[f"contract.{ruleset}.{contract}.line"]
        for w in fixed_words(template):
            assert w in text, (w, text)
        for slot, n in figures.items():
            if "{" + slot + "}" in template:
                assert str(abs(n)) in text, (slot, n, text)
        if plays == 1:
            act_once(page)
    assert page.errors == []
    page.close()


# ---------------------------------------------------------------- 15. why a card cannot be played

def follow_text(page: Any) -> str:
    led = page.evaluate("T.view.trick[0][1][1]")
    words = catalogue("en")
    return words["error.illegal:follow-suit"].replace("{led}", words[f"suit.{led}"])


def test_an_illegal_click_or_key_says_the_rule_and_sends_nothing(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(str(f))))
    play_until(page, ON_TRICK + " && document.querySelector('#hand button.card.dim') !== null",
               "a card Ann may not play")
    said = page.locator("#hand-said")
    assert said.get_attribute("aria-live") == "polite"
    assert (said.text_content() or "") == ""
    before = page.evaluate("T.view.history.length")
    dim = page.locator("#hand button.card.dim").first
    dim.click(force=True)  # aria-disabled: Playwright would wait for it to be enabled
    page.wait_for_function("document.getElementById('hand-said').textContent !== ''", timeout=5000)
    assert said.text_content() == follow_text(page)
    assert said.is_visible()
    # The keyboard: a screen reader's cursor on the card, then Enter.
    page.evaluate("document.getElementById('hand-said').textContent = ''")
    page.locator("#hand button.card.dim").last.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('hand-said').textContent !== ''", timeout=5000)
    assert said.text_content() == follow_text(page)
    # Nothing was sent for it, and play goes on: a legal card is played at once.
    assert not [f for f in sent if '"act"' in f]
    assert page.evaluate("T.view.history.length") == before
    assert page.locator("#toast").is_hidden()
    act_once(page)
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_the_illegal_click_is_explained_in_the_pages_language(server: str, desktop: Any, lang: str) -> None:
    page = open_table(desktop, server, lang=lang)
    play_until(page, ON_TRICK + " && document.querySelector('#hand button.card.dim') !== null",
               "a card Ann may not play")
    page.locator("#hand button.card.dim").first.click(force=True)
    page.wait_for_function("document.getElementById('hand-said').textContent !== ''", timeout=5000)
    led = page.evaluate("T.view.trick[0][1][1]")
    words = catalogue(lang)
    expected = words["error.illegal:follow-suit"].replace("{led}", words[f"suit.{led}"])
    assert page.text_content("#hand-said") == expected
    assert page.errors == []
    page.close()
