"""Barbu without a server, in Chromium: the static build (`barbu static`) served by `python -m http.server`;
the engine in a Web Worker under Pyodide plays the same seeded game byte for byte as CPython; a solo game
played on the table page from the static lobby with the network cut once the site was visited, kept over
a reload (the lobby names it and asks before a new game replaces it; a second tab waits until it takes the
game over, and the first one stops), exported as a record `barbu replay` accepts, listed once in the
lobby's "Your games" (downloaded from there, deleted); the lobby's form is the last game's setup; and solo
play served by `barbu serve`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.pg_helpers import REQUIRE_ENV
from tests.test_solo import scripted
from tests.test_web_browser import CHROMIUM, DESKTOP, chromium, free_port, serving
from tests.test_web_i18n_browser import serious
from tests.web_helpers import fresh_db

from barbu.engine.game import Game
from barbu.solo import pyodide
from barbu.solo.table import SoloTable
from barbu.web.http.endpoints import ASSETS

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs it)")]

SETUP = {"ruleset": "classic", "players": 4, "rounds": 1, "seed": 20261206,
         "levels": ["pimc", "basic", "basic"], "name": "Ann"}
# The page's own worker, driven as the table page drives it: the person plays their first legal action,
# says "ready" after each hand; the record is asked for once the game is over. One hand, for time: the
# pause between hands is the same Python code (tests/test_solo.py plays it through).
DRIVE = """async (setup) => {
  const worker = new Worker("/static/solo-worker.mjs", { type: "module" });
  const config = await (await fetch("/solo.json")).json();
  return await new Promise((resolve, reject) => {
    let readyFor = -1;
    let from = null;
    const decided = [];
    worker.onerror = (e) => reject(new Error(e.message));
    worker.onmessage = ({ data }) => {
      if (data.type === "failed") reject(new Error(data.message));
      if (data.type === "opened") { from = data.from; worker.postMessage({ type: "hello" }); }
      if (data.type === "decided") decided.push(data.ms);
      if (data.type === "record") { worker.terminate(); resolve({ record: data.text, decided, from }); }
      if (data.type !== "events") return;
      const state = data.events.filter((e) => e.type === "state").pop();
      if (!state) return;
      const { view, table } = state;
      if (table.over) worker.postMessage({ type: "record" });
      else if (table.waiting.includes(0) && readyFor !== table.hand_no) {
        readyFor = table.hand_no;
        worker.postMessage({ type: "ready", hand: table.hand_no });
      } else if (view.current === 0 && !table.waiting.length && view.legal.join() !== "pass") {
        worker.postMessage({ type: "act", action: view.legal[0] });
      }
    };
    worker.postMessage({ type: "open", pyodide: config.pyodide, engine: config.engine, setup, delay: 0 });
  });
}"""

KEPT_SIZE = """async () => {
  const r = await (await caches.open("barbu-solo-snapshot")).match("/solo-snapshot");
  return r ? (await r.arrayBuffer()).byteLength : 0; }"""
KEPT_SNAPSHOT = f"async () => ({KEPT_SIZE})() > 0"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The static build, served by Python's own static file server on a free port."""
    if not pyodide.present():
        reason = f"no Pyodide in {pyodide.folder()} (./test.sh fetches it: python -m barbu.solo.pyodide)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(reason)  # under ./test.sh, which fetched it
        pytest.skip(reason)
    from barbu.web.http.site import build

    folder = tmp_path_factory.mktemp("static")
    build(folder)
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "-b", "127.0.0.1", "-d", str(folder)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(f"{url}/solo.json", timeout=2).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.1)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with chromium("barbu-solo-", viewport=DESKTOP, locale="en-US", reduced_motion="reduce",
                  accept_downloads=True) as c:
        yield c


def cpython_record(setup: dict[str, Any]) -> str:
    table = SoloTable(Game(setup["ruleset"], setup["players"], rounds=setup["rounds"]), setup["seed"],
                      setup["levels"], setup["name"])
    scripted(table)
    return table.record()


