"""E-mail notices end to end: a local SMTP server (aiosmtpd) receives what the server sends and the tests read
the mails: an address confirmed by a POST (not by opening its link), a turn, a game's end and an invitation
mailed, nothing while the person is at the table, one daily digest a day however many processes claim it,
the one-click unsubscribe (RFC 8058), the limits and the checks of an address, and no address or code in a
log."""

from __future__ import annotations

import asyncio
import email
import email.policy
import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiosmtpd")
from aiosmtpd.controller import Controller
from starlette.testclient import TestClient
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db

from barbu.cli import main
from barbu.web.core.errors import TableError
from barbu.web.http.guard import redact
from barbu.web.http.mail import Mailer, Smtp, address_of, smtp_of
from barbu.web.http.mails import Mail, message
from barbu.web.http.notices import Notices, today
from barbu.web.storage.sqlite import open_store

BOTS = [{"kind": "bot", "level": "random"}] * 3
SITE = "https://barbu.example"


class Inbox:
    """aiosmtpd's handler: keeps each mail it is given, parsed."""

    def __init__(self) -> None:
        self.mails: list[EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        with self.lock:
            self.mails.append(parsed)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.mails if m["To"] == address]


class Catcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(("mail.log", "httpx")):  # the test's relay and client, not the server
            self.lines.append(self.format(record))


@pytest.fixture(scope="module")
def inbox() -> Iterator[tuple[Inbox, int]]:
    box = Inbox()
    with socket.socket() as probe:  # a free port (aiosmtpd's start checks its own port, so not 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    yield box, port
    controller.stop()


@pytest.fixture(scope="module")
def logs() -> Iterator[Catcher]:
    catcher = Catcher()
    root = logging.getLogger()
    old = root.level
    root.addHandler(catcher)
    root.setLevel(logging.INFO)
    yield catcher
    root.removeHandler(catcher)
    root.setLevel(old)


