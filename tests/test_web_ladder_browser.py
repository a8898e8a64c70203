"""The leaderboard and a player's page in Chromium, after three rated games, in four languages."""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import ARTIFACTS, CHROMIUM, DESKTOP, PHONE, serious_violations, serving
from tests.test_web_ladder import RANDOMS
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")



def profile(url: str, name: str) -> dict[str, Any]:
    req = urllib.request.Request(url + "/api/players", data=json.dumps({"name": name}).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        made: dict[str, Any] = json.load(res)
        return made


def play_live(url: str, credential: str, seed: int) -> None:
    """One whole family game of a profile against two random computers on the running server:
    the table made by its API, the person's actions sent over its socket as fast as it answers."""
    from websockets.sync.client import connect

    body = json.dumps({"ruleset": "family", "players": 3, "seats": [{"kind": "you"}, *RANDOMS]}).encode()
    req = urllib.request.Request(url + "/api/tables", data=body, method="POST", headers={
        "Content-Type": "application/json", "X-Barbu-Player": credential})
    with urllib.request.urlopen(req, timeout=30) as res:
        made = json.load(res)
    rng = random.Random(seed)
    with connect(url.replace("http", "ws", 1) + f"/ws/{made['id']}", max_size=2**22) as ws:
        ws.send(json.dumps({"type": "hello", "token": made["you"]["token"]}))
        while True:
            msg = json.loads(ws.recv(timeout=30))
            if msg["type"] != "state":
                continue
            if msg["table"]["over"]:
                return
            view = msg["view"]
            if view["current"] == view["seat"] and view["legal"]:
                ws.send(json.dumps({"type": "act", "action": rng.choice(view["legal"])}))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server on which Zoë has finished three rated games and Marc one (family, 3 players: 21 hands,
    the shortest whole game), and the stored profile of a third who has played none."""
    with serving(fresh_db(tmp_path_factory.mktemp("ladder"), "ladder.db")) as url:
        zoe, marc = profile(url, "Zoë"), profile(url, "Marc")
        for seed in (1, 2, 3):
            play_live(url, zoe["credential"], seed)
        play_live(url, marc["credential"], 4)
        signed = profile(url, "Signed")
        yield url, json.dumps({"credential": signed["credential"], **signed["profile"]})




def shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(ARTIFACTS / f"ladder-{name}-{tag}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size["width"], f"{name} at {tag} is {width} px wide"
    page.set_viewport_size(DESKTOP)


def no_serious_violation(page: Any, name: str) -> None:
    assert serious_violations(page, f"axe-ladder-{name}.json") == []


@pytest.mark.parametrize("lang", ["en", "fr", "zh", "my"])
def test_the_leaderboard_after_three_rated_games(served: tuple[str, str], chrome: Any, lang: str) -> None:
    url, _ = served
    # The browser speaks the language, as a reader's would: the player's page, opened by a link
    # without ?lang=, is in it too.
    page = chrome.new_context(viewport=DESKTOP, locale="zh-CN" if lang == "zh" else lang).new_page()
    page.goto(f"{url}/leaderboard?rules=family&lang={lang}")
    rows = page.locator(".ladder-table tbody tr")
    rows.first.wait_for()
    names = rows.locator("td:nth-child(2)").all_inner_texts()
    games = dict(zip(names, rows.locator("td:nth-child(4)").all_inner_texts(), strict=True))
    assert games == {"Zoë": "3", "Marc": "1"}
    # The page writes the reader's decimal mark (2,7 in French): read it back as a number.
    texts = rows.locator("td:nth-child(3)").all_inner_texts()
    ratings = [float(x.replace("\u2212", "-").replace(",", ".")) for x in texts]
    assert ratings == sorted(ratings, reverse=True)
    assert page.locator("[aria-current=page]").count() == 1
    assert "[" not in page.locator("main").inner_text()  # no key left without its words
    shoot(page, f"board-{lang}")
    no_serious_violation(page, f"board-{lang}")
    page.get_by_role("link", name="Zoë").click()
    page.wait_for_selector("svg.ladder-chart")
    assert page.evaluate("document.documentElement.lang").startswith(lang)
    assert page.locator("svg.ladder-chart circle").count() == 4  # before the first game, then after each
    assert page.locator("section[data-rules=family] tr[data-contract]").count() == 7  # the seven challenges
    assert page.locator(".part:last-of-type tbody tr").count() == 3
    assert page.locator(".part:last-of-type tbody a.replay-link").count() == 3  # each game, its replay
    assert "[" not in page.locator("main").inner_text()
    shoot(page, f"player-{lang}")
    no_serious_violation(page, f"player-{lang}")
    page.locator("a.replay-link").first.click()
    page.wait_for_selector("#rp-view:not([hidden])")
    assert "/replay/" in page.url and "[" not in page.locator("#rp-title").inner_text()
    page.close()


def test_the_profile_page_and_the_lobby_lead_to_the_ratings(served: tuple[str, str], chrome: Any) -> None:
    url, kept = served
    page = chrome.new_context(viewport=DESKTOP).new_page()
    page.goto(f"{url}/profile")
    page.evaluate("kept => localStorage.setItem('barbu.profile', kept)", kept)
    page.goto(f"{url}/profile")
    page.click("#ratings-link")
    page.wait_for_selector("main .muted")
    assert page.url.endswith("/player/Signed") and page.locator("svg.ladder-chart").count() == 0
    page.goto(f"{url}/")
    page.click("#ladder-link")
    page.wait_for_selector(".ladder-table, main .muted")
    assert page.url.endswith("/leaderboard")
    page.goto(f"{url}/player/Nobody%20at%20all")
    assert page.locator("[role=alert]").inner_text() == "No player has that name."
    page.close()
