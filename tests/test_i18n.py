"""The page catalogues: every language has English's keys, slots and plural forms; every key the
pages use exists; every refusal a person can meet through the pages has its words."""

from __future__ import annotations

import ast
import dataclasses
import json
import random
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
    "bad-held",  # a "your tables" request whose list of held seats is of the wrong shape
    "bad-secret",  # a secret header that is not printable ASCII (the pages send the server's own)
    "secret-in-url",  # a record asked with ?token= (the pages send the X-Barbu-Token header)
}
# The score keeper's refusals of a sheet document of the wrong shape (the page sends hands it
# built from the engine's own question): the engine's English is enough.
SHEET_API_ONLY = {"sheet:record"}


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


def test_no_words_name_an_option_by_its_code() -> None:
    """A reader is shown an option's name, never its code: the score keeper said "heart-lead,
    king-first, overtrump" in every language (a tester saw them in Chinese)."""
    from barbu.engine.contracts import CLASSIC_OPTIONS

    for code in languages():
        for key, value in catalogue(code).items():
            texts = value.values() if isinstance(value, dict) else [value]
            for text in texts:
                said = [o for o in CLASSIC_OPTIONS if re.search(rf"(?<![\w{{-]){o}(?![\w}}-])", str(text))]
                assert not said, f"{code}.json {key} names {said} by their codes: {text}"


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
    for path in WEB.rglob("*.py"):
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
    # The State is built in layers, and why an action is illegal is worked out beside it: read them all.
    layers = ("core", "scoring", "cardplay", "bidding", "state", "reasons", "dealing")
    text = "\n".join((ENGINE / f"{name}.py").read_text(encoding="utf-8") for name in layers)
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
        if not key.startswith("error.") or key.startswith(("error.tally:", "error.sheet:")):
            continue  # the engine's refusals of a score sheet: see the tests below
        code = key[len("error."):]
        have = illegal_args if code.startswith("illegal:") else sent.get(code, set())
        assert slots(value) <= have, f"{key} names {slots(value) - have}, which the server does not send"


def test_an_illegal_action_sends_the_values_its_words_name(tmp_path: Path) -> None:
    """The engine's refusal reaches the page with what the catalogue's text needs (card, suit led)."""
    from tests.web_helpers import Recorder

    from barbu.engine.cards import card_pretty, card_str
    from barbu.web.core.errors import TableError
    from barbu.web.storage.sqlite import Store
    from barbu.web.tables.setup import Setup
    from barbu.web.tables.table import Table
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


# -- the score keeper's refusals: the engine's TallyError and SheetError codes ------------------

# A rule whose variant is chosen at run time: every variant its raise can give.
RUN_TIME_VARIANTS = {
    "tally:missing": {"tricks", "last_tricks", "queens", "hearts", "out"},
    "tally:sum": {"tricks", "hearts", "hearts-aside", "hearts-unseen", "hearts-unseen-exact"},
    "sheet:rotation": {"declarer", "chooser"},
}


def engine_refusals() -> Iterator[tuple[str, str, set[str], set[str]]]:
    """Every ``TallyError(…)`` and ``SheetError(…)`` of the engine: where, its code (``tally:<rule>``,
    or SheetError's ``code``; "" when it has none or passes one on), its slots' keys and the
    ``code.variant`` keys of the texts it can be said by."""
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = getattr(node.func, "id", "") if isinstance(node, ast.Call) else ""
            if name not in ("TallyError", "SheetError"):
                continue
            assert isinstance(node, ast.Call)
            where = f"{path.name}:{node.lineno}"
            kw = {k.arg: k.value for k in node.keywords}
            code = kw.get("rule" if name == "TallyError" else "code")
            prefix = "tally:" if name == "TallyError" else ""
            text = f"{prefix}{code.value}" if isinstance(code, ast.Constant) else ""
            found = kw.get("slots")
            pairs = dict(zip((getattr(k, "value", "") for k in found.keys), found.values, strict=True)
                         ) if isinstance(found, ast.Dict) else {}
            yield where, text, set(pairs), {f"{text}.{v}" for v in variants(text, pairs.get("variant"), where)
                                           } if "variant" in pairs else {text}


