"""The pages in every language, the rules pages, the phone score sheet and an accessibility scan,
in Debian's chromium against a real ``barbu serve`` (nothing is fetched from the network)."""

from __future__ import annotations

import json
import random
import subprocess
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from tests.conftest import ROOT
from tests.engine_helpers import drive
from tests.score_helpers import sheet_of
from tests.test_web_browser import ARTIFACTS, CHROMIUM, DESKTOP, PHONE, open_form, pytestmark, serving  # noqa: F401
from tests.web_helpers import fresh_db

from barbu.engine.contracts import CLASSIC, FAMILY, Contract
from barbu.engine.game import Game
from barbu.engine.state import State

CATALOGUES = ROOT / "src" / "barbu" / "web" / "static" / "i18n"
LANGS = ["en", "fr", "zh", "sq", "be", "id", "my"]
SHOTS = ["en", "fr", "zh", "my"]  # the languages whose pages are pictured for a person to look at
NAMES = ["Annabelle", "Benjamin", "Cleopatra", "Dimitri", "Eleonora", "Frederik"]


def catalogue(code: str) -> dict[str, Any]:
    return json.loads((CATALOGUES / f"{code}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("web"), "i18n.db")) as url:
        yield url




def open_page(chrome: Any, url: str, viewport: dict[str, int] = DESKTOP, locale: str = "en-US") -> Any:
    context = chrome.new_context(viewport=viewport, locale=locale)
    page = context.new_page()
    page.goto(url)
    return page


def wait_lobby(page: Any) -> None:
    open_form(page)  # the whole form, to read all its words


def wait_rules(page: Any) -> None:
    page.wait_for_selector("#rules-text li.contract")


def post(url: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"} | ({"X-Barbu-Token": token} if token else {})
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def assert_no_placeholders(page: Any) -> None:
    text = page.inner_text("body")
    assert "[" not in text, f"a key without words: {text[text.find('['):][:60]}"
    assert "{" not in text, f"an unfilled slot: {text[text.find('{'):][:60]}"


@pytest.mark.parametrize("lang", LANGS)
def test_lobby_and_rules_pages_in_each_language(server: str, chrome: Any, lang: str) -> None:
    words = catalogue(lang)
    page = open_page(chrome, f"{server}/?lang={lang}")
    try:
        wait_lobby(page)
        assert page.evaluate("document.documentElement.lang").startswith(lang)
        assert_no_placeholders(page)
        text = page.inner_text("#lobby")
        for key in ("lobby.new-table", "lobby.open-tables", "lobby.other-seats", "level.basic.line"):
            assert words[key] in text, f"{lang}: {key} is not on the lobby"
        # The options by their names in this language, not by their (English) ids.
        options = page.locator("#options-box label.option").all_inner_texts()
        assert options
        for o in ("heart-lead", "king-first", "overtrump", "dominoes-40"):
            assert any(x.strip().startswith(words[f"option.{o}.name"]) for x in options), (lang, o, options)
        page.check("input[name=ruleset][value=family]")
        assert page.is_visible("#family-note")
        assert words["family.lowest-wins"] in page.inner_text("#family-note")
        for ruleset in ("classic", "family"):
            page.goto(f"{server}/rules/{ruleset}?lang={lang}")
            wait_rules(page)
            assert_no_placeholders(page)
            body = page.inner_text("#rules-text")
            last = "no-king" if ruleset == "classic" else "reussite"
            assert words[f"contract.{ruleset}.{last}.name"] in body
            assert page.locator("select.lang-switch").input_value() == lang
            if lang in SHOTS:
                page.screenshot(path=str(ARTIFACTS / f"rules-{ruleset}-{lang}-desktop.png"), full_page=True)
    finally:
        page.context.close()


def test_the_browser_language_is_the_default_and_the_choice_is_remembered(server: str, chrome: Any) -> None:
    page = open_page(chrome, f"{server}/", locale="fr-FR")
    try:
        wait_lobby(page)
        assert page.inner_text("#create-title") == catalogue("fr")["lobby.new-table"]
        page.select_option("select.lang-switch", "id")
        page.wait_for_function("document.documentElement !== null && document.documentElement.lang === 'id'")
        wait_lobby(page)
        assert page.inner_text("#create-title") == catalogue("id")["lobby.new-table"]
        page.goto(f"{server}/score")  # another page of the same browser: the same choice
        page.wait_for_function("document.documentElement !== null && document.documentElement.lang === 'id'")
        assert page.evaluate("localStorage.getItem('barbu.lang')") == "id"
    finally:
        page.context.close()


def expected_figures(c: Contract, classic: bool) -> list[str]:
    """The numbers a contract's entry shows, read from the engine's table as the page writes them."""
    pts = c.card_points
    values = [c.per_trick, pts[10], pts[13], *c.last_tricks, *c.out_scores]  # QS, 2H
    values += [pts[13 + 12]] if c.id == "no-hearts" else []  # the A♥ of No Hearts
    values += [pts[13 + 11] - pts[13]] if pts[13 + 11] else []  # the K♥ (on top of a heart, in Salad)

    def shown(n: int) -> str:
        return f"−{-n}" if n < 0 else f"+{n}" if classic else str(n)
    return [shown(v) for v in values if v]


@pytest.mark.parametrize("ruleset", ["classic", "family"])
def test_the_rules_page_shows_every_contract_with_the_engines_figures(server: str, chrome: Any,
                                                                       ruleset: str) -> None:
    en = catalogue("en")
    page = open_page(chrome, f"{server}/rules/{ruleset}?lang=en")
    try:
        wait_rules(page)
        table = CLASSIC if ruleset == "classic" else FAMILY
        items = page.locator("#rules-text li.contract")
        assert items.count() == len(table) == 7
        for c in table:
            text = page.inner_text(f"li.contract[data-contract='{c.id}']")
            assert en[f"contract.{ruleset}.{c.id}.name"] in text
            missing = [f for f in expected_figures(c, ruleset == "classic") if f not in text]
            assert not missing, f"{c.id} shows no {missing}: {text}"
        if ruleset == "classic":
            assert "−26 − 24 − 30 − 30 − 20 + 65 + 65 = 0" in page.inner_text("#s1-3")
            assert "+40" in page.inner_text("#s1-6")  # dominoes-40, from the option's own table
        else:
            assert "10 + 100 + 25 + 10 + 10 = 155" in page.inner_text("li.contract[data-contract='salad']")
            assert en["family.lowest-wins"] in page.inner_text("#s2-4")
            assert en["rules.family.s2-4.p2"] in page.inner_text("#s2-4")  # what a shorter game is
    finally:
        page.context.close()


def test_burmese_and_chinese_are_drawn_with_real_fonts(server: str, chrome: Any) -> None:
    for lang in ("my", "zh-cn"):
        fonts = subprocess.run(["fc-list", f":lang={lang}"], capture_output=True, text=True).stdout
        assert fonts.strip(), f"no font for {lang}: ./test.sh installs fonts-noto-core and fonts-noto-cjk"
    page = open_page(chrome, f"{server}/?lang=my")
    try:
        wait_lobby(page)
        # The same number of characters drawn as boxes (private-use code points) would be as wide
        # as each other; with a Myanmar font the words have their own widths.
        widths = page.evaluate("""() => {
          const ctx = document.createElement('canvas').getContext('2d');
          ctx.font = '20px ' + getComputedStyle(document.body).fontFamily;
          const word = document.getElementById('create-title').textContent;
          const boxes = '\\ue000'.repeat([...word].length);
          return [ctx.measureText(word).width, ctx.measureText(boxes).width];
        }""")
        assert abs(widths[0] - widths[1]) > 5, widths
    finally:
        page.context.close()


def keeper_sheet(server: str, players: int, hands: int) -> str:
    """A score sheet with ``hands`` hands of a game the engine played at random; its link."""
    game = Game("family", players) if players != 4 else Game.classic()
    state = drive(State(game, seed=11), random.Random(11), until=lambda s: len(s.history) >= hands)
    doc = sheet_of(state, NAMES[:players], random.Random(11))
    made = post(f"{server}/api/sheets", {"ruleset": game.ruleset, "players": players,
                                        "names": NAMES[:players], "first_declarer": state.first_declarer})
    for k, hand in enumerate(doc["hands"]):
        post(f"{server}/api/sheets/{made['id']}/hands", {"entry": f"i18n:{k}", "hand": k, "data": hand},
             made["token"])
    return f"{server}{made['link']}"


def test_the_sheet_on_a_phone_shows_every_player_and_a_line_each(server: str, chrome: Any) -> None:
    link = keeper_sheet(server, players=6, hands=12)
    for lang in SHOTS:
        for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            page = open_page(chrome, link.replace("#", f"?lang={lang}#"), viewport=viewport)
            try:
                page.wait_for_selector("#rows tr.hand-row")
                assert page.locator("#rows tr.hand-row").count() == 12
                cells = page.locator("#rows th.player, #rows tr.totals td.num").all()
                assert len(cells) == 12
                for cell in cells:  # no sideways scrolling to see any player's total
                    box = cell.bounding_box()
                    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
                assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
                assert page.locator("#chart-svg polyline.line").count() == 6
                assert_no_placeholders(page)
                page.locator("#rows").scroll_into_view_if_needed()
                page.screenshot(path=str(ARTIFACTS / f"sheet-{lang}-{name}.png"), full_page=True)
            finally:
                page.context.close()


@pytest.mark.parametrize("lang", SHOTS)
def test_lobby_and_rules_fit_a_phone_and_a_desktop(server: str, chrome: Any, lang: str) -> None:
    for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        page = open_page(chrome, f"{server}/?lang={lang}", viewport=viewport)
        try:
            wait_lobby(page)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.screenshot(path=str(ARTIFACTS / f"lobby-{lang}-{name}.png"), full_page=True)
            page.goto(f"{server}/rules/family?lang={lang}")
            wait_rules(page)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.screenshot(path=str(ARTIFACTS / f"rules-family-{lang}-{name}.png"), full_page=True)
        finally:
            page.context.close()


def serious(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


PAGES = [("/", "#quick-line:not(:empty)"),  # the lobby, drawn once the server answered
         ("/rules/classic", "li.contract"), ("/rules/family", "li.contract"),
         ("/score", "#name-inputs input"), ("SHEET", "#rows tr.hand-row")]  # each page, and when it is drawn


@pytest.mark.parametrize(("path", "ready"), PAGES)
def test_no_serious_accessibility_violations(server: str, chrome: Any, path: str, ready: str) -> None:
    url = keeper_sheet(server, players=4, hands=3) if path == "SHEET" else f"{server}{path}"
    for lang in ("en", "my"):
        page = open_page(chrome, url.replace("#", f"?lang={lang}#") if "#" in url else f"{url}?lang={lang}")
        try:
            page.wait_for_function(f"document.documentElement.lang.startsWith('{lang}')")
            page.wait_for_selector(ready)
            assert serious(page) == [], f"{path} in {lang}"
        finally:
            page.context.close()


def said(words: dict[str, Any], key: str, **args: Any) -> str:
    text = str(words[key])
    for k, v in args.items():
        text = text.replace("{" + k + "}", str(v))
    return text


def card_said(words: dict[str, Any], rank: str, suit: str) -> str:
    return said(words, "table.card", rank=words[f"table.rank.{rank}"], suit=words[f"table.suit.{suit}"])


def test_a_refused_count_is_said_in_the_readers_language(server: str, chrome: Any) -> None:
    """The engine's refusals of a count, in each pictured language: a sum, then a card nobody took."""
    link = keeper_sheet(server, players=4, hands=0)
    for lang in SHOTS:
        words = catalogue(lang)
        for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            page = open_page(chrome, link.replace("#", f"?lang={lang}#"), viewport=viewport)
            try:
                page.wait_for_selector("[data-contract='no-tricks']")
                page.locator("[data-contract='no-tricks']").click()
                for _ in range(12):
                    page.locator("[data-count='tricks-0-plus']").click()
                page.wait_for_selector("#check.bad")
                assert page.inner_text("#check") == said(words, "error.tally:sum.tricks", n=13, total=12)
                page.locator("#check").scroll_into_view_if_needed()
                page.screenshot(path=str(ARTIFACTS / f"score-refused-{lang}-{name}.png"), full_page=False)
                page.locator("[data-contract='no-queens']").click()
                for suit, seat in zip("SDC", (0, 1, 2), strict=True):
                    page.locator(f"[data-pick='queen-{suit}-{seat}']").click()
                page.wait_for_function("w => document.querySelector('#check.bad')?.textContent.includes(w)",
                                       arg=card_said(words, "Q", "H"))
                text = said(words, "error.tally:who-took", card=card_said(words, "Q", "H"))
                assert page.inner_text("#check") == text[0].upper() + text[1:]
                page.locator("#check").scroll_into_view_if_needed()
                page.screenshot(path=str(ARTIFACTS / f"score-refused-card-{lang}-{name}.png"))
                assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
                assert_no_placeholders(page)
            finally:
                page.context.close()
