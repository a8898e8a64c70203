"""The end of a game and the invitation in Chromium (issue #37, items 16 and 17): the places said
plainly with rematch and replay at hand, a family tie, and what an invited person sees before a name."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import (
    CHROMIUM,
    DESKTOP,
    PHONE,
    free_port,
    serious_violations,
    start_server,
    stop_server,
)
from tests.test_web_table_browser import FAST
from tests.web_helpers import Recorder, fresh_db

from barbu.engine.game import PASS
from barbu.engine.state import Phase, State
from barbu.web.storage.sqlite import open_store
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs Debian's chromium)",
)]

SMALL = {"width": 360, "height": 740}
LONG = "Maximilienne Charlotte"  # a long name: shown whole on the end screen, never cut
BOTS = [{"kind": "bot", "level": "random"}] * 3
ORDINAL = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th", 6: "6th"}


def english_list(items: list[str]) -> str:
    """Names joined as Intl.ListFormat joins them in English."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + ("," if len(items) > 2 else "") + \
        " and " + items[-1]


def places(totals: list[int], classic: bool) -> list[int]:
    """Each seat's place: equal totals share one, the next counts everyone above (docs/RULES.md)."""
    return [1 + sum((x > t) if classic else (x < t) for x in totals) for t in totals]


def ann_acts(table: Table, ann: Recorder, rng: random.Random, limit: int | None = None) -> int:
    """Ann plays random legal actions against the computers, ``limit`` of them at most; how many."""
    done = 0
    while not table.state.is_over and (limit is None or done < limit):
        while table.auto_step():
            pass
        if table.state.is_over or (limit is not None and done >= limit):
            break
        table.act(ann, rng.choice(table.state.observe(0).to_json()["legal"]))
        done += 1
    return done


def classic_table(store: Any, rng_seed: int, limit: int | None = None) -> tuple[Table, str, int]:
    """Ann and three computers; the game played to its end, or to Ann's ``limit``-th decision (the same
    seed and choices: the same game); the table, Ann's token and how many decisions she made."""
    table = Table.create(store, Setup.parse({"name": LONG, "seed": 3, "seats": [{"kind": "you"}, *BOTS]}))
    ann = Recorder(table)
    table.attach(ann, table.seats[0].row.token)
    n = ann_acts(table, ann, random.Random(rng_seed), limit)
    return table, table.seats[0].row.token, n


def tied_plan(state: State) -> list[int]:
    """Random choices for every seat that end this family game in a tie; the table deals, and passes
    a forced pass, by itself."""
    for k in range(2000):
        rng, st, chosen = random.Random(k), state.copy(), []
        while not st.is_over:
            if st.phase == Phase.DEAL:
                st.deal_random()
                continue
            legal = st.legal_actions()
            if st.phase == Phase.PLAY and legal == [PASS]:
                st.apply(PASS)
                continue
            chosen.append(rng.choice(legal))
            st.apply(chosen[-1])
        if len(set(st.totals)) < len(st.totals):
            return chosen
    raise AssertionError("no tie in 2000 games")


def family_tie(store: Any) -> tuple[Table, str]:
    seats = [{"kind": "you"}, {"kind": "human"}, {"kind": "human"}]
    table = Table.create(store, Setup.parse({"ruleset": "family", "players": 3, "seed": 5, "name": "Ann",
                                             "seats": seats}))
    people = {}
    for s, name in zip(table.seats, ("Ann", "Bartholomew Fitzgerald", "Cleo"), strict=True):
        people[s.row.seat] = Recorder(table)
        table.attach(people[s.row.seat], s.row.token, None if s.row.claimed else name)
    game = table.state.game
    for action in tied_plan(table.state):
        while table.auto_step():
            pass
        table.act(people[table.state.current], game.action_str(action))
    while table.auto_step():
        pass
    assert table.state.is_over and len(set(table.state.totals)) < 3
    return table, table.seats[0].row.token


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server whose store holds: a finished classic game where Ann is not first, the same kind of
    game at Ann's last decision, a finished family game ending in a tie, and a table inviting a friend."""
    db = fresh_db(tmp_path_factory.mktemp("end"), "end.db")
    store = open_store(db)
    out: dict[str, Any] = {}
    for k in range(40):
        done, token, n = classic_table(store, k)
        if places(list(done.state.totals), True)[0] > 1:
            break
    else:
        raise AssertionError("Ann came first in every game")
    out["done"] = (done.id, token, list(done.state.totals))
    last, token, _ = classic_table(store, k, n - 1)  # the same game, at Ann's last decision
    out["last"] = (last.id, token)
    tie, token = family_tie(store)
    out["tie"] = (tie.id, token, list(tie.state.totals))
    store.close()
    port = free_port()
    proc = start_server(port, db, "--tables-per-minute", "100", "--max-bot-tables", "100")
    out["url"] = f"http://127.0.0.1:{port}"
    try:
        yield out
    finally:
        stop_server(proc)


