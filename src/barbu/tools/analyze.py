"""``barbu analyze RECORD``: replay a game and set each card one seat played beside ``expert``'s choice.

For every play of the chosen seat that had a real choice, the ``expert`` bot
evaluates the legal cards on the same sampled deals — from that seat's view
only, with its time budget a decision — and the report shows the card played,
the card ``expert`` prefers, and the estimated cost of the difference in points
of that hand (for family, in penalty points saved). Small costs are within the
noise of the sampling; a card the expert stopped considering early (clearly
worse) keeps the estimate it had then.
A card a computer played in the seat's stead (a hand's ``stand_in``, RECORD.md) is
marked as the computer's and left out of the totals: it is not the person's play.

The text report counts hands, seats, tricks and turns from 1, as ``--seat`` and
``--hand`` do; the ``--json`` verdicts keep the record's 0-based numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from barbu.bots.expert import ExpertBot
from barbu.engine.cards import card_pretty, card_str
from barbu.engine.contracts import Kind
from barbu.engine.errors import RecordError
from barbu.engine.game import PASS, Game
from barbu.engine.record import game_of, load, replay
from barbu.engine.state import State
from barbu.wording import plural, positive_seconds, record_names, report_refusal, seat_label


@dataclass(frozen=True)
class Verdict:
    """One decision of the analysed seat."""

    hand: int
    index: int  # action index within the hand (as in the record)
    trick: int  # the trick, or in Dominoes and Réussite the seat's turn (from 0)
    played: int
    best: int
    cost: float  # estimated points lost against the best card (>= 0)
    values: dict[int, float]
    layout: bool = False  # a Dominoes or Réussite decision: ``trick`` counts the seat's turns
    extra: bool = False  # the card after an ace in Réussite, within the same turn
    by: str = ""  # the level of a computer that played it in the seat's stead: not judged

    @property
    def judged(self) -> bool:
        return not self.by


def stand_ins(doc: dict[str, Any]) -> dict[tuple[int, int], str]:
    """(hand, action index) -> computer level, from each hand's ``stand_in`` (RECORD.md); a RecordError
    when it is there but not a list of ``[index, level]`` pairs."""
    found: dict[tuple[int, int], str] = {}
    hands = doc.get("hands")
    for i, hand in enumerate(hands if isinstance(hands, list) else []):
        pairs = hand.get("stand_in", []) if isinstance(hand, dict) else []
        if not isinstance(pairs, list) or not all(_pair(p) for p in pairs):
            raise RecordError("the field 'stand_in' is a list of [action index, computer level] pairs",
                              hand=i)
        found.update({(i, p[0]): p[1] for p in pairs})
    return found


def _pair(p: object) -> bool:
    return (isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and not isinstance(p[0], bool)
            and isinstance(p[1], str) and bool(p[1]))


def person_totals(verdicts: list[Verdict], costly: float = 2.0) -> tuple[int, int, float]:
    """The person's own decisions judged, those costing ``costly`` or more, and their total cost."""
    own = [v for v in verdicts if v.judged]
    return len(own), sum(1 for v in own if v.cost >= costly), sum(v.cost for v in own)


def _label(action: int) -> str:
    return "pass" if action == PASS else card_pretty(action)


def _code(action: int) -> str:
    return "pass" if action == PASS else card_str(action)


def analyze(doc: dict[str, Any], seat: int, budget: float = 0.5, seed: int = 1,
            hands: set[int] | None = None,
            on_verdict: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """Evaluate every choice ``seat`` made in the record (optionally only in ``hands``).

    ``on_verdict``, when given, sees each verdict as soon as it is made (a page shows progress).
    """
    bot = ExpertBot(seed, budget=budget, replayable=True)  # an analysis is made again exactly
    stood_in = stand_ins(doc)
    verdicts: list[Verdict] = []
    turns: dict[int, int] = {}  # hand -> the seat's turns so far in that layout hand

    def look(hand: int, index: int, state: State, action: int) -> None:
        if state.current != seat:
            return
        obs = state.observe(seat)
        layout = obs.contract is not None and obs.contract.kind != Kind.TRICKS
        if layout and not obs.ace_extra:
            # A card after an ace belongs to the same turn; passes count as turns (they are ones).
            turns[hand] = turns.get(hand, 0) + 1
        if (hands is not None and hand not in hands) or len(obs.legal) < 2:
            return
        step = turns[hand] - 1 if layout else obs.trick_no
        by, extra = stood_in.get((hand, index), ""), layout and obs.ace_extra
        if by:  # the computer's card, not the person's: shown, never judged (nor worth evaluating)
            verdict = Verdict(hand, index, step, action, action, 0.0, {}, layout, extra, by)
        else:
            values = bot.search(obs, list(obs.legal))
            best = max(obs.legal, key=lambda a: (values[a], -a))
            verdict = Verdict(hand, index, step, action, best, max(0.0, values[best] - values[action]),
                              values, layout, extra)
        verdicts.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)

    replay(doc, on_action=look)
    return verdicts


