"""``barbu serve``: run the web table under uvicorn, on an SQLite file (in the data folder) or PostgreSQL."""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import math
import os
import socket
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from barbu.web.storage.sqlite import DatabaseInUse, NewerDatabase, Store, exclusive, is_postgres, open_store

if TYPE_CHECKING:
    from barbu.web.http.config import Config


def default_db() -> Path:
    """``$XDG_DATA_HOME/barbu/tables.db`` (``~/.local/share/barbu/tables.db`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "barbu" / "tables.db"


DESCRIPTION = (
    "Serve card tables in the browser: create a table against computer players or with friends (each "
    "friend's seat has its own invitation link), play, watch, and keep score of a game played with real "
    "cards (/score). Every change is stored at once in an SQLite file, by default {db} (--db chooses "
    "another, or a postgresql:// URL), and a restarted server resumes every table where it was. One server "
    "per SQLite file.")


def number(kind: type[int] | type[float], minimum: float, *, above: bool = False,
           maximum: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite number of ``kind``, at least (or above) ``minimum``, at most ``maximum``."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole ' if kind is int else ''}number") \
                from None
        low = value > minimum if above else value >= minimum
        if not math.isfinite(value) or not low or (maximum is not None and value > maximum):
            bound = f"above {minimum:g}" if above else f"at least {minimum:g}"
            if maximum is not None:
                bound = f"from {minimum:g} to {maximum:g}"
            raise argparse.ArgumentTypeError(f"{text} is out of range: give a number {bound}")
        return value
    parse.__name__ = kind.__name__  # argparse names the type in its message when it is not ours
    return parse


COUNT = number(int, 0)  # 0 allowed: "none" (e.g. no new tables, no computer-only tables)
SECONDS = number(float, 0)
POSITIVE_SECONDS = number(float, 0, above=True)  # 0 would close or abandon everything at once


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``barbu serve``, in the order its help lists them."""
    p.description = DESCRIPTION.format(db=default_db())
    _add_serving(p)
    _add_pace(p)
    limits = p.add_argument_group("limits (for a public server)")
    _add_table_limits(limits)
    _add_connection_limits(limits)
    _add_rate_limits(limits)
    _add_work_limits(limits)


