"""Build barbu's wheel with the engine and the bots' playouts compiled by mypyc (as black's and
mypy's wheels are) where a C compiler is present; a pure-Python wheel otherwise, or with BARBU_PURE=1.

Everything else is in pyproject.toml. The modules are compiled by scripts/build-native.py, the
script ./run.sh and ./test.sh run on a working copy, into the wheel's ``barbu/_native`` with the
stamp of their sources: barbu/_compiled.py loads them the same way in both (and BARBU_PURE=1 at run
time still runs the pure sources of a compiled wheel). A wheel built from a working copy whose build
is up to date copies that build rather than compiling again. An editable install compiles nothing: it is
the working copy, where scripts/build-native.py keeps the build in step with the sources.
"""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path
from types import ModuleType

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


@cache
def native_build() -> ModuleType:
    """scripts/build-native.py as a module (its file name is not an identifier)."""
    spec = importlib.util.spec_from_file_location("build_native", ROOT / "scripts" / "build-native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def compiled() -> bool:
    """Whether this wheel is compiled: a C compiler and mypyc are there, BARBU_PURE is not set."""
    if os.environ.get("BARBU_PURE"):
        print("barbu: BARBU_PURE is set, building a pure-Python wheel")
        return False
    if importlib.util.find_spec("mypyc") is None or native_build().compiler() is None:
        print("barbu: no C compiler or no mypyc, building a pure-Python wheel")
        return False
    return True


class BuildPy(build_py):
    """Copies the package, then compiles the engine modules into its ``_native`` beside them."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode and compiled():
            native = Path(self.build_lib) / "barbu" / "_native"
            if not native_build().reuse(native):
                native_build().build(native)


class PlatformWheel(Distribution):
    """A compiled wheel is for one Python and one platform (cp311-…-linux_x86_64), not py3-none-any."""

    def has_ext_modules(self) -> bool:
        return compiled()


setup(cmdclass={"build_py": BuildPy}, distclass=PlatformWheel)
