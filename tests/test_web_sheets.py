"""The score keeper's HTTP API: sheets started, hands checked, added, edited, undone, stored before told."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_browser import ARTIFACTS
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db, query, store_class

from barbu.web.core.rows import Batch, SheetBatch
from barbu.web.http import server as web_server
from barbu.web.http.endpoints import STATIC
from barbu.web.http.limits import Limiter

NAMES = ["Ann", "Ben", "Cleo", "Dan"]
# Ann declares No Queens; Ben doubles everyone, Cleo doubles Ann and Ann redoubles Cleo.
QUEENS = {"declarer": 0, "contract": "no-queens", "doubles": [[1, 0], [1, 2], [1, 3], [2, 0], [0, 2]],
          "result": {"queens": {"S": 0, "H": 2, "D": 3, "C": 3}}}
TRICKS = {"declarer": 0, "contract": "no-tricks", "doubles": [],
          "result": {"tricks": [4, 3, 3, 3]}}
KING = {"declarer": 0, "contract": "no-king", "doubles": [], "result": {"king_of_hearts": 2}}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "sheets.db"))) as c:
        yield c


def start(client: TestClient, **body: Any) -> tuple[str, dict[str, str]]:
    res = client.post("/api/sheets", json={"ruleset": "classic", "names": NAMES, "first_declarer": 0, **body})
    assert res.status_code == 201, res.text
    data = res.json()
    assert data["link"] == f"/score/{data['id']}#k={data['token']}"
    return data["id"], {"X-Barbu-Token": data["token"]}


def add(client: TestClient, sid: str, auth: dict[str, str], hand: dict[str, Any], k: int,
        entry: str | None = None) -> Any:
    return client.post(f"/api/sheets/{sid}/hands", headers=auth,
                       json={"entry": entry or f"t:{k}:{hand['contract']}", "hand": k, "data": hand})


def stored(client: TestClient, sid: str) -> tuple[Any, ...]:
    """What the server shows of a sheet, and what its database holds."""
    server = server_of(client)
    row = server.store.load_sheet(sid)  # type: ignore[union-attr]
    assert row is not None
    return (client.get(f"/api/sheets/{sid}").json(), row.doc, row.version,
            server.store.sheet_history(sid))  # type: ignore[union-attr]


def test_a_sheet_is_started_then_hands_checked_added_and_scored_by_the_engine(client: TestClient) -> None:
    sid, auth = start(client)
    view = client.get(f"/api/sheets/{sid}").json()
    assert view["next"]["declarer"] == 0 and view["writable"] is False and view["rows"] == []
    assert [c["id"] for c in view["next"]["contracts"] if c["open"]][:2] == ["no-tricks", "no-queens"]
    assert view["next"]["owes"][0] == "Ben still owes Ann 2 doubles in the 7 remaining hands Ann declares"
    short = {**TRICKS, "result": {"tricks": [4, 3, 3, 2]}}
    bad = client.post(f"/api/sheets/{sid}/check", json={"data": short})
    assert bad.status_code == 200
    assert bad.json() == {"ok": False, "error": {
        "code": "tally:sum", "field": "result.tricks", "hand": 0,
        "message": "13 tricks in all, but these add up to 12",
        "args": {"variant": "tricks", "n": 13, "most": 13, "total": 12, "aside": 0,
                 "contract": "no-tricks", "ruleset": "classic"}}}
    good = client.post(f"/api/sheets/{sid}/check", json={"data": QUEENS}).json()
    assert good == {"ok": True, "contract_scores": [-6, 0, -6, -12], "scores": [-12, 24, -12, -24]}
    res = add(client, sid, auth, QUEENS, 0)
    assert res.status_code == 200 and res.json()["repeat"] is False
    row = res.json()["rows"][0]
    assert row["scores"] == [-12, 24, -12, -24] and row["totals"] == [-12, 24, -12, -24]
    # Each pair settled by the engine: Ben won 6 from Ann, 6 from Cleo, 12 from Dan; Cleo and Ann are level.
    assert [(p["from"], p["to"], p["redoubled"], p["gain"]) for p in row["doubles"]] == [
        (1, 0, False, 6), (1, 2, False, 6), (1, 3, False, 12), (2, 0, True, 0)]
    nxt = res.json()["next"]
    assert nxt["hand"] == 1 and not next(c for c in nxt["contracts"] if c["id"] == "no-queens")["open"]
    assert "Dan still owes Ann 2 doubles in the 6 remaining hands Ann declares" in nxt["owes"]


def test_messages_name_the_players_and_the_field(client: TestClient) -> None:
    sid, _ = start(client)
    dominoes = {"declarer": 0, "contract": "dominoes", "start_rank": "J", "doubles": [],
                "result": {"out": [2, 2, 1]}}
    err = client.post(f"/api/sheets/{sid}/check", json={"data": dominoes}).json()["error"]
    assert err["field"] == "result.out" and "Cleo" in err["message"] and "seat" not in err["message"]
    assert err["code"] == "tally:out-twice" and err["args"] == {"name": "Cleo", "a": 1, "b": 2,
                                                                "contract": "dominoes", "ruleset": "classic"}
    err = client.post(f"/api/sheets/{sid}/check", json={"data": {**TRICKS, "declarer": 1}}).json()["error"]
    assert err["field"] == "declarer" and "must be Ann" in err["message"]
    assert err["code"] == "sheet:rotation" and err["args"] == {"variant": "declarer", "a": "Ann", "b": "Ben"}
    # Cards go as ids, for the page to name them in its language.
    no_one = {**QUEENS, "result": {"queens": {"S": 0, "H": None, "D": 3, "C": 3}}}
    err = client.post(f"/api/sheets/{sid}/check", json={"data": no_one}).json()["error"]
    assert err["code"] == "tally:who-took" and err["args"]["card"] == "QH"
    assert err["message"] == "say who took the queen of hearts"


def test_refusals_leave_the_sheet_unchanged(client: TestClient) -> None:
    sid, auth = start(client)
    assert add(client, sid, auth, QUEENS, 0).status_code == 200
    before = stored(client, sid)
    attempts = [
        (add(client, sid, auth, {**TRICKS, "result": {"tricks": [13, 1, 0, 0]}}, 1), 422, "tally:sum"),
        (add(client, sid, auth, QUEENS, 1, "again"), 422, "illegal:contract-used"),  # declared already
        (add(client, sid, auth, TRICKS, 0), 409, "conflict"),  # made for hand 1, the sheet has 1 hand
        (add(client, sid, {}, TRICKS, 1), 403, "read-only"),
        (add(client, sid, {"X-Barbu-Token": "nope"}, TRICKS, 1), 403, "bad-token"),
        (client.post(f"/api/sheets/{sid}/hands", headers=auth, json={"hand": 1, "data": TRICKS}), 400,
         "bad-entry"),
        (client.post(f"/api/sheets/{sid}/undo", headers=auth, json={"entry": "u", "hand": 5}), 409,
         "conflict"),
        (client.post(f"/api/sheets/{sid}/hands", headers=auth, content=b"[" * 16000), 400, "bad-json"),
        (client.post(f"/api/sheets/{sid}/hands", headers=auth, content=b"x" * 20000), 413, "too-large"),
        (client.post("/api/sheets/nosuch/hands", headers=auth, json={}), 404, "no-sheet"),
    ]
    for res, status, code in attempts:
        assert (res.status_code, res.json()["error"]["code"]) == (status, code), res.text
        assert set(res.json()["error"]) >= {"code", "message", "field"}
    assert stored(client, sid) == before


def test_a_resent_entry_is_made_once(client: TestClient) -> None:
    sid, auth = start(client)
    first = add(client, sid, auth, QUEENS, 0, "phone:1")
    again = add(client, sid, auth, QUEENS, 0, "phone:1")
    assert first.json()["repeat"] is False and again.status_code == 200 and again.json()["repeat"] is True
    assert len(again.json()["rows"]) == 1 and again.json()["version"] == first.json()["version"]
    assert len(stored(client, sid)[3]) == 1


def test_an_edit_rescores_later_hands_and_one_that_breaks_a_later_hand_is_refused(client: TestClient) -> None:
    sid, auth = start(client)
    for k, hand in enumerate([QUEENS, TRICKS, KING]):
        assert add(client, sid, auth, hand, k).status_code == 200
    assert client.get(f"/api/sheets/{sid}").json()["totals"] == [-12 - 8, 24 - 6, -12 - 6 - 20, -24 - 6]
    frame = client.get(f"/api/sheets/{sid}/hands/1").json()
    assert frame["data"] == TRICKS and frame["frame"]["hand"] == 1
    assert next(c for c in frame["frame"]["contracts"] if c["id"] == "no-tricks")["open"]
    before = stored(client, sid)
    res = client.put(f"/api/sheets/{sid}/hands/1", headers=auth, json={"entry": "e1", "data": KING})
    assert res.status_code == 422 and res.json()["error"]["hand"] == 2
    assert "later hand" in res.json()["error"]["message"] and "seat" not in res.json()["error"]["message"]
    # Its words, for a page in another language: the later hand's own refusal inside the edit's.
    err = res.json()["error"]
    assert err["code"] == "sheet:later-hand" and err["args"]["hand"] == 3
    assert err["args"]["why"]["code"] == "illegal:contract-used"
    assert err["args"]["why"]["args"] == {"declarer": "Ann", "contract": "no-king", "ruleset": "classic"}
    assert stored(client, sid) == before
    res = client.put(f"/api/sheets/{sid}/hands/1", headers=auth,
                     json={"entry": "e2", "data": {**TRICKS, "result": {"tricks": [0, 5, 4, 4]}}})
    assert res.status_code == 200
    assert [r["totals"] for r in res.json()["rows"]][1:] == [[-12, 14, -20, -32], [-12, 14, -40, -32]]


def test_undo_takes_back_the_last_hand(client: TestClient) -> None:
    sid, auth = start(client)
    add(client, sid, auth, QUEENS, 0)
    add(client, sid, auth, TRICKS, 1)
    res = client.post(f"/api/sheets/{sid}/undo", headers=auth, json={"entry": "u1", "hand": 1})
    assert res.status_code == 200 and len(res.json()["rows"]) == 1
    assert res.json()["totals"] == [-12, 24, -12, -24] and res.json()["next"]["hand"] == 1


def test_a_sheet_resumes_after_a_restart_with_its_link(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "resume.db")
    with TestClient(app_for(db)) as client:
        sid, auth = start(client)
        add(client, sid, auth, QUEENS, 0, "dev:1")
        seen = client.get(f"/api/sheets/{sid}", headers=auth).json()
    with TestClient(app_for(db)) as client:
        again = client.get(f"/api/sheets/{sid}", headers=auth).json()
        assert again == seen and again["writable"] is True
        # The entry is still known after the restart: its resend changes nothing.
        assert add(client, sid, auth, QUEENS, 0, "dev:1").json()["repeat"] is True
        assert add(client, sid, auth, TRICKS, 1).status_code == 200


def test_the_setup_is_checked_and_a_random_first_declarer_drawn_by_the_server(client: TestClient) -> None:
    for body, field in [({"names": ["Ann", "ann", "B", "C"]}, "names"), ({"names": NAMES[:3]}, "names"),
                        ({"ruleset": "family", "players": 7, "names": ["a"] * 7}, "players"),
                        ({"options": ["nope"]}, "options"), ({"first_declarer": 4}, "first_declarer")]:
        res = client.post("/api/sheets", json={"names": NAMES, "first_declarer": 0, **body})
        assert res.status_code == 400 and res.json()["error"]["field"] == field, (body, res.text)
    firsts = set()
    for _ in range(8):
        res = client.post("/api/sheets", json={"ruleset": "family", "players": 3, "names": NAMES[:3],
                                               "first_declarer": "random"})
        firsts.add(res.json()["view"]["sheet"]["first_declarer"])
        server_of(client).limiter = Limiter()
    assert firsts <= {0, 1, 2}
    fam = res.json()["view"]
    assert fam["next"]["may_double"] is None and fam["set_aside_count"] == 1 and fam["rotation"][:4] == [
        fam["sheet"]["first_declarer"], (fam["sheet"]["first_declarer"] + 1) % 3,
        (fam["sheet"]["first_declarer"] + 2) % 3, fam["sheet"]["first_declarer"]]


def test_sheets_per_client_per_minute(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "lim.db"), sheets_per_minute=2)) as client:
        start(client)
        start(client)
        res = client.post("/api/sheets", json={"names": NAMES, "first_declarer": 0})
        assert res.status_code == 429 and res.json()["error"]["code"] == "too-many-sheets"


def test_exports_csv_json_and_pdf(client: TestClient, tmp_path: Path) -> None:
    sid, auth = start(client, options=["dominoes-40"])
    for k, hand in enumerate([QUEENS, TRICKS, KING]):
        add(client, sid, auth, hand, k)
    doc = client.get(f"/api/sheets/{sid}/json")
    assert doc.headers["content-disposition"] == f'attachment; filename="barbu-sheet-{sid}.json"'
    assert doc.json()["format"] == "barbu-sheet/1" and doc.json()["options"] == ["dominoes-40"]
    path = tmp_path / "sheet.json"
    path.write_bytes(doc.content)
    out = subprocess.run([sys.executable, "-m", "barbu.cli", "replay", str(path), "--json"],
                         capture_output=True, text=True, check=True)
    totals = client.get(f"/api/sheets/{sid}").json()["totals"]
    assert json.loads(out.stdout)["totals"] == totals
    lines = csv_rows(client.get(f"/api/sheets/{sid}/csv").text)
    assert lines[0][:5] == ["Hand", "Declarer", "Contract", "Doubles", "Ann points"] and len(lines) == 5
    assert lines[1][:4] == ["1", "Ann", "No Queens", "Ben x Ann (Ben +6); Ben x Cleo (Ben +6); Ben x Dan "
                            "(Ben +12); Cleo xx Ann (Cleo +0)"]
    assert lines[-1][-4:] == [str(t) for t in totals]
    pdf = client.get(f"/api/sheets/{sid}/pdf")
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    if shutil.which("pdftotext"):
        (tmp_path / "s.pdf").write_bytes(pdf.content)
        text = subprocess.run(["pdftotext", str(tmp_path / "s.pdf"), "-"], capture_output=True, text=True,
                              check=True).stdout
        assert all(n in text for n in NAMES) and "No King of Hearts" in text and "Dominoes at 40" in text
    assert client.get(f"/api/sheets/{sid}/xls").status_code == 404


def csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def catalogue(lang: str) -> dict[str, Any]:
    path = STATIC / "i18n" / f"{lang}.json"
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_csv_follows_the_readers_language(client: TestClient) -> None:
    sid, auth = start(client)
    for k, hand in enumerate([QUEENS, TRICKS]):
        add(client, sid, auth, hand, k)
    fr = catalogue("fr")
    lines = csv_rows(client.get(f"/api/sheets/{sid}/csv?lang=fr").text)
    assert lines[0][:5] == [fr["export.hand"], fr["export.declarer"], fr["score.contract"],
                            fr["score.doubles"], fr["export.points"].replace("{name}", "Ann")]
    assert lines[0][:4] == ["Donne", "Déclarant", "Contrat", "Contres"]  # as a French reader sees them
    assert lines[1][2] == fr["contract.classic.no-queens.name"] == "Pas de dames"
    assert lines[-1][1] == fr["sheet.totals"]
    english = client.get(f"/api/sheets/{sid}/csv").text
    assert client.get(f"/api/sheets/{sid}/csv?lang=xx").text == english  # an unknown language: English
    assert client.get(f"/api/sheets/{sid}/csv?lang=../en").text == english


def pdf_text(pdf: bytes, tmp_path: Path) -> tuple[str, str]:
    """pdftotext's text of a PDF, and the fonts pdffonts finds embedded in it."""
    path = tmp_path / "sheet.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout
    return text, fonts


