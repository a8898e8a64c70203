"""The page in a real browser: Debian's chromium, driven by Playwright, against a real ``barbu serve``."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.cluster_helpers import group_database, on_cluster, start_group
from tests.conftest import ROOT
from tests.web_helpers import FAST, fresh_db, query

from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.web.storage.sqlite import is_postgres
from barbu.web.tables.rules import figures

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def serious_violations(page: Any, report: str) -> list[Any]:
    """axe-core's serious and critical findings on the page as it is; all findings go to ``report``
    under test-artifacts/."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / report).write_text(json.dumps(results.response["violations"], indent=1))
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")]



def shoot_sizes(page: Any, name: str) -> None:
    """The whole page at desktop and phone sizes, saved as test-artifacts/NAME-desktop.png and -phone.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{tag}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def log_of(db: Path | str) -> Path:
    """Where a test server writes: beside its SQLite file, or in the temporary folder for PostgreSQL."""
    if is_postgres(str(db)):
        return Path(tempfile.gettempdir()) / (urllib.parse.urlsplit(str(db)).path.strip("/") + ".log")
    return Path(db).with_suffix(".log")


def start_server(port: int, db: Path | str, *extra: str) -> Any:
    """``barbu serve`` on 127.0.0.1, with computer players that do not wait; returns once it answers.

    With BARBU_TEST_CLUSTER=1: two ``barbu serve --bus`` processes behind nginx on ``port``, on the
    PostgreSQL database standing for ``db`` (tests/cluster_helpers.py), so that every browser test
    also runs against a group of processes.
    """
    if on_cluster():
        return start_group(port, db, "--bot-delay", "0", *extra)
    log = open(log_of(db), "ab")  # noqa: SIM115 - the server writes to it for its whole life
    proc = subprocess.Popen([sys.executable, "-m", "barbu.cli", "serve", "--port", str(port), "--db", str(db),
                             "--bot-delay", "0", *extra], stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + 90  # a start takes a second; parallel workers on a busy machine, more
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=1).close()
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                log_text = log_of(db).read_text()
                raise RuntimeError("the server did not start: " + log_text) from None
            time.sleep(0.1)


def stop_server(proc: Any) -> None:
    proc.terminate()
    proc.wait(10)


# For a module that makes more tables a minute than a server lets one address make by default.
ROOMY = ("--tables-per-minute", "100", "--max-bot-tables", "100")


@contextmanager
def serving(db: Path | str, *extra: str) -> Iterator[str]:
    """A real `barbu serve` (``extra``: more of its flags) on a free port of this machine, stopped
    afterwards: its address."""
    port = free_port()
    proc = start_server(port, db, *extra)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(proc)


@contextmanager
def chromium(prefix: str, **options: Any) -> Iterator[Any]:
    """A headless Debian chromium with a fresh profile; ``options`` go to the browser context."""
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix=prefix)
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS, **options)
        try:
            yield context
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("web"), "browser.db")) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium("barbu-chromium-", viewport={"width": 1100, "height": 820}) as context:
        context.add_init_script(FAST)  # short trick pauses and travel: a hand in seconds
        yield context


def seed_with_declarer(seat: int) -> int:
    return next(s for s in range(1000) if State(Game.classic(), seed=s).first_declarer == seat)


ACTIONABLE = """() => document.querySelector(
  '#decision:not([hidden]) button, #hand button.card.legal, #hand-actions button')
  || (typeof T !== 'undefined' && T.results && T.results.length > 0)"""


def open_form(page: Any) -> None:
    """Open the lobby's whole form for a new table ("More options"), once the server has answered."""
    page.wait_for_selector("#seat-1", state="attached")
    if not page.evaluate("document.getElementById('more-options').open"):
        page.click("#more-options > summary")
    page.wait_for_selector("#seat-1")


