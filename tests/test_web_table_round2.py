"""The card table's second round in Chromium (issue #37, bugs 1-8): five and six at the table, the
hand by keyboard, many doubles, the summary's wait, the newest turn, the lobby's names, sound, overlaps."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, DESKTOP, PHONE, ROOMY, post, serving
from tests.test_web_table_browser import FAST, first_seat, next_target, open_table
from tests.web_helpers import fresh_db

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)",
)]

SMALL = {"width": 360, "height": 740}
HUMAN = {"kind": "human"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("round2"), "round2.db"), *ROOMY) as url:
        yield url


def act_once(page: Any) -> None:
    """Do what the page asks of Ann now (a trick contract, no double, a card) and wait for the answer."""
    target = next_target(page)
    assert target is not None, "the hand ended"
    handle = target.element_handle()
    target.click()
    page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)


def until(page: Any, condition: str, what: str, seconds: float = 120) -> None:
    """Play on as Ann until ``condition`` (JavaScript) holds on the page."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(condition):
        assert time.monotonic() < deadline, f"never: {what}"
        act_once(page)


def settled(page: Any) -> None:
    """Wait until the page shows the newest state at rest: no event waiting, no finished trick on show."""
    page.wait_for_function("Motion.pending === 0 && !T.shownTrick && T.latest.view === T.view", timeout=15000)
    page.wait_for_timeout(500)  # the last card's travel (320 ms) is over


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two boxes share (0: apart or touching)."""
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, w) * max(0.0, h)


RECT = """(el) => { const r = el.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"""


def rects(page: Any, selector: str) -> list[dict[str, float]]:
    return [page.evaluate(RECT, el) for el in page.query_selector_all(selector) if el.is_visible()]


# ---------------------------------------------------------------- 1. five and six players

# Each card of the trick with the name under it: the name's box, whether it is shown whole, its text.
PLAYED = """() => [...document.querySelectorAll('#trick .played')].map((p) => {
  const who = p.querySelector('.who');
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const shown = who && getComputedStyle(who).display !== 'none' && who.getClientRects().length > 0;
  return {seat: Number(p.dataset.seat), card: box(p.querySelector('.card')), who: shown ? box(who) : null,
          whole: shown && who.scrollWidth <= who.clientWidth + 1, text: who ? who.textContent : ''};
})"""


@pytest.mark.parametrize("players", [5, 6])
def test_with_five_and_six_players_every_card_of_the_trick_shows_who_played_it(
        server: str, desktop: Any, players: int) -> None:
    page = open_table(desktop, server, ruleset="family", players=players)
    until(page, "T.view.last_trick.length > 0", "a whole trick")
    settled(page)
    page.click("#btn-last")  # the whole last trick: one card of each player
    names = page.evaluate("T.meta.seats.map((s, i) => i === T.you ? null : s.name)")
    for size in (DESKTOP, PHONE, SMALL):
        page.set_viewport_size(size)
        page.wait_for_timeout(100)  # a layout pass
        played = page.evaluate(PLAYED)
        assert len(played) == players
        for p in played:
            assert p["who"] is not None and p["whole"], (size, p)
            if names[p["seat"]] is not None:
                assert p["text"] == names[p["seat"]], (size, p)
        boxes = [(p["seat"], part, p[part]) for p in played for part in ("card", "who")]
        for i, (s, part, box) in enumerate(boxes):
            for t, other, box2 in boxes[i + 1:]:
                if s != t:
                    assert overlap(box, box2) < 1, (size, s, part, t, other)
    assert page.errors == []
    page.close()


# ---------------------------------------------------------------- 2. the hand by keyboard

FOCUSED = """() => { const el = document.activeElement;
  return el && el.closest('#hand') ? {card: el.dataset.card, legal: el.classList.contains('legal')} : null;
}"""
# What is drawn at a card's top-left corner (its rank): the card itself, or the card over it.
CORNERS = """() => [...document.querySelectorAll('#hand .card')].map((c) => {
  const r = c.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + 5, r.top + 8);
  return [c.dataset.card, at ? (at.closest('.card') || at).dataset.card || null : null];
})"""


def test_the_keyboard_starts_on_a_playable_card_moves_between_them_and_hides_no_card(
        server: str, desktop: Any) -> None:
    page = open_table(desktop, server)
    followed = 0
    deadline = time.monotonic() + 150
    while followed < 2:
        assert time.monotonic() < deadline, "Ann never had to follow suit"
        target = next_target(page)
        assert target is not None, "the hand ended"
        if target.get_attribute("data-card") is None:
            handle = target.element_handle()
            target.click()
            page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
            continue
        page.wait_for_function(FOCUSED, timeout=5000)  # Ann's turn to play: the keyboard is in her hand
        assert page.evaluate(FOCUSED)["legal"], "the focus starts on a card that cannot be played"
        dim = page.locator("#hand .card.dim").count()
        legal = page.locator("#hand .card.legal").count()
        for key in ["ArrowRight"] * (legal + 1) + ["ArrowLeft"] * (legal + 1) + ["End", "Home"]:
            page.keyboard.press(key)
            now = page.evaluate(FOCUSED)
            assert now is not None and now["legal"], (key, now)
            hidden = [c for c, at in page.evaluate(CORNERS) if at != c]
            assert hidden == [], f"the focused {now['card']} hides the corner of {hidden}"
        followed += dim > 0
        handle = page.locator("#hand .card").first.element_handle()
        page.keyboard.press("Enter")
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
    assert page.errors == []
    page.close()


# ---------------------------------------------------------------- 3. many doubles

def friends(server: str, stack: ExitStack) -> tuple[dict[str, Any], list[Any]]:
    """Ann's table with Ben, Cleo and Dan seated over sockets (closed with ``stack``); the sockets."""
    from websockets.sync.client import connect

    made = post(server + "/api/tables", {"name": "Ann", "seats": [HUMAN] + [{"kind": "friend"}] * 3})
    url = server.replace("http", "ws") + f"/ws/{made['id']}"
    sockets = []
    for seat, name in ((1, "Ben"), (2, "Cleo"), (3, "Dan")):
        token = next(s["token"] for s in made["seats"] if s["seat"] == seat)
        ws = stack.enter_context(connect(url))
        ws.send(json.dumps({"type": "hello", "token": token, "name": name, "pace": True}))
        sockets.append(ws)
    return made, sockets


