"""Where the survey keeps what it can always make again, outside every corpus root.

The walk's and the greps' per-file caches and the pages' compiled templates live under
``cache_base()``; runs at once on one root share its cache under its lock (``hold``), and
every file and folder is replaced in one rename, so a reader never finds half of one.
Nothing here imports the pipeline, so the renderer can use it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path


def cache_base() -> Path:
    """``$SURVEY_CACHE_DIR``, else the platform's user cache folder (``platformdirs``:
    ``$XDG_CACHE_HOME/survey`` or ``~/.cache/survey`` on Linux, ``~/Library/Caches/survey`` on
    macOS, ``%LOCALAPPDATA%\\survey\\Cache`` on Windows)."""
    env = os.environ.get("SURVEY_CACHE_DIR")
    if env:
        return Path(env)
    # (XDG_CACHE_HOME on Linux; macOS's and Windows' own places)
    from platformdirs import user_cache_path

    return user_cache_path("survey", appauthor=False)


def private_name(path: Path) -> Path:
    """A name beside ``path`` that no other process or thread uses (a dot, the name, this
    process's id and a random part): a temporary file's or folder's, renamed into place."""
    return path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` in one step (a private temp file beside it, then a rename),
    its folder made if need be: a reader sees the old file or the new, never half of one.
    Raises ``OSError`` where it could not be written."""
    tmp = private_name(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def replace_file(path: Path, data: bytes) -> bool:
    """``write_atomic``; False where it could not be written (the survey never depends on
    these files)."""
    try:
        write_atomic(path, data)
    except OSError:
        return False
    return True


def owner_only(folder: Path) -> None:
    """Make ``folder`` (and its parents) if need be, and leave it readable by its owner alone
    (mode 0700): a runtime's folder of root caches, whose walk parts hold keys before the
    rare-key collapse. A folder another user owns is left as it is (chmod would fail)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = folder.stat()
    if st.st_mode & 0o077 and st.st_uid == os.getuid():
        os.chmod(folder, 0o700)


def lock_file(cache_dir: Path) -> Path:
    """The lock of a root's cache folder (beside it: the folder itself is replaced whole)."""
    return cache_dir.with_name(cache_dir.name + ".lock")


@contextlib.contextmanager
def hold(cache_dir: Path, what: str = "another survey run of this root") -> Iterator[float]:
    """Hold the lock of the cache folder ``cache_dir`` (an exclusive ``flock``, let go when
    the process ends, however it ends); gives the seconds it waited. Where another process
    holds it, say so on stderr (one line) and wait. On taking it, what a killed holder left
    is removed (``sweep``).

    Runs at once on one root share its cache: each holds the root's lock (``hold``, an
    ``fcntl.flock`` on a file beside the cache, never inside a corpus root) while it reads and
    replaces it, and says on stderr, in one line, that it waits. Every file is written under a
    private temporary name and renamed into place (``write_atomic``), every folder built under
    one and renamed (``collect._write_cache``), so a reader, or a run after one killed midway,
    finds the old one or the new one, never half of one; what a killed run left under its
    temporary names is removed by the next holder of the lock (``sweep``).
    """
    path = lock_file(cache_dir)
    try:
        owner_only(path.parent)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # a cache folder it cannot write: no cache is written there either
        yield 0.0
        return
    try:
        waited = 0.0
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            sys.stderr.write(f"survey: waiting for {what} to finish with its cache (lock {path})\n")
            sys.stderr.flush()
            t = time.perf_counter()
            fcntl.flock(fd, fcntl.LOCK_EX)
            waited = time.perf_counter() - t
        sweep(cache_dir)
        yield waited
    finally:
        os.close(fd)  # (closing the last descriptor lets the lock go)


# what a run makes beside a root's cache folder under a temporary name: ``collect``'s new
# cache (``.tmp-<pid>``), the old one while they are swapped (``.old-<pid>``) and the walk's
# spilled parts (``.walk-…``)
SCRATCH = (".tmp-", ".old-", ".walk-")


def sweep(cache_dir: Path) -> None:
    """Remove what a run killed midway left beside ``cache_dir`` and in the stores beside it
    (``SCRATCH``; private temporary files, ``private_name``, and the census store's
    ``.*.tmp``). Called with the cache's lock held: no live run has any of them."""
    parent = cache_dir.parent
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for n in names:
        if n.startswith(cache_dir.name) and any(n[len(cache_dir.name):].startswith(s) for s in SCRATCH):
            shutil.rmtree(parent / n, ignore_errors=True)
        elif n.startswith(f".{cache_dir.name}.") and n.endswith(".tmp"):  # (``private_name``s beside it)
            with contextlib.suppress(OSError):
                os.unlink(parent / n)
    for folder in (cache_dir, *(parent / n for n in names if n.startswith(cache_dir.name + "."))):
        try:
            stale = [e.path for e in os.scandir(folder) if (e.name.startswith(".") and e.name.endswith(".tmp"))
                     or (".tmp-" in e.name and e.is_file(follow_symlinks=False))]
        except OSError:
            continue
        for p in stale:
            with contextlib.suppress(OSError):
                os.unlink(p)


CRASH_VARIABLE = "SURVEY_TEST_CRASH_AT"


def crash_point(stage: str) -> None:
    """For tests of what a killed run leaves: where ``$SURVEY_TEST_CRASH_AT`` names
    ``stage``, this process is killed here (SIGKILL: nothing of it runs after)."""
    if os.environ.get(CRASH_VARIABLE) == stage:
        os.kill(os.getpid(), signal.SIGKILL)
