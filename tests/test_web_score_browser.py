"""The score keeper on a phone-sized Chromium: a whole classic game tapped in, an edit, offline, the PDF."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import ARTIFACTS, CHROMIUM, chromium, serving
from tests.web_helpers import fresh_db

NAMES = ["Ann", "Ben", "Cleo", "Dan"]
ORDER = ["no-tricks", "no-queens", "no-hearts", "no-last-two", "no-king", "trumps", "dominoes"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("score"), "score.db")) as url:
        yield url


@pytest.fixture(scope="module")
def phone() -> Iterator[Any]:
    with chromium("barbu-score-", accept_downloads=True, viewport={"width": 390, "height": 844},
                  has_touch=True, is_mobile=True, device_scale_factor=1) as context:
        yield context


def counts_for(k: int, total: int = 13) -> list[int]:
    """Tricks or hearts for hand k: a different split each hand, adding up to 13."""
    base = [total // 4 + (1 if s < total % 4 else 0) for s in range(4)]
    shift = k % 4
    return base[shift:] + base[:shift]


def result_taps(page: Any, contract: str, k: int, hearts: list[int] | None = None) -> None:
    """Tap the count of hand k in, as people at the table would."""
    who = [(k + s) % 4 for s in range(4)]
    if contract in ("no-tricks", "trumps"):
        for s, n in enumerate(counts_for(k)):
            tap(page, f"[data-count='tricks-{s}-plus']", n)
    elif contract == "no-queens":
        for suit, s in zip("SHDC", [who[0], who[1], who[1], who[3]], strict=True):
            tap(page, f"[data-pick='queen-{suit}-{s}']")
    elif contract == "no-hearts":
        for s, n in enumerate(hearts or counts_for(k)):
            tap(page, f"[data-count='hearts-{s}-plus']", n)
        tap(page, f"[data-pick='ace-{who[2]}']")
    elif contract == "no-last-two":
        tap(page, f"[data-pick='last-0-{who[1]}']")
        tap(page, f"[data-pick='last-1-{who[2]}']")
    elif contract == "no-king":
        tap(page, f"[data-pick='king-{who[3]}']")
    else:
        for s in who[:3]:
            tap(page, f"[data-out='{s}']")


def tap(page: Any, selector: str, times: int = 1) -> None:
    for _ in range(times):
        page.locator(selector).tap()


def choose(page: Any, contract: str, k: int) -> None:
    tap(page, f"[data-contract='{contract}']")
    if contract == "trumps":
        tap(page, f"[data-trump='{'SHDC'[k % 4]}']")
    elif contract == "dominoes":
        tap(page, "[data-rank='J']")


def enter_hand(page: Any, k: int, doubles: list[tuple[int, int]] = (), shot: Path | None = None) -> None:
    """Hand k from the contract to the saved row, checking what the page offers on the way."""
    contract = ORDER[k % 7]
    wait_title(page, f"Hand {k + 1} of 28")
    assert page.locator("#contract-buttons button").count() == 7 - k % 7  # only the contracts still open
    choose(page, contract, k)
    for a, b in doubles:
        tap(page, f"#matrix button[data-from='{a}'][data-to='{b}']")
    result_taps(page, contract, k)
    page.wait_for_selector("#check.good")
    if shot is not None:
        page.screenshot(path=str(shot), full_page=True)
    tap(page, "#save")
    page.wait_for_function(f"document.querySelectorAll('#rows tr.hand-row').length === {k + 1}")


def wait_title(page: Any, start: str) -> None:
    page.wait_for_function("t => document.querySelector('#entry-title').textContent.startsWith(t)", arg=start)


def compulsory_cells(page: Any) -> list[tuple[int, int]]:
    cells = page.locator("#matrix button.must").evaluate_all(
        "bs => bs.map(b => [Number(b.dataset.from), Number(b.dataset.to)])")
    return [tuple(c) for c in cells]


def test_a_whole_classic_game_tapped_in_on_a_phone(server: str, phone: Any, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    tap(page, "#score-link")  # the lobby links to the score keeper
    page.wait_for_url("**/score")
    for i, name in enumerate(NAMES):
        page.locator("#name-inputs input").nth(i).fill(name)
    page.select_option("#start-first", "0")
    tap(page, "#start-button")
    page.wait_for_url("**/score/*#k=*")
    page.wait_for_selector("#contract-buttons button")

    # Hand 1: Ben doubles Ann and Ann redoubles; Cleo doubles Dan. A wrong count is named precisely first.
    choose(page, "no-tricks", 0)
    tap(page, "#matrix button[data-from='1'][data-to='0']")
    tap(page, "#matrix button[data-from='0'][data-to='1']")
    tap(page, "#matrix button[data-from='2'][data-to='3']")
    assert page.locator("#matrix button[data-from='0'][data-to='1']").inner_text() == "××"
    tap(page, "[data-count='tricks-0-plus']", 12)
    page.wait_for_selector("#check.bad")
    assert page.inner_text("#check") == "The tricks must add up to 13, but these add up to 12."
    assert page.locator("#save").is_disabled()
    tap(page, "[data-count='tricks-0-minus']", 12)
    result_taps(page, "no-tricks", 0)
    page.wait_for_selector("#check.good")
    tap(page, "#save")
    page.wait_for_function("document.querySelectorAll('#rows tr.hand-row').length === 1")
    assert "Ben ×× Ann" in page.inner_text("#rows") and "Cleo × Dan" in page.inner_text("#rows")

    for k in range(1, 28):
        if k % 7 == 5:
            # Two hands left for the declarer: whoever has not doubled him yet must double now.
            wait_title(page, f"Hand {k + 1} ")
            d = k // 7
            choose(page, ORDER[5], k)
            owing = {s for s in range(4) if s != d and not (d == 0 and s == 1)}
            assert set(compulsory_cells(page)) == {(s, d) for s in owing}
            assert page.locator("#matrix button.must").first.is_disabled()
            if d == 0:
                owes = page.inner_text("#owes")
                assert "Ben still owes Ann 1 double in the 2 remaining hands Ann declares" in owes
        if k == 9:
            offline_entry(page, phone, k)
            continue
        if k == 10:
            continue  # entered during the offline part
        enter_hand(page, k, shot=ARTIFACTS / "score-compulsory.png" if k == 6 else None)
    page.wait_for_selector("#over:not([hidden])")
    assert "Winner" in page.inner_text("#over")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # The chart: one line per player through every hand.
    lines = page.locator("#chart-svg polyline.line")
    assert lines.count() == 4
    points = lines.evaluate_all("ls => ls.map(l => l.getAttribute('points'))")
    assert all(len(p.split()) == 29 for p in points)

    before = totals_on(page)
    edit_hand_3(page)
    after = totals_on(page)
    assert after != before
    doc = download(page, "#export-json", tmp_path / "sheet.json")
    replayed = subprocess.run([sys.executable, "-m", "barbu.cli", "replay", str(doc), "--json"],
                              capture_output=True, text=True, check=True)
    assert json.loads(replayed.stdout)["totals"] == after
    assert json.loads(doc.read_text())["hands"][2]["result"]["hearts"] == [1, 4, 4, 4]
    check_pdf(page, tmp_path)
    assert not errors


def offline_entry(page: Any, context: Any, k: int) -> None:
    """Hands 10 and 11 entered with the connection cut; both kept on the phone, then sent when it is back."""
    wait_title(page, f"Hand {k + 1} ")
    choose(page, ORDER[k % 7], k)
    context.set_offline(True)
    result_taps(page, ORDER[k % 7], k)
    page.wait_for_selector("#conn.offline:not([hidden])")
    assert "kept on this device" in page.inner_text("#check")
    tap(page, "#save")
    page.wait_for_selector("#conn:has-text('1 hand waiting to be sent')")
    # The next hand, still offline: its declarer and open contracts from the sheet, its check postponed.
    wait_title(page, f"Hand {k + 2} ")
    assert page.locator("#contract-buttons button").count() == 7 - (k + 1) % 7
    choose(page, ORDER[(k + 1) % 7], k + 1)
    page.screenshot(path=str(ARTIFACTS / "score-offline.png"), full_page=False)
    context.set_offline(False)
    page.wait_for_selector("#conn", state="hidden", timeout=20000)
    page.wait_for_function(f"document.querySelectorAll('#rows tr.hand-row').length === {k + 1}")
    # The hand being entered kept its taps through the reconnection.
    assert page.locator(f"[data-contract='{ORDER[(k + 1) % 7]}'].on").count() == 1
    result_taps(page, ORDER[(k + 1) % 7], k + 1)
    page.wait_for_selector("#check.good")
    tap(page, "#save")
    page.wait_for_function(f"document.querySelectorAll('#rows tr.hand-row').length === {k + 2}")


def edit_hand_3(page: Any) -> None:
    """Hand 3 (Ann's No Hearts): an edit that breaks a later hand is refused, then the count is changed."""
    tap(page, "#rows button[aria-label='Edit hand 3']")
    wait_title(page, "Edit hand 3")
    assert page.locator("[data-contract='no-hearts'].on").count() == 1
    tap(page, "[data-contract='no-king']")  # Ann declares No King in hand 5
    tap(page, "[data-pick='king-1']")
    page.wait_for_selector("#check.bad")
    assert page.inner_text("#check").startswith("After this edit, hand 5 no longer fits: No King")
    assert page.locator("#save").is_disabled()
    tap(page, "[data-contract='no-hearts']")
    result_taps(page, "no-hearts", 2, hearts=[1, 4, 4, 4])
    page.wait_for_selector("#check.good")
    page.screenshot(path=str(ARTIFACTS / "score-edit.png"), full_page=False)
    tap(page, "#save")
    page.wait_for_selector("#toast:has-text('Hand 3 changed')")


def totals_on(page: Any) -> list[int]:
    texts = page.locator("#scorebar .t").all_inner_texts()
    return [int(t.replace("−", "-").replace("+", "")) for t in texts]


def download(page: Any, selector: str, path: Path) -> Path:
    with page.expect_download() as dl:
        page.locator(selector).tap()
    dl.value.save_as(str(path))
    return path


def check_pdf(page: Any, tmp_path: Path) -> None:
    pdf = download(page, "#export-pdf", tmp_path / "sheet.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
        assert all(n in text for n in NAMES) and "Winner" in text
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1", str(pdf),
                        str(ARTIFACTS / "score-sheet-pdf")], check=True)
        assert (ARTIFACTS / "score-sheet-pdf-1.png").stat().st_size > 5000
