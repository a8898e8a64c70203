"""The score keeper's sheets, free of any web framework: setup, checked changes, the page's view, CSV.

A sheet is an engine ``barbu-sheet/1`` document (:mod:`barbu.engine.scoresheet`) kept on the
server. Every change is worked out on a copy by the engine (which refuses what does not add up),
stored as one :class:`~barbu.web.core.rows.SheetBatch`, and only then made in memory. Scores, the
rotation, the contracts still open and the compulsory doubles all come from the engine: this
module only puts names on them.
"""

from __future__ import annotations

import io
import json
import logging
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from barbu.csvsafe import SafeWriter
from barbu.engine import doubling, scoresheet
from barbu.engine.cards import card_str
from barbu.engine.contracts import CLASSIC_OPTIONS
from barbu.engine.errors import Seat, SheetError
from barbu.engine.game import Game, seats_of
from barbu.engine.record import ReplayResult
from barbu.web.core.errors import TableError
from barbu.web.core.names import clean_name, valid_id
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import SheetBatch
from barbu.web.core.words import Words
from barbu.web.sheets.hands import doubles_text, game_of, label_of, rows, winners_said
from barbu.wording import plural, say

log = logging.getLogger("barbu.web")

HAND_KEYS = ("declarer", "contract", "trump", "start_rank", "doubles", "set_aside", "result")
_ENTRY_RE = re.compile(r"^[A-Za-z0-9_:.-]{1,64}$")


def refusal(e: SheetError, names: Sequence[str], ruleset: str) -> TableError:
    """The engine's refusal as the page shows it: its code, the values its words name (names for
    seats, card ids, contract ids with their rule set), the field and hand it is about."""
    return TableError(e.code, say(e.said, names, by_name=True), 422, field=e.field, hand=e.hand,
                      args=refusal_args(e, names, ruleset))


def refusal_args(e: SheetError, names: Sequence[str], ruleset: str) -> dict[str, Any]:
    """A refusal's slots as JSON: the page says cards and contracts in its own language."""
    args: dict[str, Any] = {k: _slot(k, v, names, ruleset) for k, v in e.slots.items()}
    if "contract" in args:
        args["ruleset"] = ruleset
    return args


def _slot(key: str, value: object, names: Sequence[str], ruleset: str) -> object:
    if isinstance(value, Seat):
        return names[value.seat] if 0 <= value.seat < len(names) else str(value.seat + 1)
    if isinstance(value, SheetError):  # a later hand's own refusal, inside the edit's
        return {"code": value.code, "message": say(value.said, names, by_name=True),
                "args": refusal_args(value, names, ruleset)}
    if key == "card" and isinstance(value, int):
        return card_str(value)
    if key == "cards" and isinstance(value, list):
        return [card_str(x) for x in value]
    return value


# -- a new sheet -----------------------------------------------------------------------

def parse_setup(body: object) -> dict[str, Any]:
    """A new sheet's document from a create request; TableError saying what is wrong."""
    if not isinstance(body, dict):
        raise TableError("bad-setup", "the sheet's setup must be a JSON object")
    game = _game_of(body)
    names = body.get("names")
    if not isinstance(names, list) or len(names) != game.players:
        raise TableError("bad-setup", f"give the names of the {game.players} players", field="names",
                         args={"variant": "names", "n": game.players})
    clean = [clean_name(n) for n in names]
    if len({n.casefold() for n in clean}) < len(clean):
        raise TableError("bad-setup", "give each player a different name", field="names",
                         args={"variant": "same-names"})
    first = body.get("first_declarer")
    if first == "random":
        first = secrets.randbelow(game.players)  # drawn here, so that no device has to be trusted
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < game.players:
        raise TableError("bad-setup", f"who declares first: a seat from 0 to {game.players - 1}, or "
                         '"random"', field="first_declarer")
    return scoresheet.new_sheet(game, clean, first)


