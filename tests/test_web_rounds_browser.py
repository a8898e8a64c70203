"""A shorter family game chosen in the lobby's form (issue #37 item 18c), in Chromium: sent, shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, get, open_form
from tests.test_web_chat_browser import person
from tests.test_web_table_browser import DESKTOP, PHONE, server  # noqa: F401  (fixture)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


def test_a_family_game_of_two_rounds_each_is_made_from_the_lobby(chrome: Any, server: str) -> None:  # noqa: F811
    page = person(chrome, server, "/", DESKTOP)
    open_form(page)
    page.fill("#create-name", "Ann")
    assert page.locator("#rounds-label").is_hidden()  # a classic game has its 28 hands
    page.check("input[name=ruleset][value=family]")
    page.select_option("#create-players", "5")
    assert page.locator("#create-rounds option:checked").inner_text() == "The whole game: 35 rounds"
    page.select_option("#create-rounds", label="Shorter: 2 rounds each, 10 in all")
    page.select_option("#create-players", "3")  # the rounds each stay, the count follows
    assert page.locator("#create-rounds option:checked").inner_text() == "Shorter: 2 rounds each, 6 in all"
    page.click("#create-button")
    page.wait_for_selector("#hand .card")
    table = page.evaluate("T.meta.id")
    assert get(f"{server}/api/tables/{table}")["table"]["num_hands"] == 6
    assert "hand 1 of 6 (a shorter game)" in page.inner_text("#info-title")
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "fr"), (PHONE, "zh")])
def test_the_length_of_the_game_is_offered_in_the_readers_words(chrome: Any, server: str,  # noqa: F811
                                                                 size: dict[str, int], lang: str) -> None:
    page = person(chrome, server, "/", size, lang=lang)
    open_form(page)
    page.check("input[name=ruleset][value=family]")
    options = page.locator("#create-rounds option").all_inner_texts()
    assert len(options) == 7 and all("{" not in o and "[" not in o for o in options)
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    page.context.close()