def test_the_browser_and_cpython_play_the_same_seeded_game_byte_for_byte(site: str, context: Any,
                                                                         tmp_path: Path) -> None:
    page = context.new_page()
    page.goto(f"{site}/rules/classic")
    played = page.evaluate(DRIVE, SETUP)
    assert played["from"] == "scratch" and played["record"] == cpython_record(SETUP)
    assert len(played["decided"]) >= 39  # every computer's card (and more) was the worker's
    # The interpreter was kept with the engine imported (a memory snapshot): the next start is from it,
    # and plays the same.
    page.wait_for_function(KEPT_SNAPSHOT, timeout=30000)
    again = page.evaluate(DRIVE, SETUP)
    page.close()
    assert again["from"] == "snapshot" and again["record"] == played["record"]
    record = tmp_path / "solo.json"
    record.write_text(played["record"] + "\n", encoding="utf-8")
    replayed = replay_json(record)
    assert replayed["complete"] and len(replayed["hands"]) == 1 and replayed["hands"][0]["declarer"] == 0


# A snapshot this Pyodide cannot read (another build's, a truncated write) in place of the kept one.
SPOIL_THEN_OPEN = """async () => {
  const config = await (await fetch("/solo.json")).json();
  const key = `${config.pyodide} ${config.engine}`;
  const cache = await caches.open("barbu-solo-snapshot");
  const headers = { "x-barbu-snapshot": key };
  await cache.put("/solo-snapshot", new Response(new Uint8Array(1 << 20), { headers }));
  const worker = new Worker("/static/solo-worker.mjs", { type: "module" });
  const setup = { ruleset: "classic", players: 4, rounds: 1, seed: 5, levels: ["basic", "basic", "basic"] };
  return await new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => {
      if (data.type === "failed") reject(new Error(data.message));
      if (data.type === "opened") resolve(data.from); // the worker lives on: it is writing the snapshot
    };
    worker.postMessage({ type: "open", pyodide: config.pyodide, engine: config.engine, setup, delay: 0 });
  });
}"""


def test_a_snapshot_pyodide_cannot_read_is_forgotten_and_made_anew(site: str, context: Any) -> None:
    page = context.new_page()
    page.goto(f"{site}/rules/classic")
    assert page.evaluate(SPOIL_THEN_OPEN) == "scratch"  # the table opened all the same
    page.wait_for_function(f"async () => ({KEPT_SIZE})() > (1 << 20)", timeout=30000)  # a real one now
    page.close()


