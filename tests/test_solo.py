"""The solo table (barbu.solo): the server's messages from the engine alone, its zip, the pinned Pyodide."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from barbu.engine.game import Game
from barbu.engine.record import replay
from barbu.solo import bundle, pyodide
from barbu.solo.table import YOU, SoloTable, bot_seed


def scripted(table: SoloTable, stop_after: int | None = None) -> list[dict[str, Any]]:
    """The person plays their first legal action each time, says "ready" after each hand, and the
    computers play between: every event sent, until the game ends (or after ``stop_after`` moves)."""
    events = table.handle({"type": "hello"})
    moves = 0
    while not table.state.is_over and (stop_after is None or moves < stop_after):
        step = table.step()
        if step:
            events += step
            continue
        meta = table.meta()
        if YOU in meta["waiting"]:
            events += table.handle({"type": "ready", "hand": meta["hand_no"]})
            continue
        view = table.state_event()["view"]
        events += table.handle({"type": "act", "action": view["legal"][0]})
        moves += 1
    return events


def short_game(seed: int = 11, levels: tuple[str, ...] = ("basic", "random", "basic")) -> SoloTable:
    return SoloTable(Game("classic", 4, rounds=2), seed, levels, "Ann", clock=lambda: 0.0)


def test_the_solo_table_speaks_the_servers_messages(tmp_path: Path) -> None:
    from barbu.web.storage.sqlite import open_store
    from barbu.web.tables.setup import Setup
    from barbu.web.tables.table import Table

    bot = {"kind": "bot", "level": "basic"}
    store = open_store(str(tmp_path / "t.db"))
    served = Table.create(store, Setup.parse({"name": "Ann", "seats": [{"kind": "you"}, bot, bot, bot]}))
    solo = short_game()
    assert sorted(solo.meta()) == sorted([*served.meta(), "solo"])
    assert sorted(solo.meta()["seats"][1]) == sorted(served.meta()["seats"][1])
    assert solo.meta()["contracts"] == served.meta()["contracts"]
    assert sorted(solo.state_event()) == sorted(served.state_event(0))
    assert sorted(solo.state_event()["view"]) == sorted(served.views.view(0))
    assert sorted(solo.events(sheet=True)[0]) == sorted(served.sheet_event())
    store.close()


def test_a_scripted_game_ends_and_its_record_replays_to_the_same_totals() -> None:
    table = short_game()
    events = scripted(table)
    kinds = [e["type"] for e in events]
    assert kinds[:4] == ["welcome", "sheet", "chat-log", "state"] and "error" not in kinds
    assert events[-1]["table"]["over"] and events[-1]["table"]["places"] is not None
    assert kinds.count("sheet") == 1 + 2  # the welcome's, then one after each of the two hands
    doc = json.loads(table.record())
    assert doc["format"] == "barbu-record/1" and doc["players"][0] == "Ann" and len(doc["hands"]) == 2
    assert list(replay(doc).state.totals) == list(table.state.totals)


def test_the_computers_wait_for_ready_after_a_hand_and_a_view_shows_no_other_hand() -> None:
    table = short_game()
    events = scripted(table)
    readies = [e for e in events if e["type"] == "state" and e["table"]["waiting"] == [YOU]]
    assert readies  # after the first hand the table waited for the person
    for e in events:
        if e["type"] == "state":
            assert e["view"]["seat"] == YOU and len(e["view"]["hand"]) <= 13


def test_a_game_rebuilt_from_its_snapshot_goes_on_as_it_would_have() -> None:
    whole = short_game(seed=5)
    scripted(whole)
    cut = short_game(seed=5)
    scripted(cut, stop_after=6)
    kept = json.loads(json.dumps(cut.snapshot()))  # as the browser keeps it
    again = SoloTable.restore(kept)
    again.clock = lambda: 0.0
    scripted(again)
    assert again.record() == whole.record()


def test_a_snapshot_that_cannot_be_replayed_is_refused_in_words() -> None:
    kept = short_game().snapshot()
    kept["actions"] = [9999]
    with pytest.raises(ValueError, match="cannot be rebuilt"):
        SoloTable.restore(kept)


@pytest.mark.parametrize(("msg", "code"), [
    ("hello", "bad-message"), ({"type": 3}, "bad-message"), ({"type": "chat", "text": "hi"}, "solo-only"),
    ({"type": "act", "action": 5}, "bad-action"), ({"type": "act", "action": "x" * 41}, "bad-action"),
    ({"type": "act", "action": "ZZ"}, "bad-action"), ({"type": "act", "action": "no-such"}, "bad-action"),
    ({"type": "ready", "hand": True}, "bad-hand"), ({"type": "ready", "hand": 3}, "not-this-hand"),
])
def test_a_malformed_message_gets_an_error_event_and_changes_nothing(msg: object, code: str) -> None:
    table = short_game()
    before = table.snapshot()
    answer = table.handle(msg)
    assert [e["type"] for e in answer] == ["error"] and answer[0]["code"] == code, answer
    assert table.snapshot() == before


def test_an_illegal_action_is_refused_with_the_rule_and_its_words() -> None:
    table = short_game()
    table.handle({"type": "hello"})
    assert table.state.current == YOU  # the person declares first
    answer = table.handle({"type": "act", "action": "AS"})  # a card while a contract is to be chosen
    assert answer[0]["code"].startswith("illegal:") and answer[0]["args"]["card"], answer
    table.handle({"type": "act", "action": "no-queens"})
    while table.step():
        pass
    if table.state.current != YOU:
        assert table.handle({"type": "act", "action": "2C"})[0]["code"] == "not-your-turn"


def test_unknown_levels_and_a_wrong_number_of_them_are_refused() -> None:
    with pytest.raises(ValueError, match="computer levels are needed"):
        SoloTable(Game("classic", 4), 1, ["basic"])
    with pytest.raises(ValueError, match="unknown computer level"):
        SoloTable(Game("classic", 4), 1, ["basic", "policy:x", "basic"])


def test_the_bots_seeds_are_plain_arithmetic_the_same_on_every_platform() -> None:
    assert bot_seed(7, 1, 0) == (7 * 1_000_003 + 7_919) % 4_294_967_291
    assert len({bot_seed(7, s, m) for s in range(1, 4) for m in range(60)}) == 180


def test_the_zip_holds_the_pure_parts_only_and_plays_a_game_alone(tmp_path: Path) -> None:
    names = bundle.needed()
    assert {"barbu.solo.table", "barbu.bots.strong", "barbu.bots.expert", "barbu.engine.record"} <= set(names)
    server = ("barbu.web.http", "barbu.web.storage", "barbu.bots.learned")
    assert not [n for n in names if n.startswith(server)]
    data = bundle.build()
    assert data == bundle.build() and bundle.name(data).startswith("barbu-")  # the same bytes each time
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert "barbu/bots/fitted_weights.json" in zf.namelist()
    (tmp_path / "engine.zip").write_bytes(data)
    # In a fresh interpreter that sees only the zip, and where starlette and numpy cannot be imported.
    code = ("import sys; sys.path.insert(0, 'engine.zip'); sys.modules.update(starlette=None, numpy=None)\n"
            "from barbu.engine.game import Game\nfrom barbu.solo.table import SoloTable\n"
            "from barbu.bots import make_bot\n"
            "t = SoloTable(Game('classic', 4, rounds=1), 3, ['basic', 'random', 'basic'])\n"
            "t.handle({'type': 'hello'})\n"
            "for level in ('pimc', 'strong', 'expert:0.02'):\n"
            "    assert make_bot(level, 1).act(t.state.observe(0)) in t.state.legal_actions()\n"
            "while not t.state.is_over:\n"
            "    t.step() or t.handle({'type': 'act', 'action': t.state_event()['view']['legal'][0]})\n"
            "print(t.state.is_over, sorted(m for m in sys.modules if m.startswith('barbu.web')))")
    run = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True ['barbu.web', 'barbu.web.tables', 'barbu.web.tables.rules']"


def test_a_module_importing_what_the_browser_lacks_is_refused() -> None:
    with pytest.raises(bundle.BundleError, match="starlette"):
        bundle.needed(("barbu.web.http.app",))


def test_pyodide_is_unpacked_only_when_it_matches_its_pinned_integrity(tmp_path: Path) -> None:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name in pyodide.FILES:
            info = tarfile.TarInfo(f"package/{name}")
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
    with pytest.raises(pyodide.FetchError, match="integrity"):
        pyodide.unpack(out.getvalue(), tmp_path / "py")
    assert not (tmp_path / "py").exists()
    empty = "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="
    assert pyodide.integrity(b"") == f"sha512-{empty}"


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("BARBU_PYODIDE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert pyodide.folder() == tmp_path / "barbu" / f"pyodide-{pyodide.VERSION}"
    assert not pyodide.present()
    monkeypatch.setenv("BARBU_PYODIDE", str(tmp_path / "mine"))
    assert pyodide.folder() == tmp_path / "mine"
