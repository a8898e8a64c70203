"""The analysis in Chromium of a record where a computer stood in for the seat: greyed, not judged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    ARTIFACTS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    serious_violations,
    serving,
)
from tests.test_web_replay_browser import DONE, GOLDEN, drop
from tests.web_helpers import fresh_db

from barbu.engine.record import replay
from barbu.engine.state import State

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("stand"), "stand.db"), "--analysis-budget", "0.01") as url:
        yield url


def with_stand_ins(tmp: Path) -> tuple[Path, int]:
    """The golden record with two of Ben's real choices marked as a computer's; the file and that count."""
    doc = json.loads(GOLDEN.read_text(encoding="utf-8"))
    choices: list[int] = []

    def look(hand: int, index: int, state: State, action: int) -> None:
        if state.current == 1 and len(state.legal_actions()) >= 2:
            choices.append(index)
    replay(doc, on_action=look)
    doc["hands"][0]["stand_in"] = [[i, "basic"] for i in choices[:2]]
    path = tmp / "stand-in.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path, len(choices)


def test_the_stand_ins_cards_are_greyed_and_left_out_of_the_totals(server: str, chrome: Any,
                                                                   tmp_path: Path) -> None:
    path, choices = with_stand_ins(tmp_path)
    context = chrome.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{server}/replay")
    drop(page, path)
    page.wait_for_selector("#rp-view:not([hidden])")
    page.select_option("#rp-seat", "1")
    page.click("#rp-analyse")
    page.wait_for_function(DONE, timeout=60000)
    greyed = page.locator("#rp-steps .rp-step.by-computer")
    assert greyed.count() == 2
    judged = page.locator(", ".join(f"#rp-steps .rp-step.cost-{k}" for k in ("none", "some", "high")))
    assert judged.count() == choices - 2
    assert f"({choices - 2} decisions judged)" in page.inner_text("#rp-costly")
    assert "2 decisions played by the computer standing in are left out." in page.inner_text("#rp-stand-ins")
    greyed.first.click()
    assert "played by the computer (easy) standing in: not judged" in page.inner_text("#rp-verdict")
    assert serious_violations(page, "axe-stand-ins.json") == []
    ARTIFACTS.mkdir(exist_ok=True)
    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
        page.screenshot(path=str(ARTIFACTS / f"stand-ins-analysis-{tag}.png"), full_page=True)
    context.close()
