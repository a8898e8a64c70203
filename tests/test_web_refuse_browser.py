"""The seat-taking form in Chromium: a refused name keeps the form, and a used link of ours opens our seat."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    CHROMIUM,
    DESKTOP,
    serious_violations,
    serving,
    shoot_sizes,
)
from tests.test_web_friends_browser import create
from tests.web_helpers import fresh_db

CATALOGUES = Path(__file__).resolve().parents[1] / "src" / "barbu" / "web" / "static" / "i18n"

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("refuse"), "refuse.db")) as url:
        yield url


def shoot(page: Any, name: str) -> None:
    shoot_sizes(page, f"refuse-{name}")


def profile_table(chrome: Any, server: str, name: str) -> tuple[Any, str]:
    """A profile's page and the invitation link of the friend's seat (seat 2) of its new table."""
    page = chrome.new_context(viewport=DESKTOP).new_page()
    page.goto(server + "/profile")
    page.fill("#make-name", name)
    page.click("#make-form button")
    page.wait_for_selector("#profile-name")
    create(page, server, "", ["friend", "bot:random", "bot:random"])
    return page, str(page.locator("#invites input.link").first.input_value())


def guest(chrome: Any, lang: str = "en") -> tuple[Any, list[str]]:
    """A browser without a profile, in ``lang``, and the JavaScript errors its pages throw."""
    ctx = chrome.new_context(viewport=DESKTOP)
    ctx.add_init_script(f"localStorage.setItem('barbu.lang', '{lang}')")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def refused(page: Any, typed: str) -> str:
    """Type a name in the seat's form and wait for its refusal; the reason shown beside the field."""
    page.fill("#seat-name", typed)
    page.click("#name-form button[type=submit]")
    page.wait_for_selector("#seat-said:not(:empty)")
    return str(page.inner_text("#seat-said"))


def test_a_refused_name_keeps_the_form_with_the_name_selected(server: str, chrome: Any) -> None:
    alice, link = profile_table(chrome, server, "Alice")
    bob, errors = guest(chrome)
    bob.goto(link)
    bob.wait_for_selector("#name-form:not([hidden])")
    for typed in ("Alice", "alice", "ALICE "):
        said = refused(bob, typed)
        assert said == f"{typed.strip()} is the name of a profile: sign in with it, or pick another name."
        bob.wait_for_timeout(300)  # nothing takes the form away afterwards
        assert bob.is_visible("#name-form") and bob.input_value("#seat-name") == typed
        chosen = bob.evaluate("() => { const f = document.activeElement;"
                              " return [f.id, f.selectionStart, f.selectionEnd]; }")
        assert chosen == ["seat-name", 0, len(typed)]
        assert bob.get_attribute("#seat-name", "aria-invalid") == "true"
        assert bob.get_attribute("#seat-said", "role") == "alert"
    assert serious_violations(bob, "axe-refuse-form.json") == []
    shoot(bob, "refused-en")
    bob.keyboard.type("Bob")  # the refused name is selected: typing replaces it
    assert bob.input_value("#seat-name") == "Bob" and bob.inner_text("#seat-said") == ""
    bob.keyboard.press("Enter")
    bob.wait_for_function("() => T.you === 1")
    assert bob.is_hidden("#name-form") and errors == []
    shoot(bob, "seated")
    alice.context.close()
    bob.context.close()


def test_a_refusal_reads_in_the_pages_language(server: str, chrome: Any) -> None:
    alice, link = profile_table(chrome, server, "Aline")
    bob, errors = guest(chrome, "fr")
    bob.goto(link)
    bob.wait_for_selector("#name-form:not([hidden])")
    words = json.loads((CATALOGUES / "fr.json").read_text(encoding="utf-8"))["error.profile-name"]
    assert refused(bob, "aline") == words.replace("{name}", "aline")
    assert bob.is_visible("#name-form") and errors == []
    shoot(bob, "refused-fr")
    alice.context.close()
    bob.context.close()


