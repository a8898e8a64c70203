"""What the terminal game draws: the table, the score sheet, the last trick, a hand's result."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from barbu.engine.cards import mask_of, sorted_cards
from barbu.engine.contracts import Contract, Kind
from barbu.engine.game import PASS
from barbu.engine.observation import HandSummary, Observation
from barbu.engine.sheet import format_sheet
from barbu.engine.state import State, place_card
from barbu.tui import render as r
from barbu.tui.terminal import Terminal


class Screen:
    """Draws the table as one seat sees it, on request and between hands."""

    def __init__(self, term: Terminal, state: State, names: list[str], human: int | None) -> None:
        self.term = term
        self.state = state
        self.game = state.game
        self.names = names
        self.human = human
        self.viewer = human if human is not None else 0

    def who(self, seat: int) -> Text:
        return r.who(seat, self.names, self.human)

    def show(self, obs: Observation) -> None:
        self.term.out(Text())
        self.term.out(r.status(obs, self.names, self.term.console.width))

    def show_sheet(self, obs: Observation) -> None:
        if not obs.results:
            self.term.out(r.span("No hand has been finished yet.", "dim"))
            return
        text = format_sheet(self.game, obs.results, self.names, self.state.winners())
        self.term.out(r.span("Score sheet", "bold underline"))
        self.term.out(Text(text))

    def show_last(self, obs: Observation) -> None:
        if obs.last_trick:
            line = Text("Last trick: ")
            line.append_text(r.plays_text(obs.last_trick, self.names, self.human))
            line.append(" → ")
            line.append_text(self.who(obs.leader))  # the last trick's winner leads this one
            self.term.out(line)
        elif obs.contract is not None and obs.contract.kind != Kind.TRICKS:
            self.term.out(r.span(f"There are no tricks in {obs.contract.name}.", "dim"))
        else:
            self.term.out(r.span("No trick has been completed yet in this hand.", "dim"))

    def hand_result(self, before: Observation, seat: int, action: int) -> None:
        """The hand just ended with ``action``: what each player took, the scores, the sheet."""
        c = before.contract
        assert c is not None
        final = (*before.trick, (seat, action))
        captured, tricks = list(before.captured), list(before.tricks_won)
        if c.kind == Kind.TRICKS and len(final) == self.game.players:
            winner = r.trick_winner(final, before.trump)
            captured[winner] |= mask_of(x for _, x in final)
            tricks[winner] += 1
            if sum(before.hand_sizes) > 1:
                self.term.out(r.span("  No points are left to take: the hand ends here.", "dim"))
        elif c.kind != Kind.TRICKS:
            self.term.out(Text())
            self.term.out(*r.layout_lines(_placed(before, action)), sep="\n")
        order = [*before.out_order, *([seat] if before.hand_sizes[seat] == 1 else [])]
        after = self.state.observe(self.viewer)
        result = after.results[-1]
        self.term.out(Text())
        self.term.out(Text(f"Result of hand {result.hand_no + 1}: {r.contract_title(before)}", style="bold"))
        self.term.out(r.indent(self.result_table(c, result, after.totals, captured, tricks, order)))
        self.term.out(Text())
        self.show_sheet(after)

    def result_table(self, c: Contract, result: HandSummary, totals: Sequence[int], captured: list[int],
                     tricks: list[int], order: list[int]) -> Table:
        scoring = c.scoring_cards
        trick_game = c.kind == Kind.TRICKS
        classic = self.game.is_classic
        table = Table(header_style="dim", box=None, padding=(0, 1), pad_edge=False)
        table.add_column("player")
        if trick_game:
            table.add_column("tricks", justify="right")
            if scoring:
                table.add_column("taken")
        else:
            table.add_column("out")
        table.add_column("contract", justify="right")
        if classic:
            table.add_column("with doubles", justify="right")
        table.add_column("total", justify="right")
        for p in range(self.game.players):
            row: list[Text | str] = [self.who(p)]
            if trick_game:
                row.append(str(tricks[p]))
                if scoring:
                    row.append(r.cards_text(sorted_cards(captured[p] & scoring), empty="–"))
            else:
                last = "last" if c.kind == Kind.DOMINOES else "–"
                row.append(r.ORDINALS[order.index(p)] if p in order else last)
            row.append(r.signed(result.contract_scores[p]))
            if classic:
                row.append(r.signed(result.scores[p]))
            row.append(r.span(r.signed(totals[p]), "bold"))
            table.add_row(*row)
        return table


def _placed(obs: Observation, action: int) -> Observation:
    """The Dominoes/Réussite layout once ``action`` is on the table (the state has moved on)."""
    if action == PASS:
        return obs
    lo, hi = [a for a, _ in obs.lines], [b for _, b in obs.lines]
    place_card(lo, hi, action, -1 if obs.start_rank is None else obs.start_rank, obs.set_aside)
    return dataclasses.replace(obs, lines=tuple(zip(lo, hi, strict=True)))
