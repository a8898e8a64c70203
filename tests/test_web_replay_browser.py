"""The replay viewer in Chromium: a finished game stepped through, a record chosen or dropped, analyses."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import ROOT
from tests.test_web_browser import (
    ARTIFACTS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    free_port,
    get,
    post,
    serious_violations,
    start_server,
    stop_server,
)
from tests.web_helpers import fresh_db
from websockets.sync.client import connect

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

GOLDEN = ROOT / "tests" / "data" / "classic_no_queens_golden_doubling.json"
REUSSITE = ROOT / "tests" / "data" / "family_reussite_ace_extra.json"
DONE = "document.querySelector('#rp-progress-text').textContent.startsWith('Analysis done')"


def wait_over(url: str, table: str) -> None:
    deadline = time.monotonic() + 120
    while not get(f"{url}/api/tables/{table}")["table"]["over"]:
        assert time.monotonic() < deadline, "the computers did not finish their game"
        time.sleep(0.2)


def play_my_seat(url: str, table: str, token: str) -> None:
    """A person's whole game over the socket, as quickly as the server answers: any legal action."""
    rng = random.Random(4)
    with connect(url.replace("http", "ws") + f"/ws/{table}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=30))
            if msg["type"] != "state":
                continue
            view = msg["view"]
            if msg["table"]["over"]:
                return
            if view["current"] == view["seat"] and view["legal"]:
                ws.send(json.dumps({"type": "act", "action": rng.choice(view["legal"])}))
    raise AssertionError("the game did not end in time")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A server with two finished games: one of computers only, one where Ann played seat 1."""
    db = fresh_db(tmp_path_factory.mktemp("replay"), "replay.db")
    port = free_port()
    proc = start_server(port, db, "--analysis-budget", "0.01")
    url = f"http://127.0.0.1:{port}"
    try:
        bots = post(f"{url}/api/tables", {"seats": [{"kind": "bot", "level": "random"}] * 4, "seed": 11})
        # Ann's game is a shorter family game (a hand each): its analysis judges her 50-odd decisions
        # rather than a classic game's 400 (a minute and a half of the suite on two cores).
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 3
        ann = post(f"{url}/api/tables", {"name": "Ann", "seed": 12, "ruleset": "family", "rounds": 4,
                                         "seats": seats})
        play_my_seat(url, ann["id"], ann["you"]["token"])
        wait_over(url, bots["id"])
        yield {"url": url, "bots": bots["id"], "ann": ann["id"], "token": ann["you"]["token"]}
    finally:
        stop_server(proc)




@pytest.fixture
def page(chrome: Any) -> Iterator[Any]:
    context = chrome.new_context(viewport=DESKTOP)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    context.close()


def cards_shown(page: Any) -> int:
    return int(page.locator("#rp-seats .card").count())


def test_stepping_through_a_finished_game_by_keys_and_buttons(server: dict[str, str], page: Any) -> None:
    page.goto(f"{server['url']}/")
    replay = page.locator(f"#table-list a[href='/replay/{server['bots']}']")  # the lobby's Replay
    replay.wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-lobby-en-desktop.png"))
    replay.click()
    page.wait_for_selector("#rp-view:not([hidden])")
    assert page.locator("#rp-hand-title").inner_text() == "Hand 1 of 28"
    assert cards_shown(page) == 52  # a finished game: every hand face up
    # Watched, not played: no seat of it to analyse here (the note says how to analyse any seat).
    assert page.locator("#rp-analyse").count() == 0 and "download the record" in page.locator(
        "#rp-analysis-form").inner_text()
    page.keyboard.press("ArrowRight")
    assert cards_shown(page) == 51 and page.locator("#rp-centre .rp-played").count() == 1
    page.keyboard.press("ArrowDown")  # to the end of the trick: four cards and who took them
    assert page.locator("#rp-centre .rp-played").count() == 4
    assert page.locator("#rp-centre .rp-taken").count() == 1
    assert "takes the trick" in page.locator("#rp-say").inner_text()
    page.keyboard.press("ArrowLeft")
    assert page.locator("#rp-centre .rp-played").count() == 3
    page.keyboard.press("PageDown")
    assert page.locator("#rp-hand-title").inner_text() == "Hand 2 of 28"
    assert page.locator("#rp-sheet tr.hand-row").count() == 1  # hand 1 is on the sheet now
    page.keyboard.press("End")
    assert page.locator("#rp-hand-title").inner_text() == "Hand 28 of 28"
    assert page.locator("#rp-sheet tr.hand-row").count() == 28
    assert page.locator("#rp-sheet .winner-line").count() == 1
    page.keyboard.press("Home")
    assert page.locator("#rp-hand-title").inner_text() == "Hand 1 of 28" and cards_shown(page) == 52
    page.click("#go-next-hand")
    page.click("#go-next")
    assert page.locator("#rp-hand-title").inner_text() == "Hand 2 of 28" and cards_shown(page) == 51
    page.locator("#rp-hands button").nth(6).click()
    assert page.locator("#rp-hand-title").inner_text() == "Hand 7 of 28"
    # By keyboard on the strip of plays: Enter on a play goes there, and the focus stays on the strip.
    page.locator("#rp-steps button").nth(3).focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.closest('#rp-steps') !== null")
    assert page.locator("#rp-where").inner_text().startswith("card 3 of")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.classList.contains('here')")
    assert page.locator("#rp-where").inner_text().startswith("card 4 of")
    assert page.errors == []


def test_a_game_in_progress_cannot_be_replayed(server: dict[str, str], page: Any) -> None:
    made = post(f"{server['url']}/api/tables", {"name": "Ben", "seats": [{"kind": "human"}] * 2
                                                + [{"kind": "bot", "level": "random"}] * 2})
    page.goto(f"{server['url']}/replay/{made['id']}?lang=fr")
    page.wait_for_selector("#rp-error:not([hidden])")
    assert "encore en cours" in page.locator("#rp-error").inner_text()
    assert page.locator("#rp-view").is_hidden() and page.locator(".card").count() == 0


def test_a_chosen_record_file_is_replayed_and_a_damaged_one_refused(server: dict[str, str], page: Any,
                                                                    tmp_path: Path) -> None:
    page.goto(f"{server['url']}/replay?lang=fr")
    damaged = json.loads(GOLDEN.read_text(encoding="utf-8"))
    damaged["hands"][0]["actions"][1] = "AS"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(damaged), encoding="utf-8")
    # The picker listens once the translations are in, which on a busy machine can be after the
    # page's load event: a file chosen before would go unread.
    page.wait_for_selector("#rp-drop:not([hidden])")
    page.set_input_files("#rp-file", str(bad))
    page.wait_for_selector("#rp-error:not([hidden])")
    said = page.locator("#rp-error").inner_text()
    words = "refusé à la donne 1, action 2 (Ben) : Ben joue une carte qu’il n’a pas en main : as de pique."
    assert words in said, said
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-refused-fr-desktop.png"))
    page.set_input_files("#rp-file", str(GOLDEN))
    page.wait_for_selector("#rp-view:not([hidden])")
    assert page.locator("#rp-error").is_hidden()
    assert page.locator("#rp-hand-title").inner_text() == "Donne 1 sur 28"
    assert "surcontré" in page.locator("#rp-contract").inner_text()
    assert page.errors == []


def drop(page: Any, path: Path) -> None:
    """Drop a file on the page as a person dragging it from a file manager would."""
    page.wait_for_selector("#rp-drop:not([hidden])")  # the page is ready for it
    page.evaluate("""([name, text]) => {
      const data = new DataTransfer();
      data.items.add(new File([text], name, { type: "application/json" }));
      document.body.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true }));
      document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true }));
    }""", [path.name, path.read_text(encoding="utf-8")])


def test_a_dropped_reussite_record_shows_the_layout_growing(server: dict[str, str], page: Any) -> None:
    page.goto(f"{server['url']}/replay")
    drop(page, REUSSITE)
    page.wait_for_selector("#rp-view:not([hidden])")
    assert page.locator("#rp-centre .layout-row .card").count() == 0
    for k in range(1, 6):
        page.keyboard.press("ArrowRight")
        placed = page.locator("#rp-centre .layout-row .card").count()
        passes = sum(1 for s in json.loads(REUSSITE.read_text())["hands"][0]["actions"][:k] if s == "pass")
        assert placed == k - passes
    assert page.errors == []


def test_the_analysis_of_a_dropped_record_shows_its_progress_and_marks(server: dict[str, str],
                                                                       page: Any) -> None:
    page.goto(f"{server['url']}/replay")
    drop(page, GOLDEN)
    page.wait_for_selector("#rp-view:not([hidden])")
    page.select_option("#rp-seat", "1")
    page.click("#rp-analyse")
    page.wait_for_selector("#rp-progress:not([hidden])")
    page.wait_for_function(DONE, timeout=60000)
    total = int(page.evaluate("document.querySelector('#rp-progress-bar').max"))
    marks = page.locator(", ".join(f"#rp-steps .rp-step.cost-{k}" for k in ("none", "some", "high")))
    assert total > 0 and marks.count() == total
    marks.first.click()
    assert page.locator("#rp-verdict").is_visible() and "Ben:" in page.locator("#rp-verdict").inner_text()
    assert page.errors == []
    assert serious_violations(page, "axe-replay-analysis.json") == []




@pytest.mark.parametrize(("lang", "done", "where"), [
    ("en", "Analysis done", r"^Hand \d+, trick (\d+), (1st|2nd|3rd|4th) card: "),
    ("fr", "Analyse terminée", r"^Donne \d+, pli (\d+), (1re|2e|3e|4e) carte : "),
])
def test_the_costly_decisions_are_named_by_trick_and_place_in_it(server: dict[str, str], page: Any,
                                                                 lang: str, done: str, where: str) -> None:
    page.goto(f"{server['url']}/replay?lang={lang}")
    drop(page, GOLDEN)
    page.wait_for_selector("#rp-view:not([hidden])")
    page.select_option("#rp-seat", "1")
    page.click("#rp-analyse")
    page.wait_for_function(f"document.querySelector('#rp-progress-text').textContent.startsWith('{done}')",
                           timeout=60000)
    items = page.locator("#rp-costly li button").all_inner_texts()
    assert items, "the golden record's seat 1 makes costly decisions"
    tricks = []
    for text in items:
        m = re.match(where, text)
        assert m, text
        tricks.append(int(m.group(1)))
    # The trick said is the one the item leads to.
    page.locator("#rp-costly li button").first.click()
    assert f" {tricks[0]}" in page.locator("#rp-where").inner_text()
    assert page.errors == []


def test_analyse_my_play_from_the_end_of_my_game(server: dict[str, str], chrome: Any) -> None:
    context = chrome.new_context(viewport=DESKTOP)
    # The table's page keeps each seat's token here when its person sits down.
    context.add_init_script(f"localStorage.setItem('barbu.mine', JSON.stringify({{'{server['ann']}': "
                            f"'{server['token']}'}}));")
    page = context.new_page()
    page.goto(f"{server['url']}/table/{server['ann']}#t={server['token']}")
    # The end of the game opens its places, which offer the replay and the analysis.
    links = page.locator("#end-dialog[open] #end-tools a")
    links.first.wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-table-end-en-desktop.png"))
    assert page.locator("#btn-replay").is_visible() and page.locator("#btn-analyse").is_visible()
    links.nth(1).click()
    page.wait_for_url("**/replay/**")
    page.wait_for_selector("#rp-progress:not([hidden])")
    assert "Ann" in page.locator("#rp-analyse").inner_text()
    page.wait_for_function("Number(document.querySelector('#rp-progress-bar').value) > 0", timeout=60000)
    page.wait_for_function(DONE, timeout=170000)
    assert page.locator("#rp-costly li").count() > 0  # random play costs points somewhere
    page.locator("#rp-costly li button").first.click()
    assert "cost" in page.locator("#rp-verdict").inner_text()
    page.screenshot(path=str(ARTIFACTS / "replay-analysis-en-desktop.png"))
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    page.screenshot(path=str(ARTIFACTS / "replay-analysis-en-phone.png"))
    page.screenshot(path=str(ARTIFACTS / "replay-analysis-en-phone-full.png"), full_page=True)
    context.close()


def test_no_serious_accessibility_violation_in_the_viewer(server: dict[str, str], page: Any) -> None:
    page.goto(f"{server['url']}/replay/{server['bots']}")
    page.wait_for_selector("#rp-view:not([hidden])")
    for key in ("ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
    assert serious_violations(page, "axe-replay.json") == []
    page.goto(f"{server['url']}/replay")
    page.wait_for_selector("#rp-drop:not([hidden])")
    assert serious_violations(page, "axe-replay-drop.json") == []


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_screenshots_of_the_viewer(server: dict[str, str], page: Any, lang: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(f"{server['url']}/replay/{server['bots']}?lang={lang}")
    page.wait_for_selector("#rp-view:not([hidden])")
    page.keyboard.press("PageDown")
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(ARTIFACTS / f"replay-{lang}-{tag}.png"), full_page=tag == "phone")
    untranslated = page.evaluate("document.body.innerText.match(/\\[(replay|table|sheet)\\.[^\\]]*\\]/g)")
    assert untranslated is None and page.errors == []
