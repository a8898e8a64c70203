"""What the terminal game shows, drawn with Rich from one seat's observation and nothing else.

Every marker that colour carries is also written as text (``*`` for a card you may
play, ``(9)`` for a card set aside, "compulsory" beside a forced double), so the
screen reads the same with ``--plain``, in a pipe or on a monochrome terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from barbu.engine.cards import SUIT_NAMES, SUIT_SYMBOLS, card_pretty, mask_of, rank_pretty, sorted_cards
from barbu.engine.contracts import Kind
from barbu.engine.game import CONTRACT
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, split_doubles
from barbu.engine.state import trick_winner as winning_index

SUIT_STYLES = ("bold", "bold bright_red", "bold bright_red", "bold")
LEGAL_MARK = "*"
ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th")


def span(text: str, style: str = "") -> Text:
    """Styled text whose style stays its own when more text is appended or added to it."""
    out = Text()
    out.append(text, style=style)
    return out


def indent(renderable: RenderableType, spaces: int = 2) -> Padding:
    return Padding(renderable, (0, 0, 0, spaces), expand=False)


def card_text(c: int, extra: str = "") -> Text:
    """A card in people's notation (``10♦``), in its suit's colour."""
    return span(card_pretty(c), f"{SUIT_STYLES[c // 13]} {extra}".strip())


def cards_text(cards: Iterable[int], sep: str = " ", empty: str = "") -> Text:
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(sep)
        out.append_text(card_text(c))
    return out if out.plain else span(empty, "dim")


def hand_lines(hand: int, legal: int = 0) -> list[Text]:
    """One line per suit, highest card first; when ``legal`` is given, playable cards are
    bright and starred and the others dim."""
    lines = []
    for s in range(4):
        line = Text("  ")
        line.append(SUIT_SYMBOLS[s], style=SUIT_STYLES[s])
        line.append(f" {SUIT_NAMES[s]:<9}", style="dim")
        ranks = [r for r in range(12, -1, -1) if hand >> (s * 13 + r) & 1]
        if not ranks:
            line.append("—", style="dim")
        for r in ranks:
            label = rank_pretty(r)
            if not legal:
                line.append(f"{label:<4}", style=SUIT_STYLES[s])
            elif legal >> (s * 13 + r) & 1:
                line.append(label, style=f"{SUIT_STYLES[s]} underline")
                line.append(f"{LEGAL_MARK:<{4 - len(label)}}", style="bold green")
            else:
                line.append(f"{label:<4}", style="dim")
        line.rstrip()
        lines.append(line)
    return lines


def who(seat: int, names: Sequence[str], me: int | None = 0) -> Text:
    """A player's name, in bold; yours (seat ``me``) in colour too."""
    return span(names[seat], "bold cyan" if seat == me else "bold")


def plays_text(plays: Sequence[tuple[int, int]], names: Sequence[str], me: int | None = 0) -> Text:
    """``Ben 7♣ · Cleo K♣ · …`` for a trick or part of one."""
    out = Text()
    for i, (seat, c) in enumerate(plays):
        if i:
            out.append(" · ", style="dim")
        out.append_text(who(seat, names, me))
        out.append(" ")
        out.append_text(card_text(c))
    return out


def trick_winner(plays: Sequence[tuple[int, int]], trump: int | None) -> int:
    """The seat that takes a complete trick of (seat, card) plays."""
    return plays[winning_index([c for _, c in plays], -1 if trump is None else trump)][0]


def contract_title(obs: Observation) -> str:
    """``No Queens``, ``Trumps ♥``, ``Dominoes from J`` …"""
    c = obs.contract
    if c is None:
        return "contract not chosen yet"
    title = c.name
    if obs.trump is not None:
        title += f" {SUIT_SYMBOLS[obs.trump]} ({SUIT_NAMES[obs.trump]})"
    if obs.start_rank is not None and c.kind != Kind.TRICKS:
        title += f" from {rank_pretty(obs.start_rank)}"
    return title


def header(obs: Observation, names: Sequence[str]) -> Text:
    g = obs.game
    role = "declarer" if g.is_classic else "chooser"
    out = span(f"Hand {obs.hand_no + 1} of {g.num_hands}", "bold")
    out.append(" · ")
    out.append_text(who(obs.declarer, names))
    out.append(f" ({role})")
    if obs.contract is not None:
        out.append(" · ")
        out.append(contract_title(obs), style="bold yellow")
    return out


