"""Load the mypyc-compiled engine and playout modules ahead of their sources, when built from them.

``scripts/build-native.py`` compiles the same source files of ``barbu/engine/`` into
``_native/``, and the bots' playout modules of ``barbu/bots/`` into ``_native/bots/``, and
stamps them with the sources' hashes. Imported first by ``barbu/__init__.py``;
a missing or stale build, or ``BARBU_PURE=1`` in the environment, leaves the pure-Python
modules in use.
"""

from __future__ import annotations

import hashlib
import os
import sys
import warnings

import barbu.engine  # only the package: its __init__ imports no engine module

HERE = os.path.dirname(__file__)
NATIVE = os.path.join(HERE, "_native")


def _current() -> bool:
    """True when ``_native`` holds a build of the source files as they are now."""
    stamp = os.path.join(NATIVE, "SOURCES")
    if os.environ.get("BARBU_PURE") or not os.path.isfile(stamp):
        return False
    with open(stamp, encoding="utf-8") as lines:
        for line in lines:
            digest, name = line.split()
            if _digest(os.path.join(HERE, name)) != digest:
                warnings.warn(f"barbu: the compiled engine is older than {name}; running pure "
                              "Python (rebuild: python scripts/build-native.py)", RuntimeWarning,
                              stacklevel=3)
                return False
    built = os.path.join(NATIVE, "BUILT")
    missing = [name for name in _lines(built) if not os.path.isfile(os.path.join(NATIVE, name))]
    if missing or not os.path.isfile(built):
        warnings.warn(f"barbu: the compiled build is incomplete ({', '.join(missing) or 'BUILT'} "
                      "missing); running pure Python (rebuild: python scripts/build-native.py)",
                      RuntimeWarning, stacklevel=3)
        return False
    return True


def _lines(path: str) -> list[str]:
    """The non-empty lines of a text file, none when it is missing."""
    try:
        with open(path, encoding="utf-8") as lines:
            return [line.strip() for line in lines if line.strip()]
    except FileNotFoundError:
        return []


def _digest(path: str) -> str | None:
    """The SHA-256 of a file, or None when it is gone (a build from an older layout)."""
    try:
        with open(path, "rb") as source:
            return hashlib.sha256(source.read()).hexdigest()
    except FileNotFoundError:
        return None


def in_use() -> bool:
    """Whether the engine modules loaded are the compiled ones (an extension's file is not .py)."""
    return not (sys.modules["barbu.engine.state"].__file__ or "").endswith(".py")


CURRENT = _current()  # the build matches the sources and is wanted: barbu.bots also reads it
if CURRENT:
    # Submodules are looked up along the package's __path__ in order: the compiled ones win.
    # (barbu.bots puts _native/bots ahead of its own modules when it is imported: not every
    # program that imports barbu wants the bots.)
    barbu.engine.__path__.insert(0, NATIVE)
