"""Helpers of the tests that need PostgreSQL or Redis: a fresh database each, skipped without the services.

./test.sh starts both (scripts/services.sh) and sets BARBU_REQUIRE_SERVICES=1, so that there a
missing service fails the tests that need it instead of skipping them.
"""

from __future__ import annotations

import os
import urllib.parse
import uuid

import pytest

PG_ENV = "BARBU_TEST_PG"  # the URL of a database on a server where the tests may create databases
REDIS_ENV = "BARBU_TEST_REDIS"
REQUIRE_ENV = "BARBU_REQUIRE_SERVICES"
DB_ENV = "BARBU_TEST_DB"  # "postgres": the web tests' databases are PostgreSQL ones (see fresh_db)

_made: list[str] = []  # the databases made by this run, dropped at its end (tests/conftest.py)


def service(env: str, what: str) -> str:
    """The URL of a service the test needs; the test skips (or fails, under ./test.sh) without it."""
    url = os.environ.get(env)
    if url:
        return url
    reason = f"{what} is not running for the tests: ./test.sh starts it (scripts/services.sh sets {env})"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def with_database(url: str, name: str) -> str:
    """The same server's URL, naming another database."""
    return urllib.parse.urlsplit(url)._replace(path="/" + name).geturl()


def new_database() -> str:
    """The URL of a new, empty PostgreSQL database of its own (dropped when the run ends)."""
    import psycopg
    from psycopg import sql

    admin = service(PG_ENV, "PostgreSQL")
    name = f"barbu_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    _made.append(name)
    return with_database(admin, name)


def drop_databases() -> None:
    """Drop every database this run made (a server still connected to one is cut off)."""
    if not _made:
        return
    import psycopg
    from psycopg import sql

    with psycopg.connect(os.environ[PG_ENV], autocommit=True) as conn:
        while _made:
            name = sql.Identifier(_made.pop())
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))


def redis_url() -> str:
    """The URL of the tests' Redis, answering."""
    import redis

    url = service(REDIS_ENV, "Redis")
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    finally:
        client.close()
    return url


def on_postgres() -> bool:
    """Whether this run keeps the web tests' tables in PostgreSQL (BARBU_TEST_DB=postgres)."""
    return os.environ.get(DB_ENV) == "postgres"
