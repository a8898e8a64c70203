"""E-mail notices in Chromium, in one visit at phone size in Burmese: the profile's e-mail part takes an
address, the link mailed to it (read from a local SMTP server) opens the page whose button confirms it,
and the kinds of mail can then be ticked; axe clean on the profile's part and on the link's page."""

from __future__ import annotations

import email
import email.policy
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, PHONE, post, serious_violations, serving
from tests.test_web_chat_browser import person
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


class Inbox:
    def __init__(self) -> None:
        self.mails: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mails.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 OK"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Inbox]]:
    pytest.importorskip("aiosmtpd")
    from aiosmtpd.controller import Controller

    box = Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    relay = Controller(box, hostname="127.0.0.1", port=port)
    relay.start()
    folder = tmp_path_factory.mktemp("mailweb")
    try:
        with serving(fresh_db(folder, "mail.db"), "--smtp", f"smtp://127.0.0.1:{port}", "--mail-from",
                     "barbu@example.org", "--public-url", "http://barbu.example") as url:
            yield url, box
    finally:
        relay.stop()


def test_an_address_is_given_confirmed_on_the_link_s_page_and_its_mails_chosen(
        chrome: Any, site: tuple[str, Inbox]) -> None:
    server, box = site
    made = post(server + "/api/players", {"name": "Zoe"})
    page = person(chrome, server, "/", PHONE, "my")
    kept = json.dumps({"credential": made["credential"], **made["profile"]})
    page.evaluate(f"localStorage.setItem('barbu.profile', JSON.stringify({kept}))")
    page.goto(server + "/profile")
    page.fill("#mail-address", "zoe@example.org")
    page.click("#mail-address-form button")
    page.wait_for_selector("#mail-events[disabled]")  # drawn again: not confirmed, nothing to tick yet
    assert "zoe@example.org" in page.inner_text("#mail-state")
    page.locator("#mail-part").scroll_into_view_if_needed()
    assert serious_violations(page, "axe-mail-profile-my.json") == []
    end = time.monotonic() + 10
    while not box.mails:
        assert time.monotonic() < end, "no mail"
        time.sleep(0.05)
    text = box.mails[0].get_body(("plain",)).get_content()
    link = re.search(r"http://barbu\.example(/mail/confirm#[\w-]+)", text)
    assert link is not None and box.mails[0]["Content-Language"] == "my"
    page.goto(server + link[1])
    page.wait_for_function("document.getElementById('mail-go').textContent !== 'OK'")
    assert serious_violations(page, "axe-mail-confirm-my.json") == []
    page.click("#mail-go")
    page.wait_for_function("document.getElementById('mail-said').textContent.length > 0")
    assert page.inner_text("#mail-said").startswith("အတည်ပြုပြီး")
    page.goto(server + "/profile")
    page.locator("#mail-events:not([disabled]) input[value=over]").check()
    page.wait_for_selector("#mail-events input[value=over]:checked")
    assert page.errors == []
    page.context.close()