def newest_state(ws: Any, seconds: float = 0.2) -> dict[str, Any] | None:
    """The last state a socket was sent before it fell quiet for ``seconds``."""
    last = None
    while True:
        try:
            msg = json.loads(ws.recv(timeout=seconds))
        except TimeoutError:
            return last
        if msg["type"] == "state":
            last = msg


def widest(legal: list[str]) -> str:
    """The double or redouble of the most players offered."""
    return max(legal, key=lambda a: 0 if a.endswith(" none") else len(a.split(" ")[1].split(",")))


def to_annes_redouble(page: Any, sockets: list[Any]) -> None:
    """Ben, Cleo and Dan double (and redouble) everyone they may; Ann chooses No tricks if she is
    the declarer and doubles nobody: until Ann may redouble the three who doubled her."""
    deadline = time.monotonic() + 60
    while not page.evaluate("T.view && T.view.phase === 'redouble' && T.view.current === T.you"):
        assert time.monotonic() < deadline, "Ann was never asked to redouble"
        for seat, ws in enumerate(sockets, start=1):
            msg = newest_state(ws)
            view = msg["view"] if msg else None
            if view and view["current"] == seat and view["phase"] in ("choose", "double", "redouble"):
                action = "no-tricks" if view["phase"] == "choose" else widest(view["legal"])
                ws.send(json.dumps({"type": "act", "action": action}))
        if page.locator("#decision button[data-action=no-tricks]").count():
            page.click("#decision button[data-action=no-tricks]")
        elif page.evaluate("T.view && T.view.phase === 'double' && T.view.current === T.you") \
                and page.locator("#double-none").count():
            page.click("#double-none")


@pytest.fixture
def doubled(server: str, desktop: Any) -> Iterator[Any]:
    """Ann at her redouble after Ben, Cleo and Dan doubled everyone."""
    stack = ExitStack()
    made, sockets = friends(server, stack)
    page = desktop.new_page()
    page.add_init_script(FAST + "localStorage.setItem('barbu.lang', 'fr');")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(server + made["you"]["link"])
    page.wait_for_selector("#hand .card")
    to_annes_redouble(page, sockets)
    page.wait_for_selector("#double-submit")
    yield page
    stack.close()
    page.close()


