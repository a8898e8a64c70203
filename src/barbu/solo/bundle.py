"""The zip of barbu's pure-Python parts a solo game needs in the browser: found by their imports, built
the same byte for byte from the same sources (so that its name can carry its hash and be cached forever).

The roots are the solo table and the computer levels it offers (they register on import, so the
package imports them inside a function); every module a root imports at its top, and every module that
one imports, goes in, with the package ``__init__`` files above them and the data files the bots read.
An import outside barbu and the standard library (starlette, numpy…) is refused: the browser has none.
"""

from __future__ import annotations

import ast
import hashlib
import io
import sys
import zipfile
from pathlib import Path

import barbu

PACKAGE = Path(barbu.__file__).parent
ROOTS = ("barbu.solo.table", "barbu.bots.basic", "barbu.bots.pimc", "barbu.bots.strong", "barbu.bots.expert")
DATA = ("bots/fitted_weights.json",)  # read with importlib.resources by barbu.bots.fitted
STAMP = (1980, 1, 1, 0, 0, 0)  # every entry's date: the zip depends on the sources only


class BundleError(RuntimeError):
    """A module the solo game needs imports what the browser does not have."""


def source(module: str) -> Path:
    """The source file of a module of barbu (a package is its ``__init__.py``)."""
    base = PACKAGE.joinpath(*module.split(".")[1:])
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def top_imports(path: Path) -> set[str]:
    """The modules a source file imports when it is imported: its top level (``if`` blocks too), not
    inside a function or class body, nor under ``TYPE_CHECKING``."""
    found: set[str] = set()
    todo = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            todo.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            todo.extend([*node.body, *node.orelse, *node.finalbody])
    return found


def needed(roots: tuple[str, ...] = ROOTS) -> list[str]:
    """Every module of barbu the roots import, with their packages, sorted; BundleError for a module
    outside barbu and the standard library."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        module = todo.pop()
        parts = module.split(".")
        for i in range(1, len(parts) + 1):  # a module imports the packages above it first
            name = ".".join(parts[:i])
            if name in seen:
                continue
            seen.add(name)
            for imported in top_imports(source(name)):
                top = imported.split(".")[0]
                if top == "barbu":
                    if source(imported).is_file():
                        todo.append(imported)
                elif top not in sys.stdlib_module_names and top != "__future__":
                    raise BundleError(f"{name} imports {imported}, which the browser does not have")
    return sorted(seen)


def build() -> bytes:
    """The zip's bytes: the modules' sources and the data files, under ``barbu/``."""
    files = [source(m) for m in needed()] + [PACKAGE / d for d in DATA]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(set(files)):
            info = zipfile.ZipInfo("barbu/" + path.relative_to(PACKAGE).as_posix(), STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return out.getvalue()


def name(data: bytes) -> str:
    """The zip's file name, with its content's hash: a new engine is a new file, never a stale cache."""
    return f"barbu-{hashlib.sha256(data).hexdigest()[:16]}.zip"
