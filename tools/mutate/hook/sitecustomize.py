"""Loads one mutated module in place of its file, in every Python process of a mutant's test run.

``python -m tools.mutate`` puts this folder first on ``PYTHONPATH`` and names a JSON file in
``SURVEY_MUTANT`` (``{"module": ..., "path": ..., "source": ..., "marker": ...}``): Python
imports ``sitecustomize`` at start-up, so the test process and any process it starts (the
walk's fork server, a CLI run in a subprocess) import the mutant from memory, never from
disk, and the module's file is never touched. Each process that loads it appends a line to
the marker file, so the runner can tell a surviving mutant from one that never loaded.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from types import ModuleType


def _install(spec_file: str) -> None:
    with open(spec_file, encoding="utf-8") as f:
        m = json.load(f)

    class MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname: str, path: object = None,
                      target: object = None) -> importlib.machinery.ModuleSpec | None:
            if fullname != m["module"]:
                return None
            return importlib.util.spec_from_file_location(fullname, m["path"], loader=self)

        def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
            return None

        def exec_module(self, module: ModuleType) -> None:
            with open(m["marker"], "a", encoding="utf-8") as out:
                out.write(f"{os.getpid()}\n")
            exec(compile(m["source"], m["path"], "exec"), module.__dict__)

    sys.meta_path.insert(0, MutantFinder())


if os.environ.get("SURVEY_MUTANT"):
    _install(os.environ["SURVEY_MUTANT"])