def new_table(page: Any, url: str, seed: int) -> None:
    page.goto(f"{url}/?seed={seed}")
    open_form(page)
    page.fill("#create-name", "Ann")
    page.click("#create-button")
    page.wait_for_url("**/table/**")
    page.wait_for_selector("#hand .card")


def take_turn(page: Any, clicks: dict[str, int], on_double: str = "none") -> None:
    """One click on what the page offers now: a contract, the doubles dialog, or a legal card."""
    box = page.locator("#decision:not([hidden])")
    if box.count():
        title = box.locator("h3").inner_text()
        if title.startswith("Choose"):
            # A trick contract, so that the hand is played card by card.
            target = box.locator("button[data-action=no-last-two], button[data-action=no-tricks]").first
            clicks["contract"] += 1
        elif page.locator("#double-submit").count():
            if on_double == "declarer":
                box.locator("input[data-target]:not([disabled])").last.check()
            target = page.locator("#double-submit")
            clicks["double"] += 1
        else:
            target = box.locator("button").first
            clicks["other"] += 1
    elif page.locator("#hand button.card.legal").count():
        dimmed = page.locator("#hand .card.dim").count()
        legal = page.locator("#hand button.card.legal").count()
        assert legal + dimmed == page.locator("#hand .card").count()
        target = page.locator("#hand button.card.legal").first
        clicks["card"] += 1
    else:
        target = page.locator("#hand-actions button").first
        clicks["other"] += 1
    element = target.element_handle()
    element.click()
    # Every state from the server redraws what was clicked: wait for that answer.
    page.wait_for_function("el => !el.isConnected", arg=element, timeout=15000)


def play_hand(page: Any, on_double: str = "none", screenshot: Path | None = None) -> dict[str, int]:
    """Click through one hand, until its score is on the sheet."""
    clicks = {"contract": 0, "double": 0, "card": 0, "other": 0}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        page.wait_for_function(ACTIONABLE, timeout=30000)
        if page.evaluate("T.results.length") > 0:
            if screenshot is not None and not screenshot.exists():
                page.screenshot(path=str(screenshot))
            page.click("#summary-dialog[open] #summary-next")  # the hand's summary: on to the next
            return clicks
        if screenshot is not None and not screenshot.exists() and page.locator("#hand .card.dim").count() \
                and page.locator("#trick .played").count():
            page.screenshot(path=str(screenshot))  # following suit: legal cards raised, others dimmed
        take_turn(page, clicks, on_double)
    raise AssertionError("the hand did not end in time")


def test_a_whole_hand_by_clicking_then_the_score_sheet(server: str, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "table.png").unlink(missing_ok=True)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    new_table(page, server, seed_with_declarer(0))
    assert page.inner_text("#status").startswith("Your turn: choose a contract")
    # Only contracts not yet declared are offered: all seven at the start.
    assert page.locator("#decision button[data-action]").count() == 7
    # The server refuses what the rules forbid, and the page says why.
    page.evaluate("act('trump S')")
    page.wait_for_selector("#toast.error:not([hidden])")
    assert "it is time to choose a contract" in page.inner_text("#toast")
    clicks = play_hand(page, screenshot=ARTIFACTS / "table.png")
    assert clicks["contract"] == 1 and clicks["card"] >= 10
    page.click("#btn-sheet")
    sheet = page.locator("#sheet")
    sheet.locator("tr.hand-row").first.wait_for()
    text = sheet.inner_text()
    assert ("No Last Two" in text or "No Tricks" in text) and "by Ann" in text
    totals = sheet.locator("tr.totals td.num").all_inner_texts()
    scores = [int(x.replace("−", "-")) for x in totals]  # the sheet writes a true minus sign
    assert len(scores) == 4 and sum(scores) in (-26, -30)
    page.screenshot(path=str(ARTIFACTS / "score-sheet.png"))
    page.click("#sheet-close")
    with page.expect_download() as download:
        page.click("#btn-record")  # a seated player's copy: the public record plus their own deals
    record = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert record["format"] == "barbu-record/1" and len(record["hands"]) == 1
    assert record["seat"] == 0 and "deal" not in record["hands"][0]
    assert len(record["hands"][0]["own_deal"].split()) == 13
    assert not errors
    page.close()


