"""The card table in Chromium: whole hands by mouse, touch and keyboard, the summary, the phone, axe."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    CHROMIUM,
    DESKTOP,
    PHONE,
    ROOMY,
    free_port,
    get,
    post,
    serving,
    start_server,
    stop_server,
)
from tests.web_helpers import FAST, fresh_db

from barbu.engine.game import Game
from barbu.engine.state import State

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

TRICK_CONTRACTS = ("no-tricks", "no-last-two", "tricks", "last-trick")
# Counts the Web Animations the page starts: a card's travel or a trick's gathering is one each.
COUNT_MOTION = ("window.motions = 0; const animate = Element.prototype.animate;"
                "Element.prototype.animate = function (...a) {"
                " window.motions++; return animate.apply(this, a); };")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("table"), "table.db"), *ROOMY) as url:
        yield url




@pytest.fixture(scope="module")
def phone(chrome: Any) -> Iterator[Any]:
    context = chrome.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=1)
    yield context
    context.close()


def first_seat(ruleset: str, players: int = 4, seat: int = 0) -> int:
    game = Game(ruleset, players)
    return next(s for s in range(1000) if State(game, seed=s).first_declarer == seat)


def open_table(context: Any, server: str, ruleset: str = "classic", lang: str = "en", seat: int = 0,
               players: int = 4) -> Any:
    """A new table of Ann (seat 1) and computers, Ann to choose first, opened in a fresh page."""
    made = post(server + "/api/tables", {
        "ruleset": ruleset, "players": players, "name": "Ann", "seed": first_seat(ruleset, players, seat),
        "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * (players - 1)})
    page = context.new_page()
    page.add_init_script(FAST + COUNT_MOTION + f"localStorage.setItem('barbu.lang', '{lang}');")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(server + made["you"]["link"])
    page.wait_for_selector("#hand .card")
    return page


NEXT = """() => document.querySelector('#summary-dialog[open]') || document.querySelector(
  '#decision:not([hidden]) button, #hand button.card.legal:not([aria-disabled]), #hand-actions button')"""


def next_target(page: Any) -> Any:
    """What the page asks of Ann now: a trick contract, no double, a card, a pass (None: the summary)."""
    for _ in range(100):
        page.wait_for_function(NEXT, timeout=30000)
        if page.locator("#summary-dialog[open]").count():
            return None
        box = page.locator("#decision:not([hidden])")
        wanted = [",".join(f"#decision button[data-action={c}]:not(.sent)" for c in TRICK_CONTRACTS),
                  "#double-none:not(.sent)", "#double-submit:not(.sent)",
                  "#hand button.card.legal:not([aria-disabled])", "#hand-actions button:not(.sent)"]
        for selector in wanted if box.count() else wanted[3:]:
            found = page.locator(selector)
            if found.count():
                return found.first
        page.wait_for_timeout(100)  # the box is being drawn again: look once more
    raise AssertionError("the page offered nothing to do")


def play_to_summary(page: Any, press: Any, mid_trick: Any = None) -> int:
    """Act (``press`` a target) until the hand's summary opens; ``mid_trick`` runs once, mid-trick."""
    cards = 0
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        target = next_target(page)
        if target is None:
            return cards
        if mid_trick is not None and page.locator("#trick .played").count() >= 2:
            mid_trick()
            mid_trick = None
        is_card = target.get_attribute("data-card") is not None
        handle = target.element_handle()
        press(target)
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
        cards += is_card
    raise AssertionError("the hand did not end in time")


def summary_matches_sheet(page: Any) -> None:
    """The summary's figures are the server's: this hand's points and totals as the score sheet has them."""
    results = page.evaluate("T.results")
    last = results[-1]
    cells = page.locator("#summary-body table.summary tbody tr").all()
    assert len(cells) == len(last["scores"])
    for i, row in enumerate(cells):
        nums = [int(x.replace("+", "").replace("−", "-")) for x in row.locator("td.num").all_inner_texts()]
        assert nums[0] == last["contract_scores"][i]
        assert nums[-1] == sum(r["scores"][i] for r in results)


