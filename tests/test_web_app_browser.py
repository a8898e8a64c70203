"""The app people install, in Chromium: the service worker controls the pages, Chromium finds the site
installable, and without a connection the score keeper opens and queues a hand while a table's page
says it is offline, in the page's language."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.test_web_browser import CHROMIUM, DESKTOP, chromium, serving
from tests.test_web_i18n_browser import serious
from tests.web_helpers import fresh_db

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (./test.sh installs it)")]

CONTROLLED = "navigator.serviceWorker.controller !== null"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_db(tmp_path_factory.mktemp("app"), "app.db")) as url:
        yield url


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    # A profile on disk, as a person's: Chromium says an incognito window's site is not installable.
    with chromium("barbu-app-", viewport=DESKTOP, locale="en-US") as c:
        yield c


@pytest.fixture
def page(context: Any) -> Iterator[Any]:
    context.set_offline(False)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    context.set_offline(False)
    p.close()
    assert not errors


def controlled(page: Any, url: str) -> None:
    """Open ``url`` online and wait until the site's worker controls the page."""
    page.goto(url)
    page.wait_for_function(CONTROLLED, timeout=15000)


def until(page: Any, promise: str, wanted: Any, seconds: float = 15.0) -> None:
    """Wait until the page's ``promise`` (an expression) resolves to ``wanted``: wait_for_function takes
    a promise for a truthy answer at once."""
    deadline = time.monotonic() + seconds
    while (got := page.evaluate(promise)) != wanted:
        assert time.monotonic() < deadline, f"{promise} is still {got!r}"
        page.wait_for_timeout(100)


def post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def new_sheet(server: str) -> tuple[str, str]:
    made = post(f"{server}/api/sheets", {"ruleset": "classic", "names": ["Ann", "Ben", "Cleo", "Dan"],
                                         "first_declarer": 0})
    return made["id"], f"{server}{made['link']}"


def test_the_worker_controls_every_page_and_chromium_finds_the_site_installable(server: str,
                                                                               page: Any) -> None:
    controlled(page, f"{server}/")
    scope = page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
    assert scope == f"{server}/"
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{server}/manifest.webmanifest" and manifest["errors"] == []
    # Lighthouse 12 has no installability audit any more: this is Chromium's own check, the one
    # behind its "Install app" menu item.
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    page.goto(f"{server}/rules/classic")
    page.wait_for_function(CONTROLLED)


def test_a_worker_of_a_narrower_scope_steps_aside_for_the_sites(server: str, page: Any) -> None:
    # As the score keeper's own worker of before did (scope /score): it would keep the keeper's pages.
    scopes = "navigator.serviceWorker.getRegistrations().then(all => all.map(r => r.scope).sort())"
    controlled(page, f"{server}/rules/classic")
    page.goto(f"{server}/robots.txt")  # a page of this site without sw-register.js: none steps aside here
    page.evaluate("navigator.serviceWorker.register('/sw.js', { scope: '/score' }).then(() => null)")
    assert page.evaluate(scopes) == [f"{server}/", f"{server}/score"]
    page.goto(f"{server}/score")  # controlled by the narrower one, whose registration it removes
    page.wait_for_load_state("load")
    page.goto(f"{server}/rules/classic")  # the removed worker is gone once no page uses it
    until(page, scopes, [f"{server}/"])
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == f"{server}/sw.js"


def test_a_controlled_tables_page_fetches_the_card_faces_once(server: str, page: Any) -> None:
    # The sprite's bare address is asked again for each card drawn once a worker controls the page
    # (45 times, 800 kB each, in one Lighthouse run); its stamped address is fetched once.
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 3
    ann = post(f"{server}/api/tables", {"name": "Ann", "seed": 12, "seats": seats})
    controlled(page, f"{server}/")
    sprites: list[str] = []
    page.on("request", lambda r: sprites.append(r.url) if "/static/cards/" in r.url else None)
    page.goto(server + ann["you"]["link"])
    page.wait_for_function(CONTROLLED)
    page.wait_for_function("document.querySelectorAll('svg.face').length >= 13", timeout=15000)
    assert len(sprites) <= 1 and all("?v=" in u for u in sprites), sprites


def test_offline_the_score_keeper_opens_and_queues_a_hand_sent_once_online(server: str, page: Any) -> None:
    sheet, link = new_sheet(server)
    controlled(page, link)
    page.wait_for_selector("#contract-buttons button")
    page.context.set_offline(True)
    page.goto(link)  # from the worker's cache: the network is gone
    page.wait_for_selector("#conn.offline:not([hidden])")
    page.locator("[data-contract='no-tricks']").click()
    for seat, n in enumerate([4, 3, 3, 3]):
        for _ in range(n):
            page.locator(f"[data-count='tricks-{seat}-plus']").click()
    page.locator("#save").click()
    queued = f"JSON.parse(localStorage.getItem('barbu-score-queue-{sheet}') || '[]').length"
    page.wait_for_function(f"{queued} === 1")
    page.wait_for_selector("#rows tr.pending")
    page.context.set_offline(False)
    page.wait_for_function(f"{queued} === 0", timeout=15000)
    with urllib.request.urlopen(f"{server}/api/sheets/{sheet}", timeout=10) as res:
        assert len(json.loads(res.read())["rows"]) == 1  # stored by the server once back online


def test_offline_a_tables_page_says_so_in_the_pages_language(server: str, page: Any) -> None:
    controlled(page, f"{server}/rules/classic?lang=fr")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    kept = """caches.match(`/static/i18n/fr.json?v=${
      document.querySelector("script[data-catalogues]").dataset.catalogues}`).then(r => r !== undefined)"""
    until(page, kept, True)  # sw-register.js asked the worker to keep it
    page.context.set_offline(True)
    page.goto(f"{server}/table/abcdefgh?lang=fr")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert page.inner_text("h1") == "Vous êtes hors ligne"
    assert "les tables en ont besoin" in page.inner_text("main")
    assert serious(page) == []
    page.get_by_role("link", name="Ouvrir la feuille de marque").click()  # the keeper, still offline
    page.wait_for_selector("#name-inputs input")
    assert page.url == f"{server}/score"
