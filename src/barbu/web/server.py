"""``barbu serve``: run the web table under uvicorn, with its SQLite file in the user's data folder."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path


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


def run(args: argparse.Namespace) -> int:
    # Imported here so that the rest of the ``barbu`` command works without the web extra.
    import uvicorn

    from barbu.web.app import MAX_MESSAGE, Config, build_app

    db = Path(args.db) if args.db else default_db()
    db.parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = build_app(Config(str(db), bot_delay=args.bot_delay, idle_seconds=args.idle))
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"barbu: tables are stored in {db}", flush=True)
    print(f"barbu: open http://{host}:{args.port}/ in your browser (Ctrl-C stops the server)", flush=True)
    # The largest message a client may send is MAX_MESSAGE; a frame far larger is cut off by uvicorn.
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=16 * MAX_MESSAGE, log_level="info")
    return 0