def test_our_own_used_invitation_opens_our_seat_and_nobody_elses(server: str, chrome: Any) -> None:
    alice, link = profile_table(chrome, server, "Alix")
    bob, errors = guest(chrome)
    bob.goto(link)
    bob.fill("#seat-name", "Bob")
    bob.click("#name-form button[type=submit]")
    bob.wait_for_function("() => T.you === 1")
    bob.goto(server + "/")
    bob.goto(link)  # the same invitation again, in the browser that took it
    bob.wait_for_function("() => T.welcomed && T.you === 1")
    assert bob.is_hidden("#banner") and errors == []
    assert link.split("#t=")[1] not in bob.url  # the seat's own token, not the used one
    shoot(bob, "reopened")
    eve, _ = guest(chrome)
    eve.goto(link)  # somebody else with the same (used) link gets no seat
    eve.wait_for_selector("#banner:not([hidden])")
    assert "does not give a seat" in eve.inner_text("#banner")
    assert eve.evaluate("() => T.you") is None
    alice.context.close()
    bob.context.close()
    eve.context.close()


MOMENT = 1796156945  # 2026-12-01 20:29:05 UTC


def formats(chrome: Any, server: str, lang: str) -> dict[str, str]:
    """What the page in ``lang`` makes of MOMENT and of 14 (i18n.js), in a browser set to en-US."""
    ctx = chrome.new_context(viewport=DESKTOP, locale="en-US", timezone_id="UTC")
    page = ctx.new_page()
    page.goto(f"{server}/?lang={lang}")
    page.wait_for_selector("#seat-1", state="attached")
    made: dict[str, str] = page.evaluate(f"""() => ({{
        number: I18N.number(14, 1), minute: I18N.date({MOMENT}, {{ time: true }}),
        second: I18N.date({MOMENT}, {{ seconds: true }}), day: I18N.date({MOMENT}, {{ year: true }}),
        clock: I18N.date({MOMENT}, {{ timeOnly: true }}) }})""")
    ctx.close()
    return made


def test_dates_and_decimals_follow_the_pages_language_not_the_browsers(server: str, chrome: Any) -> None:
    fr, my, sq, be = (formats(chrome, server, lang) for lang in ("fr", "my", "sq", "be"))
    assert fr["number"] == "14,0" and "déc." in fr["minute"] and "20:29" in fr["minute"]
    assert (sq["number"], be["number"], my["number"]) == ("14,0", "14,0", "14.0")
    assert (my["minute"], my["second"], my["clock"]) == ("ဒီ 1 20:29", "ဒီ 1 20:29:05", "20:29")
    assert (sq["minute"], sq["day"]) == ("1 dhj, 20:29", "1 dhj 2026")
    assert be["day"] == "1 сне 2026 г."


def test_your_tables_in_burmese_read_in_burmese_and_never_alike(server: str, chrome: Any) -> None:
    ctx = chrome.new_context(viewport=DESKTOP)
    ctx.add_init_script("localStorage.setItem('barbu.lang', 'my')")
    page = ctx.new_page()
    for _ in range(3):  # three tables in under a minute: two at least start in the same minute
        create(page, server, "Ann", ["bot:random", "bot:random", "bot:random"])
        page.wait_for_function("() => T.welcomed")
        page.wait_for_timeout(1100)  # each in its own second
    page.goto(server + "/")
    page.wait_for_selector("#your-list li[data-table]")
    items = page.locator("#your-list li[data-table]").all_inner_texts()
    assert len(items) == 3 and len(set(items)) == 3, items
    months = json.loads((CATALOGUES / "my.json").read_text(encoding="utf-8"))["format.months"].split("|")
    for when in page.locator("#your-list .t-when").all_inner_texts():
        assert any(m in when for m in months) and not any(c.isascii() and c.isalpha() for c in when), when
    shoot(page, "your-tables-my")
    ctx.close()
