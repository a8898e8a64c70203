"""Compile barbu's engine modules and the bots' playout modules with mypyc, beside their sources.

    .venv/bin/python scripts/build-native.py [--force]

The same source files of ``src/barbu/engine/`` and ``src/barbu/bots/`` (:data:`MODULES`) are
compiled unchanged; the extension modules go to ``src/barbu/_native/`` (the bots' to
``_native/bots/``) with a stamp of the sources they were built from.
``barbu/_compiled.py`` puts those folders ahead of the pure modules of ``barbu.engine`` and
``barbu.bots`` only while the stamp matches the sources and ``BARBU_PURE`` is unset, so the
pure-Python source stays the reference and the fallback: with no C compiler, no mypyc or a
stale build, barbu runs pure Python. ``./run.sh`` and ``./test.sh`` call this script; it
rebuilds only when a compiled source changed. The build must stay clean: any warning, from mypyc or from the C
compiler, fails it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "barbu"
ENGINE = "engine"  # the engine's folder inside PACKAGE; the group's shared library is named in it
# The modules of the playout kernel and the rules it calls per card, then the bots' own inner
# loops (the rule-of-thumb and fitted playouts, the sampler of deals, the endgame solver), which
# are most of a search bot's time; the front ends, the bots' decisions and the records gain
# little from compiling and keep Python's dynamism.
MODULES = tuple(f"{ENGINE}/{m}.py" for m in (
    "cards", "contracts", "hand", "tricks", "layout", "doubling", "dealing", "core", "scoring",
    "cardplay", "bidding", "reasons", "state", "playout")) + tuple(
    f"bots/{m}.py" for m in ("policy", "fitted", "sampling", "endgame"))
NATIVE = PACKAGE / "_native"
STAMP = "SOURCES"  # the hashes of the sources the build was made from, written last
BUILT = "BUILT"  # the extension files of the build: all must be there for any to be used


def imported() -> list[str]:
    """The sources whose types the compiled modules were built with, beside :data:`MODULES`.

    A compiled module checks the types of what it gets from these at run time (a tuple is not a
    list), so a change to any of them makes the build stale as a change to a compiled one does.
    """
    engine = sorted(f"{ENGINE}/{p.name}" for p in (PACKAGE / ENGINE).glob("*.py"))
    return [m for m in [*engine, "bots/__init__.py", "bots/base.py", "bots/basic.py"] if m not in MODULES]


def target(module: str, native: Path = NATIVE) -> Path:
    """Where a module's extension goes: the engine's in ``_native``, the bots' in ``_native/bots``."""
    folder = module.split("/")[0]
    return native if folder == ENGINE else native / folder


def stamp_text(package: Path = PACKAGE) -> str:
    """One line per source of the build: the SHA-256 of the file in ``package``, then its name."""
    return "".join(f"{hashlib.sha256((package / path).read_bytes()).hexdigest()}  {path}\n"
                   for path in (*MODULES, *imported()))


