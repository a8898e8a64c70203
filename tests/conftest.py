"""Shared fixtures: the path of the example records (tests/data), a random-game driver, one chromium.

It also marks every test by where it lives (docs/TESTING.md): ``web`` (tests/test_web_*.py), ``browser``
(tests/test_web_*_browser.py and tests/test_web_browser.py), ``engine`` for the engine's and the compiled
bots' doctests (the engine's test files mark themselves), ``stores`` for the web suites whose subject is
the store or several processes (:data:`STORES`), ``slow`` for what the quick loop leaves out
(:data:`SLOW`). New files are marked by the same patterns, so that no stage forgets them.
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
# Left out of the quick loop (marker ``slow``; the full run keeps them): a whole file, or file::test
# for every parameter of that test. Each took a minute or more of one worker in a whole run: whole
# games played message by message, the numba and Dask set-ups, process groups, the docs site.
SLOW = frozenset({
    "test_web_cluster.py", "test_web_bus.py", "test_arena_cluster.py", "test_train_example.py",
    "test_web_rematch.py",
    "test_native.py::test_compiled_and_pure_builds_play_alike",
    "test_vector.py::test_every_step_equals_the_reference",
    "test_vector.py::test_reuse_writes_the_same_views_into_the_same_arrays",
    "test_vector.py::test_the_compiled_view_writes_every_entry",
    "test_properties.py::test_random_games_keep_every_rule",
    "test_env_tracker.py::test_the_env_array_is_the_encoded_observation_at_every_step",
    "test_docs_site.py::test_the_site_builds_strictly",
    "test_bets.py::test_each_pair_of_the_bots_hands_is_read_once_and_its_settlement_adds_up",
    "test_openspiel.py::test_a_whole_classic_game_is_zero_sum_and_passes_the_checks",
    "test_arena_journal.py::test_a_killed_arena_command_goes_on_where_it_stopped",
    "test_arena_plugins.py::test_a_plugin_plays_on_a_dask_cluster_as_here",
    "test_expert.py::test_a_bigger_budget_draws_more_deals",
    "test_expert.py::test_where_nobody_doubles_reading_the_doubles_changes_nothing",
    "test_expert.py::test_by_default_the_doubles_are_read_for_the_bets_and_the_cards_are_played_as_without",
    "test_web_review.py::test_refused_tables_leave_no_count_per_address",
    "test_web_tables.py::test_no_message_ever_shows_a_card_its_reader_may_not_see",
    "test_web_limits_reads.py::test_timelines_and_prints_are_limited_per_address_and_person",
    "test_web_limits_atomic.py::test_a_group_of_processes_holds_one_limit_between_them",
    "test_web_limits_events.py::test_a_table_takes_at_most_so_many_rematch_offers",
    "test_web_ladder.py::test_a_classic_game_rates_against_the_computers_anchors",
    "test_web_fairness.py::test_a_creator_who_never_played_is_not_rated",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by its file's name: the stages of ./test.sh and the quick loop select by marker."""
    for item in items:
        path = Path(str(item.path)).resolve().relative_to(ROOT).as_posix()
        name = Path(path).name
        if name in SLOW or f"{name}::{getattr(item, 'originalname', item.name)}" in SLOW:
            item.add_marker(pytest.mark.slow)
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


@pytest.fixture(scope="module")
def desktop(chrome: Any) -> Iterator[Any]:
    """A 1280x800 browser context of the module's chromium, shared by its tests."""
    from tests.test_web_browser import DESKTOP

    context = chrome.new_context(viewport=DESKTOP)
    yield context
    context.close()


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
