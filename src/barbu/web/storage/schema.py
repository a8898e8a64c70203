"""The database's layout: one numbered list of steps, each written for SQLite and for PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass

# The layout of release 0.1.0, the first step of every database: a new one is made by the steps in order.
_SCHEMA_0_1 = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    setup TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token TEXT NOT NULL,
    kind TEXT NOT NULL,
    level TEXT NOT NULL,
    claimed INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS sheets (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    token TEXT NOT NULL,
    doc TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sheet_entries (
    sheet_id TEXT NOT NULL REFERENCES sheets(id),
    entry TEXT NOT NULL,
    version INTEGER NOT NULL,
    op TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (sheet_id, entry)
);
"""

# Profiles, seats tied to them, friends' seats and private tables. Every older row keeps its meaning:
# a seat of 0.1.0 is open to anyone, tied to no profile; a table is public, its creator unknown.
_PROFILES = """
ALTER TABLE tables ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN creator INTEGER NOT NULL DEFAULT -1;
ALTER TABLE seats ADD COLUMN player TEXT NOT NULL DEFAULT '';
ALTER TABLE seats ADD COLUMN access TEXT NOT NULL DEFAULT 'open';
CREATE INDEX seats_by_player ON seats(player) WHERE player != '';
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    password TEXT NOT NULL DEFAULT ''
);
CREATE TABLE player_keys (
    player_id TEXT NOT NULL REFERENCES players(id),
    salt TEXT NOT NULL,
    hash TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (player_id, hash)
);
CREATE TABLE transfers (
    code_hash TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players(id),
    expires REAL NOT NULL
);
"""

# Ratings: each profile's skill per rule set, and one row per rated game and person (the history
# the player's page draws). ``rated_games`` says a finished table was rated: never twice.
_RATINGS = """
CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players(id),
    ruleset TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (player_id, ruleset)
);
CREATE TABLE rated_games (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    ruleset TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE rating_history (
    table_id TEXT NOT NULL REFERENCES rated_games(table_id),
    player_id TEXT NOT NULL REFERENCES players(id),
    ruleset TEXT NOT NULL,
    seat INTEGER NOT NULL,
    place INTEGER NOT NULL,
    total INTEGER NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    contracts TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, player_id)
);
CREATE INDEX rating_history_by_player ON rating_history(player_id, at);
CREATE INDEX ratings_by_ruleset ON ratings(ruleset, games);
"""

# Devices: how each key of a profile came (made, transfer, password; "" before this step) and when
# it was last seen, for the list its owner may sign devices out of.
_DEVICES = """
ALTER TABLE player_keys ADD COLUMN how TEXT NOT NULL DEFAULT '';
ALTER TABLE player_keys ADD COLUMN seen REAL NOT NULL DEFAULT 0;
CREATE INDEX transfers_by_player ON transfers(player_id, expires);
"""

# The browser that took each seat (a digest of its client id), so that it holds one seat of a table.
_CLIENTS = """
ALTER TABLE seats ADD COLUMN client TEXT NOT NULL DEFAULT '';
"""

# The tutorial's lessons a profile has done (barbu.learn): one row a lesson, so at most as many rows
# as there are lessons.
_LESSONS = """
CREATE TABLE lessons_done (
    player_id TEXT NOT NULL REFERENCES players(id),
    lesson TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (player_id, lesson)
);
"""

# Tables at your own pace: each profile's choices there (what a passing deadline does, its time bank,
# away until). A table's mode and deadlines are its setup and events, in the tables above.
_PACE = """
CREATE TABLE player_pace (
    player_id TEXT PRIMARY KEY REFERENCES players(id),
    on_timeout TEXT NOT NULL,
    level TEXT NOT NULL,
    bank DOUBLE PRECISION NOT NULL,
    bank_at DOUBLE PRECISION NOT NULL,
    away_until DOUBLE PRECISION NOT NULL
);
"""

