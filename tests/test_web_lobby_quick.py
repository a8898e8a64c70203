"""The lobby's one tap to play and the computers' pace in Chromium (issue #37 items 11 and 12): the
last settings remembered, the whole form behind "More options", the pace chosen in Settings or the form."""

from __future__ import annotations

import json
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
    serious_violations,
    serving,
)
from tests.test_web_table_browser import next_target
from tests.web_helpers import fresh_db

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)",
)]

SMALL = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("quick"), "quick.db"), *ROOMY) as url:
        yield url


@pytest.fixture
def page(chrome: Any) -> Iterator[Any]:
    context = chrome.new_context(viewport=DESKTOP)
    yield context.new_page()
    context.close()


def lobby(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#seat-1", state="attached")  # the form is made once the server answered
    page.wait_for_function("document.getElementById('quick-line').textContent !== ''")


def table_made_by(page: Any, button: str) -> dict[str, Any]:
    """Press ``button`` in the lobby; the new table's facts once its page is open."""
    page.click(button)
    page.wait_for_url("**/table/**")
    page.wait_for_function("typeof T !== 'undefined' && T.meta && T.meta.seats")
    meta: dict[str, Any] = page.evaluate("T.meta")
    return meta


def open_more(page: Any) -> None:
    page.click("#more-options > summary")
    page.wait_for_selector("#create-button", state="visible")


def in_view(page: Any, selector: str) -> bool:
    return bool(page.evaluate("""(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
      return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }""", selector))


def test_one_tap_makes_a_table_against_the_computers_and_opens_it(server: str, page: Any) -> None:
    lobby(page, server)
    assert in_view(page, "#quick-play")
    assert not page.is_visible("#create-button")  # the long form waits behind "More options"
    page.fill("#create-name", "Ann")
    meta = table_made_by(page, "#quick-play")
    assert (meta["ruleset"], meta["players"], meta["options"]) == ("classic", 4, [])
    assert [s["kind"] for s in meta["seats"]] == ["human", "bot", "bot", "bot"]
    assert meta["seats"][0]["name"] == "Ann" and meta["pace"] == "normal"


def test_one_tap_plays_again_with_the_rules_players_level_and_options_last_used(server: str,
                                                                               page: Any) -> None:
    lobby(page, server)
    page.fill("#create-name", "Bea")
    open_more(page)
    page.check("input[name=ruleset][value=family]")
    page.select_option("#create-players", "5")
    for i in range(1, 5):
        page.select_option(f"#seat-{i}", "bot:random")
    table_made_by(page, "#create-button")
    lobby(page, server)
    assert page.input_value("#create-name") == "Bea"
    meta = table_made_by(page, "#quick-play")
    assert (meta["ruleset"], meta["players"]) == ("family", 5)
    assert [s["level"] for s in meta["seats"][1:]] == ["random"] * 4
    lobby(page, server)
    open_more(page)
    page.check("input[name=option][value=heart-lead]")
    table_made_by(page, "#create-button")
    lobby(page, server)
    meta = table_made_by(page, "#quick-play")
    assert (meta["ruleset"], meta["players"], meta["options"]) == ("classic", 4, ["heart-lead"])


def test_more_options_opens_by_keyboard_with_the_create_button_in_view(server: str, page: Any) -> None:
    lobby(page, server)
    summary = page.locator("#more-options > summary")
    summary.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#create-button", state="visible")
    assert page.evaluate("document.getElementById('more-options').open")
    assert in_view(page, "#create-button")
    assert serious_violations(page, "axe-lobby-more-options.json") == []
    page.keyboard.press("Enter")  # and closes the same way
    page.wait_for_selector("#create-button", state="hidden")


@pytest.mark.parametrize("size", [PHONE, SMALL], ids=["390x844", "360x740"])
def test_on_a_phone_the_one_tap_button_is_in_view(server: str, chrome: Any, size: dict[str, int]) -> None:
    context = chrome.new_context(viewport=size, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        lobby(page, server)
        assert in_view(page, "#quick-play")
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    finally:
        context.close()


def test_the_computers_pace_is_chosen_in_settings_and_in_the_form(server: str, page: Any) -> None:
    lobby(page, server)
    page.fill("#create-name", "Cy")
    meta = table_made_by(page, "#quick-play")
    page.click("#btn-settings")
    page.wait_for_selector("#set-pace")
    paces = page.locator("#set-pace option").evaluate_all("os => os.map(o => o.value)")
    assert paces == ["slow", "normal", "fast"]
    assert page.is_visible("#set-trickPause")  # the pause after a trick is the page's own
    page.select_option("#set-pace", "fast")
    page.click("#settings-close")
    lobby(page, server)
    assert "Fast" in page.inner_text("#quick-line")
    assert table_made_by(page, "#quick-play")["pace"] == "fast"
    lobby(page, server)
    open_more(page)
    assert page.input_value("#create-pace") == "fast"
    page.select_option("#create-pace", "slow")
    made = table_made_by(page, "#create-button")
    assert made["pace"] == "slow" and made["id"] != meta["id"]


SPY = ("window.travels = []; const animate = Element.prototype.animate;"
       "Element.prototype.animate = function (frames, options) {"
       " window.travels.push(options.duration); return animate.apply(this, [frames, options]); };")


@pytest.mark.parametrize(("pace", "longest"), [("normal", 380), ("fast", 160)])
def test_a_fast_table_shows_its_cards_travel_quicker(server: str, chrome: Any, pace: str,
                                                    longest: int) -> None:
    context = chrome.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        settings = json.dumps({"pace": pace})
        page.add_init_script(SPY + f"localStorage.setItem('barbu.settings', '{settings}')")
        lobby(page, server)
        page.fill("#create-name", "Dee")
        assert table_made_by(page, "#quick-play")["pace"] == pace
        deadline = time.monotonic() + 60
        while not page.evaluate("window.travels.filter(d => d > 0).length >= 3"):  # Ann plays, and they
            assert time.monotonic() < deadline, "no card travelled"
            target = next_target(page)
            if target is not None:
                target.click()
            page.wait_for_timeout(300)
        durations = [d for d in page.evaluate("window.travels") if d > 0]
        assert max(durations) <= longest and (pace == "fast" or max(durations) > 160)
    finally:
        context.close()
