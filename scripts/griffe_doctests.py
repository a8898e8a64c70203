"""A Griffe extension for the API pages: a docstring's doctests and Sphinx roles shown as code.

The docstrings keep their examples as plain doctests (pytest runs them); outside a Google
"Examples:" section Markdown would read ``>>>`` as quotes and ``x[a][b]`` as links. Their
cross-references are Sphinx roles (``:class:`State```), which Markdown would print as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|meth|func|attr|mod|data|exc|obj):(`[^`]+`)")


def fence_doctests(text: str) -> str:
    """``text`` with each doctest block (``>>>`` up to the next blank line) in a ``pycon`` fence."""
    out: list[str] = []
    indent: str | None = None
    for line in text.split("\n"):
        stripped = line.lstrip()
        if indent is None and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(indent + "```pycon")
        elif indent is not None and not stripped:
            out.append(indent + "```")
            indent = None
        out.append(line)
    if indent is not None:
        out.append(indent + "```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fences the doctests of every docstring Griffe loads and writes its roles as code."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"\1", fence_doctests(obj.docstring.value))
