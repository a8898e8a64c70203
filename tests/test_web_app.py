"""The app people install, over HTTP: the manifest, its icons, the service worker, the offline page."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from starlette.testclient import TestClient
from tests.web_helpers import fresh_db

from barbu.web.http.app import build_app
from barbu.web.http.config import Config

STATIC = Path(__file__).resolve().parents[1] / "src" / "barbu" / "web" / "static"
PAGES = ["/", "/table/abcdefgh", "/profile", "/score", "/score/abcdefgh", "/leaderboard", "/replay",
         "/rules/classic", "/offline", "/learn", "/learn/classic-no-queens",
         "/learn/drills", "/mail/confirm", "/solo", "/play"]
SHELL = re.compile(r"^const SHELL = (\[.*\]);$", re.M)
VERSION = re.compile(r'^const VERSION = "(\w+)";$', re.M)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(build_app(Config(fresh_db(tmp_path, "app.db")))) as c:
        yield c


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height a PNG's header says (its IHDR chunk comes first)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def shell_of(client: TestClient) -> list[str]:
    found = SHELL.search(client.get("/sw.js").text)
    assert found, "the server writes the app shell into sw.js"
    shell: list[str] = json.loads(found[1])
    return shell


def test_the_manifest_is_served_with_its_type_and_says_what_installing_needs(client: TestClient) -> None:
    res = client.get("/manifest.webmanifest")
    assert res.status_code == 200
    assert res.headers["content-type"].startswith("application/manifest+json")
    assert res.headers["cache-control"] == "no-cache"
    m = res.json()
    assert m["name"] == m["short_name"] == "Barbu"
    assert m["start_url"] == m["scope"] == m["id"] == "/" and m["display"] == "standalone"
    style = (STATIC / "style.css").read_text()
    assert f"--felt: {m['background_color']};" in style and f"--felt-dark: {m['theme_color']};" in style


def test_each_icon_of_the_manifest_answers_with_the_size_and_type_it_claims(client: TestClient) -> None:
    icons = client.get("/manifest.webmanifest").json()["icons"]
    for icon in icons:
        res = client.get(icon["src"])
        assert res.status_code == 200, icon["src"]
        assert res.headers["content-type"].startswith(icon["type"]), icon
        assert "?v=" in icon["src"] and res.headers["cache-control"].endswith("immutable")
        if icon["type"] == "image/png":
            width, height = png_size(res.content)
            assert icon["sizes"] == f"{width}x{height}", icon
        else:
            assert icon["sizes"] == "any" and res.text.lstrip().startswith("<svg")
    pngs = {(i["sizes"], i["purpose"]) for i in icons if i["type"] == "image/png"}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= pngs


@pytest.mark.parametrize("path", PAGES)
def test_every_page_names_the_manifest_its_colour_icons_and_registers_the_worker(client: TestClient,
                                                                                path: str) -> None:
    html = client.get(path).text
    theme = client.get("/manifest.webmanifest").json()["theme_color"]
    assert '<link rel="manifest" href="/manifest.webmanifest">' in html
    assert f'<meta name="theme-color" content="{theme}">' in html
    for rel in ("icon", "apple-touch-icon"):
        href = re.search(rf'<link rel="{rel}" href="([^"]+)"', html)
        assert href and client.get(href[1]).status_code == 200, (path, rel)
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)"', html)
    assert touch and png_size(client.get(touch[1]).content) == (180, 180)
    registers = r'<script src="/static/sw-register\.js\?v=\w+"( data-keep-solo)?></script>\n</body>'
    assert re.search(registers, html)


def test_the_worker_is_a_script_at_the_root_never_kept_stale(client: TestClient) -> None:
    res = client.get("/sw.js")
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/javascript")
    assert res.headers["cache-control"] == "no-cache"
    # At the root, its scope is the whole site: no Service-Worker-Allowed needed to widen it.
    assert "service-worker-allowed" not in res.headers
    assert VERSION.search(res.text) and 'const VERSION = "dev"' not in res.text
    assert 'register("/sw.js", { scope: "/" })' in (STATIC / "sw-register.js").read_text()


def test_the_app_shell_is_the_offline_page_the_keepers_and_what_the_pages_name(client: TestClient) -> None:
    shell = shell_of(client)
    assert shell[:7] == ["/offline", "/score", "/solo", "/play", "/solo.json", "/static/solo-worker.mjs",
                         "/manifest.webmanifest"]  # the manifest too: a page offline asked for it in vain
    assert len(shell) == len(set(shell))
    for url in shell:
        res = client.get(url)
        assert res.status_code == 200, url
        assert not urlsplit(url).path.startswith(("/api/", "/ws/")), url
    named = set()
    for page in PAGES:
        named |= set(re.findall(r'(?:src|href)="(/static/[^"]+)"', client.get(page).text))
    assert named == set(shell[7:])  # every file of every page, at its stamped address, and no other


def test_a_changed_file_makes_a_new_worker_whose_cache_has_a_new_name(tmp_path: Path) -> None:
    from barbu.web.http import shell

    before = shell.worker_script()
    shell.worker_script.cache_clear()
    try:
        original = shell.ASSETS.stamps["style.css"]
        shell.ASSETS.stamps["style.css"] = "0" * 16
        after = shell.worker_script()
    finally:
        shell.ASSETS.stamps["style.css"] = original
        shell.worker_script.cache_clear()
    old, new = VERSION.search(before.decode()), VERSION.search(after.decode())
    assert old and new and old[1] != new[1]
    assert "/static/style.css?v=0000000000000000" in after.decode()



def test_the_card_faces_are_named_stamped_on_their_scripts_tag_and_kept_out_of_the_install(
        client: TestClient) -> None:
    for page in ["/table/abcdefgh", "/replay/abcdefgh"]:
        tag = r'<script src="/static/cards\.js\?v=\w+" data-sprite="([^"]+)">'
        sprite = re.search(tag, client.get(page).text)
        assert sprite and "?v=" in sprite[1], page
        res = client.get(sprite[1])
        assert res.status_code == 200 and res.headers["cache-control"].endswith("immutable")
        assert sprite[1] not in shell_of(client)  # 800 kB: kept when a table first draws a card
