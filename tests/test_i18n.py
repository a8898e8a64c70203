"""The page catalogues: every language has English's keys, slots and plural forms; every key the
pages use exists; every refusal a person can meet through the pages has its words."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "barbu" / "web" / "static"
CATALOGUES = STATIC / "i18n"
WEB = ROOT / "src" / "barbu" / "web"
ENGINE = ROOT / "src" / "barbu" / "engine"

# The plural forms (Intl.PluralRules, CLDR cardinals) each language needs for whole numbers.
PLURAL_FORMS = {"en": {"one", "other"}, "fr": {"one", "other"}, "sq": {"one", "other"},
                "be": {"one", "few", "many", "other"}, "zh": {"other"}, "id": {"other"}, "my": {"other"}}
ALLOWED_FORMS = {"fr": {"one", "many", "other"}, "be": {"one", "few", "many", "other"}}

# Keys the pages build at run time: a key the scripts name only by one of these prefixes is
# checked against the catalogue through the data it is built from (the tests below).
DYNAMIC = ("contract.", "error.", "level.", "suit.", "rank.", "rules.", "option.")

# Refusals that no page can lead a person to: they answer malformed requests from other
# programs (the pages always send well-formed JSON, known message types, legal-looking actions),
# so their English message is enough.
API_ONLY = {
    "too-large",  # a request body or socket message over the size limit
    "bad-json",  # a body that is not JSON
    "bad-message",  # a socket message without a "type"
    "unknown-type",  # a socket message of a type the server does not know
    "bad-action",  # an action text the engine cannot parse (the page sends the engine's own)
    "bad-level",  # an unknown computer level in a hand-over (the page offers only known ones)
    "bad-hand",  # a score-sheet hand that is not a JSON object, or out of range
    "bad-entry",  # a score-sheet entry without its id
    "bad-chat",  # a chat message that is not text (the page sends the input's text)
    "not-found",  # an export kind other than json, csv and pdf
    "bad-name",  # a name that is not text (the empty name has its words: bad-name.empty)
    "bad-pace",  # a hello whose "pace" is not true or false (the page always sends true)
    "bad-analysis",  # an analysis asked with neither a record nor a table (the replay page sends one)
    "bad-setup",  # a setup document of the wrong shape (the pages' mistakes have variants)
    "bad-seat",  # a seat number out of range (handing over one's own seat: bad-seat.own)
    "illegal:unknown-action",  # an action number outside the game (the page sends real ones)
    "illegal:finish-from",  # a score-sheet count given after cards were played (sheets only)
    # The score keeper's count refusals: the engine's own wording, many messages under one code,
    # which the page shows as sent (translating them is left for later).
    "refused",
    "bad-held",  # a "your tables" request whose list of held seats is of the wrong shape
}


def catalogue(code: str) -> dict[str, object]:
    return json.loads((CATALOGUES / f"{code}.json").read_text(encoding="utf-8"))


def languages() -> list[str]:
    text = (STATIC / "i18n.js").read_text(encoding="utf-8")
    block = re.search(r"const LANGUAGES = \{(.*?)\};", text, re.S)
    assert block, "i18n.js names its languages in const LANGUAGES"
    return re.findall(r"(\w+):\s*\"", block.group(1))


def slots(value: object) -> set[str]:
    texts = value.values() if isinstance(value, dict) else [value]
    return {s for text in texts for s in re.findall(r"\{(\w+)\}", str(text))}


def test_every_language_has_a_catalogue_and_no_other() -> None:
    files = sorted(p.stem for p in CATALOGUES.glob("*.json"))
    assert files == sorted(languages())
    assert set(languages()) >= {"en", "fr", "zh", "sq", "be", "id", "my"}


@pytest.mark.parametrize("code", [c for c in languages() if c != "en"])
def test_same_keys_slots_and_plurals_as_english(code: str) -> None:
    en, other = catalogue("en"), catalogue(code)
    missing = sorted(set(en) - set(other))
    assert not missing, f"{code}.json lacks {missing[:10]}"
    extra = sorted(set(other) - set(en))
    assert not extra, f"{code}.json has keys English does not: {extra[:10]}"
    for key, value in en.items():
        theirs = other[key]
        assert slots(theirs) == slots(value), f"{code}.json {key}: slots {slots(theirs)} != {slots(value)}"
        if isinstance(value, dict):
            assert isinstance(theirs, dict), f"{code}.json {key} needs plural forms"
            forms = set(theirs)
            assert PLURAL_FORMS[code] <= forms, f"{code}.json {key} lacks forms {PLURAL_FORMS[code] - forms}"
            assert forms <= ALLOWED_FORMS.get(code, PLURAL_FORMS[code]), f"{code}.json {key}: {forms}"
        else:
            assert isinstance(theirs, str) and theirs.strip(), f"{code}.json {key} is empty"


@pytest.mark.parametrize("code", languages())
def test_catalogue_file_is_sorted_one_key_a_line(code: str) -> None:
    lines = (CATALOGUES / f"{code}.json").read_text(encoding="utf-8").splitlines()
    keys = [json.loads("{" + line.rstrip(",") + "}").popitem()[0] for line in lines[1:-1]]
    assert keys == sorted(keys) and len(keys) == len(catalogue(code))


def keys_used_by_pages() -> set[str]:
    used: set[str] = set()
    for path in list(STATIC.glob("*.js")) + list(STATIC.glob("*.html")):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"""\bt\(\s*["']([\w.:-]+)["']""", text))
        used |= set(re.findall(r"""data-i18n(?:-[\w-]+)?=["']([\w.:-]+)["']""", text))
    return used


def test_every_key_the_pages_use_is_in_english() -> None:
    en = catalogue("en")
    used = keys_used_by_pages()
    assert len(used) > 50  # the pattern still finds the pages' keys
    missing = sorted(k for k in used if k not in en and not k.startswith(DYNAMIC))
    assert not missing, f"en.json lacks {missing}"


def test_every_contract_suit_rank_and_level_has_its_words() -> None:
    from barbu.bots import levels
    from barbu.engine.cards import RANKS, SUITS
    from barbu.engine.contracts import CLASSIC, CLASSIC_OPTIONS, FAMILY
    from barbu.engine.game import RULESETS
    from barbu.engine.hand import PHASE_TASK
    en = catalogue("en")
    wanted = [f"contract.classic.{c.id}.{p}" for c in CLASSIC for p in ("name", "line")]
    wanted += [f"contract.family.{c.id}.{p}" for c in FAMILY for p in ("name", "line")]
    wanted += [f"suit.{s}" for s in SUITS] + [f"rank.{r}" for r in RANKS]
    wanted += [f"level.{lv}.{p}" for lv in levels(cheats=True) for p in ("name", "line")]
    wanted += [f"option.{o}{p}" for o in CLASSIC_OPTIONS for p in ("", ".name")]
    # Keys the pages build from a rule set's id (score.js, table.js, rules.js).
    wanted += [f"{k}.{r}" for r in RULESETS for k in ("ruleset", "sheet.winners", "score.declares")]
    wanted += [f"rules.{r}.{c.id}" for r, table in (("classic", CLASSIC), ("family", FAMILY)) for c in table]
    # An action out of its phase is told what it is time to do (tables.py: the phase as variant).
    wanted += [f"error.illegal:wrong-phase.{p.name.lower()}" for p in PHASE_TASK
               if p.name not in ("DEAL", "GAME_OVER")]
    assert [k for k in wanted if k not in en] == []


def table_errors() -> Iterator[tuple[str, dict[str, str]]]:
    """Every ``TableError("code", …, args={…})`` of the web source: its code and each args dict's
    constant keys and values (both branches of an ``a if c else b``; the illegal:<rule> codes,
    built with an f-string, are left to :func:`engine_rules`)."""
    for path in WEB.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "TableError"
                    and isinstance(node.args[0], ast.Constant)):
                continue
            found = [kw.value for kw in node.keywords if kw.arg == "args"]
            dicts = [d for v in found for d in ([v.body, v.orelse] if isinstance(v, ast.IfExp) else [v])]
            if not dicts:
                yield str(node.args[0].value), {}
            for d in dicts:
                assert isinstance(d, ast.Dict), f"{path.name}: args of {node.args[0].value} is not a dict"
                pairs = zip(d.keys, d.values, strict=True)
                yield str(node.args[0].value), {str(getattr(k, "value", "")): str(getattr(v, "value", ""))
                                                for k, v in pairs}


def key_of(code: str, args: dict[str, str]) -> str:
    return f"{code}.{args['variant']}" if "variant" in args else code


def raised_codes() -> set[str]:
    """Every TableError code the web source raises, as ``code`` or ``code.variant``."""
    return {key_of(code, args) for code, args in table_errors()}


def engine_rules() -> set[str]:
    """The rule names of the engine's illegal-action errors (the web's ``illegal:<rule>`` codes)."""
    text = (ENGINE / "state.py").read_text(encoding="utf-8")
    rules = set(re.findall(r"""return \(?"([a-z][a-z-]+)",""", text))
    rules |= set(re.findall(r'rule="([a-z-]+)"', text))
    return rules


def test_the_source_scan_finds_the_codes() -> None:
    codes, rules = raised_codes(), engine_rules()
    assert {"storage", "too-many-tables", "server-full", "bad-token.link", "damaged.table"} <= codes
    assert {"follow-suit", "compulsory-double", "lead-heart", "placement"} <= rules


def test_every_person_facing_error_is_in_english() -> None:
    en = catalogue("en")
    codes = raised_codes() | {f"illegal:{r}" for r in engine_rules()}
    missing = sorted(c for c in codes if c not in API_ONLY and f"error.{c}" not in en)
    assert not missing, f"en.json lacks error.<code> for {missing} (or list them in API_ONLY, with why)"
    stale = sorted(API_ONLY - codes)
    assert not stale, f"API_ONLY names codes nothing raises any more: {stale}"


def test_error_args_fill_every_slot() -> None:
    """A catalogue's error text names only values the server sends with that code."""
    en = catalogue("en")
    sent: dict[str, set[str]] = {}
    for code, args in table_errors():
        sent.setdefault(key_of(code, args), set()).update(set(args) - {"variant"})
    illegal_args = {"card", "contract", "ruleset", "declarer", "led", "trump", "owed", "left", "rank"}
    for key, value in en.items():
        if not key.startswith("error."):
            continue
        code = key[len("error."):]
        have = illegal_args if code.startswith("illegal:") else sent.get(code, set())
        assert slots(value) <= have, f"{key} names {slots(value) - have}, which the server does not send"


def test_an_illegal_action_sends_the_values_its_words_name(tmp_path: Path) -> None:
    """The engine's refusal reaches the page with what the catalogue's text needs (card, suit led)."""
    from tests.web_helpers import Recorder

    from barbu.engine.cards import card_pretty, card_str
    from barbu.web.store import Store
    from barbu.web.tables import Setup, Table, TableError
    store = Store(str(tmp_path / "t.db"))
    try:
        table = Table.create(store, Setup.parse({"seats": [{"kind": "human"}] * 4, "seed": 5}))
        seats = {}
        for s in table.seats:
            seats[s.row.seat] = Recorder(table, s.row.seat)
            table.attach(seats[s.row.seat], s.row.token, f"P{s.row.seat}")
        table.act(seats[table.state.current], "no-tricks")
        while table.state.phase != table.state.phase.PLAY:
            table.act(seats[table.state.current], table.state.game.action_str(table.state.legal_actions()[0]))
        leader = table.state.current
        not_held = next(c for c in range(52) if not table.state.hands[leader] >> c & 1)
        with pytest.raises(TableError) as e:
            table.act(seats[leader], card_str(not_held))
        assert e.value.code == "illegal:not-your-card"
        assert e.value.slots["card"] == card_pretty(not_held) and e.value.slots["contract"] == "no-tricks"
        assert "{card}" in str(catalogue("en")["error.illegal:not-your-card"])
        assert e.value.event()["args"] == e.value.slots
    finally:
        store.close()
