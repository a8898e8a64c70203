"""`barbu static DIR`: a folder any static host serves, with no Python there: solo play in the browser,
the rules and the score keeper, in the seven languages, installable and working offline.

The folder mirrors the server's addresses: the pages (each a folder's ``index.html``, so that ``/rules``
works on any host), ``/static/`` as the server serves it, the read-only answers the pages fetch
(``/api/rules/<ruleset>``) as files, Pyodide under ``/pyodide/``, the engine's zip (barbu.solo.bundle),
``/solo.json`` (the zip's name, the server to link to) and the service worker that keeps all of it.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from barbu.solo import bundle, pyodide
from barbu.web.http.assets import stamp_of
from barbu.web.http.endpoints import ASSETS, STATIC
from barbu.web.http.shell import KEEPER, MANIFEST, OFFLINE, app_shell, manifest, worker_script
from barbu.web.http.solo import ENGINE, offline_files
from barbu.web.tables.rules import rules_info

# Each page: its file in the static folder and where the built folder serves it.
PAGES = {"solo.html": "", "index.html": "play", "rules.html": "rules/classic", "score.html": "score",
         "offline.html": "offline"}
RULESETS = ("classic", "family")


def write(target: Path, path: str, data: bytes) -> None:
    out = target / path
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)


def pages(target: Path) -> list[str]:
    """The pages, their files' addresses stamped; returns their addresses."""
    shutil.copytree(STATIC, target / "static", dirs_exist_ok=True)
    for name, where in PAGES.items():
        write(target, f"{where}/index.html".lstrip("/"), ASSETS.page(name))
    write(target, "rules/family/index.html", ASSETS.page("rules.html"))
    for ruleset in RULESETS:
        write(target, f"api/rules/{ruleset}", json.dumps(rules_info(ruleset)).encode())
    return ["/", "/play/", "/rules/classic/", "/rules/family/", f"{KEEPER}/", f"{OFFLINE}/"]


def engine(target: Path) -> list[str]:
    """Pyodide and the engine's zip; returns their addresses (the solo game's, kept by the worker)."""
    source = pyodide.fetch()
    for name in pyodide.FILES:
        write(target, f"{pyodide.PATH}{name}".lstrip("/"), (source / name).read_bytes())
    data = bundle.build()
    zip_path = ENGINE.format(name=bundle.name(data))
    write(target, zip_path.lstrip("/"), data)
    return [f"{pyodide.PATH}{name}" for name in pyodide.FILES] + [zip_path]


def worker(shell: list[str]) -> bytes:
    """The server's service worker with this folder's shell: the pages as folders, the engine kept."""
    script = worker_script().decode()
    served = json.dumps(app_shell())
    assert served in script, "the served worker's shell is not where it is expected"
    script = script.replace(served, json.dumps(shell))
    version = stamp_of("\n".join(shell).encode())
    return script.replace('const VERSION = "', f'const VERSION = "static-{version}-', 1).encode()


def build(target: Path, server: str | None = None) -> dict[str, Any]:
    """Write the folder; returns what ``/solo.json`` says."""
    target.mkdir(parents=True, exist_ok=True)
    shell = pages(target)
    files = engine(target)
    config: dict[str, Any] = {"engine": files[-1], "pyodide": pyodide.PATH,
                              "offline": offline_files(files[-1])}
    if server:
        config["server"] = server
    write(target, "solo.json", json.dumps(config).encode())
    write(target, "manifest.webmanifest", json.dumps(manifest()).encode())
    # Everything, at the first visit: what a game needs offline (Pyodide, the zip, the card faces, every
    # language's words) with the pages and their files; each address once (twice fails an install).
    kept = [*shell, "/solo.json", "/static/solo-worker.mjs", MANIFEST, *(f"/api/rules/{r}" for r in RULESETS),
            *config["offline"], *ASSETS.named()]
    write(target, "sw.js", worker(list(dict.fromkeys(kept))))
    return config


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the folder to write (made when missing; files already there are replaced)")
    p.add_argument("--server", metavar="URL",
                   help="a barbu server the lobby links to for online play (default: none)")


def run(args: argparse.Namespace) -> int:
    try:
        config = build(Path(args.dir), args.server)
    except pyodide.FetchError as e:
        print(f"barbu static: {e}")
        return 1
    print(f"barbu static: wrote {args.dir} (engine {config['engine']}, pyodide {pyodide.VERSION}); "
          f"serve it from a host's root, e.g. python -m http.server --directory {args.dir}")
    return 0
