"""Fair play in Chromium: a table waits for its invited friend, one browser takes one seat, a guest's seat
is tied to the profile made during the game, and the pages say what is rated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, open_form, serving
from tests.test_web_friends_browser import context, create, no_serious_violation, shoot
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("fair"), "fair.db")) as url:
        yield url


def test_a_table_waits_for_its_friend_until_its_creator_starts_it(server: str, chrome: Any) -> None:
    ann_ctx, ben_ctx = context(chrome), context(chrome)
    ann = ann_ctx.new_page()
    ann.goto(server + "/")
    open_form(ann)
    assert "most of their own decisions" in ann.inner_text("#rated-note")  # said where a table is made
    table_id = create(ann, server, "Ann", ["friend", "bot:random", "bot:random"])
    ann.click("#invites a.button.primary")
    ann.wait_for_selector("#start-now")
    assert "Waiting for the invited player of seat 2" in ann.inner_text("#status")
    assert ann.locator("#hand .card").count() == 0  # nothing is dealt while the friend is awaited
    shoot(ann, "waiting-table")
    no_serious_violation(ann, "waiting-table")
    ben = ben_ctx.new_page()  # a watcher sees the wait, and no way to start it
    ben.goto(f"{server}/table/{table_id}")
    ben.wait_for_function("() => document.querySelector('#status').textContent.includes('Waiting for')")
    assert ben.locator("#start-now").count() == 0
    ann.click("#start-now")
    ann.wait_for_selector("#hand .card")
    said = "Ann started the game without the invited player: a computer plays seat 2."
    ann.wait_for_function("s => document.querySelector('#filled').textContent === s", arg=said)
    ben.wait_for_function("s => document.querySelector('#filled').textContent === s && "
                          "document.querySelector('#live').textContent === s", arg=said)
    assert not ben.locator("#filled").is_hidden()
    for ctx in (ann_ctx, ben_ctx):
        ctx.close()


def test_one_browser_takes_one_seat_and_a_second_tab_opens_its_own(server: str, chrome: Any) -> None:
    ctx = context(chrome)
    page = ctx.new_page()
    table_id = create(page, server, "Eve", ["open", "bot:random", "bot:random"])
    page.click("#invites a.button.primary")
    page.wait_for_selector("#hand .card")
    client = page.evaluate("Friends.clientId()")
    assert page.evaluate("localStorage.getItem('barbu.client')") == f'"{client}"'
    refused = page.evaluate("id => fetch(`/api/tables/${id}/join`, {method: 'POST', "
                            "headers: Friends.headers(), body: JSON.stringify({name: 'Eve2'})})"
                            ".then(r => r.json().then(b => [r.status, "
                            "b.error.code, b.error.args.seat]))", table_id)
    assert refused == [409, "already-seated", 1]
    tab = ctx.new_page()  # a second tab: the lobby's Join goes back to the seat this browser holds
    tab.goto(server + "/")
    tab.click(f"#table-list li[data-table='{table_id}'] button")
    tab.wait_for_selector("#hand .card")
    assert tab.evaluate("T.you") == 0
    listed = tab.evaluate("id => fetch(`/api/tables/${id}`).then(r => r.json())", table_id)
    assert listed["table"]["seats"][1]["claimed"] is False  # no second seat was taken
    ctx.close()


def test_a_guest_ties_the_seat_to_the_profile_made_during_the_game(server: str, chrome: Any) -> None:
    ctx = context(chrome)
    page = ctx.new_page()
    table_id = create(page, server, "Gus", ["bot:random", "bot:random", "bot:random"])
    page.wait_for_selector("#hand .card")
    assert page.locator("#btn-tie").is_hidden()  # no profile yet: nothing to count the game for
    page.goto(server + "/profile")
    page.wait_for_selector("#make-name")
    assert "counts for nobody" in page.inner_text("#rated-part")
    page.fill("#make-name", "Gus Lee")
    page.click("#make-form button")
    button = page.locator(f"#guest-seats li[data-table='{table_id}'] button.tie")
    button.wait_for()
    assert button.inner_text() == "Count it for Gus Lee"
    shoot(page, "profile-guest-seats")
    no_serious_violation(page, "profile-guest-seats")
    button.click()
    page.wait_for_function("() => document.querySelector('#profile-said').textContent.includes('now counts')")
    page.wait_for_selector("#guest-seats p.help")
    mine = page.evaluate("fetch('/api/mine', {method: 'POST', headers: Object.assign({'Content-Type': "
                         "'application/json'}, Friends.headers()), body: '{}'}).then(r => r.json())")
    assert [(t["id"], t["holders"][t["seat"]]) for t in mine["tables"]] == [(table_id, "profile")]
    other = create(page, server, "Gus Lee", ["bot:random", "bot:random", "bot:random"])  # as the profile
    assert other != table_id
    ctx.close()


def test_a_guest_counts_the_game_from_the_table(server: str, chrome: Any) -> None:
    ctx = context(chrome)
    page = ctx.new_page()
    create(page, server, "Hal", ["bot:random", "bot:random", "bot:random"])
    page.wait_for_selector("#hand .card")
    seat = page.url
    made = page.evaluate("fetch('/api/players', {method: 'POST', "
                         "headers: {'Content-Type': 'application/json'}, "
                         "body: JSON.stringify({name: 'Hal Roe'})}).then(r => r.json())")
    page.evaluate("made => localStorage.setItem('barbu.profile', JSON.stringify(Object.assign("
                  "{credential: made.credential}, made.profile)))", made)
    page.goto(seat)
    page.wait_for_selector("#hand .card")
    page.click("#btn-tie")  # among the tools (under More on a phone)
    page.wait_for_function("() => document.querySelector('#toast').textContent.includes('Hal Roe')")
    page.wait_for_selector("#btn-tie", state="hidden")
    assert page.evaluate("T.meta.seats[0].holder") == "profile"
    ctx.close()
