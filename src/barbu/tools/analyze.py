"""``barbu analyze RECORD``: replay a game and set each card one seat played beside ``strong``'s choice.

For every play of the chosen seat that had a real choice, the ``strong`` bot
evaluates all legal cards on the same sampled deals — from that seat's view
only — and the report shows the card played, the card ``strong`` prefers, and
the estimated cost of the difference in points of that hand (for family, in
penalty points saved). Small costs are within the noise of the sampling.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from barbu.bots.strong import StrongBot
from barbu.engine.cards import card_pretty, card_str
from barbu.engine.errors import RecordError
from barbu.engine.game import PASS
from barbu.engine.record import load, replay
from barbu.engine.state import State


@dataclass(frozen=True)
class Verdict:
    """One decision of the analysed seat."""

    hand: int
    index: int  # action index within the hand (as in the record)
    trick: int
    played: int
    best: int
    cost: float  # estimated points lost against the best card (>= 0)
    values: dict[int, float]


def _label(action: int) -> str:
    return "pass" if action == PASS else card_pretty(action)


def _code(action: int) -> str:
    return "pass" if action == PASS else card_str(action)


def analyze(doc: dict[str, Any], seat: int, samples: int = 60, seed: int = 1,
            hands: set[int] | None = None) -> list[Verdict]:
    """Evaluate every choice ``seat`` made in the record (optionally only in ``hands``)."""
    bot = StrongBot(seed)
    verdicts: list[Verdict] = []

    def look(hand: int, index: int, state: State, action: int) -> None:
        if state.current != seat or (hands is not None and hand not in hands):
            return
        obs = state.observe(seat)
        if len(obs.legal) < 2:
            return
        values = bot.evaluate(obs, obs.legal, samples)
        best = max(obs.legal, key=lambda a: (values[a], -a))
        verdicts.append(Verdict(hand, index, obs.trick_no, action, best,
                                max(0.0, values[best] - values[action]), values))

    replay(doc, on_action=look)
    return verdicts


def format_report(doc: dict[str, Any], seat: int, verdicts: list[Verdict]) -> str:
    names = doc.get("players") or []
    who = names[seat] if seat < len(names) else f"seat {seat}"
    lines = [f"Analysis of {who}'s cards (seat {seat}) by the strong bot; cost = estimated points lost"]
    current = -1
    for v in verdicts:
        if v.hand != current:
            current = v.hand
            contract = doc["hands"][v.hand].get("contract", "?")
            lines.append(f"\nhand {v.hand}: {contract}")
        mark = "  ok" if v.best == v.played or v.cost < 0.5 else f"  cost {v.cost:5.1f}"
        better = "" if v.best == v.played else f"   strong: {_label(v.best)}"
        lines.append(f"  trick {v.trick + 1:>2}  played {_label(v.played):<5}{mark}{better}")
    total = sum(v.cost for v in verdicts)
    big = [v for v in verdicts if v.cost >= 2.0]
    lines.append(f"\n{len(verdicts)} decisions, {len(big)} costing 2 points or more; "
                 f"estimated total cost {total:.1f} points")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="barbu analyze", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a barbu-record/1 JSON file")
    parser.add_argument("--seat", type=int, default=0, help="the seat to analyse (default 0)")
    parser.add_argument("--hand", type=int, action="append", help="only this hand (repeatable)")
    parser.add_argument("--samples", type=int, default=60, help="sampled deals per decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the verdicts as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        doc = load(args.record)
        players = len(doc.get("players") or [])
        if not 0 <= args.seat < max(players, 1):
            raise RecordError(f"no seat {args.seat} in this record")
        verdicts = analyze(doc, args.seat, args.samples, args.seed,
                           set(args.hand) if args.hand else None)
    except RecordError as e:
        print(f"barbu analyze: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([{"hand": v.hand, "action": v.index, "trick": v.trick,
                           "played": _code(v.played), "strong": _code(v.best),
                           "cost": round(v.cost, 2)} for v in verdicts], ensure_ascii=False))
    else:
        print(format_report(doc, args.seat, verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