def test_the_doubles_dialog_then_a_hand_on_a_phone_screen(server: str, browser: Any) -> None:
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    new_table(page, server, seed_with_declarer(1))
    page.wait_for_selector("#double-submit", timeout=30000)
    dialog = page.locator("#decision")
    assert "Double" in dialog.inner_text() and "(declarer)" in dialog.inner_text()
    clicks = play_hand(page, on_double="declarer")
    assert clicks["double"] >= 1 and clicks["card"] >= 1  # a redouble dialog may follow
    page.click("#btn-sheet")
    page.locator("#sheet tr.hand-row").first.wait_for()
    assert "Ann × " in page.inner_text("#sheet")  # a phone's short doubles: "Ann × C2"
    page.click("#sheet-close")
    # Narrow screen: nothing runs off the side.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    page.screenshot(path=str(ARTIFACTS / "table-phone.png"))
    page.close()


def post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.load(res)


def test_a_friends_link_a_server_restart_and_an_idle_seat(browser: Any, tmp_path: Path) -> None:
    """A friend opens an invitation, the server restarts under the page, the idle host is replaced."""
    port, db = free_port(), fresh_db(tmp_path, "restart.db")
    url = f"http://127.0.0.1:{port}"
    proc = start_server(port, db)
    made = post(url + "/api/tables", {"name": "Ann", "seats": [{"kind": "human"}, {"kind": "human"},
                                                               {"kind": "bot"}, {"kind": "bot"}]})
    friend = next(s for s in made["seats"] if s["seat"] == 1)
    page = browser.new_page()
    cards = "cards => cards.map(c => c.dataset.card)"
    try:
        page.goto(url + friend["link"])
        page.wait_for_selector("#name-form:not([hidden])")
        page.fill("#seat-name", "Ben")
        page.click("#name-form button")
        page.wait_for_selector("#hand .card")
        page.wait_for_function("T.view && (T.view.current === 0 || T.view.current === 1)")  # people wait
        hand = page.locator("#hand .card").evaluate_all(cards)
        status = page.inner_text("#status")
        assert len(hand) == 13 and "Ben" in page.inner_text("#me-info")

        stop_server(proc)
        page.wait_for_selector("#conn:not([hidden])")  # the page notices, and keeps trying
        proc = start_server(port, db, "--idle", "0")
        page.wait_for_selector("#conn", state="hidden", timeout=20000)
        page.wait_for_function("document.querySelectorAll('#hand .card').length === 13")
        assert page.locator("#hand .card").evaluate_all(cards) == hand
        assert page.inner_text("#status") == status

        # Ann never came: with --idle 0, Ben may hand her seat to a computer once she is to act.
        takeover = ".seat[data-seat='0'] button.takeover"
        clicks = {"contract": 0, "double": 0, "card": 0, "other": 0}
        deadline = time.monotonic() + 60
        either = f"{takeover}, #decision:not([hidden]) button, #hand button.card.legal, #hand-actions button"
        while not page.locator(takeover).count() and time.monotonic() < deadline:
            page.wait_for_function(f"() => document.querySelector(\"{either}\")", timeout=30000)
            if not page.locator(takeover).count():
                take_turn(page, clicks)
        page.click(takeover)
        page.wait_for_selector(".seat[data-seat='0'] .badge.bot")
        page.wait_for_function("T.last && T.last.seat === 0")  # the computer played for Ann
    finally:
        page.close()
        stop_server(proc)


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as res:
        return json.load(res)


def stored(db: Path | str) -> Path | str:
    """Where a browser test's server keeps its tables: its database, or the one of its group."""
    return group_database(db)[0] if on_cluster() else db