def test_a_classic_hand_by_clicking_with_its_summary_and_the_next_hand(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    # Every contract button says in one line what it scores, from the catalogue.
    lines = page.locator("#decision button[data-action] .c-desc").all_inner_texts()
    assert len(lines) == 7 and all(lines)
    seen_lead: list[bool] = []
    leads = "#others .badge.lead, #me .badge.lead"
    cards = play_to_summary(page, lambda el: el.click(),
                            lambda: seen_lead.append(page.locator(leads).count() == 1))
    assert cards == 13 and seen_lead == [True]
    assert page.evaluate("window.motions") >= 13  # every card played travelled to the trick
    summary_matches_sheet(page)
    assert "last trick" in page.inner_text("#summary-body").lower()
    # The computers wait for Ann: nothing happens at the table until she says she is ready.
    hand = page.evaluate("T.view.hand_no") + 1
    table = get(server + f"/api/tables/{page.evaluate('T.id')}")["table"]
    assert table["waiting"] == [0]
    page.keyboard.press("Enter")
    page.wait_for_selector("#summary-dialog", state="hidden")
    page.wait_for_function("T.meta.waiting.length === 0")
    assert page.evaluate("T.view.hand_no") == hand
    assert page.errors == []
    page.close()


def tap_area_ok(page: Any) -> None:
    """Each card of the hand is a target of at least 44 × 44 px, and a tap at its middle hits it."""
    page.locator("#hand").scroll_into_view_if_needed()
    boxes = page.locator("#hand .card").evaluate_all("""cards => cards.map(c => {
      const r = c.getBoundingClientRect();
      const next = c.nextElementSibling ? c.nextElementSibling.getBoundingClientRect() : null;
      const right = next && Math.abs(next.top - r.top) < 2 ? Math.min(r.right, next.left) : r.right;
      const x = (r.left + right) / 2, y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      return {h: r.height, w: right - r.left, hit: hit === c || c.contains(hit), bottom: r.bottom};
    })""")
    assert boxes and all(b["h"] >= 44 and b["hit"] for b in boxes), boxes
    assert all(b["w"] >= 44 for b in boxes), boxes  # a whole 44 px target, not a fanned strip


def test_a_family_hand_by_tapping_on_a_phone(server: str, phone: Any) -> None:
    page = open_table(phone, server, "family")
    assert "lowest total wins" in page.inner_text("#info-title")
    tap_area_ok(page)
    page.set_viewport_size({"width": PHONE["height"], "height": PHONE["width"]})  # on its side
    tap_area_ok(page)
    page.set_viewport_size(PHONE)
    checked: list[bool] = []

    def mid() -> None:
        tap_area_ok(page)
        checked.append(True)
    cards = play_to_summary(page, lambda el: el.tap(), mid)
    assert cards == 13 and checked == [True]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    summary_matches_sheet(page)
    page.locator("#summary-next").tap()
    page.wait_for_selector("#summary-dialog", state="hidden")
    assert page.errors == []
    page.close()


SEATS_APART = """() => {
  const boxes = [...document.querySelectorAll('#others .seat')].map((e) => e.getBoundingClientRect());
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return boxes.some((a, i) => boxes.slice(i + 1).some((b) => meet(a, b)));
}"""


# The Settings button whole in view, without scrolling the row of tools sideways.
SETTINGS_IN_VIEW = """() => {
  const tools = document.querySelector('.tools');
  tools.scrollLeft = 0;
  const b = document.querySelector('#btn-settings').getBoundingClientRect();
  const row = tools.getBoundingClientRect();
  return b.width > 0 && b.left >= row.left && b.right <= row.right && b.right <= innerWidth;
}"""


@pytest.mark.parametrize("lang,players", [("my", 5), ("my", 6), ("zh", 6), ("be", 5)])
def test_on_a_phone_the_hand_is_in_view_without_scrolling_and_no_seats_overlap(
        server: str, phone: Any, lang: str, players: int) -> None:
    # Burmese lines are tall: the tools, the seats and the felt must still leave the hand in view,
    # held upright or on its side.
    page = open_table(phone, server, "family", lang=lang, players=players)
    page.wait_for_function("T.view.phase === 'play' || !document.querySelector('#decision').hidden")
    for size in (PHONE, {"width": PHONE["height"], "height": PHONE["width"]}):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
        assert page.evaluate("scrollY") == 0
        cards = page.locator("#hand .card").evaluate_all(
            "cs => cs.map((c) => c.getBoundingClientRect().bottom)")
        assert cards and max(cards) <= size["height"], (lang, players, size, max(cards))
        assert not page.evaluate(SEATS_APART), (lang, players, size)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        assert page.evaluate(SETTINGS_IN_VIEW), (lang, players, size)
    page.set_viewport_size(PHONE)
    assert page.errors == []
    page.close()


def test_the_language_switch_at_the_table_redraws_it_in_the_new_words_and_remembers(
        server: str, desktop: Any) -> None:
    made = post(server + "/api/tables", {
        "ruleset": "classic", "players": 4, "name": "Ann", "seed": first_seat("classic"),
        "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 3})
    page = desktop.new_page()
    page.add_init_script(FAST)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.evaluate("localStorage.setItem('barbu.lang', 'en')")
    page.goto(server + made["you"]["link"])
    page.wait_for_selector("#decision button[data-action]")
    assert "Computer 2" in page.inner_text("#others")
    # The table's address ends in #t=token: choosing a language must still load the page again.
    # The predicate can run while the old document is being replaced and there is no root element.
    page.select_option(".lang-switch", "fr")
    page.wait_for_function("document.documentElement !== null && document.documentElement.lang === 'fr'")
    page.wait_for_selector("#decision button[data-action]")
    # The seats the server filled are named in the reader's words too, not left in English.
    assert "Ordinateur 2" in page.inner_text("#others") and "Computer" not in page.inner_text("#felt")
    assert "Choisissez un contrat" in page.inner_text("#decision")
    page.reload()
    page.wait_for_selector("#decision button[data-action]")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert errors == []
    page.close()


def test_a_reload_during_the_summary_shows_it_again_so_that_the_game_can_go_on(
        server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    play_to_summary(page, lambda el: el.click())
    page.reload()
    # The computers wait for Ann's "ready": the page must ask for it again, not sit there.
    page.wait_for_selector("#summary-dialog[open]", timeout=15000)
    assert page.locator("#summary-body table.summary tbody tr").count() == 4
    page.click("#summary-next")
    page.wait_for_function(
        "T.meta.waiting.length === 0 && T.view.history.length > 0 || T.view.current === T.you", timeout=30000)
    assert not page.locator("#summary-dialog[open]").count()
    assert page.errors == []
    page.close()


def test_a_whole_hand_with_the_keyboard_alone(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    cards = 0
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        target = next_target(page)
        if target is None:
            break
        handle = target.element_handle()
        if target.get_attribute("data-card") is not None:
            # The hand is one tab stop: walk to the first playable card with the arrow keys.
            page.wait_for_function("document.activeElement && document.activeElement.closest('#hand')")
            here = page.evaluate("Number(document.activeElement.dataset.index)")
            there = int(target.get_attribute("data-index"))
            if cards == 0:  # the arrows go round: End, then right, is the first card again
                page.keyboard.press("End")
                page.keyboard.press("ArrowRight")
                assert page.evaluate("document.activeElement.dataset.index") == "0"
                here = 0
            for _ in range(abs(there - here)):
                page.keyboard.press("ArrowRight" if there > here else "ArrowLeft")
            label = page.evaluate("document.activeElement.getAttribute('aria-label')")
            assert label.endswith(", playable") and " of " in label
            cards += 1
        else:
            for _ in range(30):  # Tab through the question asked to the wanted button
                if page.evaluate("el => document.activeElement === el", handle):
                    break
                page.keyboard.press("Tab")
            assert page.evaluate("el => document.activeElement === el", handle)
        page.keyboard.press("Enter")
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
    assert cards == 13
    page.keyboard.press("Escape")  # closes the summary: ready for the next hand
    page.wait_for_selector("#summary-dialog", state="hidden")
    assert page.errors == []
    page.close()


def test_a_double_click_plays_once_and_shows_no_error(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    page.locator("#decision button[data-action=no-tricks]").dblclick()
    page.wait_for_selector("#decision button[data-action=no-tricks]", state="detached")
    card = next_target(page)
    while card.get_attribute("data-card") is None:
        card.click()
        card = next_target(page)
    before = page.locator("#hand .card").count()
    card.dblclick()
    page.wait_for_function(f"document.querySelectorAll('#hand .card').length === {before - 1}")
    time.sleep(0.5)
    assert page.locator("#toast:not([hidden])").count() == 0
    assert page.errors == []
    page.close()


def test_the_four_colour_deck_and_the_settings_are_remembered(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    club = "getComputedStyle(document.querySelector('#hand .card.s-C, #hand .card.s-D')).color"
    plain = page.evaluate(club)
    page.click("#btn-settings")
    page.check("#set-fourColour")
    page.click("#settings-close")
    assert page.evaluate(club) != plain
    assert page.evaluate("JSON.parse(localStorage.getItem('barbu.settings')).fourColour") is True
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.evaluate("document.body.classList.contains('four-colour')")
    page.evaluate("localStorage.removeItem('barbu.settings')")  # the other tests' pages: two colours
    page.close()


def test_a_lost_connection_is_said_and_the_hand_cannot_be_played(desktop: Any, tmp_path: Path) -> None:
    port, db = free_port(), fresh_db(tmp_path, "offline.db")
    url = f"http://127.0.0.1:{port}"
    proc = start_server(port, db)
    try:
        page = open_table(desktop, url)
        page.click("#decision button[data-action=no-tricks]")
        next_target(page)
        stop_server(proc)
        page.wait_for_selector("#offline:not([hidden])")
        assert "connection" in page.inner_text("#offline").lower()
        assert page.locator("#hand button.card.legal:not([aria-disabled])").count() == 0
        proc = start_server(port, db)
        page.wait_for_selector("#offline", state="hidden", timeout=20000)
        assert next_target(page) is not None
        page.close()
    finally:
        stop_server(proc)


def test_the_network_going_is_said_at_once_and_the_page_connects_again(server: str, chrome: Any) -> None:
    # A browser gone offline may keep its socket open for minutes: the page must not wait for it.
    context = chrome.new_context(viewport=DESKTOP)
    page = open_table(context, server)
    page.click("#decision button[data-action=no-tricks]")
    next_target(page)
    context.set_offline(True)
    page.wait_for_selector("#offline:not([hidden])", timeout=5000)
    assert page.locator("#hand button.card.legal:not([aria-disabled])").count() == 0
    context.set_offline(False)
    page.wait_for_selector("#offline", state="hidden", timeout=20000)
    assert next_target(page) is not None
    assert page.errors == []
    context.close()