def _add_serving(p: argparse.ArgumentParser) -> None:
    """Where the server listens, what it stores in, and whom it believes about an address."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=number(int, 0, maximum=65535), default=8000,
                   help="port to listen on, 1 to 65535, or 0 for any free one (default 8000)")
    p.add_argument("--db", default=None, help=f"SQLite file of the tables (default {default_db()}), or a "
                   "PostgreSQL database as postgresql://USER@HOST:PORT/NAME (needs barbu[cluster])")
    p.add_argument("--bus", default=None, metavar="redis://HOST:PORT",
                   help="run as one of several processes serving the same database: they share table "
                   "leases, sockets and the lobby through this Redis (see docs/cluster.md, 'Several server "
                   "processes')")
    p.add_argument("--forwarded-allow-ips", default=None, metavar="LIST",
                   help="the addresses of the reverse proxies in front (comma-separated, or *): only a "
                   "request from one of them has its X-Forwarded-For believed as the client's address, for "
                   "the per-address limits (default: none; give 127.0.0.1 behind nginx on this machine)")


def _add_pace(p: argparse.ArgumentParser) -> None:
    """How fast the computer players play, and how long a person may keep a table waiting."""
    p.add_argument("--vapid-private-key", default=None, metavar="FILE",
                   help="the VAPID private key (PEM) that signs Web Push notifications: turns and games' "
                        "ends told to people away from their table (make one: vapid --gen; barbu[notify])")
    p.add_argument("--public-url", default=None, metavar="URL",
                   help="the site's public address (https://…): the contact push services see, and the base "
                        "of the links in mails")
    p.add_argument("--smtp", default=None, metavar="URL",
                   help="the SMTP server that sends e-mail notices: smtp://[USER@]HOST[:PORT] (STARTTLS when "
                        "offered, required with a user) or smtps://[USER@]HOST[:465]; needs --public-url and "
                        "--mail-from")
    p.add_argument("--smtp-password-file", default=None, metavar="FILE",
                   help="a file holding the SMTP user's password (never on the command line)")
    p.add_argument("--mail-from", default=None, metavar="ADDRESS",
                   help="the From address of the mails, e-mail at a domain your relay may send for")
    p.add_argument("--bot-delay", type=SECONDS, default=0.6,
                   help="seconds before each computer play (default 0.6)")
    p.add_argument("--idle", type=SECONDS, default=60.0,
                   help="seconds a player may keep the table waiting before the others may hand "
                   "the seat to a computer (default 60)")


def _add_table_limits(limits: argparse._ArgumentGroup) -> None:
    """How many tables there may be, and which computer levels a computer-only table may use."""
    limits.add_argument("--tables-per-minute", type=COUNT, default=10, metavar="N",
                        help="tables one client (IP address) may create per minute (default 10)")
    limits.add_argument("--max-open-tables", type=COUNT, default=200, metavar="N",
                        help="unfinished, not abandoned tables in all (default 200)")
    limits.add_argument("--max-bot-tables", type=COUNT, default=10, metavar="N",
                        help="tables of computer players only running at once; 0 forbids them (default 10)")
    limits.add_argument("--bot-table-levels", default=None, metavar="LEVELS",
                        help="comma-separated computer levels such tables may use, by either name "
                        "(easy or basic; default: those that do not search, random,basic)")


def _add_connection_limits(limits: argparse._ArgumentGroup) -> None:
    """The sockets one address may hold, and how long a table stays listed."""
    limits.add_argument("--sockets-per-client", type=number(int, 1), default=16, metavar="N",
                        help="WebSockets open at once from one IP address, at least 1 (default 16)")
    limits.add_argument("--hello-timeout", type=POSITIVE_SECONDS, default=10.0, metavar="SECS",
                        help="seconds a new WebSocket has to say hello, above 0 (default 10)")
    limits.add_argument("--listed-after-over", type=SECONDS, default=600.0, metavar="SECS",
                        help="seconds a finished table stays in the lobby's list (default 600)")
    limits.add_argument("--abandoned-after", type=POSITIVE_SECONDS, default=3600.0, metavar="SECS",
                        help="seconds without a move after which a table of computer players only "
                        "leaves the list, above 0 (default 3600)")
    limits.add_argument("--quiet-after", type=POSITIVE_SECONDS, default=86400.0, metavar="SECS",
                        help="seconds without a move after which a table with a person at it leaves the "
                        "list, above 0 (default 86400: a day; its links and 'your tables' still open it)")


def _add_rate_limits(limits: argparse._ArgumentGroup) -> None:
    """What one person and one address may do per minute."""
    limits.add_argument("--sheets-per-minute", type=COUNT, default=10, metavar="N",
                        help="score sheets one person and one IP address may each start per minute "
                        "(default 10)")
    limits.add_argument("--chat-per-minute", type=COUNT, default=30, metavar="N",
                        help="chat messages one person and one IP address may send per minute, at all tables "
                        "(default 30)")
    limits.add_argument("--rematch-per-minute", type=COUNT, default=12, metavar="N",
                        help="rematch offers and answers one person and one IP address may send per minute "
                        "(default 12)")
    limits.add_argument("--hints-per-minute", type=COUNT, default=40, metavar="N",
                        help="hints and warnings of the coach one person and one IP address may ask for per "
                        "minute (default 40)")
    limits.add_argument("--drills-per-minute", type=COUNT, default=60, metavar="N",
                        help="practice drills' answers one person and one IP address may send per minute "
                        "(default 60)")
    limits.add_argument("--reads-per-minute", type=COUNT, default=60, metavar="N",
                        help="replay timelines and score-sheet PDFs one person and one IP address may ask "
                        "for per minute (default 60)")


def _add_work_limits(limits: argparse._ArgumentGroup) -> None:
    """The work the server takes on at once: database waits and analyses."""
    limits.add_argument("--db-timeout", type=SECONDS, default=5.0, metavar="SECS",
                        help="seconds a write waits for a busy database before it is refused (default 5)")
    limits.add_argument("--max-analyses", type=COUNT, default=2, metavar="N",
                        help="analyses of a player's cards running at once, each a process (default 2)")
    limits.add_argument("--analysis-queue", type=COUNT, default=8, metavar="N",
                        help="analyses waiting for a place when all are taken; more are refused (default 8)")
    limits.add_argument("--push-per-minute", type=COUNT, default=10, metavar="N",
                        help="notification subscriptions one person and one address may change a minute "
                             "(default 10)")
    limits.add_argument("--invites-per-minute", type=COUNT, default=10, metavar="N",
                        help="invitations by a profile's name one person and one address may send a minute "
                             "(default 10)")
    limits.add_argument("--analysis-budget", type=POSITIVE_SECONDS, default=0.5, metavar="SECS",
                        help="the expert's seconds of work a decision in an analysis (default 0.5)")


def config_of(args: argparse.Namespace, db: Path | str) -> Config:
    from barbu.bots import levels_named
    from barbu.web.http.config import Config, cheap_levels

    # Everyday names (easy, hard) stand for the technical ones, which the server keeps.
    levels = levels_named(args.bot_table_levels) \
        if args.bot_table_levels is not None else cheap_levels()
    push: dict[str, Any] = {"vapid_key": args.vapid_private_key, "push_per_minute": args.push_per_minute}
    if args.public_url:
        push.update(push_subject=args.public_url, public_url=args.public_url.rstrip("/"))
    if args.smtp:
        from barbu.web.http.mail import smtp_of

        push.update(smtp=smtp_of(args.smtp, args.smtp_password_file), mail_from=args.mail_from)
    return Config(str(db), **push, bot_delay=args.bot_delay, idle_seconds=args.idle,
                  db_timeout=args.db_timeout,
                  tables_per_minute=args.tables_per_minute, max_open_tables=args.max_open_tables,
                  max_bot_tables=args.max_bot_tables, bot_table_levels=levels,
                  sockets_per_client=args.sockets_per_client, hello_timeout=args.hello_timeout,
                  listed_after_over=args.listed_after_over, abandoned_after=args.abandoned_after,
                  quiet_after=args.quiet_after,
                  sheets_per_minute=args.sheets_per_minute, max_analyses=args.max_analyses,
                  analysis_budget=args.analysis_budget, bus=args.bus, chat_per_minute=args.chat_per_minute,
                  rematch_per_minute=args.rematch_per_minute, reads_per_minute=args.reads_per_minute,
                  analysis_queue=args.analysis_queue, hints_per_minute=args.hints_per_minute,
                  drills_per_minute=args.drills_per_minute, invites_per_minute=args.invites_per_minute)


def shown_db(db: Path | str) -> str:
    """The database as messages name it: a file's path, or a URL without its password."""
    if isinstance(db, Path):
        return str(db)
    from barbu.web.storage.postgres import shown

    return shown(db)


