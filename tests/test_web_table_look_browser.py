"""The card table in Chromium, how it looks and sounds: axe during play, screenshots in four languages,
reduced motion, a spectator, the idle countdown, the Dominoes history, the top seat's card, sounds."""

from __future__ import annotations

import re
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    ARTIFACTS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    ROOMY,
    free_port,
    post,
    serious_violations,
    serving,
    start_server,
    stop_server,
)
from tests.test_web_table_browser import (
    FAST,
    NEXT,
    next_target,
    open_table,
    play_to_summary,
)
from tests.web_helpers import fresh_db

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("look"), "look.db"), *ROOMY) as url:
        yield url


def test_no_serious_accessibility_violation_at_the_table_during_play(server: str, desktop: Any) -> None:

    page = open_table(desktop, server)
    play_to = time.monotonic() + 60
    while page.locator("#trick .played").count() < 1 and time.monotonic() < play_to:
        target = next_target(page)
        assert target is not None
        handle = target.element_handle()
        target.click()
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
    assert serious_violations(page, "axe-table.json") == []
    page.close()


SHOT_LANGUAGES = ["en", "fr", "zh", "my"]


def in_language(url: str, lang: str) -> str:
    """The same page in ``lang`` (?lang=, what a shared link says; the language switch reloads so too)."""
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(query=f"lang={lang}"))


def test_screenshots_of_the_table_the_summary_and_the_sheet(server: str, desktop: Any) -> None:
    """One hand photographed in four languages: at a trick, at its summary and at the score sheet, the
    page is opened again in each language (one game, not one a language), and none shows a missing key."""
    ARTIFACTS.mkdir(exist_ok=True)
    page = open_table(desktop, server)

    def in_each_language(name: str, ready: Callable[[], Any]) -> None:
        for lang in SHOT_LANGUAGES:
            page.goto(in_language(page.url, lang))
            ready()
            assert page.evaluate("document.documentElement.lang").startswith(lang)
            for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
                page.set_viewport_size(size)
                page.wait_for_timeout(150)
                page.screenshot(path=str(ARTIFACTS / f"table-{lang}-{name}-{tag}.png"))
            page.set_viewport_size(DESKTOP)
            untranslated = page.evaluate(
                "document.body.innerText.match(/\\[(table|summary|settings)\\.[^\\]]*\\]/g)")
            assert untranslated is None, (lang, name, untranslated)

    def mid_trick() -> None:  # Ann to play, two cards or more on the table
        assert next_target(page) is not None
        page.wait_for_function("document.querySelectorAll('#trick .played').length >= 2")

    def sheet() -> None:
        page.wait_for_selector("#hand .card")
        page.click("#btn-sheet")
        page.locator("#sheet tr.hand-row").first.wait_for()

    play_to_summary(page, lambda el: el.click(), lambda: in_each_language("trick", mid_trick))
    # A reload during the summary shows it again (the server still waits for Ann's "ready").
    in_each_language("summary", lambda: page.wait_for_selector("#summary-dialog[open]", timeout=15000))
    page.keyboard.press("Enter")
    page.wait_for_selector("#summary-dialog", state="hidden")
    in_each_language("sheet", sheet)
    assert page.errors == []
    page.close()


def test_reduced_motion_shows_every_play_without_travel(server: str, chrome: Any) -> None:
    context = chrome.new_context(viewport=DESKTOP, reduced_motion="reduce")
    try:
        page = open_table(context, server)
        assert page.evaluate("Motion.reduced()")
        assert play_to_summary(page, lambda el: el.click()) == 13
        assert page.evaluate("window.motions") == 0  # the same hand, shown without any travel
    finally:
        context.close()


def test_a_spectator_sees_seat_one_at_the_bottom_and_no_hand(server: str, desktop: Any) -> None:
    made = post(server + "/api/tables", {"ruleset": "family", "players": 5,
                                         "seats": [{"kind": "bot", "level": "random"}] * 5})
    page = desktop.new_page()
    page.add_init_script(FAST + "localStorage.setItem('barbu.lang', 'en');")
    page.goto(f"{server}/table/{made['id']}")
    page.wait_for_selector("#others .seat")
    sides = page.locator("#others .seat").evaluate_all("els => els.map(e => [e.dataset.seat, e.className])")
    assert len(sides) == 5 and sides[0][0] == "0" and "side-bottom" in sides[0][1]
    assert page.locator("#me").is_hidden() and not page.locator("#hand .card").count()
    label = page.locator("#others .seat[data-seat='1']").get_attribute("aria-label")
    assert label.startswith("Computer 2, computer (random), ")
    # The bots play on while the page loads, so the seat may hold any number of cards, one included.
    assert re.search(r", \d+ cards?\b", label), label
    page.close()


