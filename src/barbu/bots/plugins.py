"""Bots from outside barbu, named by import path (``mypkg.bots:MyBot``) or by the entry-point group
``barbu.bots``.

A plug-in is a *factory*: called with a seed (an int, or None), it returns a bot, an object with
the protocol of :class:`barbu.bots.base.Bot`: ``act(observation) -> action`` (one of
``observation.legal``), and optionally ``name``, ``cheats`` and ``show(state)``. A subclass of
``Bot`` is such a factory. Only the name travels to the arena's worker processes (``--jobs``,
``--cluster``), which import the factory again: so it must be importable there, not defined in
an interactive session.

>>> is_import_path("mypkg.bots:MyBot"), is_import_path("policy:runs/net.npz"), is_import_path("strong")
(True, False, False)
>>> make_plugin("barbu.bots.base:RandomBot", seed=1).name
'random'
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from barbu.bots.base import Bot
from barbu.engine.observation import Observation
from barbu.engine.state import State

GROUP = "barbu.bots"  # the entry-point group a package declares its bots in
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_PATH = re.compile(rf"{_DOTTED}:{_DOTTED}\Z")


def is_import_path(name: str) -> bool:
    """Whether ``name`` reads as ``module.path:Factory`` (a level name never does)."""
    return _PATH.match(name) is not None


def make_plugin(path: str, seed: int | None) -> Bot:
    """A bot from the factory at ``module:attribute``; ValueError says what is wrong with it."""
    module, _, attribute = path.partition(":")
    try:
        found: Any = importlib.import_module(module)
    except ImportError as e:
        raise ValueError(f"bot {path!r}: cannot import {module}: {e}") from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ValueError(f"bot {path!r}: {module} has no {attribute}")
        found = getattr(found, part)
    return made(path, found, seed)


def made(name: str, factory: Any, seed: int | None) -> Bot:
    """What the factory returns for ``seed``, as a Bot; ValueError if it is not a bot."""
    if not callable(factory):
        raise ValueError(f"bot {name!r} is not a factory (a class or function taking a seed)")
    bot = factory(seed)
    if isinstance(bot, Bot):
        return bot
    if not callable(getattr(bot, "act", None)):
        raise ValueError(f"bot {name!r} made {bot!r}, which has no act(observation) method "
                         "(see barbu.bots.base.Bot)")
    return PlugIn(bot, name)


class PlugIn(Bot):
    """A plug-in that follows Bot's protocol without subclassing it, seen as a Bot."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(None)
        self.inner = inner
        self.name = str(getattr(inner, "name", name))
        self.cheats = bool(getattr(inner, "cheats", False))
        self.searches = bool(getattr(inner, "searches", False))

    def show(self, state: State) -> None:
        show = getattr(self.inner, "show", None)
        if show is not None:
            show(state)

    def act(self, obs: Observation) -> int:
        return int(self.inner.act(obs))


def registered() -> dict[str, EntryPoint]:
    """The bots installed packages declare in the ``barbu.bots`` entry-point group, by name.

    Read again only when a folder of ``sys.path`` changed since (a package installed or removed
    meanwhile adds or drops its metadata folder there): the scan reads every installed distribution's
    metadata, some 10 ms, and a server asks at every table made (six times over, it cost a refused
    request 70 ms).
    """
    key = _path_stamps()
    if _seen.get("key") != key:
        _seen["key"] = key
        _seen["found"] = {ep.name: ep for ep in entry_points(group=GROUP)}
    found: dict[str, EntryPoint] = _seen["found"]
    return dict(found)


_seen: dict[str, Any] = {}  # the last scan's sys.path stamps ("key") and what it found ("found")


def _path_stamps() -> tuple[tuple[str, int], ...]:
    """Each folder of ``sys.path`` with the time it last changed (-1: not there, or not a folder)."""
    stamps = []
    for entry in sys.path:
        try:
            stamps.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            stamps.append((entry, -1))
    return tuple(stamps)


def entry_point_factory(ep: EntryPoint) -> Callable[[int | None], Bot]:
    """A factory loading the entry point's object when its first bot is made."""
    def make(seed: int | None) -> Bot:
        try:
            factory = ep.load()
        except (ImportError, AttributeError) as e:
            raise ValueError(f"bot {ep.name!r} ({ep.value}, entry point of {GROUP}): {e}") from None
        return made(ep.name, factory, seed)
    return make
