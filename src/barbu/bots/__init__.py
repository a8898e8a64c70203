"""Computer players: each gets only its seat's observation and answers with a legal action.

>>> bot = make_bot("random", seed=1)
>>> bot.name
'random'
"""

from __future__ import annotations

from collections.abc import Callable

from barbu.bots.base import Bot, RandomBot

_FACTORIES: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot}


def register(name: str, factory: Callable[[int | None], Bot]) -> None:
    """Make a bot level selectable by name (``basic``, ``pimc``, …)."""
    _FACTORIES[name] = factory


def levels() -> list[str]:
    _load_all()
    return list(_FACTORIES)


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot of the level ``name``; ValueError for an unknown level."""
    _load_all()
    try:
        return _FACTORIES[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot level {name!r} (one of {', '.join(_FACTORIES)})") from None


def _load_all() -> None:
    # Levels register themselves on import; importing here keeps this module light.
    import barbu.bots.basic
    import barbu.bots.pimc
    import barbu.bots.strong  # noqa: F401


__all__ = ["Bot", "RandomBot", "levels", "make_bot", "register"]
