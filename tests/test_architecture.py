"""The package's shape: the engine imports only itself and the standard library, in no circle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import barbu

ENGINE = Path(barbu.__file__).parent / "engine"


def imported(path: Path) -> set[str]:
    """Every module a source file imports: at the top, inside functions and under TYPE_CHECKING."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            base = node.module or ""
            names.add(base)
            # `from barbu.engine import doubling` imports the module barbu.engine.doubling.
            names.update(f"{base}.{a.name}" for a in node.names if (ENGINE / f"{a.name}.py").is_file()
                         and base == "barbu.engine")
    return names


def engine_graph() -> dict[str, set[str]]:
    """Each engine module and the engine modules it imports (the package itself left out)."""
    modules = {f"barbu.engine.{p.stem}": p for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    return {name: imported(path) & modules.keys() for name, path in modules.items()}


def test_the_engine_imports_only_itself_and_the_standard_library() -> None:
    outside = {}
    for path in ENGINE.glob("*.py"):
        foreign = {m for m in imported(path) if m != "barbu.engine" and not m.startswith("barbu.engine.")
                   and m.split(".")[0] not in sys.stdlib_module_names}
        if foreign:
            outside[path.name] = sorted(foreign)
    assert outside == {}


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of the graph as the modules along it, or [] when there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str]:
        if node in path:
            return [*path[path.index(node):], node]
        if node in done:
            return []
        path.append(node)
        for after in sorted(graph[node]):
            found = visit(after)
            if found:
                return found
        path.pop()
        done.add(node)
        return []

    for start in sorted(graph):
        found = visit(start)
        if found:
            return found
    return []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_engine_modules_import_each_other_in_no_circle() -> None:
    graph = engine_graph()
    assert {"barbu.engine.state", "barbu.engine.observation"} <= graph.keys()
    assert cycle(graph) == []


# The modules of the web server's storage: SQLite's, PostgreSQL's, the SQL they share, `barbu db`.
STORAGE = ("store", "pgstore", "storesql", "schema", "dbtool")


def storage_graph() -> dict[str, set[str]]:
    """Each storage module and the storage modules it imports, even inside a function (imported lazily)."""
    web = ENGINE.parent / "web"
    modules = {f"barbu.web.{name}": web / f"{name}.py" for name in STORAGE if (web / f"{name}.py").is_file()}
    graph = {}
    for name, path in modules.items():
        names = imported(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # `from barbu.web import pgstore` imports the module barbu.web.pgstore.
        names.update(f"barbu.web.{a.name}" for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module == "barbu.web" for a in node.names)
        graph[name] = names & modules.keys()
    return graph


def test_the_storage_modules_import_each_other_in_no_circle() -> None:
    graph = storage_graph()
    assert {"barbu.web.store", "barbu.web.pgstore"} <= graph.keys()
    assert "barbu.web.pgstore" in graph["barbu.web.store"]  # open_store picks PostgreSQL's when asked
    assert cycle(graph) == []


def test_the_old_module_paths_are_the_new_modules() -> None:
    import barbu.record
    import barbu.state
    from barbu.arena import main
    from barbu.state import State as OldState

    from barbu.engine import record, state
    from barbu.tools.arena import main as new_main

    assert barbu.state is state and barbu.record is record
    assert OldState is barbu.State and main is new_main
    assert state.__spec__ is not None and state.__spec__.name == "barbu.engine.state"


def test_the_public_api_is_unchanged() -> None:
    assert sorted(barbu.__all__) == sorted([
        "CHANCE", "CONTRACT", "DOUBLE", "PASS", "RANK", "REDOUBLE", "TERMINAL", "TRUMP",
        "BarbuError", "Game", "HandRecord", "IllegalActionError", "IllegalDealError",
        "Observation", "Phase", "RecordError", "State", "observe"])
    assert all(hasattr(barbu, name) for name in barbu.__all__)


def test_importing_barbu_loads_no_tool_and_no_front_end() -> None:
    code = "import sys, barbu; print(sorted(m for m in sys.modules if m.startswith('barbu.')))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                         timeout=60)
    loaded = ast.literal_eval(out.stdout)
    assert loaded and all(m.startswith(("barbu.engine", "barbu._compiled")) for m in loaded), loaded
