"""The storage's shape: every SQL statement written once, and the two stores adding only what differs."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import barbu.web.storage
from barbu.web.core.ports import TableStore
from barbu.web.storage.shared import SqlStore
from barbu.web.storage.sqlite import Store

STORAGE = Path(barbu.web.storage.__file__).parent
_STATEMENT = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\s", re.IGNORECASE)
# The words a dialect says differently (barbu.web.storage.sql.Dialect), said alike to compare statements.
_SAME = ((re.compile(r"%s"), "?"), (re.compile(r' COLLATE "C"|\{bytes\}'), ""),
         (re.compile(r"\bGREATEST\(|\{greatest\}\("), "MAX("), (re.compile(r"\{written\}|\browid\b"), "n"))


def statements(folder: Path) -> Counter[str]:
    """Each SQL statement written in a folder's modules (string literals and f-strings), and how often."""
    found: Counter[str] = Counter()
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
                text = node.value
            elif isinstance(node, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            else:
                continue
            if _STATEMENT.match(text):
                for pattern, said in _SAME:
                    text = pattern.sub(said, text)
                found[" ".join(text.split())] += 1
    return found


def test_every_statement_of_the_storage_is_written_once() -> None:
    found = statements(STORAGE)
    assert len(found) > 30  # the reads and writes are all seen
    assert sorted(s for s, n in found.items() if n > 1) == []


def test_the_finder_sees_a_statement_written_twice_in_two_dialects(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('Q = "SELECT id FROM tables WHERE id = ? ORDER BY name"\n')
    (tmp_path / "b.py").write_text('def q(c):\n    return f"SELECT id FROM tables WHERE {c} = %s "'
                                   '\\\n        \'ORDER BY name COLLATE "C"\'\n')
    assert statements(tmp_path) == {"SELECT id FROM tables WHERE id = ? ORDER BY name": 1,
                                    "SELECT id FROM tables WHERE {} = ? ORDER BY name": 1}
    (tmp_path / "c.py").write_text('Q = ("SELECT id FROM tables WHERE id = %s "\n'
                                   '     "ORDER BY name COLLATE \\"C\\"")\n')
    assert statements(tmp_path)["SELECT id FROM tables WHERE id = ? ORDER BY name"] == 2


def test_the_stores_answer_every_read_from_the_shared_base() -> None:
    from barbu.web.storage.postgres import PgStore

    port = {name for name in vars(TableStore) if not name.startswith("_")} - {"path"}
    assert port <= set(vars(SqlStore)) | {"close"}
    for store in (Store, PgStore):
        assert issubclass(store, SqlStore)
        # What each database does its own way: connecting, closing, running a read, committing.
        assert port & set(vars(store)) == {"close", "commit"}
