"""The score keeper after a real table kept 28 hands on it (issue 37, item 9): each fault they met."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, DESKTOP, serving
from tests.test_web_i18n_browser import serious
from tests.web_helpers import fresh_db

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs it)")]

NAMES = ["Ann", "Ben", "Cleo", "Dan", "Eve", "Finn"]
KING_ASIDE = {"declarer": 0, "contract": "no-tricks", "doubles": [], "result": {"tricks": [4, 3, 3, 3]}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("score2"), "score2.db")) as url:
        yield url


@pytest.fixture
def page(chrome: Any) -> Iterator[Any]:
    """A fresh browser context (its own storage and service workers) at 1280×800, in English."""
    context = chrome.new_context(viewport=DESKTOP, locale="en-US")
    errors: list[str] = []
    p = context.new_page()
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    context.close()
    assert not errors


def post(url: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"} | ({"X-Barbu-Token": token} if token else {})
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def new_sheet(server: str, ruleset: str, players: int, hands: Sequence[dict[str, Any]] = ()) -> str:
    """A sheet whose first declarer is Ann, with ``hands`` entered: its link with the write secret."""
    made = post(f"{server}/api/sheets", {"ruleset": ruleset, "players": players, "names": NAMES[:players],
                                        "first_declarer": 0})
    for k, hand in enumerate(hands):
        post(f"{server}/api/sheets/{made['id']}/hands", {"entry": f"r2:{k}", "hand": k, "data": hand},
             made["token"])
    return f"{server}{made['link']}"


def family_sheet(server: str, players: int) -> str:
    return new_sheet(server, "family", players)


def classic_sheet(server: str, hands: Sequence[dict[str, Any]] = ()) -> str:
    return new_sheet(server, "classic", 4, hands)


def open_sheet(page: Any, link: str) -> None:
    page.goto(link)
    page.wait_for_selector("#contract-buttons button")


def tap(page: Any, selector: str, times: int = 1) -> None:
    for _ in range(times):
        page.locator(selector).click()


def check_says(page: Any, kind: str) -> str:
    page.wait_for_selector(f"#check.{kind}")
    return str(page.inner_text("#check"))


@pytest.mark.parametrize("contract", ["last-trick", "salad"])
def test_last_trick_and_salad_in_a_family_game_ask_who_took_the_last_trick(
        server: str, page: Any, contract: str) -> None:
    open_sheet(page, family_sheet(server, 4))
    tap(page, f"[data-contract='{contract}']")
    if contract == "salad":  # its tricks are asked first
        tap(page, "[data-count='tricks-0-plus']", 13)
    said = check_says(page, "bad")
    assert "list of whole numbers" not in said and "say who took the last trick" in said.lower()
    assert page.locator("[data-field='result.last_tricks'][data-bad]").count() == 1
    assert page.locator("#save").is_disabled()


def test_an_offline_last_trick_is_saved_only_once_its_taker_is_named(server: str, page: Any) -> None:
    open_sheet(page, family_sheet(server, 4))
    page.context.set_offline(True)
    tap(page, "[data-contract='last-trick']")
    page.wait_for_selector("#conn.offline:not([hidden])")
    assert "say who took the last trick" in check_says(page, "bad")
    assert page.locator("#save").is_disabled()
    tap(page, "[data-pick='last-0-2']")
    page.wait_for_function("!document.querySelector('#save').disabled")
    tap(page, "#save")
    page.wait_for_selector("#conn:has-text('1 hand waiting to be sent')")
    page.context.set_offline(False)
    page.wait_for_selector("#conn", state="hidden", timeout=20000)
    page.wait_for_function("document.querySelectorAll('#rows tr.hand-row').length === 1")
    assert "not stored" not in page.inner_text("#rows").lower()


def test_switching_language_keeps_the_hand_being_entered(server: str, page: Any) -> None:
    open_sheet(page, classic_sheet(server))
    tap(page, "[data-contract='trumps']")
    tap(page, "[data-trump='H']")
    tap(page, "[data-count='tricks-1-plus']", 3)
    tap(page, "#matrix button[data-from='1'][data-to='0']")
    page.select_option("select.lang-switch", "fr")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    page.wait_for_selector("[data-contract='trumps'].on")
    assert page.locator("[data-trump='H'].on").count() == 1
    assert page.inner_text("[data-count-value='tricks-1']") == "3"
    assert page.inner_text("#matrix button[data-from='1'][data-to='0']") == "×"
    # Once saved or cancelled, the kept hand is gone: the next hand starts blank.
    tap(page, "[data-count='tricks-0-plus']", 10)
    check_says(page, "good")
    tap(page, "#save")
    page.wait_for_function("document.querySelectorAll('#rows tr.hand-row').length === 1")
    page.reload()
    page.wait_for_selector("#contract-buttons button")
    assert page.locator("#contract-buttons .pick.on").count() == 0


def test_switching_language_keeps_an_edit_being_made(server: str, page: Any) -> None:
    open_sheet(page, classic_sheet(server, [KING_ASIDE]))
    tap(page, "#rows button.edit")
    page.wait_for_function("document.querySelector('#entry-title').textContent.startsWith('Edit hand 1')")
    tap(page, "[data-count='tricks-0-minus']")
    tap(page, "[data-count='tricks-1-plus']")
    page.select_option("select.lang-switch", "zh")
    page.wait_for_function("document.querySelector('#entry-title').textContent.startsWith('修改第 1 手')"
                           " && document.documentElement.lang === 'zh-Hans'")
    page.wait_for_function("document.querySelector(\"[data-count-value='tricks-1']\").textContent === '4'")
    assert page.inner_text("[data-count-value='tricks-0']") == "3"
    assert page.locator("#entry-cancel").is_visible()  # still the edit, which can be cancelled


def salad_but_the_king(page: Any) -> None:
    """Salad with five players (two cards set aside, not entered): everything but the K♥."""
    tap(page, "[data-contract='salad']")
    for s in range(5):
        tap(page, f"[data-count='tricks-{s}-plus']", 2)
    tap(page, "[data-pick='last-0-0']")
    for suit, s in zip("SHDC", [0, 1, 2, 3], strict=True):
        tap(page, f"[data-pick='queen-{suit}-{s}']")
    for s, n in enumerate([2, 3, 2, 2, 3]):  # 12 hearts: the 13th may be set aside
        tap(page, f"[data-count='hearts-{s}-plus']", n)


def test_a_blank_king_of_hearts_in_salad_is_asked_not_set_aside(server: str, page: Any) -> None:
    open_sheet(page, family_sheet(server, 5))
    salad_but_the_king(page)
    said = check_says(page, "bad")
    assert "K♥" in said or "king of hearts" in said.lower()
    assert page.locator("#save").is_disabled()
    assert page.locator("[data-field='result.king_of_hearts'][data-bad]").count() == 1
    assert serious(page) == []
    tap(page, "[data-pick='king-aside']")  # said out loud: the K♥ was among the cards set aside
    assert "Eve +50" in check_says(page, "good")
    tap(page, "[data-pick='king-4']")  # or Eve took it: 100 more
    page.wait_for_function("document.querySelector('#check').textContent.includes('Eve +150')")


def test_an_offline_hand_is_checked_in_the_page(server: str, page: Any) -> None:
    open_sheet(page, classic_sheet(server))
    page.context.set_offline(True)
    tap(page, "[data-contract='no-tricks']")
    page.wait_for_selector("#conn.offline:not([hidden])")
    tap(page, "[data-count='tricks-0-plus']", 12)
    assert check_says(page, "bad") == "The tricks must add up to 13, but these add up to 12."
    assert page.locator("#save").is_disabled()
    tap(page, "[data-count='tricks-1-plus']")
    assert "kept on this device" in check_says(page, "wait")
    assert page.locator("#save").is_enabled()


def test_undo_last_hand_asks_first(server: str, page: Any) -> None:
    open_sheet(page, classic_sheet(server, [KING_ASIDE]))
    rows = "document.querySelectorAll('#rows tr.hand-row').length"
    tap(page, "#undo")
    page.wait_for_selector("#undo-confirm:not([hidden])")
    assert page.evaluate(rows) == 1
    assert "No Tricks" in page.inner_text("#undo-confirm")
    assert page.evaluate("document.activeElement.id") == "undo-keep"  # the safe answer, by keyboard too
    assert serious(page) == []
    tap(page, "#undo-keep")
    page.wait_for_selector("#undo-confirm", state="hidden")
    assert page.evaluate(rows) == 1
    tap(page, "#undo")
    tap(page, "#undo-yes")
    page.wait_for_function(f"{rows} === 0")
    page.wait_for_selector("#toast:has-text('Hand 1 taken back')")


def test_reloading_offline_shows_the_keepers_page(server: str, page: Any) -> None:
    link = classic_sheet(server, [KING_ASIDE])
    open_sheet(page, link)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=15000)
    scope = page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
    assert scope == f"{server}/"  # the site's worker (sw.js), which keeps the keeper's page
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#conn.offline:not([hidden])")
    page.wait_for_function("document.querySelectorAll('#rows tr.hand-row').length === 1")
    assert page.locator("#contract-buttons button").count() == 6
    # Its words too: the French catalogue was kept when the page was first opened in French.
    page.context.set_offline(False)
    page.goto(link.replace("#", "?lang=fr#"))
    page.wait_for_function("document.documentElement.lang === 'fr'")
    page.wait_for_selector("#contract-buttons button")
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#conn.offline:not([hidden])")
    assert page.inner_text("[data-i18n='score.the-sheet']") == "La feuille"


def test_going_out_in_french_counts_in_plural_forms(server: str, page: Any) -> None:
    open_sheet(page, classic_sheet(server).replace("#", "?lang=fr#"))
    tap(page, "[data-contract='dominoes']")
    tap(page, "[data-rank='J']")
    said = check_says(page, "bad")
    assert "(s)" not in said and said.endswith("0 joueur indiqué.")
    tap(page, "[data-out='2']")
    tap(page, "[data-out='3']")
    page.wait_for_function("document.querySelector('#check').textContent.endsWith('2 joueurs indiqués.')")
