"""What a small screen hides, in Chromium: every tool of the table in reach, Copy's confirmation,
a game told apart from its rematch in "your tables", and the sign that the contracts go on below."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    ARTIFACTS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    ROOMY,
    post,
    serious_violations,
    serving,
)
from tests.test_web_rematch_browser import finished_table
from tests.web_helpers import fresh_db

from barbu.engine.game import Game
from barbu.engine.state import State

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

SMALL = {"width": 360, "height": 740}
LANDSCAPE = {"width": PHONE["height"], "height": PHONE["width"]}

# Each tool shown (on the row or in the open More list) whole inside the screen: the offenders.
TOOLS_OUTSIDE = """() => [...document.querySelectorAll('.tools button, .tools .button')]
  .filter((b) => !b.closest('[hidden]') && b.getClientRects().length)
  .map((b) => [b.id, b.getBoundingClientRect()])
  .filter(([, r]) => r.left < 0 || r.right > innerWidth || r.top < 0 || r.bottom > innerHeight)
  .map(([id]) => id)"""
SHOWN = "ids => ids.filter((id) => document.getElementById(id).getClientRects().length > 0)"
BOT = {"kind": "bot", "level": "random"}
RARE = ["btn-record", "btn-rules", "btn-invite", "btn-replay", "btn-analyse"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # --idle 1: the finished game's two people hand their seats to computers after a second.
    with serving(fresh_db(tmp_path_factory.mktemp("phone"), "phone.db"), "--idle", "1", *ROOMY) as url:
        yield url


@pytest.fixture(scope="module")
def games(server: str) -> dict[str, str]:
    """A finished game of Ann, Ben and a computer, and its rematch, made over the sockets."""
    from websockets.sync.client import connect

    tid, ann, ben = finished_table(server)
    ws_url = server.replace("http", "ws") + f"/ws/{tid}"
    with connect(ws_url) as a, connect(ws_url) as b:
        a.send(json.dumps({"type": "hello", "token": ann}))
        b.send(json.dumps({"type": "hello", "token": ben}))
        a.send(json.dumps({"type": "rematch", "op": "offer"}))
        wait_for(b, lambda m: isinstance(m.get("table"), dict) and m["table"]["rematch"]["open"] is True)
        b.send(json.dumps({"type": "rematch", "op": "accept"}))
        link = wait_for(a, lambda m: m["type"] == "rematch-link")["link"]
    return {"old": tid, "ann": ann, "new": link.split("/table/")[1].split("#")[0], "new_link": link}


def wait_for(ws: Any, wanted: Any) -> dict[str, Any]:
    for _ in range(200):
        m: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if wanted(m):
            return m
    raise AssertionError("the message never came")


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phone-{name}.png"))


def at_table(chrome: Any, server: str, link: str, size: dict[str, int], lang: str, **kw: Any) -> Any:
    context = chrome.new_context(viewport=size, **kw)
    context.add_init_script(f"localStorage.setItem('barbu.lang', '{lang}');")
    page = context.new_page()
    page.goto(server + link)
    # A friend's table waits for them; a finished one opens its places.
    page.wait_for_selector("#hand .card, #sheet tr.hand-row, #start-now, #end-dialog[open] .end-places")
    return page


@pytest.mark.parametrize("lang", ["en", "my", "zh"])
def test_every_tool_is_in_reach_on_a_phone_without_scrolling_sideways(
        server: str, games: dict[str, str], chrome: Any, lang: str) -> None:
    # The end of a game shows the most tools: Replay and Analyse my play besides the others.
    page = at_table(chrome, server, f"/table/{games['old']}#t={games['ann']}", PHONE, lang)
    page.wait_for_selector("#btn-replay:not([hidden])", state="attached")
    page.wait_for_selector("#end-dialog[open]")  # the end of the game opens its places (gameend.js)
    page.click("#end-close")
    for size in (PHONE, SMALL, LANDSCAPE):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        tag = f"{lang}-{size['width']}x{size['height']}"
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], tag
        assert page.evaluate(TOOLS_OUTSIDE) == [], tag
        # The rare tools wait under More, which says whether it is open and opens by keyboard.
        assert page.evaluate(SHOWN, RARE) == [], tag
        more = page.locator("#btn-more")
        assert more.get_attribute("aria-expanded") == "false"
        more.focus()
        page.keyboard.press("Enter")
        assert more.get_attribute("aria-expanded") == "true"
        assert page.evaluate(SHOWN, RARE) == RARE, tag  # Invite too: Ben came by a link
        assert page.evaluate(TOOLS_OUTSIDE) == [], tag
        page.keyboard.press("Tab")  # on into the list, in the order shown
        assert page.evaluate("document.activeElement.id") == "btn-record"
        shot(page, f"tools-open-{tag}")
        if size is PHONE:
            assert serious_violations(page, f"axe-phone-tools-{lang}.json") == []
        page.keyboard.press("Escape")
        assert more.get_attribute("aria-expanded") == "false" and page.evaluate(SHOWN, RARE) == []
        assert page.evaluate("document.activeElement.id") == "btn-more"
    # A desktop has the room: every tool on the row, no More.
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(150)
    assert not page.locator("#btn-more").is_visible()
    assert page.evaluate(SHOWN, RARE) == RARE
    shot(page, f"tools-{lang}-desktop")
    page.context.close()


def test_more_closes_when_the_phone_is_touched_outside_it(server: str, chrome: Any) -> None:
    made = post(server + "/api/tables", {"ruleset": "classic", "players": 4, "name": "Ann",
                                         "seats": [{"kind": "you"}, {"kind": "friend"}] + [BOT] * 2})
    page = at_table(chrome, server, made["you"]["link"], PHONE, "en")
    more = page.locator("#btn-more")
    for press in ("click", "redrawn"):
        more.click()
        assert more.get_attribute("aria-expanded") == "true"
        shot(page, f"more-open-{press}")
        page.mouse.move(200, 700)
        page.mouse.down()
        if press == "redrawn":  # the table draws its seats and hand anew between press and release
            page.evaluate("renderOthers(); renderMe(T.view, true)")
        page.mouse.up()
        assert more.get_attribute("aria-expanded") == "false", press
        assert page.evaluate(SHOWN, RARE) == []
    shot(page, "more-closed")
    more.click()
    page.keyboard.press("Escape")  # Escape and More itself still close it
    assert more.get_attribute("aria-expanded") == "false"
    more.click()
    more.click()
    assert more.get_attribute("aria-expanded") == "false"
    page.context.close()


def invite_page(chrome: Any, server: str, size: dict[str, int], lang: str, **kw: Any) -> Any:
    made = post(server + "/api/tables", {"ruleset": "classic", "players": 4, "name": "Ann",
                                         "seats": [{"kind": "you"}, {"kind": "friend"}] + [BOT] * 2})
    page = at_table(chrome, server, made["you"]["link"], size, lang, **kw)
    page.wait_for_selector("#btn-invite:not([hidden])", state="attached")
    if page.locator("#btn-more").is_visible():
        page.click("#btn-more")
    page.click("#btn-invite")
    page.wait_for_selector("#invite-links li[data-seat='1'] button.copy")
    return page


@pytest.mark.parametrize("size,lang,said", [(DESKTOP, "en", "Link copied"), (PHONE, "fr", "Lien copié"),
                                            (PHONE, "my", "လင့်ခ်ကို ကူးပြီးပါပြီ")])
def test_copy_says_the_link_is_copied_beside_the_button_then_fades(
        server: str, chrome: Any, size: dict[str, int], lang: str, said: str) -> None:
    page = invite_page(chrome, server, size, lang, permissions=["clipboard-read", "clipboard-write"])
    row = page.locator("#invite-links li[data-seat='1']")
    live = row.locator(".copied")
    assert live.get_attribute("aria-live") == "polite" and live.inner_text() == ""
    row.locator("button.copy").click()
    page.wait_for_function("el => el.textContent !== ''", arg=live.element_handle())
    assert live.inner_text() == said
    assert page.evaluate("navigator.clipboard.readText()") == row.locator("input.link").input_value()
    page.wait_for_timeout(450)  # its fade in
    shot(page, f"copied-{lang}-{size['width']}")
    assert serious_violations(page, f"axe-phone-copied-{lang}.json") == []
    page.wait_for_function("el => el.textContent === ''", arg=live.element_handle(), timeout=5000)
    page.context.close()


def test_a_refused_clipboard_selects_the_link_and_says_to_press_ctrl_c(server: str, chrome: Any) -> None:
    # No clipboard at all: what a page served over plain http from another machine gets.
    page = invite_page(chrome, server, PHONE, "en")
    page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    row = page.locator("#invite-links li[data-seat='1']")
    row.locator("button.copy").click()
    page.wait_for_function("el => el.textContent !== ''", arg=row.locator(".copied").element_handle())
    assert "Ctrl+C" in row.locator(".copied").inner_text()
    link = row.locator("input.link")
    assert page.evaluate("el => [document.activeElement === el, el.selectionStart, el.selectionEnd]",
                         link.element_handle()) == [True, 0, len(link.input_value())]
    shot(page, "copy-refused-en-390")
    page.context.close()


def test_the_profile_transfer_link_has_a_copy_that_confirms(server: str, chrome: Any) -> None:
    context = chrome.new_context(viewport=PHONE, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(server + "/profile")
    page.fill("#make-name", "Dora")
    page.click("#make-form button[type=submit]")
    page.click("#transfer-button")
    page.locator("#transfer-box button.copy").click()
    page.wait_for_function("() => $('transfer-box').querySelector('.copied').textContent === 'Link copied'")
    assert page.evaluate("navigator.clipboard.readText()") == page.locator("#transfer-link").input_value()
    context.close()


@pytest.mark.parametrize("size", [DESKTOP, PHONE])
def test_your_tables_tell_a_game_from_its_rematch_and_offer_the_replay(
        server: str, games: dict[str, str], chrome: Any, size: dict[str, int]) -> None:
    context = chrome.new_context(viewport=size)
    new_token = games["new_link"].split("#t=")[1]
    held = {games["old"]: games["ann"], games["new"]: new_token}
    context.add_init_script(f"localStorage.setItem('barbu.mine', '{json.dumps(held)}');"
                            "localStorage.setItem('barbu.lang', 'en');")
    page = context.new_page()
    page.goto(server + "/")
    old = page.locator(f"#your-list li[data-table='{games['old']}']")
    new = page.locator(f"#your-list li[data-table='{games['new']}']")
    new.wait_for()
    assert old.inner_text() != new.inner_text()
    assert "Rematch of the game of" in new.inner_text() and "Rematch of" not in old.inner_text()
    assert "started" in old.inner_text() and "started" in new.inner_text()
    assert old.locator("a.replay-link").get_attribute("href") == f"/replay/{games['old']}"
    assert new.locator("a.replay-link").count() == 0  # the rematch is not over
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    page.locator("#your-tables").screenshot(path=str(ARTIFACTS / f"phone-your-tables-{size['width']}.png"))
    assert serious_violations(page, f"axe-phone-your-tables-{size['width']}.json") == []
    context.close()


def dealer_table(chrome: Any, server: str, ruleset: str, lang: str, size: dict[str, int]) -> Any:
    players = 4
    game = Game(ruleset, players)
    seed = next(s for s in range(1000) if State(game, seed=s).first_declarer == 0)
    made = post(server + "/api/tables", {"ruleset": ruleset, "players": players, "name": "Ann", "seed": seed,
                                         "seats": [{"kind": "you"}] + [BOT] * 3})
    page = at_table(chrome, server, made["you"]["link"], size, lang)
    page.wait_for_selector("#decision button[data-action]")
    return page


HINT = ("() => { const s = $('decision').querySelector('.more-below'); "
        "return s && !s.hidden ? s.textContent : null; }")
OVERFLOWS = "() => { const d = $('decision'); return d.scrollHeight - d.clientHeight - d.scrollTop > 2; }"


@pytest.mark.parametrize("ruleset,lang", [(r, lang) for lang in ("my", "en") for r in ("classic", "family")])
def test_the_contract_box_says_more_are_below_until_scrolled_to_its_end(
        server: str, chrome: Any, ruleset: str, lang: str) -> None:
    page = dealer_table(chrome, server, ruleset, lang, PHONE)
    for size in (PHONE, LANDSCAPE):
        page.set_viewport_size(size)
        page.evaluate("$('decision').scrollTop = 0")
        page.wait_for_timeout(200)
        tag = f"{ruleset}-{lang}-{size['width']}x{size['height']}"
        if not page.evaluate(OVERFLOWS):
            assert page.evaluate(HINT) is None, tag  # it all fits: no sign
            shot(page, f"contracts-{tag}")
            continue
        sign = page.evaluate(HINT)
        assert sign is not None, tag
        hidden = page.evaluate("""() => { const d = $('decision'), s = d.querySelector('.more-below');
          const edge = d.getBoundingClientRect().bottom - s.offsetHeight;
          return [...d.querySelectorAll('.choices > button')].filter((b) => {
            const r = b.getBoundingClientRect(); return r.top + r.height / 2 > edge; }).length; }""")
        assert hidden > 0 and str(hidden) in sign, (tag, sign)
        shot(page, f"contracts-{tag}")
        page.evaluate("$('decision').scrollTop = $('decision').scrollHeight")
        page.wait_for_function(f"() => ({HINT})() === null", timeout=3000)
        shot(page, f"contracts-end-{tag}")
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "my"])
def test_on_a_desktop_the_sign_shows_only_if_the_contracts_do_not_fit(
        server: str, chrome: Any, lang: str) -> None:
    page = dealer_table(chrome, server, "classic", lang, DESKTOP)
    page.wait_for_timeout(200)
    if lang == "en":
        assert not page.evaluate(OVERFLOWS)  # the felt grows for the seven (style.css)
    assert (page.evaluate(HINT) is not None) == page.evaluate(OVERFLOWS)
    shot(page, f"contracts-classic-{lang}-desktop")
    page.context.close()