@pytest.fixture(scope="module")
def client(inbox: tuple[Inbox, int], logs: Catcher, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("mail")
    app = app_for(fresh_db(folder, "mail.db"), smtp=Smtp("smtp", "127.0.0.1", inbox[1], None, None),
                  mail_from="barbu@barbu.example", public_url=SITE, push_per_minute=100, digest_every=86400.0)
    with TestClient(app) as c:
        yield c


def until(done: Any, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "not in time"
        time.sleep(0.02)


def profile(client: TestClient, name: str) -> tuple[dict[str, str], str]:
    res = client.post("/api/players", json={"name": name})
    assert res.status_code == 201, res.text
    return {"X-Barbu-Player": res.json()["credential"]}, res.json()["profile"]["id"]


def received(inbox: Inbox, address: str, n: int) -> EmailMessage:
    """The ``n``-th mail (from 1) to ``address``, once it is there."""
    until(lambda: len(inbox.to(address)) >= n)
    return inbox.to(address)[n - 1]


def parts(mail: EmailMessage) -> tuple[str, str]:
    text, html = mail.get_body(("plain",)), mail.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def confirmed(client: TestClient, box: Inbox, who: dict[str, str], address: str, kinds: list[str],
              lang: str = "en") -> EmailMessage:
    """An address given, its mail's link followed by the POST of its page, the kinds of mail ticked."""
    before = len(box.to(address))
    assert client.put("/api/me/mail", headers=who, json={"address": address, "lang": lang}).status_code == 202
    mail = received(box, address, before + 1)
    code = re.search(r"/mail/confirm#([\w-]+)", parts(mail)[0])
    assert code is not None
    assert client.post("/api/mail/confirm", json={"token": code[1]}).json() == {"confirmed": True}
    res = client.put("/api/me/mail/events", headers=who, json={"events": kinds})
    assert res.status_code == 200 and res.json()["events"] == kinds, res.text
    return mail


def told(client: TestClient) -> Notices:
    notices = server_of(client).notices
    assert notices is not None and notices.mailer is not None
    return notices


def settle(client: TestClient) -> None:
    """Wait until every mail handed to the mailer is sent."""
    until(lambda: not told(client).mailer.tasks if told(client).mailer else False)


def test_an_address_is_confirmed_by_the_page_s_post_not_by_opening_the_link(
        client: TestClient, inbox: tuple[Inbox, int]) -> None:
    box = inbox[0]
    ann, _ = profile(client, "Ann")
    assert client.get("/api/me/mail", headers=ann).json()["address"] is None
    res = client.put("/api/me/mail", headers=ann, json={"address": " ann@example.org ", "lang": "fr"})
    assert res.status_code == 202 and res.json()["address"] == "ann@example.org"
    assert not res.json()["verified"]
    mail = received(box, "ann@example.org", 1)
    assert mail["Subject"] == "Confirmez votre adresse e-mail pour Barbu"
    assert mail["From"] == "barbu@barbu.example"
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail["List-Unsubscribe"].startswith(f"<{SITE}/mail/unsubscribe?kind=all&token=")
    text, html = parts(mail)
    link = re.search(rf"{SITE}/mail/confirm#([\w-]+)", text)
    assert link is not None and link[0] in html and 'lang="fr"' in html and "Ann" in text
    page = client.get("/mail/confirm")  # what a mail scanner fetches: the page, which confirms nothing
    assert page.status_code == 200 and "mailpage.js" in page.text
    assert not client.get("/api/me/mail", headers=ann).json()["verified"]
    refused = client.put("/api/me/mail/events", headers=ann, json={"events": ["turn"]})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "mail-not-confirmed"
    assert client.post("/api/mail/confirm", json={"token": link[1]}).json() == {"confirmed": True}
    again = client.post("/api/mail/confirm", json={"token": link[1]})  # one use
    assert again.status_code == 404 and again.json()["error"]["code"] == "bad-mail-link"
    assert client.get("/api/me/mail", headers=ann).json() == {
        "enabled": True, "address": "ann@example.org", "verified": True, "events": [],
        "kinds": ["turn", "invited", "over", "digest"]}
    bad = client.put("/api/me/mail/events", headers=ann, json={"events": ["turn", "spam"]})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad-events"
    removed = client.delete("/api/me/mail", headers=ann)
    assert removed.status_code == 200 and removed.json()["address"] is None


def test_a_turn_is_mailed_at_a_table_at_your_own_pace_but_not_while_the_person_is_there(
        client: TestClient, inbox: tuple[Inbox, int]) -> None:
    box = inbox[0]
    bea, _ = profile(client, "Bea")
    confirmed(client, box, bea, "bea@example.org", ["turn", "over"])
    made = client.post("/api/tables", headers=bea, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    assert made.status_code == 201, made.text
    table_id = made.json()["id"]
    mail = received(box, "bea@example.org", 2)
    text, html = parts(mail)
    assert mail["Subject"] == "Your turn at Barbu" and "It’s your turn at the table of Bea" in text
    assert f"{SITE}/table/{table_id}" in text and f'href="{SITE}/table/{table_id}"' in html
    assert "#t=" not in text  # no seat token in a mail: the profile opens the seat
    unsubscribe = mail["List-Unsubscribe"].strip("<>")
    assert "kind=turn" in unsubscribe and unsubscribe in text
    server = server_of(client)
    table = server.tables.get(table_id)
    settle(client)
    assert client.portal is not None
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": made.json()["you"]["token"]})
        until(lambda: table.seats[0].connected == 1)
        server.computers.told.pop(table_id)  # as if her turn began anew: she is there, nothing is mailed
        client.portal.call(server.computers.arm_deadline, table)
        client.portal.call(server.over_listeners[0], table_id)
        assert not told(client).mailer.tasks  # type: ignore[union-attr]
    client.portal.call(server.over_listeners[0], table_id)  # she has left: the game's end is mailed
    over = received(box, "bea@example.org", 3)
    text, _ = parts(over)
    assert over["Subject"] == "Your Barbu game is over" and "Final places:" in text
    assert re.search(r"- \d\. Bea: -?\d+", text) and "kind=over" in over["List-Unsubscribe"]
    assert len(box.to("bea@example.org")) == 3


def test_an_invitation_is_mailed_and_the_table_s_switch_quiets_mail_too(
        client: TestClient, inbox: tuple[Inbox, int]) -> None:
    box = inbox[0]
    cal, cal_id = profile(client, "Cal")
    made = client.post("/api/tables", headers=cal, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    table_id = made.json()["id"]
    confirmed(client, box, cal, "cal@example.org", ["invited"])
    assert client.portal is not None
    client.portal.call(told(client).invited, cal_id, table_id, "Dee <b>")
    mail = received(box, "cal@example.org", 2)
    text, html = parts(mail)
    assert mail["Subject"] == "Dee <b> invited you to a Barbu table" and "Dee <b> invited you" in text
    assert "Dee &lt;b&gt;" in html and "Dee <b>" not in html  # a name is people's input: escaped
    switch = client.put(f"/api/me/push/tables/{table_id}", headers=cal, json={"on": False})
    assert switch.status_code == 200 and switch.json() == {"on": False}
    client.portal.call(told(client).invited, cal_id, table_id, "Dee")
    assert not told(client).mailer.tasks  # type: ignore[union-attr]
    settle(client)
    assert len(box.to("cal@example.org")) == 2


def test_the_daily_digest_is_sent_once_a_day_however_many_processes_claim_it(
        client: TestClient, inbox: tuple[Inbox, int]) -> None:
    box = inbox[0]
    dan, dan_id = profile(client, "Dan")
    confirmed(client, box, dan, "dan@example.org", ["turn", "digest"])
    server = server_of(client)
    notices = told(client)
    assert server.store is not None and client.portal is not None
    yours = lambda p: server.tables.yours(p, [])  # noqa: E731
    now = time.time()
    assert client.portal.call(notices.digest, yours, now) == 0  # nothing waits for Dan: no mail, no claim
    made = client.post("/api/tables", headers=dan, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    until(lambda: server.tables.get(made.json()["id"]).yours(0)["state"] == "your-turn")
    other_store = open_store(server.config.db_path)  # a second process's store, on the same database
    other = Notices(other_store, server.tables.get, None, notices.mailer, store_writer(other_store))
    sent = [client.portal.call(n.digest, yours, now) for n in (notices, other, notices)]
    assert sorted(sent) == [0, 0, 1]
    mail = received(box, "dan@example.org", 2)  # the confirmation, then the digest (no turn mail: digest)
    text, _ = parts(mail)
    assert mail["Subject"] == "Barbu: tables waiting for your move (1)" and "h left" in text
    assert f"{SITE}/table/{made.json()['id']}" in text and "kind=digest" in mail["List-Unsubscribe"]
    assert client.portal.call(other.digest, yours, now + 86400) == 1  # the next day, one more
    assert other_store.mail_of(dan_id).last_digest == today(now + 86400)  # type: ignore[union-attr]
    settle(client)
    assert len(box.to("dan@example.org")) == 3
    other_store.close()


def store_writer(store: Any) -> Any:
    async def write(batch: Any) -> None:
        from barbu.web.core.errors import TableError

        try:
            await asyncio.to_thread(store.commit, batch)
        except Exception as e:
            raise TableError("conflict", str(e), 409) from e
    return write


def test_one_click_unsubscribe_by_post_to_the_header_s_link(client: TestClient,
                                                            inbox: tuple[Inbox, int]) -> None:
    box = inbox[0]
    eve, _ = profile(client, "Eve")
    confirmed(client, box, eve, "eve@example.org", ["turn", "over"])
    made = client.post("/api/tables", headers=eve, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    assert made.status_code == 201
    mail = received(box, "eve@example.org", 2)
    link = mail["List-Unsubscribe"].strip("<>").removeprefix(SITE)
    page = client.get(link)  # the page with its button: nothing is changed by looking
    assert page.status_code == 200 and "mailpage.js" in page.text
    assert client.get("/api/me/mail", headers=eve).json()["events"] == ["turn", "over"]
    done = client.post(link, content=b"List-Unsubscribe=One-Click",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert done.status_code == 200 and done.json() == {"off": "turn"}
    assert client.get("/api/me/mail", headers=eve).json()["events"] == ["over"]
    assert client.post(link.replace("kind=turn", "kind=spam")).status_code == 400
    assert client.post(re.sub(r"token=[\w-]+", "token=nope", link)).status_code == 404
    everything = re.sub(r"kind=\w+", "kind=all", link)
    assert client.post(everything).json() == {"off": "all"}
    assert client.get("/api/me/mail", headers=eve).json()["address"] is None


@pytest.mark.parametrize("address", ["", "ann", "a@b@example.org", "ann@localhost", "x" * 250 + "@ex.org",
                                     "ann@example.org\r\nBcc: all@example.org", "ann@exa mple.org", 42, None,
                                     "<ann@example.org>", "a" * 65 + "@example.org"])
def test_an_address_is_checked(address: Any) -> None:
    with pytest.raises(TableError) as refused:
        address_of(address)
    assert refused.value.code == "bad-address" and refused.value.status == 400


def test_the_address_s_checks_and_limits_answer_400_and_429(client: TestClient) -> None:
    fay, _ = profile(client, "Fay")
    for bad in ("ann@example.org\nBcc: x@example.org", "no-at", 42):
        res = client.put("/api/me/mail", headers=fay, json={"address": bad})
        assert res.status_code == 400 and res.json()["error"]["code"] == "bad-address", bad
    codes = [client.put("/api/me/mail", headers=fay, json={"address": "stranger@example.org"}).status_code
             for _ in range(4)]
    assert codes == [202, 202, 202, 429]  # three confirmation mails an hour to one address, no more
    gus, _ = profile(client, "Gus")
    res = client.put("/api/me/mail", headers=gus, json={"address": "STRANGER@example.org"})
    assert res.status_code == 429 and res.json()["error"]["code"] == "too-many-mails"
    assert client.put("/api/me/mail", json={"address": "x@example.org"}).status_code == 403
    assert client.post("/api/mail/confirm", json={"token": 5}).status_code == 400


def test_no_address_nor_code_reaches_a_log(client: TestClient, inbox: tuple[Inbox, int],
                                           logs: Catcher) -> None:
    """Run last in the module: every mail sent above, and a relay that is gone, leave no address nor code in
    the log."""
    mailer = Mailer(Smtp("smtp", "127.0.0.1", 9, "user", "hunter2"), "barbu@barbu.example", SITE)
    mailer.retry_delay = 0.0
    w = Mail("turn", "Your turn", ["hello"])

    async def lost() -> None:
        unsubscribe = f"{SITE}/mail/unsubscribe?kind=turn&token=T0K"
        mailer.send(message(w, "en", "hidden@example.org", SITE, unsubscribe))
        await mailer.drain()
    asyncio.run(lost())
    settle(client)
    said = "\n".join(logs.lines)
    assert "failed (ConnectionRefusedError), attempt 3 of 3" in said
    for secret in ("@example.org", "hunter2", "T0K", "/mail/confirm#"):
        assert secret not in said, secret
    # The server's access log (uvicorn's, redacted as barbu serve sets it up) blots an unsubscribe token out.
    assert "T0K" not in redact('"POST /mail/unsubscribe?kind=turn&token=T0K HTTP/1.1" 200')
    for mail in inbox[0].mails:
        code = re.search(r"confirm#([\w-]+)", parts(mail)[0])
        token = re.search(r"token=([\w-]+)", mail["List-Unsubscribe"])
        for found in (code, token):
            assert found is None or found[1] not in said


def test_serve_refuses_mail_without_its_public_address_and_a_password_on_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    assert main(["serve", "--db", db, "--smtp", "smtp://localhost:25", "--mail-from", "b@example.org"]) == 1
    assert "--smtp needs --public-url" in capsys.readouterr().err
    assert main(["serve", "--db", db, "--smtp", "smtp://u:pw@localhost", "--public-url", SITE,
                 "--mail-from", "b@example.org"]) == 1
    assert "--smtp takes no password" in capsys.readouterr().err
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    smtp = smtp_of("smtp://mailer%40example.org@relay.example:587", str(secret))
    assert smtp == Smtp("smtp", "relay.example", 587, "mailer@example.org", "s3cret")
    assert "s3cret" not in smtp.shown and smtp_of("smtps://relay.example", None).port == 465


def test_a_server_without_smtp_says_so_and_takes_no_address(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "plain.db"))) as plain:
        who, _ = profile(plain, "Hal")
        assert plain.get("/api/me/mail", headers=who).json() == {"enabled": False}
        res = plain.put("/api/me/mail", headers=who, json={"address": "hal@example.org"})
        assert res.status_code == 404 and res.json()["error"]["code"] == "no-mail"
        assert plain.post("/api/mail/confirm", json={"token": "x"}).status_code == 404
        assert plain.get(f"/api/me/push/tables/{'x' * 8}", headers=who).json()["error"]["code"] == "no-push"


def test_a_relay_with_a_user_is_spoken_to_over_starttls_with_the_password_from_its_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The relay's certificate is checked (a self-signed one for localhost, trusted through SSL_CERT_FILE)
    and the password goes only inside TLS (aiosmtpd refuses AUTH before STARTTLS)."""
    import datetime
    import ssl

    from aiosmtpd.smtp import AuthResult, LoginPassword
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                         serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(str(tmp_path / "cert.pem"), str(tmp_path / "key.pem"))
    logins: list[tuple[bytes, bytes]] = []

    def check(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        assert isinstance(data, LoginPassword)
        logins.append((data.login, data.password))
        return AuthResult(success=data.password == b"s3cret")

    box = Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    relay = Controller(box, hostname="127.0.0.1", port=port, tls_context=tls, require_starttls=True,
                       authenticator=check, auth_require_tls=True)
    relay.start()
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "cert.pem"))
    (tmp_path / "pw").write_text("s3cret\n")
    mailer = Mailer(smtp_of(f"smtp://barbu@localhost:{port}", str(tmp_path / "pw")), "b@example.org", SITE)
    try:
        async def one() -> None:
            mailer.send(message(Mail("turn", "Your turn", ["hi"]), "en", "ivy@example.org", SITE, SITE))
            await mailer.drain()
        asyncio.run(one())
    finally:
        relay.stop()
    assert logins == [(b"barbu", b"s3cret")] and [m["To"] for m in box.mails] == ["ivy@example.org"]
