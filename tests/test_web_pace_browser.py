"""Tables at your own pace in Chromium: chosen in the lobby, "your move" in the header and the lobby, the
decision reached from it, a move played, and the next table waiting offered; at phone size in fr, zh, my."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    ARTIFACTS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    get,
    open_form,
    post,
    serious_violations,
    serving,
)
from tests.test_web_chat_browser import person
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

BOTS = [{"kind": "bot", "level": "random"}] * 3
# A decision's first step: no double, a contract (or trump, or rank), or a card.
STEP = "#double-none:not(.sent), #decision:not([hidden]) button[data-action], #hand button.card.legal"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("pace"), "pace.db")) as url:
        yield url


def at_your_turn(server: str, table_id: str, seat: int = 0) -> None:
    """Wait until the computers have played up to the person's first decision (they play without delay)."""
    end = time.monotonic() + 20
    while True:
        meta = get(f"{server}/api/tables/{table_id}")["table"]
        pace = meta["own_pace"]
        if pace and pace["due"] is not None and meta["seats"][seat]["kind"] == "human":
            return
        assert time.monotonic() < end, "the person's turn did not come"
        time.sleep(0.1)


def pace_table(server: str, name: str = "Ann") -> dict[str, Any]:
    made: dict[str, Any] = post(server + "/api/tables", {"name": name, "own_pace": 12,
                                                        "seats": [{"kind": "you"}, *BOTS]})
    at_your_turn(server, made["id"])
    return made


# Adds up the page's layout shifts not caused by the reader (what Lighthouse's CLS counts).
SHIFTS = """window.shifted = 0; window.shifts = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) { if (e.hadRecentInput) continue;
  window.shifted += e.value;
  window.shifts.push([e.value, e.sources.map((s) => s.node && (s.node.id || s.node.nodeName))]); } })
  .observe({ type: "layout-shift", buffered: true });"""


def holding(page: Any, made: list[dict[str, Any]]) -> None:
    """This browser holds these seats (as it would once it opened each table)."""
    mine = {m["id"]: m["you"]["token"] for m in made}
    page.evaluate(f"localStorage.setItem('barbu.mine', JSON.stringify({json.dumps(mine)}))")