def test_many_doubles_never_push_the_hand_out_of_view(doubled: Any) -> None:
    page = doubled
    pairs = page.evaluate("new Set(T.view.doubles.map(([a, b]) => [a, b].sort().join())).size")
    assert pairs >= 5
    for size in (DESKTOP, {"width": 1024, "height": 700}, PHONE, SMALL):
        page.set_viewport_size(size)
        page.wait_for_timeout(100)
        page.evaluate("window.scrollTo(0, 0)")
        cards = rects(page, "#hand .card")
        assert cards, size
        if size in (DESKTOP, {"width": 1024, "height": 700}):
            # on a desktop the whole hand is in view while deciding
            assert max(c["bottom"] for c in cards) <= size["height"], size
        # the doubles are shown, one mark per pair of players, and take no more than two lines
        marks = rects(page, "#info-contract .doubles .dbl")
        assert len(marks) == pairs, size
        rows = {round(m["top"]) for m in marks}
        assert len(rows) <= 2 if size["width"] > 800 else len(rows) <= 1, (size, rows)
        # the decision never covers the hand
        box = rects(page, "#decision")[0]
        assert all(overlap(box, c) < 1 for c in cards), size
    assert page.errors == []


# ---------------------------------------------------------------- 4. the summary's wait

def test_the_summary_says_it_waits_for_you_and_counts_down(server: str, desktop: Any) -> None:
    page = open_table(desktop, server, ruleset="family", players=6)
    deadline = time.monotonic() + 150
    while (target := next_target(page)) is not None:
        assert time.monotonic() < deadline, "the hand never ended"
        handle = target.element_handle()
        target.click()
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=15000)
    page.wait_for_function("document.querySelector('#summary-wait').textContent.length > 0", timeout=5000)
    first = page.inner_text("#summary-wait")
    assert "you" in first, first  # the server waits for Ann alone: "you"
    page.wait_for_function("(t) => document.querySelector('#summary-wait').textContent !== t", arg=first,
                           timeout=5000)  # and the seconds go down by themselves
    assert page.errors == []
    page.close()


# ---------------------------------------------------------------- 5. the newest turn

# What the status says now against what the newest state from the server says.
TURN_NOW = """() => ({status: document.querySelector('#status').textContent,
  current: T.latest.view.current, you: T.you, phase: T.latest.view.phase,
  name: T.latest.view.current >= 0 ? T.meta.seats[T.latest.view.current].name : null,
  behind: T.latest.view !== T.view && viewKey(T.latest.view) !== viewKey(T.view)})"""


def test_the_status_line_follows_the_newest_state_while_the_page_animates(server: str, chrome: Any) -> None:
    context = chrome.new_context(viewport=DESKTOP)
    # the longest pause after a trick: the page shows the tricks well after the server played them
    context.add_init_script(
        "localStorage.setItem('barbu.settings', JSON.stringify({trickPause: 4, watchPause: 4}));")
    made = post(server + "/api/tables", {"name": "Ann", "seed": first_seat("classic"),
                                         "seats": [HUMAN] + [{"kind": "bot", "level": "basic"}] * 3})
    page = context.new_page()
    page.goto(server + made["you"]["link"])
    page.wait_for_selector("#hand .card")
    lagged = 0
    deadline = time.monotonic() + 120
    while lagged < 3:
        assert time.monotonic() < deadline, "the page never fell behind the server"
        now = page.evaluate(TURN_NOW)
        if now["behind"] and now["current"] >= 0:
            lagged += 1
            if now["current"] == now["you"]:
                assert now["status"].startswith("Your turn"), now
            else:
                assert now["name"] in now["status"], now
        if page.locator("#decision:not([hidden]) button, #hand .card.legal:not([aria-disabled])").count():
            act_once(page)
        page.wait_for_timeout(150)
    context.close()


# ---------------------------------------------------------------- 6. the lobby in the reader's words

@pytest.mark.parametrize("lang", ["zh", "fr", "my"])
def test_the_lobby_lists_the_computers_in_the_readers_words(server: str, chrome: Any, lang: str) -> None:
    bot = {"kind": "bot"}
    made = post(server + "/api/tables", {"name": "Ann", "seats": [HUMAN, HUMAN, bot, bot]})
    context = chrome.new_context(viewport=DESKTOP)
    context.add_init_script(f"localStorage.setItem('barbu.lang', '{lang}');")
    page = context.new_page()
    page.goto(server + "/")
    item = page.locator(f"li[data-table='{made['id']}'] .t-names")
    item.wait_for()
    words = json.loads((Path(__file__).parent.parent / f"src/barbu/web/static/i18n/{lang}.json").read_text())
    expected = words["table.computer-n"].replace("{n}", "3")
    text = item.inner_text()
    assert expected in text and "Computer 3" not in text, text
    context.close()


