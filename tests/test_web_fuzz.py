"""Every malformed request and socket message is answered: a 4xx (or 503) JSON error or an error event,
never a crash. The known cases first, then every route and every socket message type fuzzed."""

from __future__ import annotations

import ast
import inspect
import json
import logging
import random
import re
import subprocess
import textwrap
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.test_web_tables import play_by_views
from tests.test_web_ws import app_for, create, server_of
from tests.web_helpers import Recorder, fresh_db

from barbu.web.http import sockets
from barbu.web.http.app import build_app
from barbu.web.http.config import Config
from barbu.web.http.mail import Smtp

SURROGATE = "\\ud800"  # a lone surrogate as the JSON escape a client sends (valid JSON, not text)
World = dict[str, Any]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """A database with a finished game and a game just begun (their tokens known), a score sheet with a
    hand, and a profile with a password."""
    db = fresh_db(tmp_path_factory.mktemp("fuzz"), "f.db")
    with TestClient(app_for(db)) as client:
        done = create(client, name="F1", seats=[{"kind": "human"}] * 4)
        begun = create(client, name="F2", seats=[{"kind": "you"}, {"kind": "friend"}, {"kind": "open"},
                                                 {"kind": "open"}])
        table = server_of(client).tables.get(done["id"])
        tokens = {s["seat"]: s["token"] for s in done["seats"]}
        players = []
        for s in table.seats:
            rec = Recorder(table, s.row.seat)
            table.attach(rec, tokens[s.row.seat], f"P{s.row.seat + 1}")
            players.append(rec)
        play_by_views(table, players, random.Random(3), hands=table.game.num_hands)
        assert table.state.is_over
        sheet = client.post("/api/sheets", json={"ruleset": "classic", "names": ["Ann", "Ben", "Cleo", "Dan"],
                                                 "first_declarer": 0}).json()
        made = client.post("/api/players", json={"name": "Fuzzy"})
        assert made.status_code == 201, made.text
        credential = made.json()["credential"]
        res = client.post("/api/me/password", json={"password": "a long password"},
                          headers={"X-Barbu-Player": credential})
        assert res.status_code == 200, res.text
        return {"db": db, "done": done["id"], "done_token": table.seats[0].row.token, "begun": begun["id"],
                "begun_token": begun["you"]["token"], "sheet": sheet["id"], "sheet_token": sheet["token"],
                "credential": credential}


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:
    with TestClient(app_for(world["db"], max_analyses=1)) as c:
        yield c


def refused(res: Any, codes: tuple[int, ...] = (400,)) -> dict[str, Any]:
    """The JSON error of a refused request, checked to be one of ``codes``."""
    assert res.status_code in codes, f"{res.status_code}: {res.text}"
    assert res.headers["content-type"].startswith("application/json"), res.text
    error: dict[str, Any] = res.json()["error"]
    assert error["code"] and error["message"], error
    return error


# -- the known cases -----------------------------------------------------------------------------

def test_a_lone_surrogate_is_refused_wherever_a_request_carries_text(client: TestClient,
                                                                      world: World) -> None:
    me = {"X-Barbu-Player": world["credential"], "Content-Type": "application/json"}
    plain = {"Content-Type": "application/json"}
    cases = [
        ("/api/players/claim", plain, f'{{"code": "{SURROGATE}"}}'),
        ("/api/me/password", me, f'{{"password": "{SURROGATE}long enough"}}'),
        ("/api/signin", plain, f'{{"name": "Fuzzy", "password": "{SURROGATE}long enough"}}'),
        ("/api/signin", plain, f'{{"name": "{SURROGATE}", "password": "long enough"}}'),
        ("/api/players", plain, f'{{"name": "A{SURROGATE}"}}'),
        ("/api/analysis", plain, f'{{"table": "{world["done"]}", "token": "{SURROGATE}"}}'),
        ("/api/mine", plain, f'{{"seats": [{{"table": "{world["begun"]}", "token": "{SURROGATE}"}}]}}'),
        ("/api/tables", plain, f'{{"name": "{SURROGATE}", "seats": [{{"kind": "you"}}]}}'),
        (f"/api/tables/{world['begun']}/join", plain, f'{{"name": "{SURROGATE}"}}'),
        ("/api/sheets", plain, f'{{"ruleset": "classic", "names": ["{SURROGATE}", "B", "C", "D"]}}'),
    ]
    for path, headers, body in cases:
        error = refused(client.post(path, content=body.encode(), headers=headers), (400, 422))
        assert "surrogate" in error["message"], (path, error)