def replay_json(record: Path) -> dict[str, Any]:
    """What `barbu replay --json` says of a record file (it fails the test when the file is refused)."""
    barbu = "import sys; from barbu.cli import main; sys.exit(main())"
    run = subprocess.run([sys.executable, "-c", barbu, "replay", str(record), "--json"], capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    answer: dict[str, Any] = json.loads(run.stdout)
    return answer


def play_on(page: Any, moves: int | None = None) -> int:
    """Play the person's turns through the table page (its own act(), the summary closed as a click
    would), until the game is over or ``moves`` were made; returns the moves made."""
    made = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (moves is None or made < moves):
        state = page.evaluate("""() => {
          if (!T.view || !T.meta) return "wait";
          if (T.meta.over) return "over";
          if (T.summary) { closeSummary(true); return "ready"; }
          const v = T.view;
          const newest = T.latest && T.latest.view === v && !(T.meta.waiting || []).length;
          if (newest && v.current === T.you && v.legal.length && !forcedPass(v) && T.pending === null) {
            act(v.legal[0], true);
            return "acted";
          }
          return "wait";
        }""")
        if state == "over":
            return made
        if state == "acted":
            made += 1
        else:
            page.wait_for_timeout(50)
    if moves is None:
        raise AssertionError("the game did not end in time")
    return made


def opened(page: Any) -> None:
    """Wait until the table page drew the worker's first state."""
    page.wait_for_function("() => T.view !== null && T.meta !== null", timeout=30000)


def test_a_solo_game_from_the_static_lobby_to_its_record_offline_and_over_a_reload(site: str, context: Any,
                                                                                  tmp_path: Path) -> None:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site}/?seed=77")
    page.wait_for_selector("#solo-rounds option", state="attached")
    assert page.locator("#solo-resume-line").is_hidden()  # nothing kept yet
    # The site's worker keeps its pages, Pyodide and the engine at its first visit: then the network goes.
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=30000)
    page.evaluate("navigator.serviceWorker.ready.then(() => caches.keys())")
    kept = page.evaluate("""async () => { const c = await caches.open((await caches.keys())[0]);
                            return (await c.keys()).map((r) => new URL(r.url).pathname); }""")
    assert f"{pyodide.PATH}pyodide.asm.wasm" in kept and "/play/" in kept
    assert {"/static/cards/cards.svg", "/static/i18n/my.json"} <= set(kept)  # the faces, every language
    assert serious(page) == []  # the lobby, by axe
    context.set_offline(True)
    for path, drawn in (("/rules/family", "li.contract"), ("/score/", "#name-inputs input")):
        page.goto(f"{site}{path}")  # the rules and the score keeper, offline too
        page.wait_for_selector(drawn, state="attached")
    page.goto(f"{site}/?seed=77")
    page.wait_for_selector("#solo-rounds option", state="attached")
    page.check("input[value=family]")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-rounds", index=1)  # one round each: 3 hands
    page.fill("#solo-name", "Ann")
    page.click("#solo-form button[type=submit]")
    page.wait_for_url("**/play/?seed=77")
    setup = page.evaluate("JSON.parse(localStorage.getItem('barbu.solo.setup'))")
    assert setup == {"ruleset": "family", "players": 3, "rounds": 3, "name": "Ann",
                     "levels": ["basic", "basic"], "seed": 77}
    # Kept brief: the same game cut to its first hand (the engine's shortest game), computers at once,
    # no pause after a trick.
    page.evaluate("(s) => { Solo.start(s); localStorage.setItem('barbu.settings', "
                  "JSON.stringify({trickPause: 0, watchPause: 0})); }", {**setup, "rounds": 1})
    page.goto(f"{site}/play/?delay=0")
    opened(page)
    for shown_by_a_server in ("#btn-replay", "#profile-link", "#chat"):
        assert page.locator(shown_by_a_server).is_hidden(), shown_by_a_server
    assert page.locator("#offline").is_hidden()  # offline, and not said: nothing here needs the network
    play_on(page, moves=4)
    page.wait_for_function(KEPT_SNAPSHOT, timeout=30000)
    the_lobby_names_and_keeps_the_game(page, site)
    page.goto(f"{site}/play/?delay=0")
    opened(page)  # the kept game, rebuilt by the worker from its actions, in the kept interpreter
    before = page.evaluate("() => JSON.parse(localStorage.getItem('barbu.solo.kept')).actions.length")
    page = a_second_tab_takes_the_game_over(page, site, errors)
    assert page.evaluate("Solo.opened().from") == "snapshot"
    assert page.evaluate("() => JSON.parse(localStorage.getItem('barbu.solo.kept')).actions.length") >= before
    # A full storage: the game goes on (it is not kept over a reload meanwhile).
    page.evaluate(FULL_STORAGE)
    assert play_on(page, moves=2) == 2
    page.evaluate("() => { Storage.prototype.setItem = window.unfull; }")
    play_on(page)
    page.wait_for_selector("#end-dialog[open] #end-record")
    assert "Ann" in page.inner_text("#end-body") and page.locator("#end-again").is_visible()
    with page.expect_download() as download:
        page.click("#end-record")
    record = tmp_path / "solo.json"
    download.value.save_as(record)
    replayed = replay_json(record)
    assert replayed["complete"] and len(replayed["hands"]) == 1
    assert replayed["totals"] == page.evaluate("() => T.view.totals")
    # The record asked after the game's own (the worker answers in order): the game is in the list by then.
    assert page.evaluate(KEPT_GAMES) == 1
    places = page.evaluate("() => T.meta.places")
    page.reload()  # the finished game again: not kept twice
    page.wait_for_function("() => T.meta !== null && T.meta.over", timeout=30000)
    assert page.evaluate(KEPT_GAMES) == 1
    your_games(page, site, record.read_text(encoding="utf-8"), replayed["totals"], places, tmp_path)
    context.set_offline(False)
    assert errors == []
    page.close()


KEPT = "JSON.parse(localStorage.getItem('barbu.solo.kept'))"
FOCUSED = "document.activeElement.id"
REPLACE_OPEN = "document.getElementById('solo-replace').open"


