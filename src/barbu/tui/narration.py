"""What the terminal game says of each move as it is made, in the players' names and in good English."""

from __future__ import annotations

from rich.text import Text

from barbu.engine.cards import ACE, RANK_NAMES, SUIT_NAMES, SUIT_SYMBOLS, mask_of, sorted_cards
from barbu.engine.contracts import Kind
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game, seats_of
from barbu.engine.observation import Observation
from barbu.engine.state import Phase
from barbu.tui import render as r
from barbu.tui.terminal import Terminal

_SECOND_PERSON = {"is": "are", "does": "do", "passes": "pass", "goes": "go", "has": "have"}


def _possessive(name: str) -> str:
    """``Ben's``, or ``your`` for the player spoken to (never "You's")."""
    return "your" if _is_you(name) else f"{name}'s"


def _is_you(name: str) -> bool:
    """Whether a player is spoken to rather than about (the human is called "You" by default)."""
    return name.lower() == "you"


class Narrator:
    """Says each move at the table: one line a move, or one line a trick or a turn in a demonstration."""

    def __init__(self, term: Terminal, game: Game, names: list[str], human: int | None) -> None:
        self.term = term
        self.game = game
        self.names = names
        self.human = human
        self.last_pos = -1  # watch mode: position of the last actor on the current Dominoes line

    def end_of_hand(self) -> None:
        """Close the line in progress: the next hand's narration starts afresh."""
        self.term.close_line()
        self.last_pos = -1

    def who(self, seat: int) -> Text:
        return r.who(seat, self.names, self.human)

    def subject(self, seat: int, verb: str) -> Text:
        """``Ben plays`` / ``You play``."""
        if _is_you(self.names[seat]):
            verb = _SECOND_PERSON.get(verb, verb[:-1] if verb.endswith("s") else verb)
        out = self.who(seat)
        out.append(f" {verb}")
        return out

    def object(self, seat: int) -> Text:
        """A player's name after a verb: ``doubles you``."""
        out = self.who(seat)
        if _is_you(self.names[seat]):
            out.plain = "you"
        return out

    def narrate(self, before: Observation, seat: int, action: int) -> None:
        """Say ``action``, just made by ``seat``; ``before`` is the table as it was."""
        phase = before.phase
        if phase == Phase.PLAY:
            assert before.contract is not None
            if before.contract.kind == Kind.TRICKS:
                self.narrate_card(before, seat, action)
            else:
                self.narrate_layout(before, seat, action)
        else:
            self.term.out(Text("  ") + self.setup_event(before, seat, action))

    def setup_event(self, before: Observation, seat: int, action: int) -> Text:
        phase = before.phase
        if phase == Phase.CHOOSE:
            c = self.game.contracts[action - CONTRACT]
            line = self.subject(seat, "chooses")
            line.append(f" {c.name}", style="bold yellow")
            line.append(f" — {c.description}.", style="dim")
            return line
        if phase == Phase.TRUMP:
            suit = action - TRUMP
            line = self.subject(seat, "names")
            line.append(f" {SUIT_SYMBOLS[suit]} {SUIT_NAMES[suit]}", style=r.SUIT_STYLES[suit])
            line.append(" as trumps.")
            return line
        if phase == Phase.START_RANK:
            return self.subject(seat, "starts") + Text(f" Dominoes from the {RANK_NAMES[action - RANK]}.")
        base = DOUBLE if phase == Phase.DOUBLE else REDOUBLE
        mask = action - base
        word = "doubles" if base == DOUBLE else "redoubles"
        if not mask:
            return self.subject(seat, "does") + r.span(f" not {word[:-1]}.", "dim")
        line = self.subject(seat, word)
        line.append(" ")
        for i, t in enumerate(seats_of(mask)):
            if i:
                line.append(", ")
            line.append_text(self.object(t))
            if base == DOUBLE and t == before.declarer and seat in before.compulsory:
                line.append(" (compulsory)", style="dim")
        line.append(".")
        return line

    def narrate_card(self, before: Observation, seat: int, action: int) -> None:
        n = self.game.players
        plays = (*before.trick, (seat, action))
        done = len(plays) == n
        if self.human is None:
            if len(plays) == 1:
                self.term.part(r.span(f"  Trick {before.trick_no + 1:>2}:  ", "dim"))
            width = max(len(nm) for nm in self.names)
            play = self.who(seat) + Text(" " * (width + 1 - len(self.names[seat]))) + r.card_text(action)
            self.term.part(play + Text(" " * (6 - len(r.card_text(action).plain))))
        elif seat != self.human or not done:
            self.term.out(Text("  ") + self.subject(seat, "plays") + Text(" ") + r.card_text(action))
        if not done:
            return
        assert before.contract is not None
        winner = r.trick_winner(plays, before.trump)
        taken = r.cards_text(sorted_cards(mask_of(c for _, c in plays) & before.contract.scoring_cards))
        if self.human is None:
            line = r.span("→ ", "dim") + self.who(winner)
            if taken.plain:
                line += Text(" takes ") + taken
            self.term.part(line)
            self.term.close_line()
            return
        line = Text("  ")
        if seat == self.human:
            line += self.subject(seat, "plays") + Text(" ") + r.card_text(action) + Text(" ")
        line += r.span("→ ", "dim") + self.subject(winner, "takes")
        line.append(f" trick {before.trick_no + 1}")
        if taken.plain:
            line += Text(", with ") + taken
        self.term.out(line)

    def narrate_layout(self, before: Observation, seat: int, action: int) -> None:
        if action == PASS:
            event = r.span("stops after the ace" if before.ace_extra else "passes", "dim")
        else:
            event = r.card_text(action)
        if before.hand_sizes[seat] == 1 and action != PASS:
            event.append(f" (out {r.ORDINALS[len(before.out_order)]}!)", style="bold")
        elif action % 13 == ACE and before.contract is not None and before.contract.kind == Kind.REUSSITE:
            event.append(" (an ace: may place one more)", style="dim")
        if self.human is None:
            # A demonstration shows one line per turn of the table.
            pos = (seat - before.declarer) % self.game.players
            if pos < self.last_pos or not self.term.line_open:
                self.term.close_line()
                self.term.part(Text("  "))
            else:
                self.term.part(r.span(" · ", "dim"))
            self.last_pos = pos
            self.term.part(self.who(seat) + Text(" ") + event)
            return
        if action == PASS:
            verb = "stops" if before.ace_extra else "passes"
            line = Text("  ") + self.subject(seat, verb)
            if before.ace_extra:
                line.append(" after the ace", style="dim")
        else:
            line = Text("  ") + self.subject(seat, "places") + Text(" ") + event
        self.term.out(line)
