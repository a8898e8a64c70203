"""A score sheet's CSV export is safe to open in a spreadsheet: what a player typed is never run as a formula
(OWASP's advice on CSV injection), whatever the reader's language."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tests.test_web_sheets import QUEENS, TRICKS, add
from tests.test_web_ws import app_for
from tests.web_helpers import fresh_db

from barbu.csvsafe import FORMULA_START, cell

HOSTILE = ['=cmd|"/c calc"!A1', "+1+1", "-2+3", "@SUM(A1:A2)", "\tTab", "Plain, with a comma"]
NUMBER = re.compile(r"-?\d+(\.\d+)?")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "exports.db"))) as c:
        yield c


@pytest.mark.parametrize("lang", ["en", "fr", "zh", "my"])
def test_no_cell_of_the_csv_export_starts_a_formula(client: TestClient, lang: str) -> None:
    names = HOSTILE[:4]
    res = client.post("/api/sheets", json={"ruleset": "classic", "names": names, "first_declarer": 0})
    assert res.status_code == 201, res.text
    sid, auth = res.json()["id"], {"X-Barbu-Token": res.json()["token"]}
    for k, hand in enumerate([QUEENS, TRICKS]):
        assert add(client, sid, auth, hand, k).status_code == 200
    text = client.get(f"/api/sheets/{sid}/csv?lang={lang}").text
    rows = list(csv.reader(io.StringIO(text)))
    cells = [c for row in rows for c in row]
    risky = [c for c in cells if c.startswith(FORMULA_START) and not NUMBER.fullmatch(c)]
    assert not risky, f"cells a spreadsheet would run: {risky}"
    stored = client.get(f"/api/sheets/{sid}").json()["names"]
    assert "'" + stored[0] in cells and stored[0].startswith("=")  # the name kept whole, only made inert
    # Text cells are quoted, their quotes doubled: a separator in a name never starts a cell of its own.
    assert '"\'=cmd|""/c calc""!A1"' in text


def test_a_cell_is_neutralised_only_when_it_could_start_a_formula() -> None:
    for text in [*HOSTILE[:5], "\rCR"]:
        assert cell(text) == "'" + text
    assert cell("Plain, with a comma") == "Plain, with a comma"
    assert cell(-12) == -12 and cell(3.5) == 3.5  # a number stays a number (a negative score is no formula)
    assert cell("") == ""
