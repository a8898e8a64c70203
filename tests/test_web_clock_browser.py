"""The turn clock in Chromium: chosen in the lobby, counted down at the table, a computer taking over."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import ARTIFACTS, CHROMIUM, get, open_form
from tests.test_web_chat_browser import person
from tests.test_web_table_browser import DESKTOP, PHONE, server  # noqa: F401  (fixture)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


def test_the_clock_is_chosen_counts_down_and_hands_the_seat_over(chrome: Any, server: str) -> None:  # noqa: F811
    page = person(chrome, server, "/", DESKTOP)  # the lobby
    open_form(page)
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
    page.wait_for_function("$('status').textContent.includes('s left, then the computer (random)')")
    page.screenshot(path=str(ARTIFACTS / "clock-desktop.png"))
    page.wait_for_function("T.meta.seats[T.you].kind === 'bot'", timeout=30000)
    banner = page.locator("#banner")
    assert banner.is_visible() and "Take it back" in banner.inner_text()
    # The banner is drawn anew at each of the racing computer's cards: its button is pressed as it
    # stands now (a pointer click waited for a node the next state had already replaced).
    page.evaluate("document.querySelector('#banner button').click()")
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


def handed_over(chrome: Any, server: str,  # noqa: F811
                size: dict[str, int]) -> tuple[Any, str, list[dict[str, Any]]]:
    """Gus alone with three computers and a 15 s clock, his page open until the clock gives his seat away."""
    from tests.test_web_browser import post

    bots = [{"kind": "bot", "level": "basic"}] * 3
    made = post(server + "/api/tables", {"name": "Gus", "turn_clock": {"seconds": 15, "level": "basic"},
                                         "seats": [{"kind": "human"}, *bots]})
    page = person(chrome, server, "/", size)
    refusals = errors_received(page)
    page.goto(server + made["you"]["link"])
    page.wait_for_function("T.welcomed && T.view")
    deadline = time.monotonic() + 90
    while get(f"{server}/api/tables/{made['id']}")["table"]["seats"][0]["kind"] != "bot":
        assert time.monotonic() < deadline, "the clock did not hand the seat over"
        time.sleep(0.2)
    page.wait_for_selector("#banner button", timeout=10000)  # "Take it back"
    return page, made["id"], refusals


def errors_received(page: Any) -> list[dict[str, Any]]:
    """The refusals the server sends this page, collected from its socket as they arrive."""
    import json

    refusals: list[dict[str, Any]] = []

    def frames(ws: Any) -> None:
        def one(payload: Any) -> None:
            msg = json.loads(payload)
            if msg.get("type") == "error":
                refusals.append(msg)
        ws.on("framereceived", one)
    page.on("websocket", frames)
    return refusals


def over_on_server(server: str, table_id: str) -> None:  # noqa: F811
    deadline = time.monotonic() + 60
    while not get(f"{server}/api/tables/{table_id}")["table"]["over"]:
        assert time.monotonic() < deadline, "the computers did not finish the game"
        time.sleep(0.2)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_page_left_behind_by_the_computer_catches_up_to_the_game_over(
        chrome: Any, server: str, size: str) -> None:  # noqa: F811
    """The clock hands Gus's seat to a computer, which (with computers that do not wait) plays the
    whole game in seconds: the page shows the game over at once, not hand after hand behind it."""
    page, table_id, refusals = handed_over(chrome, server, DESKTOP if size == "desktop" else PHONE)
    over_on_server(server, table_id)
    # The newest state is drawn: the totals, the winners, the replay, no banner left waiting.
    page.wait_for_function("T.meta.over && !Motion.pending", timeout=20000)
    assert page.evaluate("!$('btn-replay').hidden")  # on a phone: under More
    assert "The game is over" in page.inner_text("#status")
    assert "hand 28 of 28" in page.inner_text("#info-title")
    assert page.locator("#banner").is_hidden()
    assert not page.locator("#summary-dialog[open]").count()
    # The drawn state is the newest in substance (the server may send the final state again, a
    # new object with the same contents, and one that comes in just now is drawn a moment later),
    # and every hand is on the sheet.
    page.wait_for_function("T.view.hand_no === T.latest.view.hand_no && "
                           "JSON.stringify(T.view.totals) === JSON.stringify(T.latest.view.totals)",
                           timeout=5000)
    assert page.evaluate("T.results.length") == 28
    assert [r for r in refusals if r.get("code") == "not-this-hand"] == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"caught-up-{size}.png"))
    for shown in ("sheet", "end"):  # the end of the game opens its places (gameend.js)
        if page.locator(f"#{shown}-dialog[open]").count():
            page.click(f"#{shown}-close")
    page.screenshot(path=str(ARTIFACTS / f"caught-up-{size}-table.png"))
    assert page.errors == []
    page.context.close()


def test_taking_the_seat_back_from_a_racing_computer_shows_the_hand_the_server_is_at(
        chrome: Any, server: str) -> None:  # noqa: F811
    page, table_id, refusals = handed_over(chrome, server, DESKTOP)
    # "Take it back" at once, while the computer races on; unless the computers already ended the
    # game, whose places then cover the page (a click there would wait for a button nobody can reach).
    page.evaluate("() => document.querySelector('#end-dialog[open]')"
                  " || document.querySelector('#banner button').click()")
    deadline = time.monotonic() + 10
    while (table := get(f"{server}/api/tables/{table_id}")["table"])["seats"][0]["kind"] != "human" \
            and not table["over"]:
        assert time.monotonic() < deadline, "the seat was not given back"
        time.sleep(0.2)
    # The seat is Gus's again (or the game ended first): the banner goes, the page is at the
    # server's hand, and nothing it says is refused as being about a hand the table has left.
    page.wait_for_function("$('banner').hidden", timeout=5000)
    # The plays made meanwhile may still be shown in order first, but never more than a few tricks
    # (shown at the page's pace: on two cores busy with three other test files, that took over 20 s).
    page.wait_for_function("T.view === T.latest.view && !Motion.pending", timeout=60000)
    assert page.evaluate("!$('btn-replay').hidden === T.meta.over")
    assert [r for r in refusals if r.get("code") == "not-this-hand"] == []
    page.screenshot(path=str(ARTIFACTS / "taken-back.png"))
    assert page.errors == []
    page.context.close()
