"""Hatchling build hook: compile the walk's C core (``survey/census/_walkcore.c``) into the
wheel, so ``pip install .`` and ``python -m build`` carry it.

The compile is ``survey/census/build.py``'s (loaded by path: the package's dependencies are
not installed while it builds). A wheel with the core is tagged for this interpreter and
platform. Without a C compiler, or where the compile fails, the wheel is pure Python: the
hook says so once, and the survey runs its Python walker (the same tables, more slowly).
An editable install (``pip install -e .``, as ``make`` does) builds the core in place.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HERE = Path(__file__).parent


def _build_module() -> Any:
    spec = importlib.util.spec_from_file_location("_survey_build", HERE / "survey" / "census" / "build.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class CoreBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or os.environ.get("SURVEY_NO_NATIVE"):
            return
        b = _build_module()
        if version == "editable":  # the source tree is what runs: build beside the source
            _, msg = b.build()
            print(f"survey: {msg}", file=sys.stderr)
            return
        out = Path(tempfile.mkdtemp(prefix="survey-core-")) / b.target().name
        ok, msg = b.build(out=out)
        print(f"survey: {msg}", file=sys.stderr)
        if not ok:
            return  # a pure-Python wheel: the Python walker runs
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["force_include"][str(out)] = f"survey/census/{out.name}"
