"""The score sheet as a printable PDF, drawn with reportlab: players, totals, winner, chart, every hand."""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from barbu.web.sheets import Sheet, doubles_text, game_of, rows, winner_text

# A font with the suit symbols and any name's letters; the PDF's standard Helvetica has neither.
_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf",
          "/usr/share/fonts/TTF/DejaVuSans.ttf")
LINE_COLOURS = ("#c62828", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f")
_SUIT_LETTERS = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C", "−": "-", "×": "x"})


@functools.cache
def font() -> str:
    """DejaVu Sans when the system has it (registered once), else Helvetica."""
    for path in _FONTS:
        if Path(path).is_file():
            pdfmetrics.registerFont(TTFont("DejaVuSans", path))
            return "DejaVuSans"
    return "Helvetica"


def _text(s: str) -> str:
    """Text for the page: escaped for reportlab's markup, and spelt in Latin-1 without DejaVu."""
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if font() != "Helvetica":
        return s
    return s.translate(_SUIT_LETTERS).encode("latin-1", "replace").decode("latin-1")


def _styles() -> dict[str, ParagraphStyle]:
    f = font()
    return {"title": ParagraphStyle("title", fontName=f, fontSize=18, leading=22, spaceAfter=4),
            "body": ParagraphStyle("body", fontName=f, fontSize=10, leading=13),
            "cell": ParagraphStyle("cell", fontName=f, fontSize=8, leading=10),
            "num": ParagraphStyle("num", fontName=f, fontSize=8.5, leading=10, alignment=2)}


def sheet_pdf(sheet: Sheet, title: str) -> bytes:
    """The whole sheet as a PDF document (A4 landscape)."""
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=landscape(A4), title=title, author="barbu",
                            leftMargin=12 * mm, rightMargin=12 * mm, topMargin=12 * mm, bottomMargin=12 * mm)
    st = _styles()
    story: list[Any] = [Paragraph(_text(title), st["title"]), *_summary(sheet, st), Spacer(1, 4 * mm)]
    if sheet.result is not None and sheet.result.hands:
        story += [chart(sheet, 250 * mm, 62 * mm), Spacer(1, 4 * mm), hands_table(sheet, st)]
    doc.build(story)
    return buf.getvalue()


def _summary(sheet: Sheet, st: dict[str, ParagraphStyle]) -> list[Any]:
    names = sheet.names
    game = game_of(sheet.doc)
    rules = "Classic" if game.is_classic else f"Family, {len(names)} players"
    if game.options:
        rules += " (" + ", ".join(sorted(game.options)) + ")"
    out = [Paragraph(_text(f"Rules: {rules}. Players: {', '.join(names)}."), st["body"])]
    if sheet.result is None:
        return [*out, Paragraph(_text(f"This sheet cannot be read back: {sheet.damaged}"), st["body"])]
    state = sheet.result.state
    totals = ", ".join(f"{n} {signed(t)}" for n, t in zip(names, state.totals, strict=True))
    played = len(sheet.result.hands)
    out.append(Paragraph(_text(f"After {played} of {game.num_hands} hands: {totals}."), st["body"]))
    if state.is_over:
        out.append(Paragraph("<b>" + _text(winner_text(game, state.winners(), names)) + "</b>", st["body"]))
    return out


def chart(sheet: Sheet, width: float, height: float) -> Drawing:
    """The running totals, one line per player, with a legend of names."""
    assert sheet.result is not None
    game = game_of(sheet.doc)
    data = [[(0, 0)] for _ in sheet.names]
    for row in rows(game, sheet.result, sheet.names):
        for s, t in enumerate(row["totals"]):
            data[s].append((row["hand"] + 1, t))
    d = Drawing(width, height)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 30, 15, width - 150, height - 25
    plot.data = data
    for s in range(len(sheet.names)):
        plot.lines[s].strokeColor = colors.HexColor(LINE_COLOURS[s % len(LINE_COLOURS)])
        plot.lines[s].strokeWidth = 1.6
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = 0, game.num_hands
    plot.xValueAxis.valueSteps = list(range(0, game.num_hands + 1, game.hands_per_declarer
                                            if game.is_classic else game.players))
    for axis in (plot.xValueAxis, plot.yValueAxis):
        axis.labels.fontName, axis.labels.fontSize = font(), 7
    d.add(plot)
    legend = Legend()
    legend.x, legend.y, legend.fontName, legend.fontSize = width - 110, height - 10, font(), 9
    legend.alignment, legend.columnMaximum = "right", len(sheet.names)
    legend.colorNamePairs = [(colors.HexColor(LINE_COLOURS[s % len(LINE_COLOURS)]), _text(n))
                             for s, n in enumerate(sheet.names)]
    d.add(legend)
    return d


def hands_table(sheet: Sheet, st: dict[str, ParagraphStyle]) -> Table:
    """Every hand: who declared, the contract, the doubles, each player's score and running total."""
    assert sheet.result is not None
    names = sheet.names
    game = game_of(sheet.doc)
    head = ["#", "declarer" if game.is_classic else "chooser", "contract", "doubles"]
    data: list[list[Any]] = [[Paragraph(_text(h), st["cell"]) for h in head]
                             + [Paragraph(f"<b>{_text(n)}</b>", st["num"]) for n in names]]
    for row in rows(game, sheet.result, names):
        cells = [_score_cell(s, t, st) for s, t in zip(row["scores"], row["totals"], strict=True)]
        data.append([str(row["hand"] + 1), Paragraph(_text(names[row["declarer"]]), st["cell"]),
                     Paragraph(_text(row["label"]), st["cell"]),
                     Paragraph(_text(doubles_text(row, names)), st["cell"]), *cells])
    data.append(["", Paragraph("<b>totals</b>", st["cell"]), "", "",
                 *[Paragraph(f"<b>{signed(t)}</b>", st["num"]) for t in sheet.result.state.totals]])
    widths = _widths(len(names))
    table = Table(data, colWidths=widths, repeatRows=1)
    table.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (-1, -1), font()), ("FONTSIZE", (0, 0), (-1, -1), 8),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
        ("LINEABOVE", (0, -1), (-1, -1), 0.8, colors.black),
        ("ROWBACKGROUNDS", (0, 1), (-1, -2), [colors.white, colors.HexColor("#f1f5f9")]),
    ]))
    return table


def _score_cell(score: int, total: int, st: dict[str, ParagraphStyle]) -> Paragraph:
    return Paragraph(f"{signed(score)} <font color='#64748b' size='7'>({signed(total)})</font>", st["num"])


def signed(x: int) -> str:
    """``+12``, ``0``, ``−6``: a score as the sheet shows it."""
    return _text(f"{x:+d}".replace("-", "−") if x else "0")


def _widths(players: int) -> Sequence[float]:
    each = max(22 * mm, (150 * mm) / players)
    return [8 * mm, 24 * mm, 36 * mm, 273 * mm - 68 * mm - players * each, *([each] * players)]
