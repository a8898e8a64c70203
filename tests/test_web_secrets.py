"""No secret reaches a log: secrets travel in headers, and a secret put in an address anyway is blotted out
of every log line, uvicorn's access log included."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.cluster_helpers import free_port, wait_up

from barbu.web.http.guard import RedactSecrets, redact


def call(url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    head = {"Content-Type": "application/json", **(headers or {})}
    req = urllib.request.Request(url, data=data, headers=head)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def touch(url: str) -> int:
    """Ask for ``url``, whatever its answer is; its status."""
    try:
        with urllib.request.urlopen(url, timeout=30) as res:
            return int(res.status)
    except urllib.error.HTTPError as e:
        return e.code


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``barbu serve`` as it is run (uvicorn's own logging and access log), its output in a file."""
    port, log = free_port(), tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "barbu.cli", "serve", "--port", str(port),
                                 "--db", str(tmp_path / "t.db"), "--bot-delay", "0"],
                                stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_up(url, proc, log)
        yield url, log
    finally:
        proc.terminate()
        proc.wait(15)


def test_a_secret_sent_in_an_address_is_refused_and_never_logged(served: tuple[str, Path]) -> None:
    url, log = served
    seats = [{"kind": "you"}] + [{"kind": "bot", "level": "random"}] * 3
    status, made = call(url + "/api/tables", {"seats": seats})
    assert status == 201, made
    table, token = made["id"], made["seats"][0]["token"]
    status, out = call(f"{url}/api/tables/{table}/record?token={token}")
    assert status == 400 and out["error"]["code"] == "secret-in-url", out
    status, out = call(f"{url}/api/tables/{table}/record", headers={"X-Barbu-Token": token})
    assert status == 200 and out["seat"] == 0, out  # the header form, as docs/web-api.md documents it
    status, profile = call(url + "/api/players", {"name": "Secretive"})
    credential = profile["credential"]
    status, transfer = call(url + "/api/me/transfer", {}, {"X-Barbu-Player": credential})
    assert status == 200, transfer
    code = transfer["code"]
    # Secrets pasted into addresses by hand, where the server never asks for them.
    for path in (f"/profile?code={code}", f"/api/me?secret={credential}", f"/score/x?k={token}&lang=fr",
                 f"/api/info?password={code}&credential={credential}"):
        touch(url + path)
    text = log.read_text(errors="replace")
    assert f"/api/tables/{table}/record?token=[redacted]" in text, "the access log still says the request"
    for secret in (token, code, credential.split(":", 1)[1]):
        assert secret not in text, f"a secret is in the log: {secret}"


def test_the_redaction_keeps_the_rest_of_a_line() -> None:
    assert redact("GET /api/x?token=abc&lang=fr&code=Zz-9_ HTTP/1.1") == \
        "GET /api/x?token=[redacted]&lang=fr&code=[redacted] HTTP/1.1"
    assert redact("/profile?Secret=s3&k=v&kind=csv") == "/profile?Secret=[redacted]&k=[redacted]&kind=csv"
    # uvicorn's access log keeps its five arguments: its formatter unpacks them.
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("1.2.3.4:5", "GET", "/a?token=abc", "1.1", 200), None)
    RedactSecrets().filter(record)
    assert record.args == ("1.2.3.4:5", "GET", "/a?token=[redacted]", "1.1", 200)
    other = logging.LogRecord("barbu.web", logging.INFO, __file__, 1, "asked for %s", ("/b?code=xyz",), None)
    RedactSecrets().filter(other)
    assert other.getMessage() == "asked for /b?code=[redacted]"
