"""The score sheet as a printable PDF, drawn with reportlab: players, totals, winner, chart, every hand."""

from __future__ import annotations

import functools
import io
import logging
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

from barbu.web.core.words import Words
from barbu.web.sheets.hands import Shown, doubles_text, game_of, label_of, rows, winners_said

try:  # reportlab shapes Burmese (its vowels drawn before their consonant, its stacked letters) with it
    import uharfbuzz
except ImportError:  # pragma: no cover - the web extra installs it
    uharfbuzz = None

# Fonts with TrueType outlines (reportlab embeds no other kind), by the languages they are the base
# font of: DejaVu Sans (Latin, Cyrillic, the suit symbols), WenQuanYi Micro Hei (Chinese, with Latin)
# and Padauk (Burmese, with Latin; Noto Sans Myanmar has Burmese only). A character the base font
# lacks is set in the first other font that has it; a missing font is skipped (docs/score.md).
_FONT_FILES = {
    "DejaVuSans": ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                   "/usr/share/fonts/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf"),
    "WenQuanYi": ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",),
    "Padauk": ("/usr/share/fonts/truetype/padauk/Padauk-Regular.ttf",),
    "NotoSansMyanmar": ("/usr/share/fonts/truetype/noto/NotoSansMyanmar-Regular.ttf",),
}
_BASE_FONTS = {"zh": ("WenQuanYi",), "my": ("Padauk", "NotoSansMyanmar")}
# Only Burmese needs shaping. reportlab shapes with discretionary ligatures on, so a shaped DejaVu
# Sans draws "st" and "fi" as one glyph, which a reader copies or searches as U+FB06, U+FB01.
_SHAPED = frozenset({"Padauk", "NotoSansMyanmar"})
log = logging.getLogger("barbu.web")
LINE_COLOURS = ("#c62828", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f")
_SUIT_LETTERS = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C", "−": "-", "×": "x"})
_WORD_BREAK = "\u200b"  # reportlab shapes a word in one font: a change of font ends the word


@functools.cache
def _fonts() -> dict[str, frozenset[int]]:
    """The fonts this system has (registered once), each with the characters it draws."""
    found = {}
    for name, paths in _FONT_FILES.items():
        path = next((p for p in paths if Path(p).is_file()), None)
        if path is not None:
            ttf = TTFont(name, path, shapable=uharfbuzz is not None and name in _SHAPED)
            pdfmetrics.registerFont(ttf)
            found[name] = frozenset(ttf.face.charToGlyph)
    return found


def font(lang: str = "en") -> str:
    """The base font of a language's PDF: its own when the system has it, else DejaVu Sans, else
    Helvetica (then the text is spelt in Latin-1)."""
    fonts = _fonts()
    own = [name for name in _BASE_FONTS.get(lang, ()) if name in fonts]
    if lang in _BASE_FONTS and not own:
        _missing(lang)
    return next((name for name in (*own, "DejaVuSans") if name in fonts), "Helvetica")


@functools.cache
def _missing(lang: str) -> None:
    """Said once: a PDF in this language will show boxes where its letters should be."""
    wanted = " or ".join(_FONT_FILES[name][0] for name in _BASE_FONTS[lang])
    log.warning("no font for %s PDFs (%s): their text is drawn as empty boxes (docs/score.md)",
                lang, wanted)


class _Setter:
    """Text set for one language's page: reportlab markup, each character in a font that has it."""

    def __init__(self, lang: str) -> None:
        self.base = font(lang)
        fonts = _fonts()
        self.order = [(name, fonts[name]) for name in (self.base, *fonts) if name in fonts]

    def _font_of(self, ch: str) -> str:
        return next((name for name, chars in self.order if ord(ch) in chars), self.base)

    def text(self, s: str) -> str:
        if self.base == "Helvetica":
            return _escape(_plain(s))
        out, run, current = [], "", self.base
        for ch in s:
            name = current if ch.isspace() else self._font_of(ch)
            if name != current:
                out.append(self._run(run, current))
                if run and not run[-1].isspace():
                    out.append(_WORD_BREAK)
                run, current = "", name
            run += ch
        out.append(self._run(run, current))
        return "".join(out)

    def _run(self, text: str, name: str) -> str:
        if not text:
            return ""
        return _escape(text) if name == self.base else f'<font face="{name}">{_escape(text)}</font>'


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _styles(f: str) -> dict[str, ParagraphStyle]:
    shaping = int(uharfbuzz is not None and f in _SHAPED)
    return {"title": ParagraphStyle("title", fontName=f, fontSize=18, leading=24, spaceAfter=4,
                                    shaping=shaping),
            "body": ParagraphStyle("body", fontName=f, fontSize=10, leading=15, shaping=shaping),
            "cell": ParagraphStyle("cell", fontName=f, fontSize=8, leading=12, shaping=shaping),
            "num": ParagraphStyle("num", fontName=f, fontSize=8.5, leading=12, alignment=2, shaping=shaping)}


def sheet_pdf(sheet: Shown, w: Words) -> bytes:
    """The whole sheet as a PDF document (A4 landscape) in ``w``'s language."""
    buf = io.BytesIO()
    title = f"Barbu — {w.t('sheet.title')}"
    doc = SimpleDocTemplate(buf, pagesize=landscape(A4), title=title, author="barbu", lang=w.lang,
                            leftMargin=12 * mm, rightMargin=12 * mm, topMargin=12 * mm, bottomMargin=12 * mm)
    st = _styles(font(w.lang))
    story: list[Any] = [Paragraph(_Setter(w.lang).text(title), st["title"]), *_summary(sheet, w, st),
                        Spacer(1, 4 * mm)]
    if sheet.result is not None and sheet.result.hands:
        story += [chart(sheet, 250 * mm, 62 * mm), Spacer(1, 4 * mm), hands_table(sheet, w, st)]
    doc.build(story)
    return buf.getvalue()


def _summary(sheet: Shown, w: Words, st: dict[str, ParagraphStyle]) -> list[Any]:
    names = sheet.names
    game = game_of(sheet.doc)
    _text = _Setter(w.lang).text
    rules = w.t(f"ruleset.{game.ruleset}")
    if game.options:
        rules += " (" + ", ".join(w.t(f"option.{o}.name") for o in sorted(game.options)) + ")"
    out = [Paragraph(_text(w.t("export.rules", rules=rules, names=", ".join(names))), st["body"])]
    if sheet.result is None:
        return [*out, Paragraph(_text(w.t("error.damaged.sheet")), st["body"])]
    state = sheet.result.state
    totals = ", ".join(f"{n} {_signed(t)}" for n, t in zip(names, state.totals, strict=True))
    played = len(sheet.result.hands)
    after = w.t("export.after", played=played, n=game.num_hands, totals=totals)
    out.append(Paragraph(_text(after), st["body"]))
    if state.is_over:
        winners = winners_said(w, game, state.winners(), names)
        out.append(Paragraph("<b>" + _text(winners) + "</b>", st["body"]))
    return out


def chart(sheet: Shown, width: float, height: float) -> Drawing:
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
    legend.colorNamePairs = [(colors.HexColor(LINE_COLOURS[s % len(LINE_COLOURS)]), _plain(n))
                             for s, n in enumerate(sheet.names)]
    d.add(legend)
    return d


def hands_table(sheet: Shown, w: Words, st: dict[str, ParagraphStyle]) -> Table:
    """Every hand: who declared, the contract, the doubles, each player's score and running total."""
    assert sheet.result is not None
    names = sheet.names
    game = game_of(sheet.doc)
    _text = _Setter(w.lang).text
    head = ["#", w.t("export.declarer" if game.is_classic else "export.chooser"), w.t("score.contract"),
            w.t("score.doubles")]
    data: list[list[Any]] = [[Paragraph(_text(h), st["cell"]) for h in head]
                             + [Paragraph(f"<b>{_text(n)}</b>", st["num"]) for n in names]]
    for row in rows(game, sheet.result, names):
        cells = [_score_cell(s, t, st) for s, t in zip(row["scores"], row["totals"], strict=True)]
        data.append([str(row["hand"] + 1), Paragraph(_text(names[row["declarer"]]), st["cell"]),
                     Paragraph(_text(label_of(w, game, row)), st["cell"]),
                     Paragraph(_text(doubles_text(row, names)), st["cell"]), *cells])
    data.append(["", Paragraph(f"<b>{_text(w.t('sheet.totals'))}</b>", st["cell"]), "", "",
                 *[Paragraph(f"<b>{signed(t)}</b>", st["num"]) for t in sheet.result.state.totals]])
    widths = _widths(len(names))
    table = Table(data, colWidths=widths, repeatRows=1)
    table.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (-1, -1), font(w.lang)), ("FONTSIZE", (0, 0), (-1, -1), 8),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
        ("LINEABOVE", (0, -1), (-1, -1), 0.8, colors.black),
        ("ROWBACKGROUNDS", (0, 1), (-1, -2), [colors.white, colors.HexColor("#f1f5f9")]),
    ]))
    return table


def _score_cell(score: int, total: int, st: dict[str, ParagraphStyle]) -> Paragraph:
    return Paragraph(f"{signed(score)} <font color='#64748b' size='7'>({signed(total)})</font>", st["num"])


def signed(x: int) -> str:
    """``+12``, ``0``, ``−6``: a score as the sheet shows it (markup, for a paragraph)."""
    return _escape(_signed(x))


def _signed(x: int) -> str:
    return _plain(f"{x:+d}".replace("-", "−") if x else "0")


def _plain(s: str) -> str:
    """Text drawn without markup (the chart's legend): spelt in Latin-1 when there is no TrueType font."""
    if font() != "Helvetica":
        return s
    return s.translate(_SUIT_LETTERS).encode("latin-1", "replace").decode("latin-1")


def _widths(players: int) -> Sequence[float]:
    each = max(22 * mm, (150 * mm) / players)
    return [8 * mm, 24 * mm, 36 * mm, 273 * mm - 68 * mm - players * each, *([each] * players)]
