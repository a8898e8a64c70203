"""Computer players: each gets only its seat's observation and answers with a legal action.

>>> bot = make_bot("random", seed=1)
>>> bot.name
'random'
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable

from barbu import _compiled

if _compiled.CURRENT:  # the compiled playout modules (scripts/build-native.py) win over the sources
    __path__.insert(0, os.path.join(_compiled.NATIVE, "bots"))

from barbu.bots.base import Bot, RandomBot
from barbu.bots.plugins import entry_point_factory, is_import_path, make_plugin, registered

_FACTORIES: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot}
_CHEATS: set[str] = set()


def register(name: str, factory: Callable[[int | None], Bot], cheats: bool = False) -> None:
    """Make a bot level selectable by name (``basic``, ``pimc``, …).

    A cheating level (it reads the whole state, see ``Bot.cheats``) is left out of
    :func:`levels` unless asked for: only the arena, which shows it the state, seats one.
    """
    _FACTORIES[name] = factory
    if cheats:
        _CHEATS.add(name)


_LADDER = ("random", "basic", "pimc", "strong", "expert")  # weakest first, whatever the import order


def levels(cheats: bool = False) -> list[str]:
    """The selectable levels, weakest first, then the others (OpenSpiel's) as registered."""
    _load_all()
    order = [n for n in _LADDER if n in _FACTORIES] + [n for n in _FACTORIES if n not in _LADDER]
    return [name for name in order if cheats or name not in _CHEATS]


# What each level means to a player, strongest last; every name is also accepted where a level is.
MEANINGS = {"easy": "basic", "medium": "pimc", "hard": "strong", "expert": "expert"}


def meaning(level: str) -> str | None:
    """The everyday name of a level (``hard`` for ``strong``), or None for a technical one.

    >>> meaning("strong"), meaning("random")
    ('hard', None)
    """
    return next((m for m, lv in MEANINGS.items() if lv == level), None)


def level_label(level: str) -> str:
    """A level as a player reads it: its meaning with the technical name beside.

    >>> level_label("strong"), level_label("expert"), level_label("random")
    ('hard (strong)', 'expert', 'random')
    """
    m = meaning(level)
    return level if m is None or m == level else f"{m} ({level})"


def level_named(name: str) -> str:
    """The level an everyday or technical name stands for: ``hard`` and ``strong`` are ``strong``."""
    return MEANINGS.get(name, name)


def levels_named(text: str) -> tuple[str, ...]:
    """The levels of a comma-separated list, everyday names read as technical ones.

    >>> levels_named("hard, easy,,expert:0.3")
    ('strong', 'basic', 'expert:0.3')
    """
    return tuple(level_named(x.strip()) for x in text.split(",") if x.strip())


POLICY = "policy:"  # the level of a trained network: policy:PATH (barbu.bots.learned)
EXPERT = ("expert:", "expert+")  # expert with a budget or parts: expert:0.3+play (barbu.bots.expert)
SEARCHES = ("os-ismcts:", "os-mcts:")  # OpenSpiel's searches with their own simulation count: os-mcts:200


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot of the level ``name``; ValueError for an unknown level.

    ``policy:PATH`` is the network saved at PATH (numpy needed; see barbu.bots.learned);
    ``expert:SECONDS+PART`` an expert with its own budget or parts (barbu.bots.expert);
    ``os-mcts:N`` and ``os-ismcts:N`` OpenSpiel's searches with N simulations a decision;
    ``module:Factory`` a plug-in by its import path, and a name of the entry-point group
    ``barbu.bots`` a plug-in an installed package declares (barbu.bots.plugins).
    """
    if name.startswith(POLICY):
        from barbu.bots.learned import policy_bot

        return policy_bot(name.removeprefix(POLICY), seed)
    if name.startswith(EXPERT):
        from barbu.bots.expert import make_expert

        return make_expert(name, seed)
    if name.startswith(SEARCHES):
        return _search(name, seed)
    factory = _FACTORIES.get(level_named(name))
    if factory is None and is_import_path(name):
        return make_plugin(name, seed)
    if factory is None:
        _load_all()
        factory = _FACTORIES.get(level_named(name))
    if factory is not None:
        return factory(seed)
    raise ValueError(f"unknown bot level {name!r} (one of {', '.join(_FACTORIES)}, or a plug-in's "
                     "module:Factory)")


def _search(name: str, seed: int | None) -> Bot:
    """An OpenSpiel search with its simulation count given: ``os-mcts:200``."""
    level, _, count = name.partition(":")
    if not count.isdigit() or int(count) < 1:
        raise ValueError(f"a search's simulations are a whole number above zero, not {count!r}")
    try:
        bot = make_bot(level, seed)  # pyspiel loaded by now
    except ValueError:
        raise ValueError(f"{name!r} needs OpenSpiel (pyspiel is not installed)") from None
    from barbu.bots.openspiel import SpielBot

    assert isinstance(bot, SpielBot)
    bot.simulations = int(count)
    bot.name = name
    return bot


def _load_all() -> None:
    # Levels register themselves on import; importing here keeps this module light.
    import barbu.bots.basic
    import barbu.bots.expert
    import barbu.bots.pimc
    import barbu.bots.strong  # noqa: F401
    if "os-ismcts" not in _FACTORIES and importlib.util.find_spec("pyspiel") is not None:
        _register_openspiel()
    # The installed packages' bots (looked up each time: a package may be installed meanwhile);
    # a built-in level keeps its name.
    for name, ep in registered().items():
        _FACTORIES.setdefault(name, entry_point_factory(ep))


def _register_openspiel() -> None:
    """The OpenSpiel levels, imported when first made: pyspiel and numpy are slow to load."""
    def factory(name: str) -> Callable[[int | None], Bot]:
        def make(seed: int | None) -> Bot:
            from barbu.bots.openspiel import LEVELS
            return LEVELS[name](seed)
        return make

    register("os-ismcts", factory("os-ismcts"))
    register("os-mcts", factory("os-mcts"), cheats=True)


__all__ = ["MEANINGS", "Bot", "RandomBot", "level_label", "level_named", "levels", "levels_named", "make_bot",
           "meaning", "register"]