def variants(code: str, value: ast.expr | None, where: str) -> set[str]:
    """The variants a slot's expression gives: constants, both sides of ``a if c else b``, or listed."""
    if isinstance(value, ast.Constant):
        return {str(value.value)}
    if isinstance(value, ast.IfExp) and all(isinstance(v, ast.Constant) for v in (value.body, value.orelse)):
        return {str(getattr(v, "value", "")) for v in (value.body, value.orelse)}
    assert code in RUN_TIME_VARIANTS, f"{where}: {code}'s variant is chosen at run time: list them"
    return RUN_TIME_VARIANTS[code]


def test_every_tally_and_sheet_refusal_names_its_code() -> None:
    found = list(engine_refusals())
    assert len([f for f in found if f[1].startswith("tally:")]) >= 20  # the scan still finds them
    # The raises that pass on a code they were given (a TallyError's, an illegal action's) say so.
    passed_on = [where for where, code, _, _ in found if not code]
    assert len(passed_on) == 2, passed_on


def test_every_tally_and_sheet_refusal_has_its_words_in_every_language() -> None:
    en = catalogue("en")
    wanted: dict[str, set[str]] = {}
    for _, code, keys, texts in engine_refusals():
        if code and code not in SHEET_API_ONLY:
            for key in texts:
                wanted.setdefault(key, set()).update(keys - {"variant"})
    for key, keys in wanted.items():
        assert f"error.{key}" in en, f"en.json lacks error.{key}"
        # A count's contract comes with its rule set (sheets.refusal), for the page to name it.
        have = keys | {"contract", "ruleset"} if key.startswith("tally:") else keys
        assert slots(en[f"error.{key}"]) <= have, f"error.{key} names {slots(en[f'error.{key}']) - have}"
    shown = {k[len("error."):] for k in en if k.startswith(("error.tally:", "error.sheet:"))}
    assert shown == set(wanted), f"texts for codes nothing raises: {sorted(shown - set(wanted))}"


def refusal_key(e: object) -> str:
    from barbu.engine.errors import TallyError
    assert isinstance(e, TallyError)
    variant = e.slots.get("variant")
    return f"error.tally:{e.rule}" + (f".{variant}" if variant else "")


def mutated(t: object, game: object, rng: random.Random) -> object:
    """A count a little wrong: one entry moved, raised, lowered, repeated, emptied or dropped."""
    from barbu.engine.tally import Tally
    assert isinstance(t, Tally) and hasattr(game, "players")
    n = game.players
    named = [f for f in ("tricks", "hearts", "queens", "last_tricks", "out", "king_of_hearts",
                         "ace_of_hearts") if getattr(t, f) is not None]
    if not named:
        return t
    f = rng.choice(named)
    value = getattr(t, f)
    how = rng.choice(["move", "up", "down", "repeat", "empty", "drop", "seat"])
    if how == "drop":
        return dataclasses.replace(t, **{f: None})
    if isinstance(value, int):
        return dataclasses.replace(t, **{f: None if how == "empty" else rng.randrange(n)})
    items = list(value)
    k = rng.randrange(len(items)) if items else 0
    if how == "move" and len(items) > 1 and isinstance(items[k], int):
        j = rng.randrange(len(items))
        if f in ("tricks", "hearts"):
            items[k], items[j] = items[k] - 1, (items[j] or 0) + 1
        else:
            items[k] = items[j]
    elif how in ("up", "down") and items and isinstance(items[k], int):
        items[k] += 1 if how == "up" else -1
    elif how == "repeat" and items:
        items.append(items[k])
    elif how == "empty" and items and f == "queens":
        items[k] = items[k - 1] = None  # two queens nobody took: more than one card set aside?
    elif how == "empty" and items:
        items.pop(k)
    elif items:
        items[k] = rng.randrange(n)
    return dataclasses.replace(t, **{f: tuple(items)})


