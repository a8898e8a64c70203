"""Who holds each seat, in Chromium: a profile's seat marked (with a link to its ratings), a guest's not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    CHROMIUM,
    DESKTOP,
    serious_violations,
    serving,
    shoot_sizes,
)
from tests.test_web_friends_browser import create
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("seats"), "seats.db")) as url:
        yield url


def shoot(page: Any, name: str) -> None:
    shoot_sizes(page, f"seats-{name}")


def marks(page: Any, where: str) -> list[str]:
    """The names whose profile mark shows inside ``where``, by the link each mark is."""
    hrefs: list[str] = page.eval_on_selector_all(f"{where} a.profile-mark",
                                                 "els => els.map(e => e.getAttribute('href'))")
    return hrefs


def test_a_profiles_seat_is_marked_and_a_guests_is_not(server: str, chrome: Any) -> None:
    ann_ctx, ben_ctx = chrome.new_context(viewport=DESKTOP), chrome.new_context(viewport=DESKTOP)
    ann = ann_ctx.new_page()
    ann.goto(server + "/profile")
    ann.fill("#make-name", "Ann")
    ann.click("#make-form button")
    ann.wait_for_selector("#profile-name")
    table_id = create(ann, server, "", ["open", "bot:random", "bot:random"])
    ben = ben_ctx.new_page()
    ben.goto(server + "/")
    ben.wait_for_selector(f"#table-list li[data-table='{table_id}']")
    ben.fill("#create-name", "ann")  # a guest who tries the profile's name is refused, in words
    ben.click(f"#table-list li[data-table='{table_id}'] button")
    ben.wait_for_selector("#toast:not([hidden])")
    assert "is the name of a profile" in ben.inner_text("#toast")
    ben.fill("#create-name", "Ben")
    ben.click(f"#table-list li[data-table='{table_id}'] button")
    ben.wait_for_url(f"**/table/{table_id}*")
    ben.wait_for_selector(".seat[data-seat='1'] .who-name")
    ben.wait_for_function("() => T.meta.seats[1].holder === 'guest'")
    assert marks(ben, ".seat") == ["/player/Ann"]
    assert marks(ben, ".seat[data-seat='0']") == ["/player/Ann"]
    assert ben.get_attribute(".seat[data-seat='0'] a.profile-mark", "aria-label") == \
        "Ann plays with a profile: see their ratings"
    assert "guest, without a profile" in (ben.get_attribute(".seat[data-seat='1']", "aria-label") or "")
    assert serious_violations(ben, "axe-seats-table.json") == []
    shoot(ben, "table")
    ben.click("#btn-sheet")
    ben.wait_for_selector("#sheet-dialog[open] .sv-sheet")
    assert marks(ben, "#sheet") == ["/player/Ann"]
    shoot(ben, "sheet")
    ben.keyboard.press("Escape")
    ben.goto(server + "/")
    ben.wait_for_selector(f"#table-list li[data-table='{table_id}'] a.profile-mark")
    assert marks(ben, f"#table-list li[data-table='{table_id}']") == ["/player/Ann"]
    ben.wait_for_selector(f"#your-list li[data-table='{table_id}'] a.profile-mark")
    assert marks(ben, f"#your-list li[data-table='{table_id}']") == ["/player/Ann"]
    assert serious_violations(ben, "axe-seats-lobby.json") == []
    shoot(ben, "lobby")
    ann.goto(server + "/player/Ann")  # where the mark leads: the ratings page
    ann.wait_for_selector("h1")
    ann_ctx.close()
    ben_ctx.close()
