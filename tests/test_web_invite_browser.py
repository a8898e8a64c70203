"""Invitations by name in Chromium: the creator invites a profile from the table's invitation box, the
invited person sees it in the lobby's list and the badge, opens the table and accepts; axe clean."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, DESKTOP, PHONE, post, serious_violations, serving
from tests.test_web_chat_browser import person
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("invite"), "invite.db")) as url:
        yield url


def signed_in(chrome: Any, server: str, size: dict[str, int], made: dict[str, Any]) -> Any:
    """A page of a browser that keeps this profile."""
    page = person(chrome, server, "/", size)
    kept = json.dumps({"credential": made["credential"], **made["profile"]})
    page.evaluate(f"localStorage.setItem('barbu.profile', JSON.stringify({kept}))")
    return page


def test_a_profile_invited_by_name_sees_it_in_the_lobby_and_takes_the_seat(chrome: Any, server: str) -> None:
    ann, ben = post(server + "/api/players", {"name": "Ann"}), post(server + "/api/players", {"name": "Ben"})
    seats = [{"kind": "you"}, {"kind": "open"}, *[{"kind": "bot", "level": "random"}] * 2]
    req = urllib.request.Request(server + "/api/tables", method="POST", data=json.dumps(
        {"own_pace": 24, "seats": seats}).encode(),
        headers={"Content-Type": "application/json", "X-Barbu-Player": ann["credential"]})
    with urllib.request.urlopen(req, timeout=10) as res:
        made = json.load(res)
    tid = made["id"]

    creator = signed_in(chrome, server, DESKTOP, ann)
    creator.goto(f"{server}/table/{tid}#t={made['you']['token']}")
    creator.wait_for_function("T.welcomed && T.invites")
    creator.click("#btn-invite")
    creator.fill("#invite-name-1", "Nobody")
    creator.press("#invite-name-1", "Enter")  # the form is sent by keyboard
    creator.wait_for_selector("#invite-links li[data-seat='1'] .form-said:text('No player has that name.')")
    creator.fill("#invite-name-1", "ben")
    creator.click("#invite-links li[data-seat='1'] form button[type=submit]")
    creator.wait_for_selector("#invite-links li[data-seat='1'] .badge.held:text('held for Ben')")
    assert serious_violations(creator, "axe-invite-panel.json") == []

    guest = signed_in(chrome, server, PHONE, ben)
    guest.goto(server + "/")
    item = guest.locator(f"#your-move li[data-invited='{tid}']")
    item.wait_for()
    assert item.inner_text().startswith("Ann invited you to a")
    assert "3 of 4 seats taken" in item.inner_text() and "at your own pace, 24 h a move" in item.inner_text()
    assert guest.inner_text("#your-move-badge") == "Your move: 1"
    assert serious_violations(guest, "axe-invite-lobby.json") == []
    item.get_by_role("link", name="See the table").click()
    guest.wait_for_selector("#held-form:not([hidden]) #held-seats li.mine")
    assert guest.inner_text("#held-said") == "Ann holds this seat for you."
    assert guest.inner_text("#held-seats li.mine").endswith("free: held for you until you answer")
    assert serious_violations(guest, "axe-invite-held.json") == []
    with guest.expect_navigation():
        guest.click("#held-accept")
    guest.wait_for_function("T.welcomed && T.you === 1")
    creator.wait_for_selector("#invite-links li[data-seat='1']:text('taken by Ben')")
    assert creator.errors == [] and guest.errors == []
    creator.context.close()
    guest.context.close()
