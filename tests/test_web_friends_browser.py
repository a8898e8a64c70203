"""Friends in Chromium, several browsers at once: invitation links, your tables, a profile carried along."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    CHROMIUM,
    DESKTOP,
    open_form,
    serious_violations,
    serving,
    shoot_sizes,
)
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")



@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("friends"), "friends.db")) as url:
        yield url




def context(chrome: Any, **kw: Any) -> Any:
    return chrome.new_context(viewport=DESKTOP, **kw)


def shoot(page: Any, name: str) -> None:
    shoot_sizes(page, f"friends-{name}")


def no_serious_violation(page: Any, name: str) -> None:
    assert serious_violations(page, f"axe-{name}.json") == []


def create(page: Any, server: str, name: str, seats: list[str], private: bool = False) -> str:
    """Make a table from the lobby's form (``seats``: the other seats' choices); its id."""
    page.goto(server + "/")
    open_form(page)
    if not page.locator("#create-name").evaluate("el => el.readOnly"):
        page.fill("#create-name", name)
    for i, value in enumerate(seats, start=1):
        page.select_option(f"#seat-{i}", value)
    if private:
        page.check("#create-private")
    page.click("#create-button")
    # With friends to invite the lobby shows their links; with computers only it goes to the table.
    # (Asked while the page may be between two documents: the box may not be there at that moment.)
    page.wait_for_function("() => location.pathname.startsWith('/table/') || "
                           "(document.querySelector('#invites') || {hidden: true}).hidden === false")
    where = page.url if "/table/" in page.url else page.locator("#invites input.link").first.input_value()
    return str(where.split("/table/")[1].split("#")[0])


def your_tables(page: Any, server: str) -> Any:
    page.goto(server + "/")
    page.wait_for_selector("#your-list li[data-table]")
    return page.locator("#your-list li[data-table]")


def test_a_friends_seat_is_refused_to_a_stranger_and_taken_with_its_link(server: str, chrome: Any) -> None:
    ann_ctx, eve_ctx, ben_ctx = context(chrome), context(chrome), context(chrome)
    ann = ann_ctx.new_page()
    ann.goto(server + "/")
    open_form(ann)
    ann.fill("#create-name", "Ann")
    ann.select_option("#seat-1", "friend")
    ann.select_option("#seat-2", "open")
    assert "only whoever opens it" in ann.inner_text("#seat-1-help")
    shoot(ann, "create-seat-kinds")
    no_serious_violation(ann, "lobby")
    table_id = create(ann, server, "Ann", ["friend", "bot:random", "bot:random"])
    first_link = ann.locator("#invites input.link").input_value()
    assert f"/table/{table_id}#t=" in first_link
    ann.click("#invites a.button.primary")
    ann.wait_for_selector("#start-now")  # nothing is dealt while the friend's seat is free
    ann.click("#btn-invite")
    ann.wait_for_selector("#invite-links li[data-seat='1'] button.reissue")
    shoot(ann, "invite-links")
    no_serious_violation(ann, "invite-links")
    ann.click("#invite-links button.reissue")  # a new link: the one sent before lapses
    ann.wait_for_function("old => document.querySelector('#invite-links input.link').value !== old",
                          arg=first_link)
    link = ann.locator("#invite-links input.link").input_value()
    ann.click("#invite-close")

    eve = eve_ctx.new_page()  # a stranger: the lobby offers no Join, and the server refuses one
    eve.goto(server + "/")
    row = eve.locator(f"#table-list li[data-table='{table_id}']")
    row.wait_for()
    assert row.locator("button").count() == 0 and "kept for a friend" in row.inner_text()
    refused = eve.evaluate("id => fetch(`/api/tables/${id}/join`, {method: 'POST', body: "
                           "JSON.stringify({name: 'Eve'})})"
                           ".then(r => r.json().then(b => [r.status, b.error.code]))", table_id)
    assert refused == [403, "invite-only"]
    eve.goto(first_link)  # the lapsed link
    eve.wait_for_selector("#banner:not([hidden])")
    assert "does not give a seat" in eve.inner_text("#banner")

    ben = ben_ctx.new_page()
    ben.goto(link)
    ben.wait_for_selector("#name-form:not([hidden])")
    ben.fill("#seat-name", "Ben")
    ben.click("#name-form button")
    ben.wait_for_selector("#hand .card")
    # Said in the toast (the live region goes on to the first hand, dealt as the friend came).
    ann.wait_for_function("() => document.querySelector('#toast').textContent.includes('Ben has joined')")
    ann.wait_for_selector("#hand .card")
    ann.click("#btn-invite")
    assert "taken by Ben" in ann.inner_text("#invite-links li[data-seat='1']")
    for ctx in (ann_ctx, eve_ctx, ben_ctx):
        ctx.close()


def test_your_tables_after_the_tab_is_closed_and_the_browser_restarted(server: str, chrome: Any) -> None:
    ctx = context(chrome)
    page = ctx.new_page()
    # A name is shown as the text it is, never read as markup.
    table_id = create(page, server, "<b>Cleo</b>", ["bot:random", "bot:random", "bot:random"], private=True)
    page.wait_for_url(f"**/table/{table_id}#t=*")
    page.wait_for_selector("#hand .card")
    seat_url = page.url
    page.close()
    page = ctx.new_page()  # the tab was closed: a new one in the same browser
    mine = your_tables(page, server)
    item = page.locator(f"#your-list li[data-table='{table_id}']")
    text = item.inner_text()
    assert text.startswith("<b>Cleo</b>, ") and item.locator("b").count() == 0
    state = {"your-turn": "your turn", "waiting": "waiting for the others"}[item.get_attribute("data-state")]
    assert mine.count() == 1 and "private" in text and "last move" in text and state in text
    assert table_id not in page.inner_text("#table-list")  # private: not in the public list
    shoot(page, "lobby-your-tables")
    no_serious_violation(page, "lobby-your-tables")
    state = ctx.storage_state()
    ctx.close()
    again = context(chrome, storage_state=state)  # the browser restarted, its storage kept
    page = again.new_page()
    your_tables(page, server)
    page.click(f"#your-list li[data-table='{table_id}'] a.button")
    page.wait_for_selector("#hand .card")
    assert page.url.split("#")[0] == seat_url.split("#")[0] and page.evaluate("T.you") == 0
    again.close()


def test_a_profile_carried_by_a_transfer_code_and_signed_in_with_a_password(server: str, chrome: Any) -> None:
    home, laptop, phone = context(chrome), context(chrome), context(chrome)
    page = home.new_page()
    page.goto(server + "/profile")
    page.fill("#make-name", "Zoé")
    page.click("#make-form button")
    page.wait_for_selector("#profile-name")
    assert page.inner_text("#profile-name") == "Zoé"
    page.fill("#new-password", "a long secret")
    page.click("#password-form button")
    page.wait_for_selector("text=Your profile has a password")
    page.fill("#current-password", "not the password")  # a password is changed only with the current one
    page.fill("#new-password", "another long secret")
    page.click("#password-form button")
    page.wait_for_selector("#profile-said.bad")
    assert "current password is wrong" in page.inner_text("#profile-said")
    page.fill("#current-password", "a long secret")
    page.fill("#new-password", "a long secret")
    page.click("#password-form button")
    page.wait_for_selector("#profile-said:not(.bad)")
    page.click("#transfer-button")
    code = page.inner_text("#transfer-code")
    assert page.locator("#transfer-link").input_value().endswith(f"/profile#code={code}")
    shoot(page, "profile")
    no_serious_violation(page, "profile")
    table_id = create(page, server, "", ["bot:random", "bot:random", "bot:random"])
    page.wait_for_url(f"**/table/{table_id}#t=*")

    other = laptop.new_page()  # the second device, with the code typed in
    other.goto(server + "/profile")
    other.fill("#code-input", code)
    other.click("#code-form button")
    other.wait_for_selector("#profile-name")
    assert other.inner_text("#profile-name") == "Zoé"
    mine = your_tables(other, server)  # the table made on the first device is there too
    assert mine.count() == 1 and other.locator("#create-name").input_value() == "Zoé"
    other.goto(server + "/profile")
    assert other.locator("#code-input").count() == 0  # this browser holds the profile now

    third = phone.new_page()  # a third, by name and password
    third.goto(server + "/profile?lang=fr")
    third.wait_for_selector("#signin-form")
    assert "Se connecter avec un mot de passe" in third.inner_text("#profile-body")
    shoot(third, "profile-signed-out-fr")
    third.goto(server + "/profile?lang=en")
    third.fill("#signin-name", "zoé")
    third.fill("#signin-password", "wrong password")
    third.click("#signin-form button")
    third.wait_for_selector("#profile-said.bad")
    assert "do not match" in third.inner_text("#profile-said")
    third.fill("#signin-password", "a long secret")
    third.click("#signin-form button")
    third.wait_for_selector("#profile-name")
    assert third.inner_text("#profile-name") == "Zoé"
    assert your_tables(third, server).count() == 1
    for ctx in (home, laptop, phone):
        ctx.close()


@pytest.mark.parametrize("lang, minutes, days", [
    ("fr", "il y a 3 minutes", "avant-hier"),  # the browser's own words (Intl.RelativeTimeFormat)
    ("be", "3 хвіліны таму", "2 дні таму"),  # Chromium has no Belarusian ones: the catalogue's
    ("my", "3 မိနစ်က", "2 ရက်က"),
])
def test_when_a_table_last_moved_is_said_in_the_readers_language(server: str, chrome: Any, lang: str,
                                                                 minutes: str, days: str) -> None:
    ctx = context(chrome)
    page = ctx.new_page()
    page.goto(f"{server}/?lang={lang}")
    page.wait_for_selector("#seat-1", state="attached")
    said = page.evaluate("() => { const now = Date.now() / 1000; "
                         "return [now - 5, now - 180, now - 2 * 86400].map(Friends.ago); }")
    assert said[1:] == [minutes, days] and said[0] != "now" and said[0] == page.evaluate("t('ago.now')")
    ctx.close()
