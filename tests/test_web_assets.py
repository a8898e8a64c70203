"""The static files' cache lifetimes and stamped addresses, the pages' no-cache, and gzip, over HTTP."""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tests.web_helpers import fresh_db

from barbu.web.http.app import build_app
from barbu.web.http.config import Config

STATIC = Path(__file__).resolve().parents[1] / "src" / "barbu" / "web" / "static"
PAGES = ["/", "/table/abcdefgh", "/profile", "/score", "/score/abcdefgh", "/leaderboard", "/player/Ann",
         "/replay", "/replay/abcdefgh", "/rules/classic", "/learn/drills", "/solo", "/play"]
YEAR = "public, max-age=31536000, immutable"
NAMED = re.compile(r'(?:src|href)="(/static/[^"]+)"')
GZIP = {"Accept-Encoding": "gzip"}
PLAIN = {"Accept-Encoding": "identity"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(build_app(Config(fresh_db(tmp_path, "assets.db")))) as c:
        yield c


def named_files(html: str) -> list[str]:
    return NAMED.findall(html)


@pytest.mark.parametrize("path", PAGES)
def test_a_page_is_asked_again_each_time_and_names_its_files_by_their_content(client: TestClient,
                                                                             path: str) -> None:
    res = client.get(path)
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/html")
    assert res.headers["cache-control"] == "no-cache"
    files = named_files(res.text)
    assert any(f.startswith("/static/style.css?v=") for f in files), files
    for url in files:
        name, _, stamp = url.removeprefix("/static/").partition("?v=")
        if not name.startswith("i18n/"):  # the catalogues share one stamp (the test below)
            assert stamp == hashlib.sha256((STATIC / name).read_bytes()).hexdigest()[:16], url
        got = client.get(url)
        assert got.status_code == 200 and got.headers["cache-control"] == YEAR, url


def test_a_bare_or_outdated_address_is_checked_each_time(client: TestClient) -> None:
    for url in ["/static/style.css", "/static/table.js?v=0123456789abcdef", "/static/i18n/fr.json"]:
        res = client.get(url)
        assert res.status_code == 200 and res.headers["cache-control"] == "no-cache", url
    etag = client.get("/static/style.css").headers["etag"]
    again = client.get("/static/style.css", headers={"If-None-Match": etag})
    assert again.status_code == 304  # checked, not sent again


def test_the_catalogues_are_fetched_by_the_stamp_the_page_gives(client: TestClient) -> None:
    html = client.get("/score").text
    found = re.search(r'<script src="/static/i18n\.js\?v=\w+" data-catalogues="(\w+)"', html)
    assert found, "i18n.js learns the catalogues' stamp from its tag"
    stamp = found[1]
    assert f'href="/static/i18n/en.json?v={stamp}"' in html  # preloaded by the same address it is fetched by
    for code in ("en", "fr", "my"):
        res = client.get(f"/static/i18n/{code}.json?v={stamp}")
        assert res.status_code == 200 and res.headers["cache-control"] == YEAR
    assert "dataset.catalogues" in (STATIC / "i18n.js").read_text()


def test_a_changed_file_gets_a_new_address(tmp_path: Path) -> None:
    from barbu.web.http.assets import Assets

    folder = tmp_path / "static"
    (folder / "i18n").mkdir(parents=True)
    (folder / "a.js").write_text("1")
    (folder / "i18n" / "en.json").write_text("{}")
    (folder / "p.html").write_text('<script src="/static/a.js"></script>'
                                   '<script src="/static/i18n.js"></script>')
    before = Assets(folder).page("p.html")
    (folder / "a.js").write_text("2")
    after = Assets(folder).page("p.html")
    assert before != after and b'src="/static/i18n.js"' in after  # a file the folder lacks stays bare


def test_responses_are_gzipped_when_the_client_takes_gzip_and_not_otherwise(client: TestClient) -> None:
    for url in ["/", "/static/table.js", "/static/style.css", "/static/i18n/en.json", "/api/rules/classic",
                "/sw.js"]:
        packed = client.get(url, headers=GZIP)
        assert packed.headers.get("content-encoding") == "gzip", url
        assert "accept-encoding" in packed.headers["vary"].lower()
        plain = client.get(url, headers=PLAIN)
        assert "content-encoding" not in plain.headers and plain.content == packed.content, url
    raw = client.stream("GET", "/static/table.js", headers=GZIP)
    with raw as res:
        body = b"".join(res.iter_raw())
    script = (STATIC / "table.js").read_bytes()
    assert gzip.decompress(body) == script and len(body) < len(script) / 2


def test_a_large_file_is_compressed_once_not_at_every_request(client: TestClient) -> None:
    """The compression middleware compressed the card faces (825 KB: 80 ms) and Pyodide's WebAssembly
    (9.6 MB: 0.45 s of a core) again at every request: anyone could keep a server busy asking for them."""
    from barbu.web.http.assets import _gzipped

    url = "/static/cards/cards.svg"
    sprite = (STATIC / "cards" / "cards.svg").read_bytes()
    _gzipped.cache_clear()
    bodies = []
    for _ in range(3):
        with client.stream("GET", url, headers=GZIP) as res:
            bodies.append(b"".join(res.iter_raw()))
            assert res.headers["content-encoding"] == "gzip" and res.headers["etag"].startswith('W/"')
    assert _gzipped.cache_info().misses == 1 and _gzipped.cache_info().hits == 2  # made once
    assert bodies[0] == bodies[1] == bodies[2] and gzip.decompress(bodies[0]) == sprite
    assert client.get(url, headers=PLAIN).content == sprite  # asked without gzip: the file itself
    part = client.get(url, headers={**GZIP, "Range": "bytes=0-9"})
    assert part.status_code == 206 and part.content == sprite[:10]  # a range is of the file itself
    etag = client.get(url, headers=GZIP).headers["etag"]
    assert client.get(url, headers={**GZIP, "If-None-Match": etag}).status_code == 304


def test_the_service_worker_and_pdfs_are_served_as_before(client: TestClient) -> None:
    sw = client.get("/sw.js", headers=GZIP)
    assert sw.headers["content-type"].startswith("text/javascript")
    assert sw.headers["cache-control"] == "no-cache"
    assert "caches.open" in sw.text
    made = client.post("/api/sheets", json={"ruleset": "classic", "names": ["Ann", "Ben", "Cy", "Di"],
                                            "first_declarer": 0})
    assert made.status_code == 201, made.text
    pdf = client.get(f"/api/sheets/{made.json()['id']}/pdf", headers=GZIP)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert "content-encoding" not in pdf.headers  # compressed already: not packed again


def test_robots_txt_lets_crawlers_read_the_pages_not_the_api(client: TestClient) -> None:
    res = client.get("/robots.txt")
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/plain")
    lines = res.text.splitlines()
    assert "User-agent: *" in lines and "Disallow: /api/" in lines and "Disallow: /ws/" in lines
    assert "Disallow: /" not in lines


def test_every_page_has_a_description_in_every_language() -> None:
    for page in STATIC.glob("*.html"):
        found = re.search(r'<meta name="description" content="[^"]{50,}" data-i18n-content="([\w.]+)">',
                          page.read_text())
        assert found, page.name