def test_a_socket_hello_with_a_lone_surrogate_gets_an_error_and_the_socket_stays_open(
        client: TestClient, world: World) -> None:
    for field in ("token", "name", "profile"):
        with client.websocket_connect(f"/ws/{world['begun']}") as ws:
            ws.send_text(f'{{"type": "hello", "{field}": "{SURROGATE}"}}')
            error = json.loads(ws.receive_text())
            assert error["type"] == "error" and "surrogate" in error["message"], (field, error)
            ws.send_text('{"type": "ping"}')
            assert json.loads(ws.receive_text())["type"] == "pong"


def test_a_secret_header_that_is_not_ascii_is_refused_on_every_endpoint_that_reads_one(
        client: TestClient, world: World) -> None:
    sheet_routes = [(r.path, m) for r in client.app.routes  # type: ignore[attr-defined]
                    if isinstance(r, Route) and r.path.startswith("/api/sheets/{sheet_id}")
                    for m in sorted(r.methods or ()) if m != "HEAD"]
    assert len(sheet_routes) >= 7
    for path, method in sheet_routes:
        url = path.replace("{k:int}", "0").replace("{kind:str}", "csv").format(sheet_id=world["sheet"])
        for value in ("é".encode(), "ü".encode("latin-1"), b"tok en"):
            res = client.request(method, url, headers={"X-Barbu-Token": value}, json={})
            assert refused(res)["code"] == "bad-secret", (method, url, value)
    for url in ("/api/me", f"/api/tables/{world['begun']}/record", f"/api/tables/{world['done']}/timeline"):
        header = "X-Barbu-Player" if url == "/api/me" else "X-Barbu-Token"
        assert refused(client.get(url, headers={header: "é".encode()}))["code"] == "bad-secret", url