def letters(text: str) -> str:
    """A text's letters, without vowel signs and medials: shaping draws some of these before their
    consonant (ေ), so pdftotext gives them back out of order; the letters it keeps in order."""
    return "".join(ch for ch in text if unicodedata.category(ch) in ("Lo", "Co"))


def has_letters(text: str, word: str) -> bool:
    """Whether a shaped Burmese ``word`` is in the PDF's ``text``, letter by letter. Shaping draws a
    few letters in another form (ရ over ွ, န over ှ) that has no character of its own in the font:
    reportlab names it by a private-use character, which pdftotext gives back in its place."""
    pattern = "".join(f"[{re.escape(ch)}\ue000-\uf8ff]" for ch in letters(word))
    return re.search(pattern, letters(text)) is not None


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="pdftotext (poppler-utils) reads the PDF")
@pytest.mark.parametrize(("lang", "font"), [("fr", "DejaVuSans"), ("zh", "WenQuanYi"), ("my", "Padauk")])
def test_the_pdf_follows_the_readers_language(client: TestClient, tmp_path: Path, lang: str,
                                              font: str) -> None:
    sid, auth = start(client)
    for k, hand in enumerate([QUEENS, TRICKS]):
        add(client, sid, auth, hand, k)
    words = catalogue(lang)
    text, fonts = pdf_text(client.get(f"/api/sheets/{sid}/pdf?lang={lang}").content, tmp_path)
    headings = [words[k] for k in ("sheet.title", "export.declarer", "score.contract", "score.doubles",
                                   "sheet.totals", "contract.classic.no-queens.name", "ruleset.classic")]
    if lang == "my":
        assert all(has_letters(text, h) for h in headings), text
        # Shaped: some letters took the other form their neighbours call for (unshaped text has none).
        assert re.search("[\ue000-\uf8ff]", text)
    else:
        assert all(h in text for h in headings), text
        assert "Score sheet" not in text and "Declarer" not in text
    assert font in fonts  # the letters are drawn with a font that has them (not as boxes)
    assert all(n in text for n in NAMES)
    if shutil.which("pdftoppm"):  # the first page, for a person to look at
        ARTIFACTS.mkdir(exist_ok=True)
        subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", str(tmp_path / "sheet.pdf"),
                        str(ARTIFACTS / f"sheet-pdf-{lang}")], check=True)


