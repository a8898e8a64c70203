"""Shared fixtures: the path of the example records (tests/data), a random-game driver, one chromium.

It also marks every test by where it lives (docs/TESTING.md): ``web`` (tests/test_web_*.py), ``browser``
(tests/test_web_*_browser.py and tests/test_web_browser.py), ``engine`` for the engine's and the compiled
bots' doctests (the engine's test files mark themselves), ``stores`` for the web suites whose subject is
the store or several processes (:data:`STORES`). New files are marked by the same patterns, so that no
stage forgets them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from barbu.engine.game import Game
from barbu.engine.state import Phase, State

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "tests" / "data"  # example records with the replay output each must give


ENGINE_SOURCES = ("src/barbu/engine/", "src/barbu/bots/")  # the doctests of the modules mypyc compiles
# The web suites that run a second time on PostgreSQL + Redis, the browser ones against two processes
# behind nginx (marker ``stores``): what they check depends on the store or on several processes.
# The others' behaviour is the same on either store; docs/TESTING.md says why each is here or not.
# A test taking ``store_target`` already runs on both stores in the first stage: not again.
STORES = frozenset({
    "test_web_durability.py", "test_web_sheets.py", "test_web_signin.py", "test_web_friends.py",
    "test_web_ladder.py", "test_web_fairness.py", "test_web_ws.py", "test_web_rematch.py",
    "test_web_stand_ins.py", "test_web_replay.py", "test_web_chat.py",
    "test_web_browser.py", "test_web_fairness_browser.py", "test_web_score_browser.py",
    "test_web_stand_ins_browser.py",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by its file's name: the stages of ./test.sh and the quick loop select by marker."""
    for item in items:
        path = Path(str(item.path)).resolve().relative_to(ROOT).as_posix()
        name = Path(path).name
        if path.startswith("tests/test_web_"):
            item.add_marker(pytest.mark.web)
            if name == "test_web_browser.py" or name.endswith("_browser.py"):
                item.add_marker(pytest.mark.browser)
            if name in STORES and "store_target" not in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.stores)
        elif path.startswith(ENGINE_SOURCES):
            item.add_marker(pytest.mark.engine)


def play_random(game: Game, seed: int, hands: int | None = None) -> State:
    """A complete (or ``hands``-long) game of uniformly random legal actions."""
    rng = random.Random(seed)
    state = State(game, seed=seed)
    limit = game.num_hands if hands is None else hands
    while not state.is_over and state.hand_no < limit:
        if state.phase == Phase.DEAL:
            state.deal_random()
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.fixture(scope="module")
def chrome() -> Iterator[Any]:
    """One headless Debian chromium for a test module: each screen size or person is a context."""
    from playwright.sync_api import sync_playwright
    from tests.test_web_browser import CHROMIUM, FLAGS

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session", autouse=True)
def _drop_test_databases() -> Iterator[None]:
    """The PostgreSQL databases the tests made are dropped once they have all run."""
    yield
    from tests.pg_helpers import drop_databases

    drop_databases()


@pytest.fixture
def pg_url() -> str:
    """A new, empty PostgreSQL database (the test skips without PostgreSQL, fails under ./test.sh)."""
    from tests.pg_helpers import new_database

    return new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test of the store API keeps its tables: a new SQLite file, then a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    from tests.pg_helpers import new_database

    return new_database()
