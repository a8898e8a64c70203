"""Solo play served by `barbu serve` (http/solo.py): its pages, /solo.json, the engine's zip, Pyodide."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tests.test_web_ws import app_for
from tests.web_helpers import fresh_db

from barbu.solo import bundle, pyodide
from barbu.web.http.endpoints import ASSETS

YEAR = "public, max-age=31536000, immutable"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path_factory.mktemp("solo"), "solo.db"))) as c:
        yield c


def test_the_solo_pages_are_the_lobby_and_the_table_page(client: TestClient) -> None:
    lobby = client.get("/solo")
    assert lobby.status_code == 200 and 'id="solo-form"' in lobby.text
    assert "/static/solo-lobby.js?v=" in lobby.text
    table = client.get("/play")
    assert table.status_code == 200 and "/static/solo.js?v=" in table.text
    assert "/static/table.js?v=" in table.text


def test_the_engine_is_served_at_its_hashed_name_for_good(client: TestClient) -> None:
    config = client.get("/solo.json").json()
    data = bundle.build()
    assert config["engine"] == f"/solo/{bundle.name(data)}"
    res = client.get(config["engine"])
    assert res.status_code == 200 and res.content == data and res.headers["cache-control"] == YEAR
    with zipfile.ZipFile(io.BytesIO(res.content)) as zf:
        assert "barbu/solo/table.py" in zf.namelist()
    stale = client.get("/solo/barbu-0000000000000000.zip")
    assert stale.status_code == 404 and stale.json()["error"]["code"] == "not-found"


def test_pyodide_is_served_from_its_cache_folder_or_said_missing(client: TestClient, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "pyodide"
    folder.mkdir()
    monkeypatch.setenv("BARBU_PYODIDE", str(folder))
    assert client.get("/solo.json").json()["pyodide"] is None  # the lobby then offers no game
    assert client.get(f"{pyodide.PATH}pyodide.mjs").status_code == 404
    for name in pyodide.FILES:
        (folder / name).write_bytes(name.encode())
    assert client.get("/solo.json").json()["pyodide"] == pyodide.PATH
    wasm = client.get(f"{pyodide.PATH}pyodide.asm.wasm")
    assert wasm.status_code == 200 and wasm.content == b"pyodide.asm.wasm"
    assert wasm.headers["content-type"] == "application/wasm" and wasm.headers["cache-control"] == YEAR
    assert client.get(f"{pyodide.PATH}pyodide.mjs").headers["content-type"].startswith("text/javascript")
    for name in ("package.json", "..%2Fsecrets", "pyodide.js"):
        assert client.get(f"{pyodide.PATH}{name}").status_code == 404, name


def test_the_static_build_writes_the_pages_the_data_the_engine_and_a_worker_keeping_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from barbu.web.http.site import build

    fake = tmp_path / "pyodide"  # Pyodide's files as the cache folder holds them (no fetch: present)
    fake.mkdir()
    for name in pyodide.FILES:
        (fake / name).write_bytes(name.encode())
    monkeypatch.setenv("BARBU_PYODIDE", str(fake))
    site = tmp_path / "site"
    config = build(site, server="https://barbu.example.org/")
    assert json.loads((site / "solo.json").read_text()) == config
    assert config["server"] == "https://barbu.example.org/" and config["pyodide"] == pyodide.PATH
    assert (site / config["engine"].lstrip("/")).read_bytes() == bundle.build()
    pages = (("index.html", 'id="solo-form"'), ("play/index.html", "/static/solo.js?v="),
             ("rules/classic/index.html", "/static/rules.js?v="), ("rules/family/index.html", "rules.js"),
             ("score/index.html", "/static/score.js?v="), ("offline/index.html", "offline"))
    for page, mark in pages:
        assert mark in (site / page).read_text(encoding="utf-8"), page
    rules = json.loads((site / "api/rules/family").read_text())
    assert rules["ruleset"] == "family"
    assert (site / "static/solo-worker.mjs").is_file() and (site / "static/i18n/my.json").is_file()
    worker = (site / "sw.js").read_text(encoding="utf-8")
    shell = json.loads(re.search(r"^const SHELL = (\[.*\]);$", worker, re.M).group(1))  # type: ignore[union-attr]
    assert {"/", "/play/", "/score/", config["engine"], f"{pyodide.PATH}pyodide.asm.wasm"} <= set(shell)
    # The card faces and every language's words too (a game offline had blank cards), each once: an
    # address listed twice fails the worker's install (the catalogue of English was, and nothing was kept).
    assert set(config["offline"]) <= set(shell) and len(shell) == len(set(shell))
    assert ASSETS.url("cards/cards.svg") in shell and ASSETS.url("i18n/my.json") in shell
    for url in shell:  # every address the worker keeps is a file of the folder
        path = url.split("?")[0].lstrip("/")
        assert (site / path).is_file() or (site / path / "index.html").is_file(), url
    assert 'const VERSION = "static-' in worker