def test_a_countdown_says_when_an_idle_seat_may_be_handed_to_a_computer(desktop: Any, tmp_path: Path) -> None:
    port, db = free_port(), fresh_db(tmp_path, "idle.db")
    url = f"http://127.0.0.1:{port}"
    proc = start_server(port, db, "--idle", "4")
    try:
        made = post(url + "/api/tables", {"name": "Ann", "seats": [
            {"kind": "human"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]})
        ben = next(s for s in made["seats"] if s["seat"] == 1)
        page = desktop.new_page()
        page.goto(url + ben["link"])
        page.fill("#seat-name", "Ben")
        page.click("#name-form button")
        page.wait_for_function("T.view && T.meta && (T.view.current === 0 || T.view.current === 1)")
        if page.evaluate("T.view.current") == 1:  # Ben's own turn: the status counts down for him
            page.wait_for_function("$('status').textContent.includes('before the others may let')")
        else:  # Ann's turn, and she never comes: her seat counts down, then may be handed over
            countdown = page.locator(".seat[data-seat='0'] .countdown")
            countdown.wait_for(timeout=15000)
            assert "computer may take over" in countdown.inner_text()
            page.wait_for_selector(".seat[data-seat='0'] button.takeover", timeout=15000)
            assert not countdown.count()
        page.close()
    finally:
        stop_server(proc)


def test_every_pass_of_a_dominoes_hand_is_in_the_play_history(server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    # A forced pass is the server's to make: no button to race it (and then read "not your turn").
    page.evaluate("""() => { window.raced = 0; window.toasts = [];
      setInterval(() => { if (T.view && forcedPass(T.view) && T.view.current === T.you
        && document.querySelector('#hand-actions button, #hand button.card.legal')) window.raced++; }, 20);
      new MutationObserver(() => { if (!$('toast').hidden) window.toasts.push($('toast').textContent); })
        .observe($('toast'), { attributes: true, childList: true }); }""")
    forced = page.evaluate("""() => { const v = { ...T.view, phase: 'play', current: T.you, legal: ['pass'] };
      renderMe(v, true); renderStatus(v);
      const out = [document.querySelectorAll('#hand-actions button, #hand button.card.legal').length,
                   $('status').textContent === t('table.you-pass')];
      render(); return out; }""")
    assert forced == [0, True]
    page.click("#decision button[data-action=dominoes]")
    passes_seen = 0
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        page.wait_for_function(NEXT, timeout=30000)
        if page.locator("#summary-dialog[open]").count():
            break
        logged = page.evaluate("""() => [T.view.history.filter(([s, a]) => a === 'pass').length,
          [...document.querySelectorAll('#log-list li')].map(li => li.textContent).join(' ')
            .split(/passes: no card fits|stops/).length - 1]""")
        assert logged[0] == logged[1]  # each pass of the hand is written in the history
        passes_seen = max(passes_seen, logged[0])
        target = page.locator("#decision:not([hidden]) button:not(.sent), #hand-actions button:not(.sent), "
                              "#hand button.card.legal:not([aria-disabled])").first
        handle = target.element_handle()
        target.click()
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
    assert page.locator("#summary-dialog[open]").count()
    assert passes_seen > 0
    assert page.locator("#summary-body .layout-row").count() == 4  # the final rows
    assert page.evaluate("[window.raced, window.toasts]") == [0, []]
    page.close()


# Room between the top seat's box and its card, and between the lowest card and the felt's edge.
TRICK_ROOM = """() => {
  const top = document.querySelector('.felt .seat.side-top');
  const card = document.querySelector(`#trick .played[data-seat="${top.dataset.seat}"]`);
  const lowest = Math.max(...[...document.querySelectorAll('#trick .played')].map(
    (p) => p.getBoundingClientRect().bottom));
  return [card.getBoundingClientRect().top - top.getBoundingClientRect().bottom,
          document.querySelector('#felt').getBoundingClientRect().bottom - lowest];
}"""


@pytest.mark.parametrize("lang", ["en", "my"])
def test_the_top_seats_trick_card_never_covers_its_box(server: str, desktop: Any, lang: str) -> None:
    # Burmese lines are tall, and the top seat's box wraps its lines: its card stays below it.
    page = open_table(desktop, server, lang=lang)
    while not page.evaluate("T.view.last_trick.length"):
        target = next_target(page)
        assert target is not None
        handle = target.element_handle()
        target.click()
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
    page.click("#btn-last")  # the whole last trick: the top seat's card among them
    for size in (DESKTOP, PHONE, {"width": 1024, "height": 700}):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
        below_top, above_edge = page.evaluate(TRICK_ROOM)
        assert below_top >= 0 and above_edge >= 0, (lang, size, below_top, above_edge)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(ARTIFACTS / f"table-{lang}-last-trick-desktop.png"))
    assert page.errors == []
    page.close()


# A stand-in for Web Audio: each tone the page starts is written down (its frequency), nothing sounds.
FAKE_AUDIO = """
window.tones = []; window.audioContexts = 0;
window.AudioContext = class {
  constructor() { window.audioContexts++; this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    return { frequency: { value: 0 }, connect: (next) => next, stop() {},
             start() { window.tones.push(this.frequency.value); } };
  }
  createGain() {
    return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (next) => next };
  }
};
"""
TURN_TONES = [660, 880]  # settings.js: the two notes that say it is your turn


def play_until_my_turn_again(page: Any) -> None:
    """Act once (Ann's turn now), then wait until the page asks Ann again."""
    target = next_target(page)
    assert target is not None
    handle = target.element_handle()
    target.click()
    page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
    next_target(page)


def test_no_sound_by_default_and_your_turn_is_heard_once_sounds_are_on(server: str, chrome: Any) -> None:
    context = chrome.new_context(viewport=DESKTOP)
    context.add_init_script(FAKE_AUDIO)
    try:
        page = open_table(context, server)
        next_target(page)  # Ann's turn: she chooses the contract
        play_until_my_turn_again(page)
        assert page.evaluate("[window.audioContexts, window.tones]") == [0, []]  # off by default
        page.click("#btn-settings")
        page.check("#set-sounds")
        assert page.evaluate("window.tones") == TURN_TONES  # switching them on plays a sample
        page.click("#settings-close")
        page.evaluate("window.tones = []")
        play_until_my_turn_again(page)
        tones = page.evaluate("window.tones")
        assert tones[-2:] == TURN_TONES and tones.count(660) == 1, tones
        assert page.evaluate("JSON.parse(localStorage.getItem('barbu.settings')).sounds") is True
        assert page.errors == []
    finally:
        context.close()