def test_a_table_at_your_own_pace_from_the_form_to_the_next_table(chrome: Any, server: str) -> None:
    page = person(chrome, server, "/", DESKTOP)
    open_form(page)
    page.fill("#create-name", "Ann")
    page.check("input[name=own-mode][value=own]")
    page.select_option("#own-hours", "24")
    assert "24 h for each move" in page.inner_text("#own-help") and page.locator("#clock-box").is_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#own-pace-box").screenshot(path=str(ARTIFACTS / "pace-form.png"))
    page.click("#create-button")
    page.wait_for_url("**/table/**")
    page.wait_for_function("typeof T !== 'undefined' && T.welcomed && T.meta && T.meta.own_pace"
                           " && T.meta.own_pace.hours === 24")
    first = page.evaluate("({id: T.id, you: {token: T.token}})")
    at_your_turn(server, first["id"])
    second = pace_table(server)
    holding(page, [first, second])
    page.goto(server + "/")
    page.wait_for_selector("#your-move-list li")  # shown once the lobby is drawn
    assert page.inner_text("#your-move-badge") == "Your move: 2"
    items = page.locator("#your-move-list li")
    assert items.count() == 2 and "left" in items.first.inner_text()
    assert serious_violations(page, "axe-pace-lobby.json") == []
    page.screenshot(path=str(ARTIFACTS / "pace-lobby-desktop.png"))
    here = items.first.get_attribute("data-table")
    items.first.locator("a").click()
    page.wait_for_url("**/table/**")
    page.wait_for_function("typeof T !== 'undefined' && T.view && T.view.current === T.you"
                           " && T.meta.own_pace.due")
    assert "left" in page.inner_text("#own-pace-bar")
    # Opened from "your move": the focus is on the decision itself.
    page.wait_for_function("document.activeElement.closest('#decision, #hand') !== null")
    assert serious_violations(page, "axe-pace-table.json") == []
    page.screenshot(path=str(ARTIFACTS / "pace-table-desktop.png"))
    page.keyboard.press("Enter")  # the focused decision, by keyboard
    # The deal decides what that decision was: a contract or a card ends Ann's turn at once; a double's
    # checkbox or a Trumps contract leaves her a step more (said with the "no double" or the first choice).
    for _ in range(4):
        page.wait_for_function(f"""() => document.getElementById('own-next-link')
          || (T.view.current === T.you && document.querySelector("{STEP}"))""")
        if page.locator("#own-next-link").count():
            break
        page.locator(STEP).first.click()
    page.wait_for_selector("#own-next-link")
    other = second["id"] if here == first["id"] else first["id"]
    page.click("#own-next-link")
    page.wait_for_url(f"**/table/{other}**")
    page.wait_for_function(f"T.id === {json.dumps(other)} && T.welcomed")
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("lang", ["fr", "zh", "my"])
def test_your_move_and_the_table_at_phone_size(chrome: Any, server: str, lang: str) -> None:
    made = pace_table(server, f"P{lang}")
    page = person(chrome, server, "/", PHONE, lang=lang)
    holding(page, [made])
    page.goto(server + "/")
    page.wait_for_selector("#your-move-list li")
    assert page.locator("#your-move-badge").is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the lobby is {width} px wide"
    assert serious_violations(page, f"axe-pace-lobby-{lang}.json") == []
    page.locator("#your-move-list li a").first.click()
    page.wait_for_url("**/table/**")  # the lobby has no T: asked of it, the wait would throw
    page.wait_for_function("typeof T !== 'undefined' && T.view && T.meta.own_pace && T.meta.own_pace.due")
    page.wait_for_selector("#own-left")
    assert serious_violations(page, f"axe-pace-table-{lang}.json") == []
    page.screenshot(path=str(ARTIFACTS / f"pace-table-phone-{lang}.png"))
    assert page.errors == []
    page.context.close()


def test_the_profile_keeps_its_choices_for_tables_at_your_own_pace(chrome: Any, server: str) -> None:
    made = post(server + "/api/players", {"name": "Zoe"})
    page = person(chrome, server, "/", DESKTOP)
    kept = json.dumps({"credential": made["credential"], **made["profile"]})
    page.evaluate(f"localStorage.setItem('barbu.profile', JSON.stringify({kept}))")
    page.goto(server + "/profile")
    page.wait_for_selector("#own-on-timeout")
    assert "24 h 0 min" in page.inner_text("#own-pace-form")  # a new profile's bank is full
    page.select_option("#own-on-timeout", "wait")
    page.select_option("#own-level", "random")
    page.fill("#own-away", time.strftime("%Y-%m-%d", time.localtime(time.time() + 3 * 86400)))
    page.click("#own-save")
    page.wait_for_function("document.getElementById('own-said').textContent.length > 0")
    assert page.evaluate("document.getElementById('own-on-timeout').value") == "wait"
    assert serious_violations(page, "axe-pace-profile.json") == []
    page.locator("#own-pace-part").screenshot(path=str(ARTIFACTS / "pace-profile.png"))
    assert page.errors == []
    page.context.close()


def test_the_badge_does_not_push_the_page_down(chrome: Any, server: str) -> None:
    # The badge comes once the page is drawn. Among the page links it grew their wrapped line by one at
    # Lighthouse's phone width (412 px) in English: the profile page moved down, a layout shift of 0.27.
    made = pace_table(server, "Shift")
    page = person(chrome, server, "/", {"width": 412, "height": 823})
    holding(page, [made])
    page.add_init_script(SHIFTS)
    page.goto(server + "/profile")
    page.wait_for_selector("#your-move-badge:not([hidden])")
    page.wait_for_timeout(300)  # a shift is reported just after the frame it happened in
    assert page.evaluate("window.shifted") < 0.01, page.evaluate("window.shifts")
    page.context.close()
