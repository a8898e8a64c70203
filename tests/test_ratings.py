"""Ratings: places from totals (the engine), openskill's Plackett–Luce updates, computer anchors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.script_helpers import load_script

from barbu.engine.game import Game
from barbu.tools.arena import Config, TaskResult
from barbu.web.people.ratings import ANCHORS, Skill, anchor, rate_game

ROOT = Path(__file__).resolve().parents[1]


@given(st.lists(st.integers(-200, 200), min_size=3, max_size=6), st.booleans())
def test_places_order_the_totals(totals: list[int], classic: bool) -> None:
    game = Game.classic() if classic and len(totals) == 4 else Game.family(len(totals))
    places = game.places(totals)
    better = (lambda a, b: a > b) if game.is_classic else (lambda a, b: a < b)
    for s, t in enumerate(totals):
        assert places[s] == 1 + sum(better(u, t) for u in totals)
    assert min(places) == 1
    assert sorted(places)[-1] <= len(totals)
    assert [s for s, p in enumerate(places) if p == 1] == [
        s for s, t in enumerate(totals) if t == (max if game.is_classic else min)(totals)]


def test_the_winner_gains_and_the_last_loses() -> None:
    people = ["person:a", "person:b", "person:c", "person:d"]
    after = rate_game("classic", people, [1, 2, 3, 4], {})
    mus = [after[p].mu for p in people]
    assert mus == sorted(mus, reverse=True)
    assert mus[0] > Skill.new().mu > mus[3]
    assert all(after[p].sigma < Skill.new().sigma for p in people)


def test_computers_keep_their_anchor_and_are_not_returned() -> None:
    entrants = ["person:a", "computer:strong", "computer:basic", "computer:random"]
    after = rate_game("family", entrants, [4, 1, 2, 3], {})
    assert set(after) == {"person:a"}
    assert after["person:a"].mu < Skill.new().mu
    assert anchor("family", "strong") == ANCHORS["family"]["strong"]


def test_beating_a_strong_level_is_worth_more_than_beating_a_weak_one() -> None:
    strong = rate_game("classic", ["person:a", "computer:strong", "computer:strong", "computer:strong"],
                       [1, 2, 2, 2], {})
    weak = rate_game("classic", ["person:a", "computer:random", "computer:random", "computer:random"],
                     [1, 2, 2, 2], {})
    assert strong["person:a"].mu > weak["person:a"].mu


def test_an_unknown_level_plays_at_the_default_skill() -> None:
    assert anchor("classic", "policy:/tmp/x.npz") == Skill.new()


def test_a_person_in_two_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="two seats"):
        rate_game("classic", ["person:a", "person:a", "computer:basic", "computer:basic"], [1, 2, 3, 4], {})
    with pytest.raises(ValueError, match="place for each"):
        rate_game("classic", ["person:a", "computer:basic"], [1], {})


def test_the_anchors_follow_the_levels_strength() -> None:
    for ruleset, table in ANCHORS.items():
        order = [table[level].mu for level in ("random", "basic", "strong")]
        assert order == sorted(order), ruleset


def test_calibration_ranks_a_level_that_always_wins_first() -> None:
    calibrate = load_script("calibrate-ratings")
    cfg = Config(("random", "basic", "pimc", "strong"), "classic")
    # Level 3 wins every game, level 0 comes last, whichever seat they sit in.
    results = [TaskResult("game", 0, r, tuple((s - r) % 4 for s in range(4)),
                          (("no-tricks", tuple(10 * ((s - r) % 4) for s in range(4))),), (), ())
               for r in range(4) for _ in range(3)]
    skills, places = calibrate.fit(cfg, results)  # type: ignore[attr-defined]
    assert [s.mu for s in skills] == sorted(s.mu for s in skills)
    assert places == [4.0, 3.0, 2.0, 1.0]


def test_every_level_a_person_may_meet_has_an_anchor_in_both_rule_sets() -> None:
    from barbu.bots import levels

    ours = [lv for lv in levels() if not lv.startswith("os-")]
    assert ours and all(lv in ANCHORS[rules] for rules in ("classic", "family") for lv in ours)