def the_lobby_names_and_keeps_the_game(page: Any, site: str) -> None:
    """The lobby while the one-hand family game is in progress: its form is that game's setup, its
    "Resume" line says which game it is, and "Start a new game" asks first, in the page: Escape and
    "Keep my game" keep the game, by keyboard, the focus back on the button."""
    kept = page.evaluate(KEPT)
    page.goto(f"{site}/")
    page.wait_for_selector("#solo-rounds option", state="attached")
    assert page.inner_text("#solo-resume-which") == "Family, 3 players, hand 1 of 1"
    assert page.is_checked("input[value=family]") and page.input_value("#solo-players") == "3"
    assert page.input_value("#solo-name") == "Ann"
    assert page.inner_text("#solo-rounds option:nth-child(2)") == "Shorter: 1 round each, 3 in all"
    page.focus("#solo-form button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_function(REPLACE_OPEN)
    said = page.inner_text("#solo-replace-said")
    assert said == "Your game in progress (Family, 3 players, hand 1 of 1) will be lost."
    assert page.evaluate(FOCUSED) == "solo-replace-keep"
    assert serious(page) == []  # the question, by axe
    page.keyboard.press("Escape")
    assert not page.evaluate(REPLACE_OPEN)
    assert page.evaluate("document.activeElement.type") == "submit"
    page.keyboard.press("Enter")
    page.wait_for_function(REPLACE_OPEN)
    page.keyboard.press("Enter")  # "Keep my game"
    assert not page.evaluate(REPLACE_OPEN) and page.evaluate(KEPT) == kept and page.url == f"{site}/"


# The writes of the page's storage, from now on, in window.writes.
COUNT_WRITES = """() => {
  window.writes = [];
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    window.writes.push(key);
    return setItem.call(this, key, value);
  };
}"""


def a_second_tab_takes_the_game_over(page: Any, site: str, errors: list[str]) -> Any:
    """A second tab of the game in progress: it does not start the game, and says so; its "Play it here"
    takes the game over, and the first tab stops (its socket closed, said, and nothing more written).
    Returns the second tab, where the game goes on."""
    second = page.context.new_page()
    second.on("pageerror", lambda e: errors.append(str(e)))
    second.goto(f"{site}/play/?delay=0")
    second.wait_for_selector("#solo-elsewhere-open", timeout=10000)
    assert second.inner_text("#solo-elsewhere-open") == "This game is open in another tab or window."
    assert second.evaluate(FOCUSED) == "solo-here" and second.locator("#table").is_hidden()
    second.wait_for_function("() => T.ws !== null")  # the table asked for its socket: no worker behind it
    assert second.evaluate("T.ws.worker") is None and second.evaluate("Solo.opened()") is None
    assert serious(second) == []  # the word of it, by axe
    page.evaluate(COUNT_WRITES)
    second.keyboard.press("Enter")  # "Play it here"
    opened(second)
    page.wait_for_selector("#solo-elsewhere-moved", timeout=10000)
    assert page.evaluate("T.ws.readyState") == 3 and page.locator("#table").is_hidden()
    page.evaluate("() => T.ws.send(JSON.stringify({ type: 'sync' }))")  # the stopped tab's worker: gone
    actions = second.evaluate(KEPT)["actions"]
    assert play_on(second, moves=2) == 2
    second.wait_for_function(f"() => {KEPT}.actions.length > {len(actions) + 1}")
    assert page.evaluate("window.writes") == []
    page.close()
    return second


# localStorage full: every write refused as a full storage refuses it (the original kept in window.unfull).
FULL_STORAGE = """() => {
  window.unfull = Storage.prototype.setItem;
  Storage.prototype.setItem = () => { throw new DOMException("full", "QuotaExceededError"); };
}"""
KEPT_GAMES = "async () => { await Solo.record(); return Solo.games().length; }"
# 31 games kept one after the other (fabricated from the real one, told apart by their records).
THIRTY_ONE = """() => {
  const real = Solo.games()[0];
  for (let k = 1; k <= 31; k++) Solo.keep({ ...real, ended: real.ended + k, record: `{"k": ${k}}` });
  Solo.keep({ ...real, ended: real.ended + 99, record: '{"k": 31}' }); // the 31st again: not kept twice
  const list = Solo.games().map((g) => JSON.parse(g.record).k);
  return { n: list.length, newest: list[0], oldest: list[list.length - 1], real: list.includes(undefined) };
}"""
# A storage with room for about ten such games: the next game keeps what fits, newest first.
CROWDED = """() => {
  const one = JSON.stringify(Solo.games()[0]).length;
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (String(value).length > one * 10.5) throw new DOMException("full", "QuotaExceededError");
    return setItem.call(this, key, value);
  };
  try {
    const kept = Solo.keep({ ...Solo.games()[0], record: '{"k": 32}' }).length;
    const stored = Solo.games();
    return { kept, stored: stored.length, newest: JSON.parse(stored[0].record).k, crowded: Solo.crowded() };
  } finally {
    Storage.prototype.setItem = setItem;
  }
}"""


def your_games(page: Any, site: str, record: str, totals: list[int], places: list[int],
               tmp_path: Path) -> None:
    """The lobby's "Your games" after the one-hand family game: that game listed with the person's place,
    its record downloaded from there, then deleted; the 31st game drops the oldest; a full storage keeps
    what fits."""
    page.goto(f"{site}/")
    page.wait_for_selector("#solo-rounds option", state="attached")
    assert page.locator("#solo-resume-line").is_visible()  # the game is kept: its end can be seen again
    rows = page.locator("#solo-games-list li.solo-game")
    assert rows.count() == 1
    place = {1: "1st", 2: "2nd", 3: "3rd"}[places[0]] + ("=" if totals.count(totals[0]) > 1 else "")
    total = f"\u2212{-totals[0]}" if totals[0] < 0 else str(totals[0])
    assert f"Family, 3 players · You: {place} · {total}" in rows.inner_text()
    assert serious(page) == []  # the lobby with its list, by axe
    with page.expect_download() as download:
        page.click("#solo-games-list .solo-game-download")
    assert re.fullmatch(r"barbu-solo-\d{4}-\d\d-\d\d-\d{4}\.json", download.value.suggested_filename)
    again = tmp_path / download.value.suggested_filename
    download.value.save_as(again)
    assert again.read_text(encoding="utf-8") == record  # the same bytes as the table's own download
    assert replay_json(again)["totals"] == totals
    # Deleting asks first (the focus on "Keep it"), by keyboard.
    page.focus("#solo-games-list .solo-game-delete")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.className") == "solo-game-keep"
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    assert page.locator("#solo-games").is_hidden() and page.evaluate("Solo.games().length") == 0
    assert page.inner_text("#solo-games-said") == "The game was deleted."
    game = {"ended": 1e9, "ruleset": "family", "players": 3, "names": [], "totals": totals, "places": places,
            "you": 0, "record": record[:-1]}
    page.evaluate("(g) => Solo.keep(g)", game)
    assert page.evaluate(THIRTY_ONE) == {"n": 30, "newest": 31, "oldest": 2, "real": False}
    crowded = page.evaluate(CROWDED)
    assert crowded == {"kept": 10, "stored": 10, "newest": 32, "crowded": True}
    page.reload()
    page.wait_for_selector("#solo-games-list li.solo-game")
    assert rows.count() == 10 and page.locator("#solo-games-full").is_visible()
    # The game kept is over (among "Your games"): a new one needs no question. No name typed: the person
    # is "Player", and no name is remembered for the next game.
    page.fill("#solo-name", "")
    page.click("#solo-form button[type=submit]")
    page.wait_for_url(f"{site}/play/")
    setup = page.evaluate("JSON.parse(localStorage.getItem('barbu.solo.setup'))")
    assert setup["name"] == "Player" and page.evaluate("localStorage.getItem('barbu.name')") is None


KEPT_URLS = """async () => {
  const c = await caches.open((await caches.keys()).find((n) => n.startsWith('barbu-shell')));
  return (await c.keys()).map((r) => new URL(r.url).pathname + new URL(r.url).search); }"""


def test_solo_play_on_barbu_serve_offline_after_a_visit_of_its_lobby_alone(context: Any,
                                                                          tmp_path: Path) -> None:
    """The lobby alone, visited once, keeps what a game needs: a tester's game offline had blank cards
    (the card faces were kept only once a table had been opened online). The server is a new origin for
    the module's browser: nothing of the static site's is kept for it."""
    failed: list[str] = []
    c = context
    c.set_offline(False)
    with serving(fresh_db(tmp_path, "solo.db")) as url:
        page = c.new_page()
        page.on("requestfailed", lambda r: failed.append(r.url))
        page.goto(f"{url}/solo?seed=3")
        page.wait_for_selector("#solo-rounds option", state="attached")
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=30000)
        config = page.evaluate("fetch('/solo.json').then((r) => r.json())")
        wanted = set(config["offline"])
        assert ASSETS.url("cards/cards.svg") in wanted and ASSETS.url("i18n/my.json") in wanted
        deadline = time.monotonic() + 60
        while not wanted <= set(page.evaluate(KEPT_URLS)) and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert wanted <= set(page.evaluate(KEPT_URLS))
        c.set_offline(True)
        page.fill("#solo-name", "Ben")
        page.click("#solo-form button[type=submit]")
        page.wait_for_url("**/play?seed=3")  # the server's address, without the static folder's slash
        opened(page)
        assert page.evaluate("() => T.meta.seats[0].name") == "Ben"
        assert page.evaluate("Solo.lobby()") == "/solo"
        play_on(page, moves=1)
        page.wait_for_function("() => (JSON.parse(localStorage.getItem('barbu.solo.kept')) || {actions: []})"
                               ".actions.length >= 1")
        page.reload()  # offline still: the worker answers the page, Pyodide and the engine
        opened(page)
        assert page.evaluate("() => T.meta.seats[0].name") == "Ben"
        page.wait_for_function("document.querySelector('#hand svg.face use') !== null")
        c.set_offline(False)
        page.close()
        assert failed == [], failed  # the card faces among them