def decisions(doc: dict[str, Any], seat: int) -> int:
    """How many verdicts :func:`analyze` will make: the seat's plays with more than one legal action."""
    count = 0

    def look(hand: int, index: int, state: State, action: int) -> None:
        nonlocal count
        if state.current == seat and len(state.legal_actions()) >= 2:
            count += 1

    replay(doc, on_action=look)
    return count


def format_report(doc: dict[str, Any], seat: int, verdicts: list[Verdict]) -> str:
    """The text report; ``seat`` counts from 0, as the verdicts do."""
    game, _ = game_of(doc)
    lines = [f"Analysis of the cards of {seat_label(seat, record_names(doc))} by the expert bot; "
             "cost = estimated points lost"]
    current = -1
    for v in verdicts:
        if v.hand != current:
            current = v.hand
            lines.append(f"\nhand {v.hand + 1}: {_contract_name(game, doc['hands'][v.hand])}")
        mark = "  ok" if v.best == v.played or v.cost < 0.5 else f"  cost {v.cost:5.1f}"
        better = "" if v.best == v.played else f"   expert: {_label(v.best)}"
        if v.by:
            mark, better = f"  played by the computer ({v.by}) standing in: not judged", ""
        lines.append(f"  {_step(v)}  action {v.index + 1:>2}  played {_label(v.played):<5}{mark}{better}")
    judged, big, total = person_totals(verdicts)
    lines.append(f"\n{plural(judged, 'decision')}, {big} costing 2 points or more; "
                 f"estimated total cost {total:.1f} points")
    if judged < len(verdicts):
        lines.append(f"left out: {plural(len(verdicts) - judged, 'decision')} played by the computer "
                     "standing in")
    return "\n".join(lines)


def _contract_name(game: Game, hand: dict[str, Any]) -> str:
    """``No Hearts``, not the record's ``no-hearts``: the report is read by people."""
    return game.contracts[game.contract_index(hand["contract"])].name


def _step(v: Verdict) -> str:
    """``trick  3``, ``turn  5``, ``turn  5+`` (the card after an ace, in the same turn)."""
    word = "turn " if v.layout else "trick"
    return f"{word} {v.trick + 1:>2}{'+' if v.extra else ' '}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="barbu analyze", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a barbu-record/1 JSON file")
    parser.add_argument("--seat", type=int, default=1,
                        help="the seat to analyse, counted from 1 (default %(default)s)")
    parser.add_argument("--hand", type=int, action="append", metavar="H",
                        help="only hand H, counted from 1 (repeatable; default: every hand)")
    parser.add_argument("--seconds", type=positive_seconds, default=0.5,
                        help="the expert's time budget a decision, as work (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the sampling (default %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help="print the verdicts as JSON (hand, action and trick from 0, as in records)")


def run(args: argparse.Namespace) -> int:
    doc: dict[str, Any] = {}
    try:
        doc = load(args.record)
        seat, hands = _chosen(doc, args.seat, args.hand)
        verdicts = analyze(doc, seat, args.seconds, args.seed, hands)
    except RecordError as e:
        return report_refusal("analyze", args.record, e, doc, args.json)
    if args.json:
        print(json.dumps([_json(v) for v in verdicts], ensure_ascii=False))
    else:
        print(format_report(doc, seat, verdicts))
    return 0


def _json(v: Verdict) -> dict[str, Any]:
    """One verdict as ``--json`` prints it; a stand-in's card has ``by`` and no ``best`` nor ``cost``."""
    if v.by:
        return {"hand": v.hand, "action": v.index, "trick": v.trick, "played": _code(v.played), "by": v.by}
    return {"hand": v.hand, "action": v.index, "trick": v.trick, "played": _code(v.played),
            "best": _code(v.best), "cost": round(v.cost, 2)}


def _chosen(doc: dict[str, Any], seat: int, hands: list[int] | None) -> tuple[int, set[int] | None]:
    """The 0-based seat and hands the options name (counted from 1); a RecordError if absent."""
    players = len(record_names(doc))
    if not 1 <= seat <= players:
        raise RecordError(f"--seat {seat}: there is no seat {seat} in this record "
                          f"(its seats are 1 to {players})")
    if not hands:
        return seat - 1, None
    recorded = doc.get("hands")
    count = len(recorded) if isinstance(recorded, list) else 0
    for h in hands:
        if not 1 <= h <= count:
            raise RecordError(f"--hand {h}: there is no hand {h} in this record "
                              f"(it has {plural(count, 'hand')})")
    return seat - 1, {h - 1 for h in hands}


if __name__ == "__main__":
    sys.exit(main())