class FailingStore(store_class()):  # type: ignore[misc]
    """A store whose writes fail (as with a full disk) while ``failing`` is set."""

    failing = False

    def commit(self, batch: Batch | SheetBatch) -> list[int]:
        if FailingStore.failing:
            raise sqlite3.OperationalError("disk I/O error")
        return super().commit(batch)


def test_a_change_that_cannot_be_stored_is_refused_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_server, "open_store", FailingStore)
    with TestClient(app_for(fresh_db(tmp_path, "fail.db"))) as client:
        sid, auth = start(client)
        add(client, sid, auth, QUEENS, 0)
        before = stored(client, sid)
        FailingStore.failing = True
        try:
            tries = [add(client, sid, auth, TRICKS, 1, "dev:2"),
                     client.put(f"/api/sheets/{sid}/hands/0", headers=auth,
                                json={"entry": "dev:3", "data": TRICKS}),
                     client.post(f"/api/sheets/{sid}/undo", headers=auth, json={"entry": "dev:4", "hand": 0}),
                     client.post("/api/sheets", json={"names": NAMES, "first_declarer": 0})]
        finally:
            FailingStore.failing = False
        for res in tries:
            assert res.status_code == 503 and res.json()["error"]["code"] == "storage", res.text
        assert stored(client, sid) == before
        # The same entry sent again once the database is back is made, once.
        assert add(client, sid, auth, TRICKS, 1, "dev:2").json()["repeat"] is False
        assert len(client.get(f"/api/sheets/{sid}").json()["rows"]) == 2


