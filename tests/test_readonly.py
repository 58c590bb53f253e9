"""The read-only proof: a whole survey (library and CLI) changes nothing under the root.

A generated Cursor corpus plus a SQLite database left in WAL mode (its ``-wal`` and ``-shm``
beside it, uncheckpointed) is made read-only; every entry's bytes hash, size, mtime_ns,
inode, mode and link target, and the full listing, are recorded; then ``run_survey`` and
``survey run`` / ``survey crawl`` run over it. Afterwards every record is identical and no
entry appeared (no ``-wal``, ``-shm`` or ``-journal`` either). The hashes are the proof: as
root, ``chmod a-w`` would not stop a write, so the test does not rely on it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey.pipeline import run_survey
from survey.runtimes import get
from survey.synth.cursor import generate

Record = tuple[str, int, int, int, int, str]

_WAL_DB = textwrap.dedent("""
    import os, sqlite3, sys
    con = sqlite3.connect(sys.argv[1])
    assert con.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("CREATE TABLE ItemTable (key TEXT PRIMARY KEY, value BLOB)")
    con.executemany("INSERT INTO ItemTable VALUES (?, ?)", [(f"k{i}", os.urandom(64)) for i in range(200)])
    con.commit()
    os._exit(0)  # no close, no checkpoint: the -wal and -shm stay, holding the rows
""")


def _record(path: str) -> Record:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        digest = "link:" + os.readlink(path)
    elif stat.S_ISREG(st.st_mode):
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        digest = h.hexdigest()
    else:
        digest = "dir" if stat.S_ISDIR(st.st_mode) else "special"
    return (stat.filemode(st.st_mode), st.st_size, st.st_mtime_ns, st.st_ino, st.st_nlink, digest)


def _state(root: Path) -> dict[str, Record]:
    out = {".": _record(str(root))}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            out[os.path.relpath(p, root)] = _record(p)
    return out


def _chmod_tree(root: Path, *, writable: bool) -> None:
    for dirpath, dirnames, filenames in os.walk(root, topdown=not writable):
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                continue
            mode = os.lstat(p).st_mode
            os.chmod(p, (mode | stat.S_IWUSR) if writable else (mode & ~0o222))
    mode = os.stat(root).st_mode
    os.chmod(root, (mode | stat.S_IWUSR) if writable else (mode & ~0o222))


@pytest.fixture
def frozen_corpus(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "projects"
    root.mkdir()
    generate(root, seed=7)
    store = next(root.iterdir()) / "state.vscdb"
    subprocess.run([sys.executable, "-c", _WAL_DB, str(store)], check=True, cwd=tmp_path, timeout=60)
    for suffix in ("-wal", "-shm"):
        assert Path(f"{store}{suffix}").stat().st_size > 0, f"the WAL database left no {suffix}"
    # a symlink too: it must be neither followed for writing nor replaced
    (root / "link-to-store").symlink_to(store.relative_to(root))
    _chmod_tree(root, writable=False)
    yield root
    _chmod_tree(root, writable=True)  # let tmp_path be cleaned up


def test_survey_writes_nothing_under_the_root(frozen_corpus: Path, tmp_path: Path) -> None:
    from survey import cli

    root = frozen_corpus
    before = _state(root)
    assert any(k.endswith("-wal") for k in before) and any(k.endswith("-shm") for k in before)
    assert all(not (stat.filemode(os.lstat(root / k).st_mode)[1:].count("w")) for k in before
               if not os.path.islink(root / k))

    res = run_survey(get("cursor"), root, snapshots=tmp_path / "snapshots", reports=tmp_path / "reports")
    assert res.files == sum(1 for k, r in before.items() if not r[0].startswith("d"))
    assert Path(res.snapshot).is_dir() and not Path(res.snapshot).is_relative_to(root)

    runner = CliRunner()
    r = runner.invoke(cli.app, ["run", "-r", "cursor", "--root", str(root), "--snapshots",
                                str(tmp_path / "cli-snapshots"), "--reports", str(tmp_path / "cli-reports"),
                                "--json"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli.app, ["crawl", "-r", "cursor", "--root", str(root), "--json"])
    assert r.exit_code == 0, r.output

    after = _state(root)
    appeared = sorted(set(after) - set(before))
    vanished = sorted(set(before) - set(after))
    changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    assert (appeared, vanished, changed) == ([], [], [])
    assert not [k for k in after if k.endswith(("-wal", "-shm", "-journal")) and k not in before]