def compiler() -> str | None:
    """The C compiler Python's build tools would call, if there is one on PATH."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


def build(native: Path = NATIVE) -> None:
    """Compile :data:`MODULES` in a scratch folder and move the extensions into ``native`` (a
    wheel's build passes the ``_native`` of its own copy of the package; setup.py), stamped with
    the sources beside it as they were when the build began.

    Fails, leaving no build, if mypyc or the C compiler prints a warning.
    """
    stamp = stamp_text(native.parent)  # before: a source edited meanwhile makes the build stale
    output = captured(lambda: compile_modules(native))
    print(output, end="")
    warned = [line for line in output.splitlines() if "warning:" in line]
    if warned:
        shutil.rmtree(native, ignore_errors=True)
        raise SystemExit(f"compiled engine: {len(warned)} warning(s) from the build, see above; "
                         "fix the sources (the build must print none)")
    (native / STAMP).write_text(stamp)


def current(native: Path = NATIVE) -> bool:
    """Whether ``native`` holds a whole build of today's sources for this very Python (its stamp matches
    and every extension it lists is there, named for this interpreter)."""
    stamp, built = native / STAMP, native / BUILT
    if not (stamp.is_file() and built.is_file()) or stamp.read_text() != stamp_text(native.parent):
        return False
    names = built.read_text().split()
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return len(names) == len(MODULES) + 1 and all(
        name.endswith(suffix) and (native / name).is_file() for name in names)


def reuse(target_dir: Path) -> bool:
    """Copy the working copy's build into a wheel's ``target_dir`` when it is :func:`current`.

    The same sources compiled by the same script for the same interpreter give the same extensions:
    a wheel built from a working copy whose build is up to date (./test.sh, ./run.sh) copies it rather
    than spending a minute compiling it again; any other wheel compiles (setup.py).
    """
    if not current():
        return False
    shutil.rmtree(target_dir, ignore_errors=True)
    shutil.copytree(NATIVE, target_dir)
    print("barbu: the working copy's compiled engine is up to date: copied into the wheel")
    return True


def captured(work: Callable[[], None]) -> str:
    """Run ``work`` and return what it printed, the C compiler's output included.

    The compiler is a child process writing to file descriptors 1 and 2 directly, so those
    are redirected, not just ``sys.stdout``.
    """
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as out:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
        try:
            work()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in zip((1, 2), saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)
        out.seek(0)
        return out.read()


def compile_modules(native: Path = NATIVE) -> None:
    """Compile :data:`MODULES` in a scratch folder and move the extensions into ``native``."""
    with tempfile.TemporaryDirectory() as scratch:
        here = os.getcwd()
        os.chdir(SRC)  # module names follow the paths: barbu/engine/state.py is barbu.engine.state
        try:
            extensions(scratch)
        finally:
            os.chdir(here)  # a wheel's build goes on in its own folder
        install(Path(scratch) / "lib" / "barbu", native)


def extensions(scratch: str) -> None:
    """Build the extensions of :data:`MODULES` with mypyc into ``scratch/lib`` (in SRC)."""
    from mypyc.build import mypycify  # imported here: without mypy the script only reports
    from setuptools import Distribution

    # The group's shared library is named inside barbu.engine, so it too is found on its __path__.
    built = mypycify([f"barbu/{m}" for m in MODULES], opt_level="3",
                     target_dir=os.path.join(scratch, "c"), group_name=f"barbu.{ENGINE}._engine")
    for extension in built:
        # C's a*b+c must round as Python's does: no fused multiply-add where a CPU has one.
        extension.extra_compile_args.append("-ffp-contract=off")
    # A Distribution of its own rather than setup(): this also runs inside setup.py's build.
    dist = Distribution({"name": "barbu-native", "ext_modules": built})
    dist.verbose = 0  # the compiler's own lines only, as setup -q printed them
    command = dist.get_command_obj("build_ext")
    command.build_lib = os.path.join(scratch, "lib")
    command.build_temp = os.path.join(scratch, "tmp")
    dist.run_command("build_ext")


def install(lib: Path, native: Path) -> None:
    """Move the built extensions from ``lib`` (its barbu/ folder) into ``native``."""
    built = sorted(lib.glob("*/*.so"))
    if len(built) != len(MODULES) + 1:  # one per module and the group's shared library
        raise SystemExit(f"mypyc built {[p.name for p in built]}, expected {len(MODULES) + 1} modules")
    # The stamp goes first, so that a build cut short here is never taken for a whole one.
    (native / STAMP).unlink(missing_ok=True)
    shutil.rmtree(native, ignore_errors=True)
    names = []
    for path in built:
        folder = target(f"{path.parent.name}/{path.name}", native)
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, folder / path.name)
        names.append(str((folder / path.name).relative_to(native)))
    (native / BUILT).write_text("".join(f"{name}\n" for name in names))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--force", action="store_true", help="rebuild even when the stamp matches")
    args = parser.parse_args()
    stamp = NATIVE / STAMP
    if not args.force and stamp.is_file() and stamp.read_text() == stamp_text():
        print("compiled engine: up to date")
        return 0
    try:
        import mypyc  # noqa: F401
    except ImportError:
        print("compiled engine: mypyc is not installed, barbu runs pure Python")
        return 0
    if compiler() is None:
        print("compiled engine: no C compiler, barbu runs pure Python")
        return 0
    print(f"compiled engine: building {', '.join(MODULES)} with mypyc ...", flush=True)
    build()
    print(f"compiled engine: built into {NATIVE.relative_to(SRC.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
