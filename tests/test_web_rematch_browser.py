"""A rematch in Chromium: two people in two browsers finish a game, one offers, both accept, both move on."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    ARTIFACTS,
    CHROMIUM,
    DESKTOP,
    FLAGS,
    PHONE,
    serving,
)
from tests.test_web_friends_browser import no_serious_violation
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

SETUP = {"ruleset": "family", "players": 3, "name": "Ann",
         "seats": [{"kind": "you"}, {"kind": "friend"}, {"kind": "bot", "level": "random"}]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # --idle 1: a person's seat may be handed to a computer after a second on its turn.
    with serving(fresh_db(tmp_path_factory.mktemp("rematch"), "rematch.db"), "--idle", "1") as url:
        yield url


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        out: dict[str, Any] = json.loads(res.read())
        return out


def finished_table(server: str) -> tuple[str, str, str]:
    """Ann's table, Ben seated by his link; each hands the other's seat to a computer when it is idle,
    and the computers play the whole game fast. The table's id, Ann's token and Ben's (fresh) token."""
    from websockets.sync.client import connect

    made = post(server + "/api/tables", SETUP)
    tid, ws_url = made["id"], server.replace("http", "ws") + f"/ws/{made['id']}"
    with connect(ws_url) as ann, connect(ws_url) as ben:
        ann.send(json.dumps({"type": "hello", "token": made["you"]["token"]}))
        ben.send(json.dumps({"type": "hello", "token": made["seats"][1]["token"], "name": "Ben"}))
        ben_token = next(m for m in messages(ben) if m["type"] == "welcome")["token"]
        handed: set[int] = set()
        deadline = time.monotonic() + 300
        while True:
            assert time.monotonic() < deadline, "the game never ended"
            with urllib.request.urlopen(f"{server}/api/tables/{tid}", timeout=10) as res:
                meta = json.loads(res.read())["table"]
            if meta["over"]:
                return tid, made["you"]["token"], ben_token
            for seat, other in ((0, ben), (1, ann)):
                if seat not in handed and meta["seats"][seat]["kind"] == "human":
                    other.send(json.dumps({"type": "takeover", "seat": seat, "level": "random"}))
            handed = {s for s in (0, 1) if meta["seats"][s]["kind"] == "bot"}
            for ws in (ann, ben):
                drain(ws)
            time.sleep(0.3)


def messages(ws: Any) -> Iterator[dict[str, Any]]:
    while True:
        yield json.loads(ws.recv(timeout=10))


def drain(ws: Any) -> None:
    with_timeout = True
    while with_timeout:
        try:
            ws.recv(timeout=0.01)
        except TimeoutError:
            with_timeout = False


def shoot(page: Any, name: str) -> None:
    """The page at desktop and phone sizes, saved under test-artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
        page.screenshot(path=str(ARTIFACTS / f"rematch-{name}-{tag}.png"))
    page.set_viewport_size(DESKTOP)


def test_a_rematch_accepted_by_all_takes_both_pages_to_the_new_table(server: str) -> None:
    from playwright.sync_api import sync_playwright

    tid, ann_token, ben_token = finished_table(server)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        ann = browser.new_context(viewport=DESKTOP, locale="en-GB").new_page()
        ben = browser.new_context(viewport=DESKTOP, locale="fr-FR").new_page()
        ann.goto(f"{server}/table/{tid}?lang=en#t={ann_token}")
        ben.goto(f"{server}/table/{tid}?lang=fr#t={ben_token}")
        for page in (ann, ben):  # the end of the game: the places, and the offer's button
            page.wait_for_selector("#end-rematch button[data-op='offer']")
        shoot(ann, "end-en")
        assert ben.inner_text("#end-rematch button") == "Proposer une revanche"
        ann.click("#end-rematch button[data-op='offer']")
        ann.wait_for_selector("#rematch-dialog[open] button[data-op='withdraw']")
        ben.wait_for_selector("#rematch-dialog[open] button[data-op='accept']")
        assert "Ann propose une revanche" in ben.inner_text("#rematch-dialog")
        assert "Ann: accepted" in ann.inner_text("#rematch-dialog") and "Ben: not answered" in \
            ann.inner_text("#rematch-dialog")
        shoot(ann, "offered-en")
        shoot(ben, "offer-fr")
        no_serious_violation(ben, "rematch-dialog")
        ben.click("#rematch-dialog button[data-op='decline']")  # a decline ends the offer, said to both
        ann.wait_for_function("() => document.querySelector('#rematch').innerText.includes('Ben declined')")
        ann.wait_for_selector("#rematch-dialog:not([open])", state="attached")
        assert "Vous avez refusé la revanche" in ben.inner_text("#rematch")
        shoot(ann, "declined-en")
        ann.click("#rematch button[data-op='offer']")  # offered again, from the table this time
        ben.wait_for_selector("#rematch-dialog[open] button[data-op='accept']")
        assert ben.evaluate("document.activeElement.dataset.op") == "accept"  # the dialog takes the focus
        ben.keyboard.press("Escape")  # closed, the offer stays on the table's own panel
        ben.wait_for_selector("#rematch button[data-op='accept']")
        shoot(ben, "panel-fr")
        ben.click("#rematch button[data-op='accept']")
        for page in (ann, ben):
            page.wait_for_url(lambda url: f"/table/{tid}" not in url and "/table/" in url, timeout=15000)
            page.wait_for_selector("#hand .card")
        new_ann, new_ben = ann.url.split("/table/")[1], ben.url.split("/table/")[1]
        assert new_ann.split("#")[0].split("?")[0] == new_ben.split("#")[0].split("?")[0]
        assert new_ann.split("#t=")[1] != new_ben.split("#t=")[1]  # each person's own new token
        assert "Ann" in ann.inner_text("#me-info") and "Ben" in ben.inner_text("#me-info")
        shoot(ann, "new-table-en")
        shoot(ben, "new-table-fr")
        ben.goto(f"{server}/?lang=fr")  # the lobby's "your tables": the old table leads to the new seat
        old_row = ben.locator(f"#your-list li[data-table='{tid}']")
        old_row.locator("a.rematch-link").wait_for()
        assert old_row.locator("a.rematch-link").get_attribute("href") == "/table/" + new_ben
        shoot(ben, "your-tables-fr")
        back = browser.new_context(viewport=DESKTOP).new_page()  # Ann's old link later: the way on
        back.goto(f"{server}/table/{tid}?lang=en#t={ann_token}")
        back.wait_for_selector("#rematch a.rematch-go")
        assert back.get_attribute("#rematch a.rematch-go", "href") == "/table/" + new_ann.split("?")[0]
        shoot(back, "later-en")
        browser.close()
