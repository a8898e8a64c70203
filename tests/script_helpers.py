"""The repository's scripts (``research/NAME.py`` and ``scripts/NAME.py``, named with dashes) loaded as
modules for tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

RESEARCH = Path(__file__).parent.parent / "research"
SCRIPTS = Path(__file__).parent.parent / "scripts"


def load_script(name: str, folder: Path = RESEARCH) -> ModuleType:
    """``research/NAME.py`` (or another folder's) as a module named NAME with underscores, registered in
    ``sys.modules`` (dataclasses and pickling look a module up there)."""
    module_name = name.replace("-", "_")
    spec = importlib.util.spec_from_file_location(module_name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
