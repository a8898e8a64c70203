"""The pinned Pyodide release the browser runs the engine in: fetched once with npm into a cache folder.

Pyodide (the CPython interpreter compiled to WebAssembly, with its standard library) is never part of
the repository nor of the package: ``fetch()`` asks npm for the pinned release's tarball, checks it
against the integrity pinned here, and unpacks the few files a page needs into
``$XDG_CACHE_HOME/barbu/pyodide-<version>`` (``BARBU_PYODIDE`` names another folder). ``test.sh`` and
``barbu static`` both call it; the second time it finds the folder and does nothing.

    python -m barbu.solo.pyodide    # fetch it (once) and print the folder
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "314.0.8"
# `npm view pyodide@314.0.8 dist.integrity`: the tarball's SHA-512, as the registry publishes it.
INTEGRITY = "sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ=="
# What a page loads: the loader, the interpreter and the standard library (the rest of the package is
# its consoles, type declarations and source maps).
PATH = f"/pyodide/{VERSION}/"  # where the pages find it (a release's own address: cached for good)
FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


class FetchError(RuntimeError):
    """Pyodide could not be fetched, or what came is not the pinned release."""


def folder() -> Path:
    """Where the pinned release is (or will be) unpacked."""
    named = os.environ.get("BARBU_PYODIDE")
    if named:
        return Path(named)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "barbu" / f"pyodide-{VERSION}"


def present(where: Path | None = None) -> bool:
    """Whether every file a page needs is unpacked already."""
    where = folder() if where is None else where
    return all((where / name).is_file() for name in FILES)


def integrity(data: bytes) -> str:
    """The npm integrity string of a tarball: ``sha512-`` and its digest in base64."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def unpack(tarball: bytes, where: Path) -> None:
    """Check the tarball against the pinned integrity and unpack the page's files into ``where``."""
    if integrity(tarball) != INTEGRITY:
        raise FetchError(f"the pyodide {VERSION} tarball does not match its pinned integrity: refused")
    with tempfile.TemporaryDirectory(dir=where.parent) as tmp:
        tar_path = Path(tmp) / "pyodide.tgz"
        tar_path.write_bytes(tarball)
        staged = Path(tmp) / "files"
        staged.mkdir()
        with tarfile.open(tar_path) as tar:
            for name in FILES:
                member = tar.extractfile(f"package/{name}")
                if member is None:
                    raise FetchError(f"the pyodide {VERSION} tarball has no {name}")
                (staged / name).write_bytes(member.read())
        if where.exists():
            shutil.rmtree(where)
        staged.rename(where)  # whole or not at all: a fetch cut short leaves no half folder


def fetch(where: Path | None = None) -> Path:
    """The folder of the pinned release, fetched with ``npm pack`` and unpacked when missing."""
    where = folder() if where is None else where
    if present(where):
        return where
    npm = shutil.which("npm")
    if npm is None:
        raise FetchError("npm is needed to fetch pyodide once (apt-get install npm)")
    where.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([npm, "pack", f"pyodide@{VERSION}", "--pack-destination", tmp, "--silent"],
                              capture_output=True, text=True, timeout=600, check=False)
        tarballs = list(Path(tmp).glob("pyodide-*.tgz"))
        if done.returncode != 0 or len(tarballs) != 1:
            raise FetchError(f"npm pack pyodide@{VERSION} failed: {done.stderr.strip()[-400:]}")
        unpack(tarballs[0].read_bytes(), where)
    return where


if __name__ == "__main__":
    try:
        print(fetch())
    except FetchError as e:
        sys.exit(f"barbu: {e}")
