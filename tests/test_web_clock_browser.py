"""The turn clock in Chromium: chosen in the lobby, counted down at the table, a computer taking over."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import ARTIFACTS, CHROMIUM, get
from tests.test_web_chat_browser import person
from tests.test_web_table_browser import DESKTOP, PHONE, server  # noqa: F401  (fixture)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


def test_the_clock_is_chosen_counts_down_and_hands_the_seat_over(chrome: Any, server: str) -> None:  # noqa: F811
    page = person(chrome, server, "/", DESKTOP)  # the lobby
    page.wait_for_selector("#clock-seconds")
    page.fill("#create-name", "Ann")
    assert page.locator("#clock-level").is_disabled()
    page.select_option("#clock-seconds", "15")
    page.select_option("#clock-level", "random")
    assert "15 s" in page.inner_text("#clock-help")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#clock-box").screenshot(path=str(ARTIFACTS / "clock-lobby.png"))
    page.click("#create-button")
    page.wait_for_selector("#hand .card")
    page.wait_for_function("T.meta.turn_clock && T.meta.turn_clock.seconds === 15")
    # Whoever is to act first, Ann's own decision comes within the first hand: wait for it.
    page.wait_for_function("T.view.current === T.you && T.meta.clock_left !== null", timeout=60000)
    page.wait_for_function("$('status').textContent.includes('s left, then the computer (Random)')")
    page.screenshot(path=str(ARTIFACTS / "clock-desktop.png"))
    page.wait_for_function("T.meta.seats[T.you].kind === 'bot'", timeout=30000)
    banner = page.locator("#banner")
    assert banner.is_visible() and "Take it back" in banner.inner_text()
    page.click("#banner button")
    # The server gives the seat back at once (the page shows the computer's plays made meanwhile
    # first, in order; and the clock may hand the seat over again 15 s later).
    table_id = page.evaluate("T.id")
    deadline = time.monotonic() + 10
    while get(f"{server}/api/tables/{table_id}")["table"]["seats"][0]["kind"] != "human":
        assert time.monotonic() < deadline, "the seat was not given back"
        time.sleep(0.2)
    assert page.errors == []
    page.context.close()


def test_a_seat_shows_the_clock_of_the_person_to_act(chrome: Any, server: str) -> None:  # noqa: F811
    from tests.test_web_browser import post

    made = post(server + "/api/tables", {"name": "Ann", "turn_clock": {"seconds": 60, "level": "basic"},
                                         "seats": [{"kind": "human"}, {"kind": "human"},
                                                   {"kind": "bot"}, {"kind": "bot"}]})
    ben_link = next(s["link"] for s in made["seats"] if s["seat"] == 1)
    ann = person(chrome, server, made["you"]["link"], DESKTOP)
    ben = person(chrome, server, ben_link, PHONE, lang="fr", name="Ben")
    ann.wait_for_function("T.view && T.view.current >= 0 && T.view.current <= 1 "
                          "&& T.meta.clock_left !== null", timeout=60000)
    waiting = ben if ann.evaluate("T.view.current") == 0 else ann
    waiting.wait_for_selector(".seat .countdown.clock")
    text = waiting.inner_text(".seat .countdown.clock")
    assert ("s left" in text) if waiting is ann else ("encore" in text)
    shot = "clock-seat-desktop.png" if waiting is ann else "clock-seat-phone-fr.png"
    waiting.screenshot(path=str(ARTIFACTS / shot))
    for page in (ann, ben):
        page.context.close()
