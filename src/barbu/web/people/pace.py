"""A profile's choices for tables at your own pace: what a passed deadline does, the time bank, away until."""

from __future__ import annotations

from typing import Any

from barbu.bots import levels
from barbu.web.core.errors import TableError
from barbu.web.core.rows import PaceRow, PlayerBatch, PlayerRow

ON_TIMEOUT = ("computer", "wait")  # a computer plays the move, or the table waits (a few skips)
BANK_CAP = 86400.0  # seconds a time bank holds at most (a new profile's is full)
BANK_REFILL = 1 / 24  # seconds the bank gains per second: an hour a day
AWAY_AHEAD = 14 * 86400.0  # how far ahead "away until" may be set


def bank_now(pace: PaceRow, now: float) -> float:
    """The seconds in a time bank now: what was stored at ``bank_at``, refilled an hour a day since."""
    return min(BANK_CAP, pace.bank + max(0.0, now - pace.bank_at) * BANK_REFILL)


def pace_view(pace: PaceRow | None, now: float) -> dict[str, Any]:
    """A profile's choices as its page shows them (the defaults when it never chose)."""
    p = pace or PaceRow()
    return {"on_timeout": p.on_timeout, "level": p.level or None, "bank": round(bank_now(p, now)),
            "bank_cap": BANK_CAP, "away_until": p.away_until if p.away_until > now else None,
            "away_max": AWAY_AHEAD, "levels": levels()}


def plan_pace(player: PlayerRow, current: PaceRow | None, body: object, now: float) -> PlayerBatch:
    """A profile's new choices (``on_timeout``, ``level``, ``away_until``: any left out stay as they were),
    checked; the time bank is kept as it is (it is drawn by the deadlines only)."""
    if not isinstance(body, dict):
        raise TableError("bad-pace", 'send {"on_timeout": "computer" or "wait", "level": LEVEL, '
                         '"away_until": SECONDS or null}')
    p = current or PaceRow(bank_at=now)
    on_timeout = body.get("on_timeout", p.on_timeout)
    if on_timeout not in ON_TIMEOUT:
        raise TableError("bad-pace", '"on_timeout" is "computer" (a computer plays the move) or "wait" '
                         "(the table waits, a few times a game)", args={"variant": "on-timeout"})
    level = body.get("level", p.level) or ""
    if level and level not in levels():
        raise TableError("bad-level", f"unknown computer level {str(level)[:40]!r}")
    away = body.get("away_until", p.away_until) or 0.0
    if not isinstance(away, (int, float)) or isinstance(away, bool) or not 0 <= away <= now + AWAY_AHEAD:
        raise TableError("bad-pace", f'"away_until" is a time (seconds since 1970) at most '
                         f"{AWAY_AHEAD / 86400:g} days ahead, or null", args={"variant": "away", "days": 14})
    return PlayerBatch(player.id, pace=PaceRow(on_timeout, level, p.bank, p.bank_at, float(away)))
