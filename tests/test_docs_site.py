"""The manual: docs/ builds as a site with every link whole, every page in its nav, and a short README."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import ROOT


def nav_pages(nav: object) -> list[str]:
    """Every page file that mkdocs.yml's nav lists, at any depth."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    return []


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason="the docs extra builds the site")
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})  # Material's notice, not ours
    assert run.returncode == 0, run.stderr[-4000:]
    assert (site / "index.html").is_file()
    api = (site / "api" / "engine" / "index.html").read_text(encoding="utf-8")
    assert 'id="barbu.engine.state.State"' in api  # the API page is drawn from the docstrings
    assert "IllegalActionError" in api
    assert 'class="language-pycon"' in api and ":class:" not in api  # doctests as code, roles as code


def test_every_page_of_docs_is_in_the_nav() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs" and config["strict"] is True
    listed = nav_pages(config["nav"])
    pages = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(listed) == pages


def test_the_readme_is_short_and_starts_a_fresh_machine_with_run_and_test() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    fresh = readme.split("## On a fresh machine\n\n", 1)[1].split("\n\n", 1)[0]
    commands = [line.split()[0] for line in fresh.splitlines()]
    assert commands == ["./run.sh", "./test.sh"]


def test_the_readme_links_are_relative_and_whole() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", readme)
    assert targets
    for target in targets:
        assert "://" not in target, target
        assert (ROOT / target.split("#", 1)[0]).exists(), target
