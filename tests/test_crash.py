"""A run killed (SIGKILL) at each stage, then run again.

``$SURVEY_TEST_CRASH_AT`` names a stage where the run kills itself (``cachedir.crash_point``):
mid-walk, with the new cache built but not swapped in, between the two renames that swap
it, mid-snapshot, at the census, and just before the snapshot is renamed into place. After
each kill: the snapshot's folder is no snapshot (no manifest), and ``render``, ``diff`` and
``recheck`` say there is none (exit 2); the next run takes the name (``--on-exists suffix``
takes the date itself, not ``<date>.2``); the cache never serves a torn entry; and every
run that completes writes the page a clean run writes, byte for byte, and leaves nothing
under a temporary name in the snapshot folder or the cache.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from survey.synth.cursor import generate
from tests.test_concurrency import figures, leftovers

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "-r", "cursor", "--root", "../corpus", "--snapshots", "S", "--reports", "R", "--date", "d",
       "--jobs", "1"]


def _survey(args: list[str], cwd: Path, cache: Path, crash: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "SURVEY_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    env.pop("SURVEY_TEST_CRASH_AT", None)
    if crash:
        env["SURVEY_TEST_CRASH_AT"] = crash
    return subprocess.run([sys.executable, "-m", "survey", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _killed_at(stage: str, cwd: Path, cache: Path, readers: bool = False) -> None:
    r = _survey(RUN, cwd, cache, crash=stage)
    assert r.returncode == -signal.SIGKILL, (stage, r.returncode, r.stderr)
    snap = cwd / "S" / "d" / "cursor"
    assert not (snap / "manifest.json").exists(), stage
    for args in () if not readers else (["render", "d", "-r", "cursor", "--snapshots", "S", "--reports", "R-x"],
                 ["diff", "d", "d", "-r", "cursor", "--snapshots", "S"],
                 ["recheck", "d", "-r", "cursor", "--root", "../corpus", "--snapshots", "S", "--reports", "R-x"]):
        seen = _survey(args, cwd, cache)
        assert seen.returncode == 2 and "no snapshot" in seen.stderr, (stage, args[0], seen.stderr)
        assert "Traceback" not in seen.stderr


def _completes(cwd: Path, cache: Path, clean_page: str, clean: dict, *extra: str) -> None:
    r = _survey([*RUN, *extra], cwd, cache)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in (cwd / "S").iterdir()) == ["d"]  # the date's own name, not d.2
    assert (cwd / "R" / "cursor.md").read_text() == clean_page
    assert figures(cwd / "S" / "d" / "cursor") == clean
    assert not leftovers(cwd / "S", cache)


def test_killed_runs_leave_no_snapshot_and_no_torn_cache(tmp_path: Path) -> None:
    generate(tmp_path / "corpus", seed=5)
    (tmp_path / "clean").mkdir()
    (tmp_path / "crash").mkdir()
    clean_run = _survey(RUN, tmp_path / "clean", tmp_path / "clean-cache")
    assert clean_run.returncode == 0, clean_run.stderr
    clean_page = (tmp_path / "clean" / "R" / "cursor.md").read_text()
    clean = figures(tmp_path / "clean" / "S" / "d" / "cursor")
    cwd, cache = tmp_path / "crash", tmp_path / "cache"

    # a first run (no cache yet), killed at each stage in turn: the cache is swapped in
    # whole before the snapshot is written, so the later kills find it and are served
    for stage in ("walk", "cache", "snapshot", "census", "commit"):
        # (the readers after the last: the whole snapshot, manifest and all, beside the claim)
        _killed_at(stage, cwd, cache, readers=stage == "commit")
    assert (cwd / "S" / "d" / ".cursor.tmp" / "manifest.json").is_file()
    assert (cache / "cursor").is_dir()
    _completes(cwd, cache, clean_page, clean, "--on-exists", "suffix")

    # a re-run whose cache is written again (a file's ctime moved: walked again, same bytes),
    # killed between the two renames that swap the cache: the next run finds no cache and
    # walks every file again, and its page is the clean run's
    shutil.rmtree(cwd / "S" / "d")
    victim = next(p for p in sorted((tmp_path / "corpus").rglob("*.jsonl")))
    st = victim.stat()
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    _killed_at("cache-swap", cwd, cache)
    # (killed between the renames: the old cache moved aside, the new one not yet in place)
    assert not [p for p in (cache / "cursor").iterdir() if p.is_dir() and "." not in p.name]
    assert list((cache / "cursor").glob("*.old-*")) and list((cache / "cursor").glob("*.tmp-*"))
    _completes(cwd, cache, clean_page, clean)


def test_snapshot_names_are_claimed_once(tmp_path: Path) -> None:
    """A name is held by one claim at a time; a claim let go (or a killed run's, empty) is
    taken again; a snapshot, or a folder of files without a manifest, is never taken, and
    the latter never emptied; ``suffix`` takes the first name none of those holds."""
    from survey.snapshot.store import claim, claim_free, refusal

    base = tmp_path / "S"
    held = claim(base / "d" / "cursor")
    assert held is not None and (base / "d" / "cursor").is_dir()
    assert claim(base / "d" / "cursor") is None  # (another open of it: the lock is held)
    assert "being written by another run" in str(refusal(base / "d" / "cursor"))
    got, name = claim_free(base, "d", "cursor")
    assert name == "d.2"
    got.release()
    assert not (base / "d.2" / "cursor").exists()  # let go: the empty claim removed
    held.release(remove=False)  # as a killed run leaves it: empty, no one holding it
    again = claim(base / "d" / "cursor")
    assert again is not None
    again.release()
    (base / "e" / "cursor").mkdir(parents=True)
    (base / "e" / "cursor" / "manifest.json").write_text("{}")
    (base / "f" / "cursor").mkdir(parents=True)
    (base / "f" / "cursor" / "notes.txt").write_text("mine")
    assert claim(base / "e" / "cursor") is None and claim(base / "f" / "cursor") is None
    assert "already exists" in str(refusal(base / "e" / "cursor"))
    assert "not a snapshot" in str(refusal(base / "f" / "cursor"))
    assert (base / "f" / "cursor" / "notes.txt").read_text() == "mine"
    (base / "f.2" / "cursor" / "manifest.json").parent.mkdir(parents=True)
    (base / "f.2" / "cursor" / "manifest.json").write_text("{}")
    got, name = claim_free(base, "f", "cursor")
    assert name == "f.3"
    got.release()
