"""The tutorial's lessons: every contract has one, every position regenerates from its seed to the
learner's decision, its stored answer is legal and is the search's choice, and a choice is answered
with the coach's reasons and what it led to; the terminal's progress file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from barbu.coach.advice import hint
from barbu.engine.contracts import Kind
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.learn.lessons import SCREEN, answer, lesson, lessons, plan
from barbu.learn.progress import FileProgress, known, lesson_ids


def test_there_is_a_lesson_for_every_contract_of_each_rule_set_and_one_on_doubling() -> None:
    ids = [x.id for x in lessons()]
    assert ids == [i for i, *_ in plan()]
    for ruleset in ("classic", "family"):
        assert {x.contract for x in lessons() if x.ruleset == ruleset} - {None} == {
            c.id for c in Game(ruleset, 4).contracts}
    assert lesson("classic-doubling").contract is None
    assert {"family-salad", "family-reussite"} <= set(ids)
    with pytest.raises(KeyError, match="no lesson 'nope'"):
        lesson("nope")


@pytest.mark.parametrize("x", lessons(), ids=lambda x: x.id)
def test_each_position_regenerates_at_a_decision_of_the_lesson_with_a_legal_answer(x) -> None:  # type: ignore[no-untyped-def]
    assert len(x.positions) >= 2
    for p in x.positions:
        state = p.state(x.game)
        obs = state.observe(p.seat)
        assert obs.my_turn and obs.hand_no == 0
        assert obs.contract is not None and obs.contract.id == (x.contract or obs.contract.id)
        assert obs.phase == (Phase.DOUBLE if x.contract is None else Phase.PLAY)
        legal = {x.game.action_str(a) for a in obs.legal}
        assert p.answer in legal and set(p.natural) <= legal and p.answer not in p.natural
        assert set(p.values) == legal
        assert all(p.values[p.answer] > p.values[a] for a in p.natural)


@pytest.mark.parametrize("x", lessons(), ids=lambda x: x.id)
def test_the_stored_answer_is_the_search_s_choice_at_the_fixed_seed(x) -> None:  # type: ignore[no-untyped-def]
    for p in x.positions:
        obs = p.state(x.game).observe(p.seat)
        assert x.game.action_str(hint(obs, **SCREEN).choice) == p.answer  # type: ignore[arg-type]


def test_a_choice_is_answered_with_the_expert_s_choice_its_reasons_and_what_it_led_to() -> None:
    x = lesson("classic-no-queens")
    p = x.positions[0]
    state = p.state(x.game)
    natural = x.game.parse_action(p.natural[0])
    advice, mine, best = answer(x, 0, natural)
    assert advice.hint.choice == x.game.parse_action(p.answer) and advice.against == natural
    assert advice.gain > 0 and advice.reasons and advice.reasons[-1].key == "coach.value"
    for o, card in ((mine, natural), (best, advice.hint.choice)):
        assert o.choice == card and len(o.trick) == 4 and (p.seat, card) in o.trick
        assert o.winner in {s for s, _ in o.trick}
    assert state.current == p.seat and len(state.history) == 0  # the position is left as it was
    right, *_ = answer(x, 0, advice.hint.choice)
    assert right.against != advice.hint.choice
    with pytest.raises(ValueError, match="not a legal choice"):
        answer(x, 0, next(c for c in range(52) if c not in state.legal_actions()))


def test_a_layout_game_s_choice_leads_to_no_trick_but_to_the_hand_s_score() -> None:
    x = lesson("classic-dominoes")
    assert x.scoring() is not None and x.scoring().kind == Kind.DOMINOES  # type: ignore[union-attr]
    _, mine, _ = answer(x, 0, x.game.parse_action(x.positions[0].natural[0]))
    assert mine.trick == () and mine.winner is None and mine.score in (45, 20, 5, -5)


def test_the_lesson_s_hand_is_one_hand_of_its_contract() -> None:
    for x in (lesson("classic-trumps"), lesson("family-salad"), lesson("classic-doubling")):
        game = x.table_game()
        assert game.num_hands == 1 and [c.id for c in game.contracts] == [x.contract or "no-queens"]
        state = State(game, seed=3)
        state.deal_random()
        assert len(state.legal_actions()) == 1  # the contract is the only one to choose


def test_the_progress_file_keeps_the_lessons_done_and_ignores_what_it_cannot_read(tmp_path: Path) -> None:
    progress = FileProgress(tmp_path / "state" / "learn.json")
    assert progress.done() == []
    assert progress.mark("family-salad") == ["family-salad"]
    assert progress.mark("classic-no-queens") == ["classic-no-queens", "family-salad"]
    assert progress.mark("family-salad") == ["classic-no-queens", "family-salad"]
    assert json.loads(progress.path.read_text())["done"] == ["classic-no-queens", "family-salad"]
    with pytest.raises(KeyError):
        progress.mark("classic-nothing")
    progress.path.write_text("{not json")
    assert progress.done() == []
    progress.path.write_text(json.dumps({"done": [1, "classic-trumps", "gone"]}))
    assert progress.done() == ["classic-trumps"]
    assert known(["family-king", "classic-no-tricks", "x"]) == ["classic-no-tricks", "family-king"]
    assert len(lesson_ids()) == 15