# A learner's record of the practice drills (barbu.learn.drills.Record as JSON), one row a profile.
_DRILLS = """
CREATE TABLE drill_records (
    player_id TEXT PRIMARY KEY REFERENCES players(id),
    record TEXT NOT NULL,
    updated REAL NOT NULL
);
"""
_PG_DRILLS = _DRILLS.replace("REAL", "DOUBLE PRECISION")

# Web Push subscriptions (RFC 8030): a browser of a profile the push service reaches, by its endpoint,
# with the keys that encrypt what is sent there (RFC 8291) and the language its page used; and the tables
# where a profile switched its notifications off.
_PUSH = """
CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players(id),
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    lang TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX push_by_player ON push_subscriptions(player_id, created);
CREATE TABLE push_quiet (
    player_id TEXT NOT NULL REFERENCES players(id),
    table_id TEXT NOT NULL,
    PRIMARY KEY (player_id, table_id)
);
"""
_PG_PUSH = _PUSH.replace("REAL", "DOUBLE PRECISION")

# E-mail notifications: one address per profile, confirmed by a code sent there (its hash kept until it is
# used or expires), the kinds of mail wanted (comma-separated), the token its mails' unsubscribe links
# carry (kept as it is: every mail carries it, and it can only turn mail off), and the UTC day of its last
# daily digest (claimed by one process: an UPDATE … WHERE last_digest < today).
_MAIL = """
CREATE TABLE mail_addresses (
    player_id TEXT PRIMARY KEY REFERENCES players(id),
    address TEXT NOT NULL,
    verified INTEGER NOT NULL DEFAULT 0,
    lang TEXT NOT NULL,
    events TEXT NOT NULL DEFAULT '',
    code_hash TEXT,
    code_expires REAL NOT NULL DEFAULT 0,
    unsubscribe TEXT NOT NULL UNIQUE,
    last_digest TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL
);
CREATE UNIQUE INDEX mail_by_code ON mail_addresses(code_hash);
"""
_PG_MAIL = _MAIL.replace("REAL", "DOUBLE PRECISION")
# Invitations by name: a free seat held for one profile (its id, "" for none) since when (wall time),
# and the seats a profile is invited to found by an index.
_INVITES = """
ALTER TABLE seats ADD COLUMN invited TEXT NOT NULL DEFAULT '';
ALTER TABLE seats ADD COLUMN invited_at REAL NOT NULL DEFAULT 0;
CREATE INDEX seats_by_invited ON seats(invited, invited_at) WHERE invited != '';
"""
_PG_INVITES = _INVITES.replace("REAL", "DOUBLE PRECISION").replace("!=", "<>")

# Steps 1 to 3 in PostgreSQL, in one: its databases began at the layout SQLite reached after them.
# Times are seconds since the epoch as double precision (Python's float, exactly as SQLite's REAL
# keeps it); flags are integers and JSON is kept as the text it was written as, so that both
# databases answer alike.
_PG_STEPS_1_TO_3 = """
CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    setup TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    private INTEGER NOT NULL DEFAULT 0,
    creator INTEGER NOT NULL DEFAULT -1
);
CREATE TABLE seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token TEXT NOT NULL,
    kind TEXT NOT NULL,
    level TEXT NOT NULL,
    claimed INTEGER NOT NULL,
    player TEXT NOT NULL DEFAULT '',
    access TEXT NOT NULL DEFAULT 'open',
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX seats_by_player ON seats(player) WHERE player <> '';
CREATE TABLE events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE sheets (
    id TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    token TEXT NOT NULL,
    doc TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated DOUBLE PRECISION NOT NULL
);
CREATE TABLE sheet_entries (
    sheet_id TEXT NOT NULL REFERENCES sheets(id),
    entry TEXT NOT NULL,
    version INTEGER NOT NULL,
    op TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (sheet_id, entry)
);
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    created DOUBLE PRECISION NOT NULL,
    password TEXT NOT NULL DEFAULT ''
);
CREATE TABLE player_keys (
    player_id TEXT NOT NULL REFERENCES players(id),
    salt TEXT NOT NULL,
    hash TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player_id, hash)
);
CREATE TABLE transfers (
    code_hash TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players(id),
    expires DOUBLE PRECISION NOT NULL
);
CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players(id),
    ruleset TEXT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player_id, ruleset)
);
CREATE TABLE rated_games (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    ruleset TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE TABLE rating_history (
    n BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE,
    table_id TEXT NOT NULL REFERENCES rated_games(table_id),
    player_id TEXT NOT NULL REFERENCES players(id),
    ruleset TEXT NOT NULL,
    seat INTEGER NOT NULL,
    place INTEGER NOT NULL,
    total INTEGER NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    contracts TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, player_id)
);
CREATE INDEX rating_history_by_player ON rating_history(player_id, at);
CREATE INDEX ratings_by_ruleset ON ratings(ruleset, games);
"""
# (``n`` in rating_history is SQLite's rowid: the order rows were written, the tie-break of a history.)

