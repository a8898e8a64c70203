"""The computers' pace a table's creator chooses (issue #37 item 12): checked, stored, and obeyed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_ws import app_for
from tests.web_helpers import fresh_db

from barbu.web.core.errors import TableError
from barbu.web.http.computers import computer_delay
from barbu.web.http.config import Config
from barbu.web.storage.sqlite import Store, open_store
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table


@pytest.fixture
def store(store_target: str) -> Any:
    s = open_store(store_target)
    yield s
    s.close()


@pytest.mark.parametrize("bad", ["warp", "", "FAST", 2, True, None, ["fast"], {"pace": "fast"}])
def test_a_pace_other_than_slow_normal_or_fast_is_refused_in_words(bad: object) -> None:
    with pytest.raises(TableError) as e:
        Setup.parse({"name": "Ann", "pace": bad})
    assert e.value.code == "bad-setup" and "slow" in e.value.message and "fast" in e.value.message


def test_the_server_answers_a_bad_pace_with_a_400_and_makes_no_table(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "pace.db"))) as client:
        res = client.post("/api/tables", json={"name": "Ann", "pace": "warp"})
        assert res.status_code == 400, res.text
        assert res.json()["error"]["code"] == "bad-setup"
        assert client.get("/api/tables").json()["tables"] == []
        made = client.post("/api/tables", json={"name": "Ann", "pace": "fast"})
        assert made.status_code == 201, made.text
        assert client.get(f"/api/tables/{made.json()['id']}").json()["table"]["pace"] == "fast"


def test_the_pace_is_stored_with_the_table_and_survives_a_restart(store: Store) -> None:
    table = Table.create(store, Setup.parse({"name": "Ann", "pace": "slow"}))
    assert table.pace == "slow" and table.meta()["pace"] == "slow"
    assert store.load_setup(table.id)["pace"] == "slow"
    assert Table.load(store, table.id).pace == "slow"


def test_a_table_without_a_pace_is_normal_and_stores_nothing_new(store: Store) -> None:
    table = Table.create(store, Setup.parse({"name": "Ann"}))
    assert table.pace == "normal" and "pace" not in (store.load_setup(table.id) or {})
    assert Table.load(store, table.id).meta()["pace"] == "normal"


def test_each_pace_scales_the_servers_computer_delay(store: Store) -> None:
    config = Config(":memory:", bot_delay=0.6)
    delays = {pace: computer_delay(config, Table.create(store, Setup.parse({"name": "Ann", "pace": pace})))
              for pace in ("slow", "normal", "fast")}
    assert delays["normal"] == 0.6
    assert delays["slow"] > delays["normal"] > delays["fast"] > 0
