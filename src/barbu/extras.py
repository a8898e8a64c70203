"""Which optional extra of barbu brings which package, to say in one line what a command lacks.

>>> missing_extra("barbu serve", ModuleNotFoundError(name="openskill"), "web")
"barbu serve needs the web extra: pip install 'barbu[web]' (openskill is not installed)"
>>> print(missing_extra("barbu bench --env", ModuleNotFoundError(name="gymnasium.spaces")))
barbu bench --env needs the rl extra: pip install 'barbu[rl]' (gymnasium is not installed)
"""

from __future__ import annotations

# The top-level module each extra's packages are imported as (pyproject.toml lists the packages;
# tests/test_install_matrix.py checks that every extra is here). numpy is in several extras: a
# command that needs it names its own.
MODULES = {
    "rich": "tui",
    "starlette": "web", "uvicorn": "web", "websockets": "web", "reportlab": "web", "uharfbuzz": "web",
    "argon2": "web", "openskill": "web",
    "psycopg": "cluster", "redis": "cluster",
    "distributed": "arena-cluster", "dask": "arena-cluster",
    "pettingzoo": "rl", "gymnasium": "rl",
    "numba": "fast",
    "pyspiel": "openspiel", "open_spiel": "openspiel",
    "pywebpush": "notify", "py_vapid": "notify",
}


def foreign(error: ModuleNotFoundError) -> bool:
    """Whether the missing module is a package barbu depends on, not a part of barbu itself."""
    return (error.name or "").split(".")[0] not in ("", "barbu")


def missing_extra(what: str, error: ModuleNotFoundError, default: str | None = None) -> str:
    """One line: which extra ``what`` (a command) needs, for the module ``error`` did not find."""
    module = (error.name or "").split(".")[0]
    extra = MODULES.get(module, default)
    if extra is None:
        return f"{what} needs {module}, which is not installed"
    return f"{what} needs the {extra} extra: pip install 'barbu[{extra}]' ({module} is not installed)"
