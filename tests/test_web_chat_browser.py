"""The table's chat in Chromium: two players and a watcher in separate browsers, escaping, unread, mute."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import ARTIFACTS, CHROMIUM, post
from tests.test_web_table_browser import DESKTOP, FAST, PHONE, server  # noqa: F401  (fixture)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture
def table(server: str) -> dict[str, Any]:  # noqa: F811
    bot = {"kind": "bot", "level": "basic"}
    return post(server + "/api/tables", {"name": "Ann", "chat": "everyone",
                                         "seats": [{"kind": "human"}, {"kind": "human"}, bot, bot]})


def person(chrome: Any, server: str, link: str, size: dict[str, int], lang: str = "en",  # noqa: F811
           name: str | None = None) -> Any:
    context = chrome.new_context(viewport=size, has_touch=size is PHONE, is_mobile=size is PHONE)
    page = context.new_page()
    page.add_init_script(FAST + f"localStorage.setItem('barbu.lang', '{lang}');")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(server + link)
    if name is not None:
        page.fill("#seat-name", name)
        page.click("#name-form button")
    if link.startswith("/table/"):
        page.wait_for_function("T.welcomed")
    return page


def say(page: Any, text: str) -> None:
    if not page.locator("#chat[open]").count():
        page.click("#chat summary")
    page.fill("#chat-input", text)
    page.click("#chat-form button")


def test_two_players_and_a_watcher_talk_and_markup_stays_text(chrome: Any, server: str,  # noqa: F811
                                                                 table: dict[str, Any]) -> None:
    ann = person(chrome, server, table["you"]["link"], DESKTOP)
    ben_link = next(s["link"] for s in table["seats"] if s["seat"] == 1)
    ben = person(chrome, server, ben_link, PHONE, lang="fr", name="Ben")
    assert ann.locator("#chat[open]").count() == 1  # open beside the game on a wide screen
    assert ben.locator("#chat[open]").count() == 0  # closed on a phone: it has an unread count
    say(ann, "hello <b>Ben</b> & <img src=x onerror=alert(1)>")
    ben.wait_for_selector("#chat-unread:not([hidden])")
    assert ben.inner_text("#chat-unread") == "1 nouveau"
    ben.click("#chat summary")
    line = ben.locator("#chat-list li").last
    assert "hello <b>Ben</b> & <img src=x onerror=alert(1)>" in line.inner_text()
    assert ben.locator("#chat-list b").count() == 1 and ben.locator("#chat-list img").count() == 0
    # The badge goes on the <details>' toggle event, which comes as a task after the click.
    ben.wait_for_selector("#chat-unread", state="hidden")
    say(ben, "salut Ann")
    ann.wait_for_function("$('chat-list').textContent.includes('salut Ann')")
    assert ann.locator("#chat-list li").last.inner_text().endswith("Ben: salut Ann")
    assert ann.locator("#chat-input").input_value() == ""
    watcher = person(chrome, server, f"/table/{table['id']}", DESKTOP)
    watcher.wait_for_function("$('chat-list').children.length === 2")  # the newest messages on arrival
    say(watcher, "nice game")
    ann.wait_for_function("$('chat-list').textContent.includes('A watcher: nice game')")
    ARTIFACTS.mkdir(exist_ok=True)
    ann.locator("#chat").scroll_into_view_if_needed()
    ann.screenshot(path=str(ARTIFACTS / "chat-desktop.png"), full_page=True)
    ben.locator("#chat").scroll_into_view_if_needed()
    ben.screenshot(path=str(ARTIFACTS / "chat-phone-fr.png"))
    for page in (ann, ben, watcher):
        assert page.errors == []
        page.context.close()


def test_mute_hides_the_chat_and_is_remembered(chrome: Any, server: str, table: dict[str, Any]) -> None:  # noqa: F811
    ann = person(chrome, server, table["you"]["link"], DESKTOP)
    ann.check("#chat-mute")
    assert ann.locator("#chat-list").is_hidden() and ann.locator("#chat-muted").is_visible()
    ben_link = next(s["link"] for s in table["seats"] if s["seat"] == 1)
    ben = person(chrome, server, ben_link, DESKTOP, name="Ben")
    say(ben, "can you hear me")
    ben.wait_for_function("$('chat-list').textContent.includes('can you hear me')")
    assert ann.locator("#chat-unread").is_hidden()
    ann.reload()
    ann.wait_for_function("T.welcomed")
    assert ann.locator("#chat-mute").is_checked() and ann.locator("#chat-list").is_hidden()
    ann.uncheck("#chat-mute")
    assert "can you hear me" in ann.inner_text("#chat-list")
    for page in (ann, ben):
        page.context.close()


def test_a_watcher_only_reads_where_the_players_alone_write(chrome: Any, server: str) -> None:  # noqa: F811
    made = post(server + "/api/tables", {"name": "Ann"})
    watcher = person(chrome, server, f"/table/{made['id']}", DESKTOP, lang="zh")
    assert watcher.locator("#chat-form").is_hidden()
    assert watcher.inner_text("#chat-note") == "只有本桌玩家可以在聊天中发言。"
    watcher.context.close()


def test_the_chat_starts_closed_at_a_table_of_computers(chrome: Any, server: str) -> None:  # noqa: F811
    made = post(server + "/api/tables", {"name": "Ann"})  # Ann and three computers: nobody to talk to
    ann = person(chrome, server, made["you"]["link"], DESKTOP)
    assert ann.locator("#chat[open]").count() == 0
    ann.click("#chat summary")  # still there when wanted
    assert ann.locator("#chat[open]").count() == 1
    say(ann, "anyone?")
    ann.wait_for_selector("#chat-list li")
    assert "anyone?" in ann.locator("#chat-list li").last.inner_text()
    assert ann.errors == []
    ann.context.close()
