"""The repository stands alone: its own rules, record format and examples; every dependency used."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

from tests.conftest import EXAMPLES, ROOT

OUTSIDE = ".." + "/shared"  # spelled in two pieces so that this file does not name it itself

# Every dependency the project lists, with the import (or the command line) that proves it is used.
USED_BY = {
    "rich": r"^\s*(from|import) rich\b",
    "open_spiel": r"^\s*import pyspiel\b",
    "mypy": r"^\s*from mypyc\b",
    "setuptools": r"^\s*from setuptools\b",
    "starlette": r"^\s*from starlette\b",
    "uvicorn": r"^\s*import uvicorn\b",
    "websockets": r"^\s*from websockets\b",
    # Starlette's TestClient imports httpx2 (and only falls back to httpx with a deprecation warning).
    "httpx2": r"^\s*from starlette\.testclient\b",
    "playwright": r"^\s*from playwright\b",
    "axe-playwright-python": r"^\s*from axe_playwright_python\b",
    "reportlab": r"^\s*from reportlab\b",
    "uharfbuzz": r"^\s*import uharfbuzz\b",  # reportlab's text shaping, for Burmese in the PDF
    "openskill": r"^\s*from openskill\b",
    "pytest": r"^\s*import pytest\b",
    "hypothesis": r"^\s*from hypothesis\b",
    "ruff": r"ruff check",
    "pytest-timeout": r"^timeout = \d+",
    "pytest-xdist": r"--dist loadfile",  # test.sh: the stages' test files spread over workers
    "pytest-cov": r"--cov=barbu",  # test.sh --coverage
    "pettingzoo": r"^\s*from pettingzoo\b",
    "gymnasium": r"^\s*from gymnasium\b",
    "sb3-contrib": r"^\s*from sb3_contrib\b",  # examples/train_maskable_ppo.py (the train extra)
    "numpy": r"^\s*import numpy\b",
    "numba": r"^\s*import numba\b",
    "argon2-cffi": r"^\s*from argon2\b",
    "distributed": r"^\s*import distributed\b",  # barbu arena --cluster (barbu.tools.cluster)
    "psycopg": r"^\s*import psycopg\b",  # barbu.web.storage.postgres: the tables in PostgreSQL
    "redis": r"^\s*import redis\.asyncio\b",  # barbu.web.cluster.bus: leases and messages between processes
    "pywebpush": r"^\s*from pywebpush import\b",  # barbu.web.http.notify: Web Push, encrypted and signed
    "aiosmtpd": r"^\s*from aiosmtpd\.controller import\b",  # tests/test_web_mail.py: the SMTP server
    "mkdocs": r'"mkdocs", "build"',  # tests/test_docs_site.py builds the manual as a site
    "mkdocs-material": r"^\s*name: material\b",  # mkdocs.yml: the theme
    "mkdocstrings": r"^\s*- mkdocstrings:",  # mkdocs.yml: the API pages from the docstrings
}


def tracked_files() -> list[Path]:
    """The files of the repository: git's list when it is a clone, else every file but the venv."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
        return [ROOT / line for line in out.stdout.splitlines() if (ROOT / line).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".venv", ".git", "__pycache__", "_native"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.parts)]


def text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""


def test_no_file_refers_outside_the_repository() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in tracked_files() if OUTSIDE in text_of(p)]
    assert offenders == []


def test_the_rules_and_the_record_format_are_in_docs() -> None:
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    record = (ROOT / "docs" / "RECORD.md").read_text(encoding="utf-8")
    for section in ("### 1.3", "### 1.4", "### 1.5", "### 1.6", "### 2.1", "### 2.3"):
        assert section in rules, section  # the sections the code and messages cite
    for flag in ("heart-lead", "king-first", "overtrump", "dominoes-40"):
        assert f"`{flag}`" in rules, flag
    for field in ("format", "ruleset", "options", "players", "declarer", "deal", "set_aside",
                  "contract", "trump", "start_rank", "doubles", "actions", "totals", "winners"):
        assert f"`{field}`" in record, field


def test_every_example_record_has_its_expected_replay_beside_it() -> None:
    records = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))
    assert len(records) >= 3
    for record in records:
        expected = record.with_name(record.stem + ".expected.json")
        assert json.loads(expected.read_text(encoding="utf-8"))["hands"], expected.name


def project_dependencies() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        specs.extend(extra)
    return {re.split(r"[\[<>=!~ ;]", spec, maxsplit=1)[0].lower() for spec in specs}


def test_every_dependency_is_used() -> None:
    sources = "\n".join(text_of(p) for p in tracked_files()
                        if p.suffix in {".py", ".sh", ".toml", ".yml"} or p.name == "run")
    unknown = project_dependencies() - USED_BY.keys()
    assert unknown == set(), f"say what uses {sorted(unknown)} in USED_BY, or drop it"
    unused = [dep for dep in project_dependencies()
              if not re.search(USED_BY[dep], sources, re.MULTILINE)]
    assert unused == []