class CannotStart(Exception):
    """Why the server cannot start, in one line for its user."""


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything is announced; CannotStart if that fails."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise CannotStart(f"port {port} on {host} is in use; choose another with --port") from e
        raise CannotStart(f"cannot listen on {host} port {port}: {e.strerror or e}") from e
    sock.set_inheritable(True)
    return sock


def check_database(db: Path | str, timeout: float) -> None:
    """Open the database (creating it if new) before anything is announced; CannotStart if it is unfit."""
    if is_postgres(str(db)):
        check_postgres(str(db), timeout)
        return
    try:
        Store(str(db), timeout=timeout).close()
    except NewerDatabase as e:
        raise CannotStart(f"{db} was made by a newer barbu ({e}): run that one, or use --db") from e
    except sqlite3.OperationalError as e:  # locked, unreadable, a folder…: a database it may well be
        raise CannotStart(f"cannot open the database {db}: {e}") from e
    except sqlite3.DatabaseError as e:
        raise CannotStart(f"{db} is not a barbu database (SQLite): {e}") from e
    except OSError as e:
        raise CannotStart(f"cannot open the database {db}: {e.strerror or e}") from e


def check_postgres(url: str, timeout: float) -> None:
    """Reach the PostgreSQL database and bring its layout up to date; CannotStart if that fails."""
    try:
        from barbu.web.storage.postgres import shown
    except ImportError as e:
        raise CannotStart(f"PostgreSQL needs psycopg: pip install 'barbu[cluster]' ({e})") from e
    try:
        open_store(url, timeout).close()
    except NewerDatabase as e:
        raise CannotStart(f"{shown(url)} was made by a newer barbu ({e}): run that one, or use --db") from e
    except sqlite3.Error as e:  # the store's errors, whichever the database
        raise CannotStart(f"cannot use the database {shown(url)}: {e}") from e


def fail(message: str) -> int:
    print(f"barbu serve: {message}", file=sys.stderr, flush=True)
    return 1


def vapid_problem(path: str) -> str | None:
    """Why the operator's VAPID key cannot serve Web Push (the notify extra missing, the key file not
    readable as one), or None."""
    from barbu.extras import missing_extra

    if not Path(path).is_file():  # py_vapid would make a new key there: subscriptions need the old one
        return f"the VAPID key {path} is not a file (make a key pair with: vapid --gen)"
    try:
        import pywebpush  # noqa: F401  (imported only to know the extra is there)

        from barbu.web.http.notify import load_key
        load_key(path)
    except ModuleNotFoundError as e:
        return missing_extra("--vapid-private-key", e, "notify")
    except Exception as e:  # py_vapid says a bad file in several ways: each is the operator's to see
        return f"the VAPID key {path} cannot be read ({type(e).__name__}: {e})"
    return None


