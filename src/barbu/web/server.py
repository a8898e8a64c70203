"""``barbu serve``: run the web table under uvicorn, with its SQLite file in the user's data folder."""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from barbu.web.store import DatabaseInUse, exclusive

if TYPE_CHECKING:
    from barbu.web.app import Config


def default_db() -> Path:
    """``$XDG_DATA_HOME/barbu/tables.db`` (``~/.local/share/barbu/tables.db`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "barbu" / "tables.db"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--db", default=None, help=f"SQLite file of the tables (default {default_db()})")
    p.add_argument("--bot-delay", type=float, default=0.6,
                   help="seconds before each computer play (default 0.6)")
    p.add_argument("--idle", type=float, default=60.0,
                   help="seconds a player may keep the table waiting before the others may hand "
                   "the seat to a computer (default 60)")
    limits = p.add_argument_group("limits (for a public server)")
    limits.add_argument("--tables-per-minute", type=int, default=10, metavar="N",
                        help="tables one client (IP address) may create per minute (default 10)")
    limits.add_argument("--max-open-tables", type=int, default=200, metavar="N",
                        help="unfinished, not abandoned tables in all (default 200)")
    limits.add_argument("--max-bot-tables", type=int, default=10, metavar="N",
                        help="tables of computer players only running at once; 0 forbids them (default 10)")
    limits.add_argument("--bot-table-levels", default=None, metavar="LEVELS",
                        help="comma-separated computer levels such tables may use (default: those that "
                        "do not search, random,basic)")
    limits.add_argument("--sockets-per-client", type=int, default=16, metavar="N",
                        help="WebSockets open at once from one IP address (default 16)")
    limits.add_argument("--hello-timeout", type=float, default=10.0, metavar="SECS",
                        help="seconds a new WebSocket has to say hello (default 10)")
    limits.add_argument("--listed-after-over", type=float, default=600.0, metavar="SECS",
                        help="seconds a finished table stays in the lobby's list (default 600)")
    limits.add_argument("--abandoned-after", type=float, default=3600.0, metavar="SECS",
                        help="seconds without a move after which a table leaves the list (default 3600)")
    limits.add_argument("--sheets-per-minute", type=int, default=10, metavar="N",
                        help="score sheets one client (IP address) may start per minute (default 10)")
    limits.add_argument("--db-timeout", type=float, default=5.0, metavar="SECS",
                        help="seconds a write waits for a busy database before it is refused (default 5)")


def config_of(args: argparse.Namespace, db: Path) -> Config:
    from barbu.web.app import Config, cheap_levels

    levels = tuple(x for x in args.bot_table_levels.split(",") if x) if args.bot_table_levels is not None \
        else cheap_levels()
    return Config(str(db), bot_delay=args.bot_delay, idle_seconds=args.idle, db_timeout=args.db_timeout,
                  tables_per_minute=args.tables_per_minute, max_open_tables=args.max_open_tables,
                  max_bot_tables=args.max_bot_tables, bot_table_levels=levels,
                  sockets_per_client=args.sockets_per_client, hello_timeout=args.hello_timeout,
                  listed_after_over=args.listed_after_over, abandoned_after=args.abandoned_after,
                  sheets_per_minute=args.sheets_per_minute)


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything is announced; OSError if the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def fail(message: str) -> int:
    print(f"barbu serve: {message}", file=sys.stderr, flush=True)
    return 1


def run(args: argparse.Namespace) -> int:
    # Imported here so that the rest of the ``barbu`` command works without the web extra.
    import uvicorn

    from barbu.bots import levels
    from barbu.web.app import MAX_MESSAGE, build_app

    db = Path(args.db) if args.db else default_db()
    config = config_of(args, db)
    unknown = sorted(set(config.bot_table_levels) - set(levels()))
    if unknown:
        return fail(f"unknown computer level {', '.join(unknown)} in --bot-table-levels "
                    f"(one of {', '.join(levels())})")
    db.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(exclusive(str(db)))  # held until this process ends, however it ends
        except DatabaseInUse as e:
            pid = f" (pid {e.pid})" if e.pid else ""
            return fail(f"the database {db} is in use by another barbu serve{pid}; stop it or use --db")
        try:
            sock = stack.enter_context(listen(args.host, args.port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return fail(f"port {args.port} on {args.host} is in use; choose another with --port")
            return fail(f"cannot listen on {args.host} port {args.port}: {e.strerror or e}")
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
        app = build_app(config)
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"barbu: tables are stored in {db}", flush=True)
        print(f"barbu: open http://{host}:{args.port}/ in your browser (Ctrl-C stops the server)", flush=True)
        # The largest message a client may send is MAX_MESSAGE; a frame far larger is cut off by uvicorn.
        config_uv = uvicorn.Config(app, ws_max_size=16 * MAX_MESSAGE, log_level="info")
        uvicorn.Server(config_uv).run(sockets=[sock])
    return 0