def test_play_again_deals_a_new_game_of_the_same_setup_which_the_lobby_offers_next(site: str,
                                                                                   context: Any) -> None:
    context.set_offline(False)
    page = context.new_page()
    page.goto(f"{site}/play/?delay=0")
    opened(page)
    # No name (the table page opened without the lobby): the worker's "You" is "Player" at the table.
    setup = {"ruleset": "family", "players": 3, "rounds": 3, "levels": ["expert:0.1", "expert:0.1"],
             "seed": 5}
    page.evaluate("(s) => Solo.start(s)", setup)
    with page.expect_navigation():
        page.evaluate("() => { Solo.again(); }")  # what the end dialog's "Play again" does
    opened(page)
    page.wait_for_function("() => localStorage.getItem('barbu.solo.kept') !== null")
    kept = page.evaluate("JSON.parse(localStorage.getItem('barbu.solo.kept'))")
    assert {k: kept[k] for k in ("ruleset", "players", "rounds", "levels")} == {
        k: setup[k] for k in ("ruleset", "players", "rounds", "levels")}
    assert kept["seed"] != 5  # new deals
    # The keyboard starts on the first decision, not ten tabs above it (a tester's report).
    page.wait_for_function("() => T.view && T.view.current === T.you", timeout=30000)
    page.wait_for_function("() => document.activeElement && document.activeElement.matches("
                           "'#decision button, #hand button.card.legal')", timeout=15000)
    # The browser's expert is said "expert", not by its budget (a tester saw "computer (expert:0.1)").
    page.wait_for_function("() => document.body.innerText.includes('(expert)')")
    assert "expert:" not in page.inner_text("body") and page.locator("[aria-label*='expert:']").count() == 0
    # The table as a hand's last card left it counts that last trick for its taker, as its points do (a
    # tester's seat said "4 tricks · −10 pts" beside the summary's five tricks).
    closing = page.evaluate("""() => {
      T.finalView = { trick: [[0, "2C"], [1, "AC"], [2, "3C"], [3, "TS"]], lines: [] };
      const old = { tricks_won: [3, 4, 2, 3], trump: null, hand_sizes: [1, 1, 1, 1], hand: [],
                    points: [0, 0, 0, 0], hand_no: 0, lines: [] };
      return closingView(old, null, { totals: [0, 0, 0, 0] }).tricks_won;
    }""")
    assert closing == [3, 5, 2, 3]
    assert page.inner_text(".seat.mine .who-name") == "Player (you)"
    # Another tab chose a classic game that this page then took back (a retester's race): the game
    # played here is the setup again as soon as it moves on, for the lobby and for "Play again".
    page.evaluate("""() => localStorage.setItem('barbu.solo.setup', JSON.stringify({ruleset: 'classic',
      players: 4, rounds: 8, levels: ['basic', 'basic', 'basic']}))""")
    page.reload()
    opened(page)
    page.wait_for_function("() => JSON.parse(localStorage.getItem('barbu.solo.setup')).ruleset === 'family'")
    # The lobby's form is this setup: the rules, the players, the length, the computers.
    page.goto(f"{site}/")
    page.wait_for_selector("#solo-rounds option", state="attached")
    form = page.evaluate("""() => [document.querySelector("input[name=ruleset]:checked").value,
      ...["solo-players", "solo-rounds", "solo-level"].map((id) => document.getElementById(id).value)]""")
    assert form == ["family", "3", "3", "expert:0.1"]
    page.close()

