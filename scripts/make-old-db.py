"""Make tests/data/old-db/0.1.0.sqlite: a database as release 0.1.0 (commit 2ca9f55) of the server wrote it.

Run with that release's code (``git checkout 2ca9f55``), never with a newer one: the point of the file
is to be the old layout, so that tests/test_web_migrations.py can check a newer server opens it whole.
It holds a finished table, one in progress with people and computers (one friend's seat still
free), one just created, and a score sheet with hands; beside it, ``0.1.0.expected.json`` keeps
what each table and the sheet were then (records, seats, totals), to compare after migrating.

    .venv/bin/python scripts/make-old-db.py tests/data/old-db/0.1.0.sqlite

The same script, run with the code of a later release (the commit named as its second argument),
makes that release's database, so that each layout has a file a newer server must open:

    .venv/bin/python scripts/make-old-db.py tests/data/old-db/0.2.0.sqlite "profiles (commit 6278e4f)"
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from barbu.engine.record import to_record
from barbu.web.sheets import sheet as sheetmod
from barbu.web.sheets.sheet import SheetBook
from barbu.web.storage.sqlite import Store
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

QUEENS = {"declarer": 0, "contract": "no-queens", "doubles": [[1, 0], [2, 0], [0, 2]],
          "result": {"queens": {"S": 0, "H": 2, "D": 3, "C": 3}}}
TRICKS = {"declarer": 0, "contract": "no-tricks", "doubles": [], "result": {"tricks": [4, 3, 3, 3]}}


class Quiet:
    """A client that is sent events and keeps none: the script only needs a seat to act from."""

    seat: int | None = None

    def send_text(self, text: str) -> None:
        pass


def play_person(table: Table, client: Quiet, rng: random.Random, hands: int) -> None:
    """The computers play, and the person at ``client.seat`` plays random legal actions, for ``hands``."""
    while not table.state.is_over and table.state.hand_no < hands:
        while table.auto_step():
            pass
        if table.state.is_over or table.state.hand_no >= hands:
            return
        legal = table.view(client.seat)["legal"]
        table.act(client, rng.choice(legal))


def snapshot(table: Table) -> dict[str, Any]:
    """What a table was when the file was made: its whole record and its seats (tokens left out)."""
    return {"record": to_record(table.state, table.names()), "hand_no": table.state.hand_no,
            "over": table.state.is_over, "current": table.state.current,
            "seats": [{"name": s.row.name, "kind": s.row.kind, "level": s.row.level,
                       "claimed": s.row.claimed, "has_token": bool(s.row.token)} for s in table.seats]}


def make(path: Path, made_by: str = "release 0.1.0 (commit 2ca9f55)") -> dict[str, Any]:
    store = Store(str(path))
    lobby = Lobby(store)
    rng = random.Random(2024)
    done = lobby.create(Setup.parse({"ruleset": "family", "players": 3, "seed": 11, "name": "Ann",
                                     "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"},
                                               {"kind": "bot", "level": "basic"}]}))
    ann = Quiet()
    done.attach(ann, done.seats[0].row.token)
    play_person(done, ann, rng, 10**6)
    busy = lobby.create(Setup.parse({"name": "Ben", "seats": [
        {"kind": "human"}, {"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}]}))
    ben, cleo = Quiet(), Quiet()
    busy.attach(ben, busy.seats[0].row.token)
    busy.attach(cleo, busy.seats[1].row.token, "Cleo")
    dan_seat, _ = busy.join("Dan")
    players = {0: ben, 1: cleo}
    dan = Quiet()
    busy.attach(dan, busy.seats[dan_seat].row.token)
    players[dan_seat] = dan
    while busy.state.hand_no < 3:
        while busy.auto_step():
            pass
        client = players[busy.state.current]
        busy.act(client, rng.choice(busy.view(client.seat)["legal"]))
    fresh = lobby.create(Setup.parse({"name": "Eve", "seats": [
        {"kind": "human"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "bot", "level": "random"}]}))
    book = SheetBook(store)
    sheet, batch = book.plan_create(sheetmod.parse_setup(
        {"ruleset": "classic", "names": ["Ann", "Ben", "Cleo", "Dan"], "first_declarer": 0}))
    store.commit(batch)
    for k, hand in enumerate([QUEENS, TRICKS]):
        entry, op = sheetmod.parse_op("add", k, {"entry": f"old:{k}", "hand": k, "data": hand})
        doc = sheet.plan(op)
        store.commit(sheet.batch(doc, entry, op))
        sheet.apply(doc)
    store.close()
    return {"made_by": made_by,
            "tables": {t.id: snapshot(t) for t in (done, busy, fresh)},
            "sheets": {sheet.id: {"doc": sheet.doc, "version": sheet.version,
                                  "totals": sheet.result.to_json()["totals"] if sheet.result else None}}}


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/old-db/0.1.0.sqlite")
    for extra in ("", "-wal", "-shm"):
        Path(str(path) + extra).unlink(missing_ok=True)
    expected = make(path, *sys.argv[2:3])
    path.with_suffix(".expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
    print(f"wrote {path} and {path.with_suffix('.expected.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