def lobby_lists(page: Any, url: str, ids: list[str], seconds: float = 30.0) -> None:
    """Open the lobby until its list holds every table of ``ids``, as a person presses Refresh.

    One process lists its tables at once; in a group the tables are taken over, and listed, in the
    first seconds after a restart (a table can be missing from one listing while it changes
    hands), and the lobby page fetches its list once when it opens.
    """
    deadline = time.monotonic() + seconds
    while True:
        page.goto(url + "/")
        # The list is in once the "Loading…" line has gone (a list, no tables, or a refusal).
        page.wait_for_function("!document.querySelector('#table-list [data-i18n=\"common.loading\"]')")
        shown = set(page.eval_on_selector_all("ul.tables li[data-table]",
                                              "els => els.map(e => e.dataset.table)"))
        if set(ids) <= shown:
            return
        assert time.monotonic() < deadline, f"the lobby lists {sorted(shown)}, not all of {ids} ({seconds} s)"
        time.sleep(0.5)


def corrupt_event(db: Path | str, table_id: str, seq: int, data: str) -> None:
    query(stored(db), "UPDATE events SET data = ? WHERE table_id = ? AND seq = ?", data, table_id, seq)


def test_a_damaged_table_is_marked_in_the_lobby_and_read_only_at_its_page(browser: Any,
                                                                           tmp_path: Path) -> None:
    port, db = free_port(), fresh_db(tmp_path, "damaged.db")
    url = f"http://127.0.0.1:{port}"
    proc = start_server(port, db)
    bots = [{"kind": "bot", "level": "random"}] * 3
    ann = post(url + "/api/tables", {"name": "Ann", "seed": seed_with_declarer(2),
                                     "seats": [{"kind": "human"}, *bots]})
    cleo = post(url + "/api/tables", {"name": "Cleo", "seats": [{"kind": "human"}, *bots]})
    ben = post(url + "/api/tables", {"name": "Ben",
                                     "seats": [{"kind": "human"}, {"kind": "human"}, *bots[:2]]})
    page = browser.new_page()
    page.goto(url + ann["you"]["link"])
    page.wait_for_selector("#status.mine")  # the computers have acted up to Ann's turn
    page.close()
    stop_server(proc)
    acts = query(stored(db), "SELECT seq, data FROM events WHERE table_id = ? AND kind = 'act' ORDER BY seq",
                 ann["id"])
    seq, data = acts[-1]  # the computers acted until Ann's turn: the last one, made out of turn
    wrong = {**json.loads(data), "seat": (json.loads(data)["seat"] + 1) % 4}
    corrupt_event(db, ann["id"], seq, json.dumps(wrong))
    corrupt_event(db, ben["id"], 1, '{"hands": [1, 2, 3, 4], "set_aside": 0}')
    query(stored(db), "UPDATE tables SET setup = '{' WHERE id = ?", cleo["id"])
    proc = start_server(port, db)
    page = browser.new_page()
    try:
        lobby_lists(page, url, [t["id"] for t in (ann, ben, cleo)])
        for made in (ann, ben, cleo):
            item = page.locator(f"ul.tables li[data-table='{made['id']}']")
            item.wait_for()
            assert item.locator(".badge.damaged").count() == 1 and "Join" not in item.inner_text()
        damaged = get(f"{url}/api/tables/{ann['id']}")["table"]["damaged"]
        page.goto(url + ann["you"]["link"])
        page.wait_for_selector("#banner.damaged:not([hidden])")
        banner = page.inner_text("#banner")
        action = damaged["action_no"] + 1
        assert banner.startswith(f"This table was damaged: it stopped at hand 1, action {action}: "
                                 f"stored event {seq} is an action by seat ")
        assert "can be watched and its record downloaded, but not played on" in banner
        assert "is to" not in page.inner_text("#status") and not page.locator("#status.mine").count()
        assert page.locator("#decision").is_hidden() and not page.locator("#hand button.card").count()
        friend = next(s for s in ben["seats"] if s["seat"] == 1)
        page.goto(url + friend["link"])  # a free seat of a damaged table: watched, no name asked
        page.wait_for_selector("#banner.damaged:not([hidden])")
        page.wait_for_function("T.welcomed && T.you === null")
        assert page.locator("#name-form").is_hidden()
        assert "stopped at the deal of hand 1" in page.inner_text("#banner")
        page.goto(url + cleo["you"]["link"])  # no rules to show: only the banner, and no record
        page.wait_for_selector("#banner.damaged:not([hidden])")
        assert page.inner_text("#banner").startswith("This table was damaged: its stored setup cannot")
        assert all(page.locator(sel).is_hidden() for sel in ("#others", "#center", "#me", "#btn-record"))
        assert page.inner_text("#info-title").startswith("Rules unknown")
    finally:
        page.close()
        stop_server(proc)


