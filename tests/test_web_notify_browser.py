"""Notifications in Chromium: the profile's switch for this device (en at desktop size; fr, zh, my at phone
size), axe clean; the service worker shows what a push says (a synthetic push event, as no push service
is reachable here; its notificationclick is not clicked here)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import ARTIFACTS, CHROMIUM, DESKTOP, PHONE, post, serious_violations, serving
from tests.test_web_chat_browser import person
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")
SHOTS = Path(os.environ.get("BARBU_SHOTS", str(ARTIFACTS)))
ON = {"en": "Notify me on this device", "fr": "M’avertir sur cet appareil", "zh": "在此设备上通知我",
      "my": "ဤစက်တွင် အသိပေးပါ"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("py_vapid")
    from py_vapid import Vapid

    folder = tmp_path_factory.mktemp("notify")
    key = Vapid()
    key.generate_keys()
    key.save_key(str(folder / "vapid.pem"))
    with serving(fresh_db(folder, "notify.db"), "--vapid-private-key", str(folder / "vapid.pem")) as url:
        yield url


def profile_page(chrome: Any, server: str, size: dict[str, int], lang: str, name: str) -> Any:
    made = post(server + "/api/players", {"name": name})
    page = person(chrome, server, "/", size, lang)
    kept = json.dumps({"credential": made["credential"], **made["profile"]})
    page.evaluate(f"localStorage.setItem('barbu.profile', JSON.stringify({kept}))")
    page.goto(server + "/profile")
    page.wait_for_selector("#notify-button")
    return page


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "en"), (PHONE, "fr"), (PHONE, "zh"), (PHONE, "my")])
def test_the_profile_offers_notifications_on_this_device(chrome: Any, server: str, size: dict[str, int],
                                                         lang: str) -> None:
    page = profile_page(chrome, server, size, lang, f"Zoe {lang}")
    assert page.inner_text("#notify-button") == ON[lang]
    assert page.evaluate("Notification.permission") == "default"  # asked only on the person's click
    page.locator("#notify-part").scroll_into_view_if_needed()
    assert serious_violations(page, f"axe-notify-{lang}.json") == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"notify-profile-{size['width']}-{lang}.png"))
    assert page.errors == []
    page.context.close()


def test_the_service_worker_shows_what_a_push_says(chrome: Any, server: str) -> None:
    page = profile_page(chrome, server, DESKTOP, "en", "Pia")
    page.context.grant_permissions(["notifications"], origin=server)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    worker = page.context.service_workers[0] if page.context.service_workers else \
        page.context.wait_for_event("serviceworker")
    said = {"title": "Barbu", "body": "It’s your turn at the table of Ann.", "url": "/table/abc"}
    shown = worker.evaluate("""async (said) => {
        const done = new Promise(r => self.addEventListener("push", e => r(e), { once: true }));
        self.dispatchEvent(new PushEvent("push", { data: JSON.stringify(said) }));
        await done; await new Promise(r => setTimeout(r, 0));
        for (let i = 0; i < 50; i++) {
          const list = await self.registration.getNotifications();
          if (list.length) return list.map(n => ({ title: n.title, body: n.body, url: n.data.url }));
          await new Promise(r => setTimeout(r, 50));
        }
        return [];
    }""", said)
    assert shown == [said]
    page.context.close()


def test_a_table_at_your_own_pace_has_its_own_switch(chrome: Any, server: str) -> None:
    page = profile_page(chrome, server, DESKTOP, "en", "Tia")
    made = page.evaluate("""async () => (await fetch("/api/tables", { method: "POST",
        headers: Object.assign({ "Content-Type": "application/json" }, Friends.headers()),
        body: JSON.stringify({ own_pace: 12, seats: [{ kind: "you" }, { kind: "bot", level: "random" },
          { kind: "bot", level: "random" }, { kind: "bot", level: "random" }] }) })).json()""")
    page.goto(f"{server}/table/{made['id']}#t={made['you']['token']}")
    page.wait_for_selector("#notify-table")
    assert page.is_checked("#notify-table")
    assert page.inner_text("label.notify-table").strip() == "Notify me of this table"
    page.click("#notify-table")
    asked = f"/api/me/push/tables/{made['id']}"
    page.wait_for_function(f"""fetch("{asked}", {{ headers: Friends.headers() }}).then(r => r.json())
        .then(d => d.on === false)""")
    assert serious_violations(page, "axe-notify-table.json") == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "notify-table-1280-en.png"))
    assert page.errors == []
    page.context.close()
