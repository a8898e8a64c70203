"""The tutorial in Chromium: a lesson walked through in English at 1280×800 (the lobby's entry, the list,
each position answered by a click on a card, the answer read and focused, the lesson kept as done in
the browser, its hand at a table of its own), and a lesson answered once at 390×844 in French, Chinese
and Burmese, each page clean for axe and without a horizontal scroll."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, DESKTOP, PHONE, chromium, serious_violations, serving
from tests.web_helpers import fresh_db

from barbu.learn.lessons import lesson

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")

LESSON = "classic-no-queens"
ANSWER = "#learn-answer:not([hidden])"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("learn"), "learn.db")) as address:
        yield address


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with chromium("barbu-learn-", viewport=DESKTOP) as c:
        yield c


def answer_with(page: Any, card: str) -> str:
    """Click ``card`` of the position shown; the answer's text, once it is shown and focused."""
    page.click(f'.learn-hand button[data-card="{card}"]')
    page.wait_for_selector(ANSWER)
    assert page.evaluate("document.activeElement.id") == "learn-answer"
    text: str = page.inner_text("#learn-answer")
    return text


def test_a_lesson_walked_through_in_english_at_desktop_size(url: str, context: Any) -> None:
    x = lesson(LESSON)
    page = context.new_page()
    page.goto(url + "/?lang=en")
    page.wait_for_function("document.getElementById('learn-left').textContent.includes('15 of 15')")
    page.click("#learn-panel a[href='/learn']")
    page.wait_for_selector("ol.lessons")
    assert page.get_attribute("a[href='/learn/drills']", "class") == "button"
    assert page.inner_text("a[href='/learn/drills']") == "Practice drills"
    assert page.locator("ol.lessons li").count() == 15
    page.click(f"a[href='/learn/{LESSON}']")
    page.wait_for_selector(".learn-hand button.card")
    page.wait_for_load_state("networkidle")  # the card faces' sprite
    assert "−6 per queen taken" in page.inner_text(".learn-scores")
    assert page.get_attribute("#learn-answer", "aria-live") == "polite"
    said = answer_with(page, x.positions[0].natural[0])
    assert "is estimated to lose" in said and "With the expert's" in said
    assert page.get_attribute(f'[data-card="{x.positions[0].answer}"]', "class").count("expert") == 1
    assert serious_violations(page, "axe-learn-answer.json") == []
    for i, p in enumerate(x.positions[1:], start=2):
        page.click("#learn-answer button:has-text('Next position')")
        page.wait_for_selector(f"#pos-title:has-text('Position {i} of')")
        assert page.evaluate("document.activeElement.id") == "pos-title"
        said = answer_with(page, p.answer)
        assert said.startswith("Right:")
    page.wait_for_selector("#learn-play")
    assert LESSON in json.loads(page.evaluate("localStorage.getItem('barbu.learn.done')"))
    page.click("#learn-play")
    page.wait_for_url(re.compile(r"/table/[A-Za-z0-9_-]+"))
    table = re.search(r"/table/([A-Za-z0-9_-]+)", page.url)
    assert table is not None
    meta = page.evaluate(f"fetch('/api/tables/{table[1]}').then((r) => r.json())")["table"]
    assert meta["lesson"] == LESSON and meta["num_hands"] == 1 and meta["coach"]["allowed"]
    page.wait_for_function("T.meta && T.meta.lesson")
    assert page.evaluate("Coach.warnLevel()") == "always"  # the default at a lesson's table
    page.evaluate("Settings.set('coachWarn', 'big')")
    assert page.evaluate("Coach.warnLevel()") == "big"  # unless the learner chose a level
    page.goto(url + "/learn")
    page.wait_for_selector("ol.lessons")
    assert "14 of 15" in page.inner_text("#learn-left")
    assert page.locator(f"li.done a[href='/learn/{LESSON}']").count() == 1
    page.close()


@pytest.mark.parametrize("lang", ["fr", "zh", "my"])
def test_a_lesson_answered_at_phone_size(url: str, context: Any, lang: str) -> None:
    x = lesson(LESSON)
    page = context.new_page()
    page.set_viewport_size(PHONE)
    page.goto(f"{url}/learn/{LESSON}?lang={lang}")
    page.wait_for_selector(".learn-hand button.card")
    page.wait_for_load_state("networkidle")
    said = answer_with(page, x.positions[0].natural[0])
    assert len(said.splitlines()) >= 4  # the coach's words, what the choice led to, the expert's
    assert page.locator(f'.learn-hand [data-card="{x.positions[0].answer}"].expert').count() == 1
    assert page.evaluate("document.documentElement.lang").startswith(lang)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert serious_violations(page, f"axe-learn-{lang}-phone.json") == []
    page.close()