def test_an_unexpected_failure_is_a_json_500_without_a_traceback(client: TestClient, world: World,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    """A bug (here: a store whose read breaks in a way nobody foresaw) is answered in JSON, and logged."""
    store = server_of(client).store
    assert store is not None
    original = store.load_sheet

    def broken(sheet_id: str) -> Any:
        raise ZeroDivisionError("a bug nobody foresaw")
    store.load_sheet = broken  # type: ignore[method-assign]
    server_of(client).sheets.sheets.clear()  # type: ignore[attr-defined]
    try:
        with caplog.at_level(logging.ERROR, "barbu.web"):
            res = client.get(f"/api/sheets/{world['sheet']}")
    finally:
        store.load_sheet = original  # type: ignore[method-assign]
    error = refused(res, (500,))
    assert error["code"] == "internal" and "Traceback" not in res.text and "ZeroDivision" not in res.text
    assert any(r.exc_info for r in caplog.records), "the server's own log keeps the traceback"


def test_with_redis_down_a_cluster_process_answers_in_json(tmp_path: Path) -> None:
    """Redis stops under a running ``barbu serve --bus``: the lobby and a table's page answer 503 JSON."""
    from tests.cluster_helpers import Group, free_port

    server_bin = "/usr/bin/redis-server"
    if not Path(server_bin).exists():
        pytest.skip("no redis-server to stop")
    port = free_port()
    redis = subprocess.Popen([server_bin, "--port", str(port), "--save", "", "--appendonly", "no"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    group = Group(str(tmp_path / "t.db"), f"redis://127.0.0.1:{port}/0", tmp_path)
    try:
        url = group.add()
        redis.terminate()
        redis.wait(10)
        for path in ("/api/tables", "/api/tables/someid", "/api/tables/someid/record"):
            status, ctype, body = fetch(url + path)
            assert status == 503, (path, status, body)
            assert ctype.startswith("application/json"), body
            assert json.loads(body)["error"]["code"] == "storage", body
            assert "Traceback" not in body
    finally:
        group.stop()
        if redis.poll() is None:
            redis.kill()
    assert "Traceback" not in group.logs()


def fetch(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as res:
            return res.status, res.headers.get("content-type", ""), res.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode()


# -- fuzzing every route ---------------------------------------------------------------------------

ROUTE_APP = build_app(Config(":memory:"))  # only its routes are read: it is never started
FUZZ = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def http_routes() -> list[tuple[str, str]]:
    """Every (path, method) the application answers; a kind of route the fuzzer cannot fill fails here."""
    out = []
    for r in ROUTE_APP.routes:
        if isinstance(r, Route):
            out += [(r.path, m) for m in sorted(r.methods or {"GET"}) if m != "HEAD"]
        elif isinstance(r, Mount):
            out.append((r.path + "/{path:path}", "GET"))
        else:
            assert isinstance(r, WebSocketRoute) and r.path == "/ws/{table_id}", f"a route to fuzz: {r!r}"
    for path, _ in out:
        for name, kind in re.findall(r"\{(\w+)(?::(\w+))?\}", path):
            assert kind in ("", "str", "int", "path", "lesson") and name in PARAMS, \
                f"a path parameter to fuzz: {path}"
    return out


PARAMS = {"table_id": ("done", "begun"), "sheet_id": ("sheet",), "job_id": (), "ruleset": (), "name": (),
          "kind": (), "k": (), "path": (), "device": (), "lesson": (), "drill": ()}
KNOWN = {"ruleset": ["classic", "family"], "kind": ["json", "csv", "pdf"], "name": ["Fuzzy"],
         "path": ["app.js", "i18n/en.json"], "k": ["0", "1"],
         "device": ["0123456789abcdef", "others"], "lesson": ["classic-no-queens", "family-salad"],
         "drill": ["classic-no-queens-1", "family-salad-2"]}


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                        st.text(max_size=30), st.sampled_from(["\ud800", "x\udfff", "é", "", "-1", "=1+1"]),
                        st.sampled_from(["\ud800", "\udc00x"]))  # twice: the worst text there is
    def nest(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4))
    return st.recursive(scalars, nest, max_leaves=12)


FIELDS = ["name", "seats", "token", "code", "password", "hand", "data", "entry", "record", "seat", "table",
          "ruleset", "names", "first_declarer", "private", "seed", "kind", "level", "players", "options",
          "rounds", "lesson", "pace", "choice", "subscription", "endpoint", "lang", "address", "events",
          "answer"]


def bodies() -> st.SearchStrategy[bytes]:
    shaped = st.dictionaries(st.sampled_from(FIELDS), json_values(), max_size=5)
    return st.one_of(st.just(b""), st.binary(max_size=64),
                     json_values().map(lambda v: json.dumps(v).encode()),
                     shaped.map(lambda v: json.dumps(v).encode()),
                     st.just(b'{"a": ' * 3000), st.just(b"1" * 5000), st.just(b'{"x": "\\ud800"}'))


def header_values(world: World) -> st.SearchStrategy[bytes]:
    known = [world["sheet_token"], world["done_token"], world["begun_token"], world["credential"]]
    odd = [b"\xc3\xa9", b"\xff", b"a b", b"\xed\xa0\x80", b"t\x7f", b":", b"x:"]
    return st.one_of(st.sampled_from([k.encode() for k in known]), st.sampled_from(odd),
                     st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=40)
                     .map(lambda s: s.strip().encode("latin-1")),
                     st.just(b"x" * 5000))


def headers(world: World) -> st.SearchStrategy[dict[str, bytes]]:
    names = ["X-Barbu-Token", "X-Barbu-Player", "X-Barbu-Client", "Content-Type", "Content-Length",
             "X-Forwarded-For", "Accept-Language"]
    return st.dictionaries(st.sampled_from(names), header_values(world), max_size=3)


def param(name: str, kind: str, world: World) -> st.SearchStrategy[str]:
    known = [world[k] for k in PARAMS[name]] + KNOWN.get(name, [])
    safe = "/" if kind == "path" else ""
    wild = st.one_of(st.text(max_size=20).map(lambda s: urllib.parse.quote(s, safe, errors="surrogatepass")),
                     st.binary(max_size=12).map(lambda b: urllib.parse.quote_from_bytes(b, safe=safe)))
    if kind == "int":
        wild = st.one_of(st.integers(-10, 10**30).map(str), wild)
    return st.one_of(st.sampled_from(known), wild) if known else wild


def queries() -> st.SearchStrategy[str]:
    keys = st.one_of(st.sampled_from(["token", "lang", "top", "code", "k", "seat", "rules", "contract",
                                      "recent", "weak"]), st.text(max_size=6))
    values = st.one_of(st.text(max_size=12), st.sampled_from(["-1", "9" * 40, "zz"]))
    pairs = st.lists(st.tuples(keys, values), max_size=3)
    return pairs.map(lambda p: urllib.parse.urlencode(p, errors="surrogatepass"))


class LogCatcher(logging.Handler):
    """Every record logged while the fuzzer runs: none may carry a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def tracebacks(self) -> list[str]:
        return [f"{r.name}: {r.getMessage()}" for r in self.records
                if r.exc_info or "Traceback" in r.getMessage()]


def vapid_key(folder: Path) -> str:
    """A VAPID key, so that the Web Push routes read what they are sent (without one they refuse it all)."""
    from py_vapid import Vapid

    key = Vapid()
    key.generate_keys()
    key.save_key(str(folder / "vapid.pem"))
    return str(folder / "vapid.pem")


@pytest.fixture(scope="module")
def fuzzed(world: World, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, LogCatcher]]:
    catcher = LogCatcher()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(catcher)
    root.setLevel(logging.INFO)
    try:
        key = vapid_key(tmp_path_factory.mktemp("vapid"))
        # and an SMTP server nobody listens at, so that the mail routes read what they are sent
        mail = {"smtp": Smtp("smtp", "127.0.0.1", 9, None, None), "mail_from": "b@example.org",
                "public_url": "https://barbu.example"}
        app = app_for(world["db"], max_analyses=0, vapid_key=key, **mail)
        with TestClient(app, raise_server_exceptions=False) as c:
            yield c, catcher
    finally:
        root.removeHandler(catcher)
        root.setLevel(old_level)


ODD_HEADERS = ["X-Barbu-Token", "X-Barbu-Player", "X-Barbu-Client"]
ODD_VALUES = [b"\xc3\xa9", b"\xff", b"a b", b"\xed\xa0\x80", b":", b"x" * 5000]


def odd_requests(names: list[tuple[str, str]], world: World) -> Iterator[tuple[dict[str, str], str,
                                                                               dict[str, bytes], bytes]]:
    """The known kinds of bad input, each sent to every route (the random ones follow)."""
    values = {n: ([world[k] for k in PARAMS[n]] + KNOWN.get(n, []) + ["x"])[0] for n, _ in names}
    for header in ODD_HEADERS:
        for value in ODD_VALUES:
            yield values, "", {header: value}, b"{}"
    me = {"X-Barbu-Player": world["credential"].encode()}
    for field in FIELDS:
        for head in ({}, me):
            yield values, "", head, f'{{"{field}": "{SURROGATE}"}}'.encode()
            yield values, "", head, f'{{"{field}": "{SURROGATE}", "table": "{world["done"]}"}}'.encode()
    for query in ("token=%ED%A0%80", "token=%C3%A9", "lang=%ED%A0%80", "top=-1", "top=" + "9" * 40):
        yield values, query, {}, b""


@pytest.mark.parametrize(("path", "method"), http_routes())
def test_fuzz_every_route(path: str, method: str, fuzzed: tuple[TestClient, LogCatcher],
                          world: World) -> None:
    client, catcher = fuzzed
    names = re.findall(r"\{(\w+)(?::(\w+))?\}", path)

    def check(values: dict[str, str], query: str, head: dict[str, bytes], body: bytes) -> None:
        url = re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: values[m[1]], path)
        head = {k: v for k, v in head.items() if k != "Content-Length"} if method == "GET" else head
        try:
            res = client.request(method, url + ("?" + query if query else ""), headers=head,
                                 content=body if method != "GET" else None)
        except Exception as e:
            if "header" in str(e).lower() or "content-length" in str(e).lower():
                return
            raise
        assert res.status_code < 500, f"{method} {url}?{query} {head} {body[:80]!r}: {res.text[:300]}"
        if url.startswith("/api/") and res.status_code >= 400:  # a refusal of the API is JSON, 404s too
            assert "code" in res.json()["error"], f"{method} {url}?{query}: {res.text[:300]}"

    for case in odd_requests(names, world):
        check(*case)

    @FUZZ
    @given(values=st.fixed_dictionaries({n: param(n, k, world) for n, k in names}), query=queries(),
           head=headers(world), body=bodies())
    def one(values: dict[str, str], query: str, head: dict[str, bytes], body: bytes) -> None:
        check(values, query, head, body)
    one()
    assert not catcher.tracebacks(), catcher.tracebacks()[:3]


# -- fuzzing every socket message type ---------------------------------------------------------

def handled_types() -> tuple[list[str], list[str]]:
    """The message types the socket's handlers answer and the fields they read, from their module's
    source: a new type is fuzzed without a change here."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(sockets)))
    kinds: set[str] = set()
    fields: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "kind":
            for c in node.comparators:
                items = c.elts if isinstance(c, ast.Tuple) else [c]
                kinds |= {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "msg"
                and node.args and isinstance(node.args[0], ast.Constant)):
            fields.add(str(node.args[0].value))
    assert {"hello", "act", "ping", "chat", "rematch"} <= kinds, kinds
    return sorted(kinds), sorted(fields | {"type", "client"})


TYPES, MSG_FIELDS = handled_types()


def messages(kind: str, world: World) -> st.SearchStrategy[str]:
    tokens = st.sampled_from([world["begun_token"], world["done_token"], world["credential"], "nope"])
    plausible = st.sampled_from(["QS", "pass", "trump H", "offer", "accept", 0, 5])
    values = st.one_of(json_values(), tokens, plausible)
    shaped = st.dictionaries(st.sampled_from(MSG_FIELDS), values, max_size=4).map(
        lambda d: json.dumps({**d, "type": kind}))
    raw = st.one_of(st.text(max_size=40), st.just(json.dumps({"type": kind})),
                    st.just('{"type": "' + kind + '", "text": "' + SURROGATE + '"}'), st.just("[" * 5000))
    return st.one_of(shaped, raw)


def answered(ws: Any) -> tuple[list[dict[str, Any]], bool]:
    """The events after a message, up to the pong of a ping sent after it; whether the socket closed."""
    ws.send_text('{"type": "ping"}')
    seen = []
    while True:
        try:
            event = json.loads(ws.receive_text())
        except WebSocketDisconnect:
            return seen, True
        if event["type"] == "pong":
            return seen, False
        seen.append(event)


@pytest.mark.parametrize("kind", TYPES)
def test_fuzz_every_socket_message(kind: str, fuzzed: tuple[TestClient, LogCatcher], world: World) -> None:
    client, catcher = fuzzed
    hello = json.dumps({"type": "hello", "token": world["begun_token"]})

    def check(text: str) -> None:
        with client.websocket_connect(f"/ws/{world['begun']}") as ws:
            if kind != "hello":
                ws.send_text(hello)
                _, closed = answered(ws)
                assert not closed
            ws.send_text(text)
            seen, closed = answered(ws)
            errors = [e for e in seen if e["type"] == "error"]
            assert not any(e["code"] in ("internal", "storage") for e in errors), (text, errors)
            # Only a wrong token ends a socket, and it is told why first.
            assert not closed or (errors and errors[-1]["code"] == "bad-token"), (text, seen)

    for field in MSG_FIELDS:  # the known kind of bad text in every field first
        if field != "type":
            check(f'{{"type": "{kind}", "{field}": "{SURROGATE}"}}')

    @FUZZ
    @given(text=messages(kind, world))
    def one(text: str) -> None:
        check(text)
    one()
    assert not catcher.tracebacks(), catcher.tracebacks()[:3]