def players_table(obs: Observation, names: Sequence[str], totals: bool = True) -> Table:
    """Who holds how many cards, what each has taken this hand, and the running totals."""
    g = obs.game
    c = obs.contract
    n = g.players
    playing = c is not None and obs.phase == Phase.PLAY
    tricks = playing and c is not None and c.kind == Kind.TRICKS
    scoring = c is not None and c.scoring_cards != 0
    table = Table(box=None, padding=(0, 1), show_edge=False, pad_edge=False, header_style="dim")
    table.add_column("seat", justify="right")
    table.add_column("player")
    if playing:
        table.add_column("cards", justify="right")
    if tricks:
        table.add_column("tricks", justify="right")
        if scoring:
            table.add_column("taken")
        table.add_column("points", justify="right")
    elif playing:
        table.add_column("out")
    if totals:
        table.add_column("total", justify="right")
    for seat in range(n):
        name = who(seat, names)
        if seat == obs.declarer:
            name.append(" D" if g.is_classic else " C", style="yellow")
        if seat == obs.current and obs.phase != Phase.DEAL:
            name.append(" ◂", style="green")
        row: list[Text | str] = [str(seat + 1), name]
        if playing:
            row.append(str(obs.hand_sizes[seat]))
        if tricks:
            row.append(str(obs.tricks_won[seat]))
            if scoring:
                row.append(cards_text(sorted_cards(obs.scoring_captured(seat)), empty="–"))
            row.append(signed(obs.points[seat]))
        elif playing:
            row.append(ORDINALS[obs.out_order.index(seat)] if seat in obs.out_order else "")
        if totals:
            row.append(signed(obs.totals[seat]))
        table.add_row(*row)
    return table


def signed(x: int) -> str:
    return f"{x:+d}" if x else "0"


def doubles_text(obs: Observation, names: Sequence[str]) -> Text:
    """``Cleo × Ben (compulsory) · Dan × Ben ×× (redoubled)``; empty when nobody doubled."""
    n = obs.game.players
    doubled, redoubled = split_doubles(list(obs.doubles), obs.declarer, n)
    out = Text()
    for a in range(n):
        for b in range(n):
            if not doubled[a] >> b & 1:
                continue
            if out.plain:
                out.append(" · ", style="dim")
            out.append_text(who(a, names))
            out.append(" × ", style="bold magenta")
            out.append_text(who(b, names))
            if redoubled[b] >> a & 1:
                out.append(" (redoubled)", style="magenta")
            if b == obs.declarer and a in obs.compulsory:
                out.append(" (compulsory)", style="dim")
    return out


def compulsory_text(obs: Observation, names: Sequence[str]) -> Text:
    """Who must double the declarer this hand (each owes two doubles per declarer)."""
    out = span("Compulsory this hand: ", "yellow")
    out.append(", ".join(names[s] for s in obs.compulsory))
    out.append(" must double ")
    out.append_text(who(obs.declarer, names))
    return out


# Columns the full layout takes in its box: indent, suit, 13 cells of 4, and the box's edges.
LAYOUT_WIDTH = 7 + 13 * 4 + 4


def layout_lines(obs: Observation, width: int = LAYOUT_WIDTH) -> list[Text]:
    """The Dominoes/Réussite table: one row per suit from 2 to A; set-aside cards in brackets.

    Narrower than ``LAYOUT_WIDTH`` (a terminal of 50 columns) the rows are compact: cells of 3
    columns and no brackets, the set-aside cards being listed above the layout all the same.
    """
    compact = width < LAYOUT_WIDTH
    cell, lead, gap = (3, " ", "") if compact else (4, "  ", "    ")
    ranks = "".join(rank_pretty(r).rjust(cell) for r in range(13))
    lines = [span(" " * (len(lead) + 1 + len(gap)) + ranks, "dim")]
    for s in range(4):
        lo, hi = obs.lines[s]
        row = Text(lead)
        row.append(SUIT_SYMBOLS[s], style=SUIT_STYLES[s])
        row.append(gap)
        for r in range(13):
            card = s * 13 + r
            if lo >= 0 and lo <= r <= hi:
                if obs.set_aside >> card & 1:
                    shown = rank_pretty(r) if compact else f"({rank_pretty(r)})"
                    row.append(shown.rjust(cell), style="dim italic")
                else:
                    row.append(rank_pretty(r).rjust(cell), style=SUIT_STYLES[s])
            else:
                row.append("·".rjust(cell), style="dim")
        lines.append(row)
    return lines


