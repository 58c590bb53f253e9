"""The walk cache is its owner's alone.

In discover mode a walk part in the cache can hold a key that the snapshot later collapses
to the rare-key mask (the collapse counts files across the corpus, after the walk). So the
runtime's folder of root caches is made owner-only (0700), and a folder left readable by
others is closed on the next run, as a new salt's mode is set.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from survey.cachedir import owner_only
from survey.pipeline import run_survey
from survey.runtimes import get
from survey.synth.cursor import generate


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_a_discover_run_leaves_its_cache_readable_by_its_owner_alone(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(cache))
    root = tmp_path / "projects"
    generate(root, seed=5, sessions=4)
    old = os.umask(0o022)  # (the usual umask: folders 0755 unless the tool says otherwise)
    try:
        run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=None, date="d1", mode="discover", jobs=1)
        folder = cache / "cursor"
        parts = [p for p in folder.rglob("*") if p.is_file()]
        assert parts, "the run left a walk cache"
        assert _mode(folder) == 0o700
        folder.chmod(0o755)  # opened by hand: the next run closes it again
        run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=None, date="d2", mode="discover", jobs=1)
        assert _mode(folder) == 0o700
    finally:
        os.umask(old)


def test_owner_only_makes_missing_folders_and_closes_an_open_one(tmp_path: Path) -> None:
    made = tmp_path / "a" / "b"
    owner_only(made)
    assert made.is_dir() and _mode(made) == 0o700
    opened = tmp_path / "open"
    opened.mkdir(mode=0o777)
    opened.chmod(0o777)
    owner_only(opened)
    assert _mode(opened) == 0o700
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0o711)
    owner_only(closed)
    assert _mode(closed) == 0o700
