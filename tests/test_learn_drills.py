"""The practice drills: the shipped set (enough of every contract, each a legal position whose key the
coach's search gives again), answering one, a learner's record and the choice of the next drill."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from barbu.coach import hint
from barbu.engine.game import Game
from barbu.learn import drills as d
from barbu.learn.positions import kind_of, rebuild

WANTED = [f"{g.ruleset}:{c.id}" for g in (Game.classic(), Game.family()) for c in g.contracts]


def test_every_classic_contract_and_family_challenge_has_at_least_thirty_drills() -> None:
    per = Counter(x.category for x in d.drills().values())
    assert {c: per[c] for c in WANTED if per[c] < 30} == {}


def test_every_classic_contract_and_family_challenge_has_drills_of_several_kinds() -> None:
    assert d.categories() == WANTED  # the rule sets' own order
    kinds: dict[str, set[str]] = {}
    for x in d.drills().values():
        kinds.setdefault(x.category, set()).add(x.kind)
    assert all(len(kinds[c]) >= 2 for c in WANTED), kinds


def test_every_drill_rebuilds_to_its_seat_to_act_with_legal_choices_and_a_clear_key() -> None:
    doc = d.figures()
    margins = {"classic": doc["margin"], "family": doc["family_margin"]}
    for x in d.drills().values():
        obs = x.observation()
        assert obs.my_turn and obs.hand_no == 0, x.id
        assert set(x.choices) <= set(obs.legal) and x.key == x.choices[0], x.id
        assert 3 <= len(x.choices) <= 4 and len(set(x.choices)) == len(x.choices), x.id
        assert kind_of(obs) == x.kind, x.id
        worse = [x.values[x.key] - x.values[c] for c in x.choices[1:]]
        assert min(worse) >= margins[x.rules], x.id  # the deeper search's values keep the margin
        assert set(x.reasons) == set(x.choices[1:]), x.id
        assert obs.contract is None or x.kind == "contract" or obs.contract.id == x.contract, x.id


def test_the_figures_say_how_often_the_deeper_search_agreed() -> None:
    doc = d.figures()
    assert doc["format"] == "barbu-drills/1" and 0 < doc["agreed"] <= doc["checked"]
    assert doc["agreed"] >= len(d.drills())  # every drill kept is one the deeper search agreed on


def test_a_rebuilt_position_refuses_an_action_the_rules_do_not_allow() -> None:
    x = next(iter(d.drills().values()))
    with pytest.raises(Exception, match=r"\w") as e:
        rebuild(x.rules, x.players, x.seed, x.first, (*x.actions, 63))
    assert type(e.value).__name__ == "IllegalActionError"


def cheapest(n: int) -> list[d.Drill]:
    """Drills late in their hand (few cards left: a cheap search), of different kinds where possible."""
    late = sorted(d.drills().values(), key=lambda x: -len(x.actions))
    return late[:n]


def test_the_coachs_search_at_a_drills_stored_seed_and_floor_gives_its_key_again() -> None:
    doc = d.figures()
    for x in cheapest(3):
        c = x.coach
        h = hint(x.observation(), c["budget"], seed=int(c["seed"]), stop=None, floor=int(c["floor"]))
        assert h.choice == x.key, (x.id, doc["seed"])


def test_an_answer_is_right_only_for_the_key_with_its_cost_and_the_reasons_against_the_choice() -> None:
    x = d.drills()["classic-no-queens-1"]
    right = d.answer(x, x.key)
    assert right.right and right.cost == 0 and right.reasons == ()
    wrong = x.choices[1]
    a = d.answer(x, wrong)
    assert not a.right and a.cost == round(x.values[x.key] - x.values[wrong], 1) > 0
    assert a.reasons == x.reasons[wrong] and a.reasons[-1].key == "coach.value"
    with pytest.raises(ValueError, match="not one of the choices"):
        d.answer(x, 99)


def test_the_choices_are_offered_in_one_order_per_drill_not_always_the_key_first() -> None:
    shown = [x.shown() for x in d.drills().values()]
    assert all(sorted(s) == sorted(x.choices) for s, x in zip(shown, d.drills().values(), strict=True))
    first = sum(s[0] == x.key for s, x in zip(shown, d.drills().values(), strict=True))
    assert 0.1 < first / len(shown) < 0.6
    x = d.drills()["family-salad-1"]
    assert x.shown() == x.shown()


def answered(rec: d.Record, drill_id: str, right: bool) -> None:
    x = d.drills()[drill_id]
    rec.add(d.answer(x, x.key if right else x.choices[1]))


def test_a_record_counts_per_contract_and_names_the_weakest_once_answered_three_times() -> None:
    rec = d.Record()
    for i in (1, 2, 3):
        answered(rec, f"classic-no-queens-{i}", True)
        answered(rec, f"classic-no-last-two-{i}", i == 1)
    answered(rec, "family-salad-1", False)  # once only: not yet weighed
    assert rec.tallies["classic:no-queens"].right == 3 and rec.tallies["classic:no-last-two"].rate == 1 / 3
    assert rec.weakest() == "classic:no-last-two"
    assert rec.recent[-1] == "family-salad-1" and len(rec.recent) == 7
    back = d.Record.from_json(rec.to_json())
    assert back.to_json() == rec.to_json()


def test_a_record_read_back_drops_what_is_not_one() -> None:
    junk = {"contracts": {"classic:no-queens": [5, 3, 0], "classic:nope": [1, 1, 0],
                          "family:salad": [1, 2, 3.5], "classic:no-hearts": "x",
                          "classic:trumps": [True, 1, 0]},
            "recent": ["family-salad-1", 7, "nope"] + ["classic-trumps-1"] * 100}
    rec = d.Record.from_json(junk)
    assert list(rec.tallies) == ["family:salad"] and len(rec.recent) == d.KEPT
    assert d.Record.from_json([1, 2]).to_json() == {"contracts": {}, "recent": []}


def test_the_next_drill_is_none_of_the_last_done_and_more_often_of_the_weakest_contract() -> None:
    rec = d.Record()
    for i in (1, 2, 3):
        answered(rec, f"classic-no-king-{i}", False)
        answered(rec, f"classic-trumps-{i}", True)
    rng = random.Random(5)
    picks = [d.pick(rec, rng) for _ in range(300)]
    assert not {x.id for x in picks} & set(rec.recent)
    share = Counter(x.category for x in picks)
    assert share["classic:no-king"] > 2 * max(n for c, n in share.items() if c != "classic:no-king")
    only = {d.pick(rec, rng, rules="family", contract="salad").category for _ in range(20)}
    assert only == {"family:salad"}
    with pytest.raises(ValueError, match="no drills"):
        d.pick(rec, rng, rules="classic", contract="salad")