def test_every_refused_count_has_its_words() -> None:
    """Counts of hands the engine played, then made a little wrong: every refusal the engine gives
    has a text naming only the values it sends, and between them they reach nearly every text."""
    from tests.conftest import play_random
    from tests.engine_helpers import EVERY_TABLE
    from tests.score_helpers import tally_of

    from barbu.engine import tally
    from barbu.engine.errors import TallyError
    en, seen = catalogue("en"), set()
    rng = random.Random(11)
    for game in EVERY_TABLE:
        state = play_random(game, rng.randrange(2**40), hands=game.num_hands)
        for h in state.history:
            c = game.contracts[game.contract_index(h.contract)]
            for _ in range(12):
                t = tally_of(game, h, rng)
                for _ in range(rng.choice([1, 1, 2, 3])):
                    t = mutated(t, game, rng)
                try:
                    tally.check(game, c, t, rng.choice([h.set_aside, None]))  # type: ignore[arg-type]
                except TallyError as e:
                    key = refusal_key(e)
                    assert key in en, f"{e.message}: en.json lacks {key}"
                    assert slots(en[key]) <= set(e.slots) | {"contract", "ruleset"}, key
                    seen.add(key)
    # Not reached by counts of this shape: the JSON form's refusals, a count for another contract,
    # a queen the hand set aside (No Queens is not played with one), a place given twice (a page's).
    unreached = {"not-scored", "result-shape", "not-a-list", "not-a-seat-or-null", "queens-shape",
                 "queen-seat", "same-place"}
    texts = {k for k in en if k.startswith("error.tally:")}
    assert texts - seen == {k for k in texts if k.split(":")[1].split(".")[0] in unreached}


@pytest.mark.parametrize("code", languages())
def test_the_servers_plural_forms_are_the_pages(code: str) -> None:
    """The exports choose a count's form as Intl.PluralRules does: only forms the language has."""
    from barbu.web.core.words import plural_form
    forms = {plural_form(code, n) for n in range(0, 250)}
    assert forms <= PLURAL_FORMS[code] and (len(forms) > 1) == (len(PLURAL_FORMS[code]) > 1)
    assert plural_form(code, 1) == ("one" if "one" in PLURAL_FORMS[code] else "other")


def test_the_servers_words_are_the_catalogues() -> None:
    from barbu.web.core.words import languages as server_languages
    from barbu.web.core.words import words
    assert server_languages() == sorted(languages())
    fr = words("fr")
    assert fr.t("export.rules", rules="R", names="A, B") == "Règles : R. Joueurs : A, B."
    trumps = catalogue("fr")["contract.classic.trumps.name"]
    assert fr.contract("classic", "trumps", trump="H") == f"{trumps} ♥"
    two = catalogue("be")["sheet.winners.classic"]["few"].replace("{names}", "A, B")
    assert words("be").t("sheet.winners.classic", n=2, names="A, B") == two  # "few" in Belarusian
    assert words("xx").lang == words(None).lang == "en"  # a language the server has no words for
    assert words("../en").lang == "en"


def test_french_says_familial_for_the_family_rules_everywhere() -> None:
    """A tester read "Familial" in the lobby and "Famille" at the table: the lobby, the table, the rules and
    the errors name the family rules with one word."""
    fr = catalogue("fr")
    named = [str(fr[k]) for k in ("lobby.family", "table.family", "ruleset.family", "error.no-such-rules")]
    assert all("familial" in text.lower() for text in named), named


def test_the_burmese_solo_lobby_writes_its_numbers_as_the_pages_fill_them() -> None:
    """The pages fill a number into a sentence with Latin digits (I18N has no Burmese locale to write them
    with): the solo lobby's own words write theirs so too, not "ကစားသမား ၄ ဦး" beside "4 ဦး"."""
    lobby: set[str] = set()
    for name in ("solo.html", "solo-lobby.js"):
        text = (STATIC / name).read_text(encoding="utf-8")
        lobby |= set(re.findall(r"""\bt\(\s*["']([\w.:-]+)["']""", text))
        lobby |= set(re.findall(r"""data-i18n(?:-[\w-]+)?=["']([\w.:-]+)["']""", text))
    my = catalogue("my")
    assert {"lobby.classic", "lobby.family"} <= lobby
    burmese_digits = {k for k in lobby if re.search("[\u1040-\u1049]", json.dumps(my[k], ensure_ascii=False))}
    assert burmese_digits == set()