def _game_of(body: dict[str, Any]) -> Game:
    ruleset, players = body.get("ruleset", "classic"), body.get("players", 4)
    options = body.get("options", [])
    if ruleset not in ("classic", "family"):
        raise TableError("bad-setup", "the rule set is 'classic' or 'family'", field="ruleset")
    if not isinstance(players, int) or isinstance(players, bool):
        raise TableError("bad-setup", "the number of players must be a whole number", field="players")
    if not isinstance(options, list) or not all(o in CLASSIC_OPTIONS for o in options):
        raise TableError("bad-setup", f"options are a list of: {', '.join(CLASSIC_OPTIONS)}", field="options")
    try:
        return Game(ruleset, players, frozenset(options))
    except ValueError as e:
        raise TableError("bad-setup", str(e), field="players") from e


# -- one sheet ------------------------------------------------------------------------

def pdf_answer(sheet_id: str, doc: dict[str, Any], version: int, lang: str) -> tuple[int, bytes]:
    """A sheet's PDF at this version, made in a worker process (barbu.web.http.heavy): reportlab is loaded
    there, never by the server's event loop."""
    from barbu.web.core.words import words
    from barbu.web.sheets.pdf import sheet_pdf

    return 200, sheet_pdf(Sheet.of(sheet_id, "", doc, version), words(lang))


@dataclass
class Sheet:
    """A sheet as the server holds it: its stored document, replayed, and its write secret."""

    id: str
    token: str
    doc: dict[str, Any]
    version: int
    result: ReplayResult | None  # None: the stored document does not replay (``damaged`` says why)
    damaged: str | None = None

    @classmethod
    def of(cls, sheet_id: str, token: str, doc: dict[str, Any], version: int) -> Sheet:
        try:
            return cls(sheet_id, token, doc, version, scoresheet.replay_sheet(doc))
        except SheetError as e:
            log.error("sheet %s: its stored document does not replay, so it is read-only: %s", sheet_id, e)
            return cls(sheet_id, token, doc, version, None, e.message)

    @property
    def names(self) -> list[str]:
        return list(self.doc["players"])

    @property
    def hands(self) -> list[dict[str, Any]]:
        return list(self.doc["hands"])

    def may_write(self, token: str | None) -> bool:
        return bool(token) and secrets.compare_digest(token or "", self.token)

    # -- changes, worked out on copies -----------------------------------------------

    def plan(self, op: dict[str, Any]) -> dict[str, Any]:
        """The document after ``op`` (``kind`` add / edit / undo, ``hand``, ``data``); TableError if not."""
        if self.damaged is not None:
            raise TableError("damaged", f"this sheet cannot be read back ({self.damaged}): it is read-only",
                             409, args={"variant": "sheet"})
        kind, k = op["kind"], op["hand"]
        count = len(self.hands)
        try:
            if kind == "add":
                if k != count:
                    raise _conflict(k, count)
                return scoresheet.add_hand(self.doc, op["data"])
            if kind == "edit":
                return scoresheet.replace_hand(self.doc, k, op["data"])
            if k != count - 1:
                raise _conflict(k + 1, count)
            return scoresheet.undo_last(self.doc)
        except SheetError as e:
            raise refusal(e, self.names, self.doc["ruleset"]) from e

    def batch(self, doc: dict[str, Any], entry: str, op: dict[str, Any]) -> SheetBatch:
        return SheetBatch(self.id, doc, self.version + 1, entry, op)

    def apply(self, doc: dict[str, Any]) -> None:
        """Make a stored change (``doc`` was replayed by :meth:`plan`, so it replays)."""
        self.doc, self.version = doc, self.version + 1
        self.result = scoresheet.replay_sheet(doc)

    def check(self, k: object, hand: object) -> dict[str, Any]:
        """Whether ``hand`` fits as hand ``k`` (the next one, or one to edit), and what it would score."""
        if self.result is None:
            raise TableError("damaged", "this sheet cannot be read back: it is read-only", 409,
                             args={"variant": "sheet"})
        count = len(self.hands)
        k = count if k is None else k
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= count:
            raise TableError("bad-hand", f"a hand from 0 to {count}", field="hand")
        data = clean_hand(hand)
        try:
            doc = (scoresheet.add_hand(self.doc, data) if k == count
                   else scoresheet.replace_hand(self.doc, k, data))
        except SheetError as e:
            err = refusal(e, self.names, self.doc["ruleset"])
            return {"ok": False, "error": err.body()["error"]}
        h = scoresheet.replay_sheet(doc).hands[k]
        return {"ok": True, "contract_scores": list(h.contract_scores), "scores": list(h.scores)}


    def frame_at(self, k: int) -> dict[str, Any]:
        """What the form asks to edit hand ``k``: the engine's question at that hand, and the hand."""
        hands = self.hands
        if self.result is None or not 0 <= k < len(hands):
            raise TableError("no-hand", f"there is no hand {k + 1} to edit", 404, args={"hand": k + 1})
        before = scoresheet.replay_sheet({**self.doc, "hands": hands[:k]})
        frame = annotate(scoresheet.next_hand(before.state), self.names)
        return {"hand": k, "data": hands[k], "frame": frame}