def test_each_contract_button_says_what_it_scores_with_the_engines_figures(server: str, browser: Any) -> None:
    game = Game("family", 5)
    seed = next(s for s in range(1000) if State(game, seed=s).first_declarer == 0)
    made = post(server + "/api/tables", {"ruleset": "family", "players": 5, "name": "Ann", "seed": seed,
                                         "seats": [{"kind": "human"}] + [{"kind": "bot"}] * 4})
    page = browser.new_page()
    try:
        page.goto(server + made["you"]["link"])
        page.wait_for_selector("#decision:not([hidden]) button[data-action]")
        shown = {b.get_attribute("data-action"): b.locator(".c-desc").inner_text()
                 for b in page.locator("#decision button[data-action]").all()}
        # One line each, from the catalogue, with the engine's figure in each of its slots.
        en = json.loads((ROOT / "src/barbu/web/static/i18n/en.json").read_text(encoding="utf-8"))
        assert set(shown) == {c.id for c in game.contracts} and all(shown.values())
        for c in game.contracts:
            slots = re.findall(r"\{(\w+)\}", en[f"contract.family.{c.id}.line"])
            assert all(str(abs(figures(c)[k])) in shown[c.id] for k in slots), (c.id, shown[c.id])
            assert "{" not in shown[c.id]
    finally:
        page.close()


def test_the_header_names_the_trump_suit(server: str, browser: Any) -> None:
    page = browser.new_page()
    try:
        new_table(page, server, seed_with_declarer(0))
        page.click("#decision button[data-action=trumps]")
        page.click("#decision button[data-action='trump D']")
        page.wait_for_function("() => $('info-contract').textContent.includes('(diamonds)')")
        assert page.inner_text("#info-contract").startswith("Trumps: ♦ (diamonds)")
    finally:
        page.close()


def test_the_score_sheet_shows_every_player_at_once_on_a_phone(server: str, browser: Any) -> None:
    made = post(server + "/api/tables", {"ruleset": "family", "players": 6,
                                         "seats": [{"kind": "bot", "level": "random"}] * 6})
    deadline = time.monotonic() + 120
    while not get(f"{server}/api/tables/{made['id']}")["table"]["over"]:
        assert time.monotonic() < deadline, "the computers did not finish their game"
        time.sleep(0.2)
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        page.goto(f"{server}/table/{made['id']}")
        page.wait_for_selector("#end-dialog[open]")  # a finished game opens its places (gameend.js)
        page.click("#end-sheet")  # and the score sheet from there
        page.wait_for_selector("#sheet tr.hand-row")
        heads = page.locator("#sheet th.player").all()
        assert [h.inner_text() for h in heads] == [f"C{i}" for i in range(1, 7)]
        assert [h.get_attribute("title") for h in heads] == [f"Computer {i}" for i in range(1, 7)]
        for cell in [*heads, *page.locator("#sheet tr.totals td.num").all()]:
            box = cell.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert "C6: Computer 6" in page.inner_text("#sheet .legend")
        assert page.locator("#sheet svg polyline.line").count() == 6  # the running totals, a line each
    finally:
        page.close()
