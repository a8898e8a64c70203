"""Find and check the prepared positions of the tutorial's lessons; write src/barbu/learn/lessons.json.

    nice -n 10 .venv/bin/python scripts/make-lessons.py [--per-lesson 3] [--only classic-no-queens]

For each lesson (one per contract of each rule set, and doubling), games are dealt from seeds 1, 2,
…: the declarer of the first hand chooses the lesson's contract, and the rule-of-thumb computer
(``basic``) makes every other choice, card by card. At each decision with a choice, the coach's
search at the test's cheap setting (:data:`CHEAP`) screens it: the expert's choice must differ from
the rule-of-thumb's (the natural choice) and beat it by at least the lesson's margin. A screened
decision is then searched again at :data:`DEEP` (several times the coach's budget, another seed):
kept only when the deeper search makes the same choice, beats the rule-of-thumb's by the margin too
and its own runner-up (the other natural alternative) by at least half of it.
One position is kept per seed; the values stored are the deeper search's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from barbu.bots import make_bot
from barbu.coach.advice import BUDGET, Hint, hint
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.learn.lessons import SCREEN, contract_action, plan

OUT = Path(__file__).resolve().parent.parent / "src" / "barbu" / "learn" / "lessons.json"
CHEAP = SCREEN  # the tests check every stored answer at this setting
DEEP = {"budget": 4 * BUDGET, "seed": 1, "stop": None}
MARGIN = {"classic": 3.0, "family": 10.0}  # points: a clear difference, per rule set
LEARNER_TRICK_FROM = 1  # positions from the second trick on: something has been seen


def _choose(state: State, bot_act: int, contract: str | None) -> int:
    """At the first hand's contract choice: the lesson's contract (doubling: No Queens)."""
    if state.phase == Phase.CHOOSE:
        return contract_action(state.game, contract or "no-queens")
    return bot_act


def _wanted(state: State, contract: str | None) -> bool:
    """Whether this decision is one the lesson teaches: a card from the second trick on, or a double."""
    if contract is None:
        return state.phase == Phase.DOUBLE
    if state.phase != Phase.PLAY:
        return False
    obs = state.observe(state.current)
    return obs.trick_no >= LEARNER_TRICK_FROM or (obs.contract is not None and obs.contract.kind != 0)


def _checked(state: State, natural: int, margin: float) -> tuple[Hint, list[int]] | None:
    """The deeper search's hint when the position teaches something clearly, else None."""
    obs = state.observe(state.current)
    cheap = hint(obs, **CHEAP)  # type: ignore[arg-type]
    if cheap.choice == natural or cheap.cost(natural) < margin:
        return None
    deep = hint(obs, **DEEP)  # type: ignore[arg-type]
    others = sorted({natural, *([deep.runner_up()] if deep.runner_up() is not None else [])} - {deep.choice})
    if deep.choice != cheap.choice or deep.cost(natural) < margin or \
            any(deep.cost(a) < margin / 2 for a in others):
        return None
    return deep, others


def position_of(seed: int, ruleset: str, contract: str | None, margin: float) -> dict[str, Any] | None:
    """The first decision of the game of ``seed`` that teaches something clearly, if any."""
    game = Game(ruleset, 4)
    state = State(game, seed=seed)
    bots = {p: make_bot("basic", seed * 16 + p) for p in range(game.players)}
    actions: list[str] = []
    while state.hand_no == 0:
        if state.phase == Phase.DEAL:
            state.deal_random()
            continue
        seat = state.current
        natural = bots[seat].act(state.observe(seat))
        if _wanted(state, contract) and len(state.legal_actions()) > 1:
            found = _checked(state, natural, margin)
            if found is not None:
                deep, others = found
                return {"seed": seed, "actions": actions, "seat": seat,
                        "answer": game.action_str(deep.choice),
                        "natural": [game.action_str(a) for a in others],
                        "values": {game.action_str(a): round(v, 2) for a, v in sorted(deep.values.items())}}
        action = _choose(state, natural, contract)
        actions.append(game.action_str(action))
        state.apply(action)
    return None


def lesson_doc(lesson_id: str, ruleset: str, contract: str | None, players: int, per: int) -> dict[str, Any]:
    positions: list[dict[str, Any]] = []
    seed = 0
    while len(positions) < per:
        seed += 1
        found = position_of(seed, ruleset, contract, MARGIN[ruleset])
        if found is not None:
            positions.append(found)
            print(f"  {lesson_id}: seed {seed}, {len(found['actions'])} actions, answer {found['answer']}",
                  file=sys.stderr, flush=True)
    return {"id": lesson_id, "ruleset": ruleset, "contract": contract, "players": players,
            "positions": positions}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-lesson", type=int, default=3, help="positions a lesson (default 3)")
    parser.add_argument("--out", type=Path, default=OUT, help="the file written (default: the package's)")
    parser.add_argument("--only", action="append", help="remake only this lesson (repeatable); the "
                        "others are kept from the file")
    args = parser.parse_args(argv)
    kept = {d["id"]: d for d in json.loads(OUT.read_text())["lessons"]} if OUT.exists() else {}
    if args.only and set(args.only) - {i for i, *_ in plan()}:
        parser.error(f"no lesson {sorted(set(args.only) - {i for i, *_ in plan()})[0]!r}")
    out = []
    for lesson_id, ruleset, contract, players in plan():
        if args.only and lesson_id not in args.only and lesson_id in kept:
            out.append(kept[lesson_id])
            continue
        started = time.monotonic()
        out.append(lesson_doc(lesson_id, ruleset, contract, players, args.per_lesson))
        print(f"{lesson_id}: {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        rest = [kept[i] for i, *_ in plan()[len(out):] if i in kept]
        args.out.write_text(json.dumps({"lessons": out + rest}, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