def layout_note(obs: Observation) -> Text:
    c = obs.contract
    if c is None or c.kind == Kind.TRICKS:
        return Text()
    if obs.start_rank is None:
        return span("The first card placed sets the starting rank.", "dim")
    start = rank_pretty(obs.start_rank)
    closed = [SUIT_SYMBOLS[s] for s in range(4) if obs.lines[s][0] < 0]
    text = f"A suit opens with its {start} and grows one card at a time at either end."
    if closed:
        text += f" Not open yet: {' '.join(closed)}."
    return span(text, "dim")


def trick_view(obs: Observation, names: Sequence[str]) -> list[Text]:
    """The trick in progress (and the last one), in the order played."""
    n = obs.game.players
    lines = []
    if obs.last_trick:
        line = span("Last trick: ", "dim")
        line.append_text(plays_text(obs.last_trick, names))
        line.append(" → ", style="dim")
        line.append_text(who(obs.leader, names))  # the last trick's winner leads this one
        lines.append(line)
    hand_size = obs.game.hand_size
    line = span(f"Trick {obs.trick_no + 1} of {hand_size}: ", "bold")
    if obs.trick:
        line.append_text(plays_text(obs.trick, names))
    else:
        line.append_text(who(obs.leader, names))
        line.append(" to lead", style="dim")
    waiting = [(obs.leader + k) % n for k in range(len(obs.trick), n)]
    if obs.trick and waiting:
        line.append("  … ", style="dim")
        line.append(", ".join(names[s] for s in waiting), style="dim")
    lines.append(line)
    return lines


def contract_menu(obs: Observation) -> Table:
    """The contracts with their numbers, those already chosen (or not allowed) struck out."""
    g = obs.game
    allowed = {a - CONTRACT for a in obs.legal}
    table = Table(box=None, padding=(0, 1), show_header=False, pad_edge=False)
    table.add_column(justify="right")
    table.add_column()
    table.add_column()
    for i, c in enumerate(g.contracts):
        if i in allowed:
            table.add_row(span(str(i + 1), "bold green"), span(c.name, "bold"),
                          Text(c.description))
        else:
            why = "done" if not obs.available[obs.seat] >> i & 1 else "not allowed: K♥ is set aside"
            table.add_row(span(str(i + 1), "dim"), span(c.name, "dim strike"),
                          span(f"({why})", "dim"))
    return table


def set_aside_text(obs: Observation) -> Text:
    out = span("Set aside, face up: ", "dim")
    out.append_text(cards_text(sorted_cards(obs.set_aside)))
    return out


def status(obs: Observation, names: Sequence[str], width: int = LAYOUT_WIDTH) -> RenderableType:
    """The whole table as ``obs.seat`` sees it: header, players, doubles, trick or layout, hand.

    ``width`` is the terminal's: a narrow one gets the compact layout rows.
    """
    table: list[RenderableType] = [players_table(obs, names)]
    if obs.set_aside:
        table.append(set_aside_text(obs))
    dbl = doubles_text(obs, names)
    if dbl.plain:
        table.append(span("Doubles: ", "dim") + dbl)
    if obs.phase == Phase.DOUBLE and obs.compulsory:
        table.append(compulsory_text(obs, names))
    c = obs.contract
    if c is not None and obs.phase == Phase.PLAY:
        if c.kind == Kind.TRICKS:
            table.extend(trick_view(obs, names))
        else:
            table.extend(layout_lines(obs, width))
            table.append(layout_note(obs))
    legal = mask_of(a for a in obs.legal if a < 52) if obs.phase == Phase.PLAY else 0
    count = obs.hand.bit_count()
    title = span(f"Your hand ({count} card{'' if count == 1 else 's'})", "bold")
    if legal:
        title.append(f"   {LEGAL_MARK} = you may play it", style="dim")
    heading = header(obs, names)
    heading.stylize_before("default")  # not the border's colour
    panel = Panel(Group(*table), title=heading, title_align="left", expand=False,
                  border_style="blue", box=box.ROUNDED)
    return Group(panel, title, *hand_lines(obs.hand, legal))


def hand_compact(hand: int) -> Text:
    """A whole hand on one line: ``♠ A K 4  ♥ Q 8 3  ♦ —  ♣ J 9 2``."""
    out = Text()
    for s in range(4):
        if s:
            out.append("  ")
        out.append(SUIT_SYMBOLS[s], style=SUIT_STYLES[s])
        ranks = [rank_pretty(k) for k in range(12, -1, -1) if hand >> (s * 13 + k) & 1]
        out.append(" " + (" ".join(ranks) or "—"))
    return out
