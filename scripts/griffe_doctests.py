"""A Griffe extension for the API pages: the doctest blocks of a docstring shown as code.

The docstrings keep their examples as plain doctests (pytest runs them); outside a Google
"Examples:" section Markdown would read ``>>>`` as quotes and ``x[a][b]`` as links.
"""

from __future__ import annotations

from typing import Any

import griffe


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
    """Fences the doctests of every docstring Griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