def test_a_stored_sheet_that_does_not_replay_is_read_only(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "bad.db")
    with TestClient(app_for(db)) as client:
        sid, auth = start(client)
        add(client, sid, auth, QUEENS, 0)
    doc = json.loads(query(db, "SELECT doc FROM sheets WHERE id = ?", sid)[0][0])
    doc["hands"][0]["contract"] = "no-such"
    query(db, "UPDATE sheets SET doc = ? WHERE id = ?", json.dumps(doc), sid)
    with TestClient(app_for(db)) as client:
        view = client.get(f"/api/sheets/{sid}").json()
        assert view["damaged"] and "rows" not in view
        res = add(client, sid, auth, TRICKS, 1)
        assert res.status_code == 409 and res.json()["error"]["code"] == "damaged"


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="pdftotext (poppler-utils) reads the PDF")
def test_the_pdf_text_is_spelt_in_real_letters(tmp_path: Path) -> None:
    # No "st" or "fi" ligature glyphs: a copied or searched "highest" must be found as typed.
    import random

    from tests.conftest import play_random
    from tests.score_helpers import sheet_of

    from barbu.engine.game import Game
    from barbu.web.core.words import words
    from barbu.web.sheets.pdf import sheet_pdf
    from barbu.web.sheets.sheet import Sheet

    doc = sheet_of(play_random(Game.classic(), 5), NAMES, random.Random(5))
    text, _ = pdf_text(sheet_pdf(Sheet.of("s1", "", doc, 1), words("en")), tmp_path)
    assert "highest" in text and "No Last Two" in text
    assert not re.search("[\ufb00-\ufb06]", text), sorted(set(re.findall("[\ufb00-\ufb06]", text)))