def at(chrome: Any, url: str, lang: str = "en", size: dict[str, int] = DESKTOP) -> Any:
    page = chrome.new_context(viewport=size).new_page()
    page.add_init_script(FAST + f"localStorage.setItem('barbu.lang', '{lang}');")
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    return page


def rows(page: Any) -> list[list[str]]:
    return page.evaluate("""() => [...document.querySelectorAll('#end-dialog table.end-places tbody tr')]
      .map((r) => [...r.children].map((c) => c.innerText.trim()))""")


def whole(page: Any) -> bool:
    """Every name on the end screen is shown whole and the table fits its dialog: nothing cut off."""
    return bool(page.evaluate("""() => [...document.querySelectorAll('#end-dialog .end-name')]
      .every((c) => c.scrollWidth <= c.clientWidth + 1 && c.getBoundingClientRect().width > 0)
      && ((d) => d.scrollWidth <= d.clientWidth)(document.querySelector('#end-dialog'))"""))


# ---------------------------------------------------------------- 16. the end of the game

def test_a_finished_game_shows_the_places_your_own_and_the_last_trick(world: dict[str, Any],
                                                                      chrome: Any) -> None:
    tid, token, totals = world["done"]
    page = at(chrome, f"{world['url']}/table/{tid}#t={token}")
    page.wait_for_selector("#end-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "end-title"  # the focus is on its heading
    mine = places(totals, True)
    names = [LONG, "Computer 2", "Computer 3", "Computer 4"]
    tied = [names[s] for s in range(1, 4) if mine[s] == mine[0]]
    assert page.inner_text("#end-you") == f"You finished {ORDINAL[mine[0]]}" + (
        f", tied with {english_list(tied)}." if tied else ".")
    got = rows(page)
    order = sorted(range(4), key=lambda s: (mine[s], s))
    assert [r[0] for r in got] == [ORDINAL[mine[s]] + ("=" if mine.count(mine[s]) > 1 else "") for s in order]
    assert [r[3] for r in got] == [f"+{totals[s]}" if totals[s] > 0 else str(totals[s]).replace("-", "\u2212")
                                   for s in order]
    assert got[order.index(0)][1].startswith(f"{LONG} (you)")
    assert "took the last trick" in page.inner_text("#end-last-play")
    for size in (DESKTOP, PHONE, SMALL):
        page.set_viewport_size(size)
        page.wait_for_timeout(100)
        assert whole(page), size
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    page.set_viewport_size(DESKTOP)
    assert serious_violations(page, "axe-end.json") == []
    page.keyboard.press("Escape")  # closed; the button under the status opens it again
    page.wait_for_selector("#end-dialog:not([open])", state="attached")
    page.click("#btn-end")
    page.wait_for_selector("#end-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "end-title"
    assert page.get_attribute("#end-replay", "href") == f"/replay/{tid}"
    page.click("#end-replay")  # the replay of this very game
    page.wait_for_url(f"**/replay/{tid}")
    page.wait_for_selector("#rp-view:not([hidden])")
    assert page.errors == []
    page.context.close()


def test_the_rematch_button_of_the_end_screen_opens_the_new_game(world: dict[str, Any], chrome: Any) -> None:
    tid, token, _ = world["done"]
    page = at(chrome, f"{world['url']}/table/{tid}#t={token}")
    page.wait_for_selector("#end-dialog[open] #end-rematch button[data-op='offer']")
    page.click("#end-rematch button[data-op='offer']")  # the computers accept at once
    page.wait_for_url(lambda url: f"/table/{tid}" not in url and "/table/" in url, timeout=15000)
    page.wait_for_selector("#hand .card")
    assert LONG in page.inner_text("#me-info")
    page.context.close()


def test_the_end_screen_opens_as_the_last_card_is_played(world: dict[str, Any], chrome: Any) -> None:
    tid, token = world["last"]
    page = at(chrome, f"{world['url']}/table/{tid}#t={token}")
    target = page.locator("#decision:not([hidden]) button, #hand button.card.legal:not([aria-disabled]), "
                          "#hand-actions button").first
    target.wait_for()
    target.click()  # Ann's last decision: the computers finish the game
    page.wait_for_selector("#end-dialog[open]", timeout=30000)
    page.wait_for_function("document.activeElement && document.activeElement.id === 'end-title'")
    assert page.inner_text("#end-you").startswith(("You won", "You finished", "You share"))
    assert page.locator("#end-dialog table.end-places tbody tr").count() == 4
    assert not page.locator("#sheet-dialog[open]").count()  # one dialog, not two
    assert page.errors == []
    page.context.close()


def test_a_family_tie_shares_a_place_for_players_and_watchers(world: dict[str, Any], chrome: Any) -> None:
    tid, token, totals = world["tie"]
    mine = places(totals, False)
    names = ["Ann", "Bartholomew Fitzgerald", "Cleo"]
    order = sorted(range(3), key=lambda s: (mine[s], s))
    expected = [ORDINAL[mine[s]] + ("=" if mine.count(mine[s]) > 1 else "") for s in order]
    for who in ("Ann", "watcher"):
        page = at(chrome, f"{world['url']}/table/{tid}" + (f"#t={token}" if who == "Ann" else ""))
        page.wait_for_selector("#end-dialog[open]")
        got = rows(page)
        assert [r[0] for r in got] == expected
        assert [r[1].replace(" (you)", "") for r in got] == [names[s] for s in order]
        said = page.inner_text("#end-you")
        tied = [names[s] for s in range(3) if mine[s] == mine[0] and s != 0]
        winners = [names[s] for s in range(3) if mine[s] == 1]
        if who == "watcher":
            assert "you" not in said.lower() and all(n in said for n in winners)
            assert said.endswith("share the win.") == (len(winners) > 1)
        elif mine[0] == 1:
            assert said == (f"You share the win with {english_list(tied)}." if tied else "You won!")
        else:
            with_ = f", tied with {english_list(tied)}." if tied else "."
            assert said == f"You finished {ORDINAL[mine[0]]}{with_}"
        assert "lowest total first" in page.inner_text("#end-dialog").lower()
        page.context.close()
    for lang in ("fr", "my", "zh"):  # the longest places and headings still fit a small phone
        page = at(chrome, f"{world['url']}/table/{tid}", lang, SMALL)
        page.wait_for_selector("#end-dialog[open] .end-places")
        assert whole(page), lang
        page.context.close()


# ---------------------------------------------------------------- 17. the invitation

def invited(world: dict[str, Any]) -> tuple[str, str]:
    """A new table of Ann's: a friend's seat (the link), a computer, an open seat, a turn clock."""
    from tests.test_web_browser import post

    made = post(world["url"] + "/api/tables", {
        "name": "Ann", "ruleset": "family", "players": 4, "pace": "slow",
        "turn_clock": {"seconds": 30, "level": "basic"},
        "seats": [{"kind": "you"}, {"kind": "friend"}, {"kind": "bot", "level": "basic"}, {"kind": "open"}]})
    return made["id"], next(s["link"] for s in made["seats"] if s["seat"] == 1)


def test_the_invitation_says_who_invites_the_rules_the_clock_and_who_sits_there(
        world: dict[str, Any], chrome: Any) -> None:
    _, link = invited(world)
    page = at(chrome, world["url"] + link)
    page.wait_for_selector("#invite-context:not([hidden]) #invite-seats li")
    assert page.inner_text("#invite-heading") == "Ann invites you to a game of Barbu"
    rules = page.inner_text("#invite-rules")
    assert rules.startswith("Family Barbu, 4 players, 28 rounds (7 for each player)")
    assert page.inner_text("#invite-pace") == "Slow"
    assert "30 s for each decision" in page.inner_text("#invite-clock")
    seats = page.locator("#invite-seats li").all_inner_texts()
    assert seats[0] == "Seat 1: Ann — person" and seats[2] == "Seat 3: Computer 3 — computer (easy)"
    assert seats[1] == "Seat 2: free: yours once you give your name" and seats[3] == "Seat 4: free seat"
    # The context comes before the name field.
    assert page.evaluate("""() => document.querySelector('#invite-context').compareDocumentPosition(
        document.querySelector('#seat-name')) & Node.DOCUMENT_POSITION_FOLLOWING""")
    assert serious_violations(page, "axe-invitation.json") == []
    assert page.errors == []
    page.context.close()


def test_join_with_no_name_points_at_the_name_field(world: dict[str, Any], chrome: Any) -> None:
    _, link = invited(world)
    page = at(chrome, world["url"] + link)
    page.wait_for_selector("#name-form:not([hidden])")
    for typed in ("", "   "):  # nothing, or only spaces: said beside the field, which takes the focus
        page.fill("#seat-name", typed)
        page.focus("#name-form button[type=submit]")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#seat-said').textContent !== ''")
        assert page.evaluate("document.activeElement.id") == "seat-name"
        assert page.get_attribute("#seat-name", "aria-invalid") == "true"
        assert page.get_attribute("#seat-name", "aria-describedby") == "seat-said"
        assert page.inner_text("#seat-said") == "Type your name here to take the seat."
        page.fill("#seat-name", "x")  # typing clears the mark and the words
        assert page.get_attribute("#seat-name", "aria-invalid") is None
        assert page.inner_text("#seat-said") == ""
    page.fill("#seat-name", "Ben")  # the seat is then taken
    page.click("#name-form button[type=submit]")
    page.wait_for_selector("#name-form", state="hidden")
    assert page.errors == []
    page.context.close()
