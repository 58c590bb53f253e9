"""Corpora built and surveyed once per mutation pass, for tests whose module reads snapshots
without taking part in making them (``survey diff``, ``survey recheck``).

``built_once`` calls ``build(base)`` in a fresh temp folder and returns the paths it returns.
Where ``SURVEY_MUTATE_SNAPSHOTS`` names a folder (``python -m tools.mutate`` sets it for a
module mapped with ``reuse_snapshot``), the first run builds in a folder of its own there and
keeps it with the salt it was surveyed under; each later run uses that folder in place (the
root's pseudonym depends on its path) and installs the salt into its own config folder, so the
snapshots' pseudonyms stay the corpus's. A test changes only copies of what it is given.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def built_once(tag: str, factory: pytest.TempPathFactory, build: Callable[[Path], tuple[Path, ...]]
               ) -> tuple[Path, ...]:
    shared = os.environ.get("SURVEY_MUTATE_SNAPSHOTS")
    if not shared:
        return build(factory.mktemp(tag))
    kept = Path(shared) / f"built-{tag}"
    done = kept / "paths.json"
    config = Path(os.environ["SURVEY_CONFIG_DIR"])
    if done.is_file():
        for f in (kept / "config").iterdir():
            shutil.copy2(f, config / f.name)
        return tuple(kept / p for p in json.loads(done.read_text()))
    if kept.exists():  # a run stopped while building: build again
        shutil.rmtree(kept)
    base = kept / "base"
    base.mkdir(parents=True)
    paths = build(base)
    shutil.copytree(config, kept / "config")
    done.write_text(json.dumps([str(p.relative_to(kept)) for p in paths]))
    return paths
