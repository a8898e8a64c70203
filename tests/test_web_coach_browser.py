"""The coach at the card table in Chromium (issue #38): the Hint button shows the expert's choice
marked with its reason, and the learner's warning stops a costly choice until "Play it anyway"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    CHROMIUM,
    DESKTOP,
    PHONE,
    ROOMY,
    serious_violations,
    serving,
)
from tests.test_web_table_browser import open_table
from tests.web_helpers import fresh_db

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)",
)]

I18N_DIR = Path(__file__).resolve().parent.parent / "src" / "barbu" / "web" / "static" / "i18n"
CATALOGUES = {lang: json.loads((I18N_DIR / f"{lang}.json").read_text(encoding="utf-8"))
              for lang in ("en", "fr", "zh", "my")}
EN = CATALOGUES["en"]
HINT = "(s) => document.getElementById('coach-said').textContent.startsWith(s)"
# Both sizes in each of the four languages the pages are looked at in (a hint or a warning is a
# sentence of slots: each language orders them its own way).
SIZES_AND_LANGUAGES = [pytest.param(size, lang, id=f"{tag}-{lang}") for lang in CATALOGUES
                       for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone"))]


def opening(template: str) -> str:
    """The words of a catalogue sentence before its first slot."""
    return template.split("{")[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("coach"), "coach.db"), *ROOMY) as url:
        yield url


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES)
def test_the_hint_marks_the_experts_choice_and_says_why(server: str, chrome: Any,
                                                        size: dict[str, int], lang: str) -> None:
    context = chrome.new_context(viewport=size)
    page = open_table(context, server, lang=lang)
    page.wait_for_selector("#decision:not([hidden]) button[data-action]")  # Ann chooses the contract
    page.click("#coach-hint")
    page.wait_for_function(HINT, arg=opening(CATALOGUES[lang]["coach.hint"]), timeout=30000)
    said = page.text_content("#coach-said") or ""
    assert "{" not in said and "coach." not in said  # every slot filled, every reason a sentence
    choice = page.get_attribute("#decision button.suggested", "data-action")
    assert choice in page.evaluate("T.view.legal")
    assert page.evaluate(f"contractName('{choice}')") in said  # the expert's choice, then why
    assert page.locator("#decision button.suggested").is_visible()
    label = page.get_attribute("#decision button.suggested", "aria-label") or ""
    assert label.endswith(CATALOGUES[lang]["table.coach.suggested"])  # said to a screen reader too
    assert serious_violations(page, f"axe-coach-hint-{size['width']}-{lang}.json") == []
    refused = page.evaluate("I18N.error({code: 'coach-refused', args: {reason: 'coach.refused.people'}})")
    assert refused == CATALOGUES[lang]["coach.refused.people"]  # the server's refusal, said by its reason
    assert page.errors == []
    context.close()


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES)
def test_a_warning_stops_a_costly_choice_until_played_anyway(server: str, chrome: Any,
                                                              size: dict[str, int], lang: str) -> None:
    context = chrome.new_context(viewport=size)
    context.add_init_script("localStorage.setItem('barbu.settings', JSON.stringify({coachWarn: 'always'}));")
    page = open_table(context, server, lang=lang)
    page.wait_for_selector("#decision:not([hidden]) button[data-action]")
    # The contract the expert values least: a choice the coach warns about at "always".
    page.evaluate("""() => { window.hints = []; const old = Coach.onHint;
      Coach.onHint = (m) => { window.hints.push(m); old(m); }; }""")
    page.click("#coach-hint")
    page.wait_for_function("window.hints.length === 1", timeout=30000)
    values = page.evaluate("window.hints[0].values")
    worst = min(values, key=lambda a: values[a])
    assert values[worst] < max(values.values())
    page.click(f"#decision button[data-action='{worst}']")
    page.wait_for_selector("#coach-dialog[open]", timeout=30000)
    name = page.evaluate(f"contractName('{worst}')")
    warning = page.text_content("#coach-warning") or ""
    assert warning.startswith(opening(CATALOGUES[lang]["coach.warn"])) and name in warning, warning
    assert "{" not in warning
    assert page.locator("#coach-anyway").is_visible() and page.locator("#coach-again").is_visible()
    assert page.evaluate("document.activeElement.id") == "coach-again"  # the safe answer first
    assert page.evaluate("T.view.contract") is None  # nothing was sent
    assert serious_violations(page, f"axe-coach-warning-{size['width']}-{lang}.json") == []
    page.click("#coach-anyway")
    page.wait_for_function(f"T.view.contract === '{worst}'", timeout=30000)
    assert page.errors == []
    context.close()


def test_where_the_coach_is_refused_no_hint_button_and_no_warning(server: str, chrome: Any) -> None:
    """A table whose meta refuses the coach (as at a table with another person: tests/test_web_coach.py):
    the button is hidden and "always" asks nothing before a choice."""
    context = chrome.new_context(viewport=PHONE)
    context.add_init_script("localStorage.setItem('barbu.settings', JSON.stringify({coachWarn: 'always'}));")
    page = open_table(context, server)
    page.wait_for_selector("#decision:not([hidden]) button[data-action]")
    assert page.locator("#coach").is_visible()
    page.evaluate("""() => { T.meta.coach = {allowed: false, refusal: "coach.refused.people"}; render();
      window.sent = []; const old = T.ws.send.bind(T.ws);
      T.ws.send = (m) => { window.sent.push(JSON.parse(m).type); old(m); }; }""")
    assert page.locator("#coach").is_hidden()
    choice = page.get_attribute("#decision button[data-action]", "data-action")
    page.click(f"#decision button[data-action='{choice}']")
    page.wait_for_function(f"T.view.contract === '{choice}'", timeout=30000)
    assert page.evaluate("window.sent") == ["act"]  # straight to the table: no question to the coach
    assert page.errors == []
    context.close()