def _conflict(k: int, count: int) -> TableError:
    return TableError("conflict", f"this entry was made for hand {k + 1}, but the sheet now has "
                      f"{plural(count, 'hand')}: it was changed elsewhere; reload it", 409,
                      args={"hand": k + 1, "n": count})


def clean_hand(obj: object) -> dict[str, Any]:
    """A hand as sent by a client, with only the fields of a sheet's hand (the engine checks them)."""
    if not isinstance(obj, dict):
        raise TableError("bad-hand", "a hand is a JSON object", field="hand")
    return {k: obj[k] for k in HAND_KEYS if k in obj}


def parse_op(kind: str, k: object, body: object) -> tuple[str, dict[str, Any]]:
    """The client's entry id and the change it asks for; TableError when malformed."""
    if not isinstance(body, dict):
        raise TableError("bad-entry", "an entry is a JSON object")
    entry = body.get("entry")
    if not isinstance(entry, str) or not _ENTRY_RE.match(entry):
        raise TableError("bad-entry", "an entry needs an \"entry\" id (letters, digits, - _ : .; up to 64)",
                         field="entry")
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < 100:
        raise TableError("bad-entry", "\"hand\" is the number of the hand, from 0", field="hand")
    op: dict[str, Any] = {"kind": kind, "hand": k}
    if kind != "undo":
        op["data"] = clean_hand(body.get("data"))
    return entry, op


# -- every sheet of the server ---------------------------------------------------------------

class SheetBook:
    """The sheets, read from the store when first asked for and kept."""

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self.sheets: dict[str, Sheet] = {}

    def get(self, sheet_id: str) -> Sheet:
        sheet = self.sheets.get(sheet_id)
        if sheet is not None:
            return sheet
        row = self.store.load_sheet(sheet_id) if valid_id(sheet_id) else None
        if row is None:
            raise TableError("no-sheet", "there is no such score sheet", 404)
        try:
            doc = json.loads(row.doc)
        except ValueError:
            doc = {"players": [], "hands": []}
        sheet = self.sheets.setdefault(sheet_id, Sheet.of(row.id, row.token, doc, row.version))
        return sheet

    def plan_create(self, doc: dict[str, Any]) -> tuple[Sheet, SheetBatch]:
        sheet_id, token = secrets.token_urlsafe(6), secrets.token_urlsafe(18)
        sheet = Sheet.of(sheet_id, token, doc, 0)
        return sheet, SheetBatch(sheet_id, doc, 0, None, {"kind": "create"}, token=token)

    def add(self, sheet: Sheet) -> None:
        self.sheets[sheet.id] = sheet


# -- what the page shows -----------------------------------------------------------------