# ---------------------------------------------------------------- 7. sound after a reload

# Web Audio as a browser gives it after a reload: suspended until the page is touched, then resumed
# (or, with window.refuseAudio, never); every tone started is written down.
SUSPENDED_AUDIO = """
window.tones = []; window.resumes = 0;
window.AudioContext = class {
  constructor() { this.state = 'suspended'; this.currentTime = 0; this.destination = {}; }
  resume() {
    window.resumes++;
    if (window.refuseAudio || !navigator.userActivation.hasBeenActive) {
      return Promise.reject(new Error('not allowed'));
    }
    this.state = 'running'; return Promise.resolve();
  }
  createOscillator() { const ctx = this;
    return { frequency: { value: 0 }, connect: (next) => next, stop() {},
             start() { if (ctx.state === 'running') window.tones.push(this.frequency.value); } };
  }
  createGain() {
    return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (next) => next };
  }
};
"""
SOUNDS_ON = ("localStorage.setItem('barbu.settings', "
             "JSON.stringify({trickPause: 0.6, watchPause: 0.6, sounds: true}));")


@pytest.mark.parametrize("refused", [False, True])
def test_sound_after_a_reload_starts_with_the_first_touch_or_says_it_cannot(
        server: str, chrome: Any, refused: bool) -> None:
    context = chrome.new_context(viewport=DESKTOP)
    context.add_init_script(SUSPENDED_AUDIO + SOUNDS_ON + ("window.refuseAudio = true;" if refused else ""))
    page = open_table(context, server)
    page.mouse.click(5, 300)  # the first touch of the page, on nothing in particular
    if refused:
        page.wait_for_function("document.querySelector('#notice:not([hidden])')", timeout=5000)
        words = json.loads((Path(__file__).parent.parent / "src/barbu/web/static/i18n/en.json").read_text())
        assert page.inner_text("#notice") == words["settings.sound-blocked"]
    else:
        page.wait_for_function("window.resumes > 0", timeout=5000)
        deadline = time.monotonic() + 60
        while 660 not in page.evaluate("window.tones"):  # your turn is heard again
            assert time.monotonic() < deadline, "no sound after the page was touched"
            act_once(page)
    context.close()


# ---------------------------------------------------------------- 8. overlaps

@pytest.mark.parametrize("size", [DESKTOP, {"width": 1100, "height": 820}, {"width": 1024, "height": 700}])
def test_the_decision_panel_covers_no_seat(server: str, chrome: Any, size: dict[str, int]) -> None:
    context = chrome.new_context(viewport=size)
    page = open_table(context, server)
    page.wait_for_selector("#decision:not([hidden]) button")
    box = rects(page, "#decision")[0]
    for seat in rects(page, "#others .seat"):
        assert overlap(box, seat) < 1, (size, box, seat)
    context.close()


def test_the_status_line_stays_one_line_on_a_desktop(server: str, desktop: Any) -> None:
    page = open_table(desktop, server, lang="my")
    for _ in range(3):
        # one line of text and the status's padding: the height of a one-letter status
        one = page.evaluate("""() => { const s = document.querySelector('#status'); const was = s.textContent;
          s.textContent = 'x'; const h = s.getBoundingClientRect().height; s.textContent = was;
          return h; }""")
        height = rects(page, "#status")[0]
        assert height["bottom"] - height["top"] <= one + 4, (height, one)
        act_once(page)
    page.close()


def test_the_chats_refusal_is_said_beside_the_chat_not_over_the_game(server: str, chrome: Any) -> None:
    context = chrome.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    made = post(server + "/api/tables", {"name": "Ann", "seats": [HUMAN] + [{"kind": "bot"}] * 3})
    page = context.new_page()
    page.add_init_script(FAST)
    page.goto(server + made["you"]["link"])
    page.wait_for_selector("#hand .card")
    page.click("#chat summary")
    page.locator("#chat-form").scroll_into_view_if_needed()
    words = json.loads((Path(__file__).parent.parent / "src/barbu/web/static/i18n/en.json").read_text())
    said = words["error.chat-too-fast"].split("{")[0].strip()
    for i in range(12):
        page.fill("#chat-input", f"hello {i}")
        page.press("#chat-input", "Enter")
        if page.get_by_text(said).count():
            break
    refusal = page.get_by_text(said).first
    refusal.wait_for()
    where = page.evaluate(RECT, refusal.element_handle())
    for part in ("#felt", "#me", "#status"):
        assert overlap(where, rects(page, part)[0]) < 1, part
    context.close()