def mail_problem(args: argparse.Namespace) -> str | None:
    """Why the mail options cannot work together (a mail's links need the site's address), or None."""
    if not args.smtp:
        alone = args.smtp_password_file or args.mail_from
        return "--smtp-password-file and --mail-from need --smtp" if alone else None
    if not args.public_url or not args.public_url.startswith(("https://", "http://")):
        return "--smtp needs --public-url https://… (the site's address, for the links in the mails)"
    if not args.mail_from or "@" not in args.mail_from or any(c in args.mail_from for c in "\r\n"):
        return "--smtp needs --mail-from ADDRESS (the mails' From address, e.g. barbu@example.org)"
    return None


def checked_config(args: argparse.Namespace, db: Path | str) -> Config | str:
    """The server's settings, or why the mail options cannot be used."""
    if problem := mail_problem(args):
        return problem
    try:
        return config_of(args, db)
    except ValueError as e:  # --smtp, or its password's file, cannot be used
        return str(e)


def run(args: argparse.Namespace) -> int:
    # Imported here so that the rest of the ``barbu`` command works without the web extra.
    import uvicorn

    from barbu.bots import level_label, levels
    from barbu.web.http.app import build_app

    db: Path | str = args.db if args.db and is_postgres(args.db) else Path(args.db or default_db())
    config = checked_config(args, db)
    if isinstance(config, str):  # said before serving, as the VAPID key's problems are
        return fail(config)
    unknown = sorted(set(config.bot_table_levels) - set(levels()))
    if unknown:
        return fail(f"unknown computer level {', '.join(unknown)} in --bot-table-levels "
                    f"(one of {', '.join(level_label(n) for n in levels())})")
    if args.vapid_private_key is not None and (problem := vapid_problem(args.vapid_private_key)):
        return fail(problem)  # said before serving, not as a traceback once the server starts
    with contextlib.ExitStack() as stack:
        lock = None
        if isinstance(db, Path):  # PostgreSQL is shared by design: which process drives a table is the bus's
            db.parent.mkdir(parents=True, exist_ok=True)
            try:
                # Held until this process ends, however it ends. With --bus the processes of a group
                # may share one SQLite file on one machine: the table leases keep them apart.
                lock = None if args.bus else stack.enter_context(exclusive(str(db)))
            except DatabaseInUse as e:
                pid = f" (pid {e.pid})" if e.pid else ""
                return fail(f"the database {db} is in use by another barbu serve{pid}; stop it or use --db")
        try:
            sock = stack.enter_context(listen(args.host, args.port))
            check_database(db, args.db_timeout)
        except CannotStart as e:
            if lock is not None:
                lock.discard()  # a failed start leaves nothing behind that it made
            return fail(str(e))
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
        app: Any = build_app(config)
        if app.state.server.cluster is not None:  # a table's request goes to the process driving it
            from barbu.web.http.guard import Guard

            app = Guard(app.state.server.cluster.router(app))  # the router's own failures answered too
        host = f"[{args.host}]" if ":" in args.host else args.host
        port = sock.getsockname()[1]  # the one the OS chose, for --port 0
        print(f"barbu: tables are stored in {shown_db(db)}", flush=True)
        print(f"barbu: open http://{host}:{port}/ in your browser (Ctrl-C stops the server)", flush=True)
        config_uv = uvicorn_config(app, args)
        uvicorn.Server(config_uv).run(sockets=[sock])
    return 0


# The largest message a client may send is MAX_MESSAGE: one up to WS_MAX_SIZE gets the app's ``too-large``
# error event and the socket stays open; uvicorn closes the socket (1009) on a larger one, unread.
WS_MAX_SIZE = 1 << 20


def uvicorn_config(app: Any, args: argparse.Namespace, *, ws_max_size: int = WS_MAX_SIZE) -> Any:
    """uvicorn's settings for ``barbu serve``: the per-client limits see the addresses it believes, and its
    logs (the access log too) never show a secret."""
    import uvicorn

    from barbu.web.http.guard import redact_logs

    # uvicorn's own default believes any request from this machine (FORWARDED_ALLOW_IPS or 127.0.0.1): a
    # local proxy that passes a client's header on would let it choose its address. Nobody is believed
    # unless the proxies are named.
    trusted = args.forwarded_allow_ips
    config = uvicorn.Config(app, ws_max_size=ws_max_size, log_level="info", proxy_headers=trusted is not None,
                            forwarded_allow_ips=trusted or "")
    redact_logs("uvicorn", "uvicorn.access", "uvicorn.error")  # their handlers exist once configured
    return config