# _LESSONS in PostgreSQL's types.
_PG_LESSONS = _LESSONS.replace("REAL", "DOUBLE PRECISION")

# _DEVICES in PostgreSQL's types.
_PG_DEVICES = """
ALTER TABLE player_keys ADD COLUMN how TEXT NOT NULL DEFAULT '';
ALTER TABLE player_keys ADD COLUMN seen DOUBLE PRECISION NOT NULL DEFAULT 0;
CREATE INDEX transfers_by_player ON transfers(player_id, expires);
"""


@dataclass(frozen=True)
class Step:
    """One step of the layout, in SQLite's words and PostgreSQL's (None: made by a later step, see below)."""

    sqlite: str
    postgres: str | None


# The steps, in order: a database at version k has run steps 1..k and runs the steps after k.
# PostgreSQL databases began at step 3: its script makes the layout of steps 1 to 3 at once, and a
# PostgreSQL database is at version 0 or at 3 and later, never at 1 or 2.
STEPS = (
    Step(_SCHEMA_0_1, None),
    Step(_PROFILES, None),
    Step(_RATINGS, _PG_STEPS_1_TO_3),
    Step(_DEVICES, _PG_DEVICES),
    Step(_CLIENTS, _CLIENTS),
    Step(_LESSONS, _PG_LESSONS),
    Step(_PACE, _PACE),
    Step(_DRILLS, _PG_DRILLS),
    Step(_PUSH, _PG_PUSH),
    Step(_MAIL, _PG_MAIL),
    Step(_INVITES, _PG_INVITES),
)
SCHEMA_VERSION = len(STEPS)
MIGRATIONS = tuple(step.sqlite for step in STEPS)  # SQLite's scripts, step by step

# PostgreSQL keeps its version in the one row of barbu_schema, numbered (before the steps were one
# list) from its own first step: its 1 is step 3, its 2 step 4 (devices), its 3 step 5 (clients),
# its 4 step 6 (lessons), its 5 step 7 (the profiles' choices at your own pace), its 6 step 8 (drills),
# its 7 step 9 (Web Push), its 8 step 10 (e-mail), its 9 step 11 (invitations by name).
# It keeps that numbering, so that an older barbu still reads the version it knows and refuses a
# newer one: stored = step - PG_OFFSET, and 0 (no layout yet) is 0 in both.
PG_FIRST_STEP = 3
PG_OFFSET = PG_FIRST_STEP - 1


def pg_stored(step: int) -> int:
    """The number barbu_schema holds for a PostgreSQL database at ``step``."""
    return 0 if step == 0 else step - PG_OFFSET


def pg_step(stored: int) -> int:
    """The step a PostgreSQL database is at, from the number in its barbu_schema."""
    return 0 if stored <= 0 else stored + PG_OFFSET


def statements(script: str) -> list[str]:
    """The statements of a script of ours (no semicolon inside a statement)."""
    return [s.strip() for s in script.split(";") if s.strip()]