def view(sheet: Sheet, writable: bool) -> dict[str, Any]:
    """Everything the page draws: the hands' rows, the totals, the next hand's question."""
    base: dict[str, Any] = {"id": sheet.id, "version": sheet.version, "writable": writable,
                            "sheet": sheet.doc, "names": sheet.names, "damaged": sheet.damaged}
    if sheet.result is None:
        return base
    game = game_of(sheet.doc)
    r = sheet.result
    frame = scoresheet.next_hand(r.state)
    first = r.state.first_declarer
    return {**base, "ruleset": game.ruleset, "options": sorted(game.options),
            "declares": "declares" if game.is_classic else "chooses",
            "contracts": frame.get("contracts") or [{"id": c.id, "name": c.name} for c in game.contracts],
            "hand_size": game.hand_size, "set_aside_count": game.set_aside_count,
            "rotation": [game.declarer_of(first, k) for k in range(game.num_hands)],
            "may_double_by_declarer": may_double_by_declarer(game),
            "rows": rows(game, r, sheet.names), "totals": list(r.state.totals),
            "complete": r.state.is_over, "winners": r.state.winners(),
            "winner_text": winner_text(game, r.state.winners(), sheet.names),
            "next": annotate(frame, sheet.names)}


def may_double_by_declarer(game: Game) -> list[dict[str, list[list[int]]]] | None:
    """For each declarer, whom each seat may double before anyone has: the page's matrix while offline."""
    if not game.is_classic:
        return None
    n, blank = game.players, [0] * game.players

    def targets(d: int, positive: bool) -> list[list[int]]:
        return [[] if s == d else seats_of(doubling.double_targets(s, d, positive, blank)) for s in range(n)]
    return [{"negative": targets(d, False), "positive": targets(d, True)} for d in range(n)]


def winner_text(game: Game, winners: Sequence[int], names: Sequence[str]) -> str:
    if not winners:
        return ""
    best = "highest" if game.is_classic else "lowest"
    who = " and ".join(names[w] for w in winners)
    return f"{'Winners' if len(winners) > 1 else 'Winner'}: {who} ({best} total)"


def annotate(frame: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """The engine's next-hand question, with the doubles still owed said in words."""
    d = frame.get("declarer")
    if d is None:
        return frame
    left = frame["hands_left"]
    who = names[d]
    hands = f"this hand, {who}'s last" if left == 1 else f"the {left} remaining hands {who} declares"
    owes = [f"{names[s]} still owes {names[d]} {plural(k, 'double')} in {hands}"
            for s, k in enumerate(frame["owed_doubles"]) if k and frame.get("may_double") is not None]
    return {**frame, "owes": owes}


def csv_text(sheet: Sheet, w: Words) -> str:
    """The sheet as CSV in ``w``'s language: one row per hand with each player's points, score and
    running total (contracts by their names, doubles as ``Ben x Ann (Ben +12)``); text quoted, and
    made inert where a spreadsheet would read a formula (barbu.csvsafe)."""
    buf = io.StringIO()
    out = SafeWriter(buf)  # names are typed by the players: nothing of theirs may run as a formula
    names = sheet.names
    game = game_of(sheet.doc) if sheet.result is not None else None
    who = "export.declarer" if game is None or game.is_classic else "export.chooser"
    out.writerow([w.t("export.hand"), w.t(who), w.t("score.contract"), w.t("score.doubles"),
                  *(w.t(f"export.{k}", name=n) for k in ("points", "score", "total") for n in names)])
    if sheet.result is None or game is None:
        return buf.getvalue()
    for row in rows(game, sheet.result, names):
        out.writerow([row["hand"] + 1, names[row["declarer"]], label_of(w, game, row),
                      doubles_text(row, names), *row["contract_scores"], *row["scores"], *row["totals"]])
    out.writerow(["", w.t("sheet.totals"), "", "", *[""] * (2 * len(names)), *sheet.result.state.totals])
    if sheet.result.state.is_over:
        out.writerow(["", winners_said(w, game, sheet.result.state.winners(), names)])
    return buf.getvalue()
