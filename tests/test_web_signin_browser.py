"""The profile page's list of devices in Chromium: how each came, one signed out, then all the others."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, DESKTOP, serious_violations, serving, shoot_sizes
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

PASSWORD = "a long secret"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("signin"), "signin.db")) as url:
        yield url


def call(url: str, body: dict[str, Any] | None = None, credential: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", **({"X-Barbu-Player": credential} if credential else {})}
    req = urllib.request.Request(url, data=json.dumps(body or {}).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.load(res)


def three_devices(server: str, name: str) -> dict[str, Any]:
    """A profile made on one device, carried to a second by a transfer code, signed in on a third."""
    made = call(server + "/api/players", {"name": name})
    mine = made["credential"]
    call(server + "/api/me/password", {"password": PASSWORD}, mine)
    code = call(server + "/api/me/transfer", {}, mine)["code"]
    call(server + "/api/players/claim", {"code": code})
    call(server + "/api/signin", {"name": name, "password": PASSWORD})
    kept: dict[str, Any] = {"credential": mine, **made["profile"], "password": True}
    return kept


@pytest.mark.parametrize("lang", ["en", "fr", "zh", "my"])
def test_the_devices_of_a_profile_listed_and_signed_out(server: str, chrome: Any, lang: str) -> None:
    kept = three_devices(server, f"Devices {lang}")
    page = chrome.new_context(viewport=DESKTOP).new_page()
    page.add_init_script(f"localStorage.setItem('barbu.profile', {json.dumps(json.dumps(kept))});")
    page.goto(f"{server}/profile?lang={lang}")
    items = page.locator("#device-list li[data-device]")
    page.wait_for_function("() => document.querySelectorAll('#device-list li[data-device]').length === 3")
    hows = items.evaluate_all("els => els.map(e => e.dataset.how)")
    assert sorted(hows) == ["made", "password", "transfer"]
    assert page.locator("#device-list .this-device").count() == 1
    assert page.locator("#device-list li[data-how=made] .this-device").count() == 1
    assert page.locator("#device-list button.revoke").count() == 2  # this device is forgotten, not signed out
    shoot_sizes(page, f"signin-devices-{lang}")
    assert serious_violations(page, f"axe-signin-devices-{lang}.json") == []
    page.locator("#device-list li[data-how=transfer] button.revoke").click()
    page.wait_for_function("() => document.querySelectorAll('#device-list li[data-device]').length === 2")
    assert page.locator("#device-list li[data-how=transfer]").count() == 0
    page.click("#others-button")
    page.wait_for_function("() => document.querySelectorAll('#device-list li[data-device]').length === 1")
    assert page.locator("#others-button").is_hidden()
    assert page.locator("#profile-said").inner_text().strip() != ""
    page.context.close()
