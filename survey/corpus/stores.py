"""SQLite stores, read strictly read-only and never in place, as records for the walk.

Some runtimes keep sessions in SQLite (Cursor's CLI ``store.db``, the desktop app's
``state.vscdb``); opening a live one with SQLite, even "read-only", can create or recover
its ``-wal``/``-shm`` sidecars beside it, so this module never does (``copy_store``). Each
store is read with the stdlib ``sqlite3`` into ``(facts, records)`` for the walk, and its
failures are counted outcomes (``OUTCOMES``), never exceptions."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import sqlite3
import stat
import tempfile
import urllib.parse
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import xxhash

Record = tuple[str, str, Any, int]
UNPARSED = "unparsed"  # a record's status while its obj is still its JSON text (below)
# What comes back is what ``Walker.walk_sqlite`` expects from a profile's ``store_reader``:
# ``(facts, records)``. ``facts`` is a flat dict of scalars — counts, booleans, outcome names
# and *known* table names joined by ``","`` — and is live: a reader finishes it (tallies,
# ordering checks, a mid-read failure) as its records are consumed, and the walk reads it only
# after the records are exhausted. ``records`` yields ``(rclass, status, obj | None, nbytes)``:
# ``rclass`` is a record kind from a fixed list (never a key's id part, a blob id or any text),
# ``status`` is ``ok`` / ``non_json`` / ``corrupt`` / ``not_object`` / ``null`` / ``opaque``, or
# ``UNPARSED`` with ``obj`` the record's JSON text (the desktop reader hands every record
# over so, having parsed the few it tallies): the walk reads it on the C core's tape, as it
# does a JSONL line, or else parses it with the reader's ``parse`` (``_classify_bytes``), as
# the Python walker always does. A reader's ``probes`` (record kind -> a top-level key and a
# tally) have the walk hand that key's object to the tally with the facts: a bubble's
# thinking block, found on the tape of the walk's own pass.
# Every fact a reader sets is declared in its template, so every store of a runtime has the
# same columns whatever its outcome (the walk turns facts into the ``stores`` table).
#
# Why a few census figures are facts rather than walked values: the walk records strings as
# gated values per path and lengths per file, so a figure that needs *two strings of one
# record judged together* (thinking text blank while its signature is set) or *ids compared
# across records* (a composer's bubble list against the rowid order of its bubble keys) is
# tallied here (or by a probe the walk applies), as counts only, from objects in hand anyway. Numbers per record
# (``_v``, token counts) come from the walk's ``numbers`` table instead.
Facts = dict[str, Any]
Reader = Callable[[str | os.PathLike[str]], tuple[Facts, Iterator[Record]]]

MAGIC = b"SQLite format 3\x00"
CHUNK = 1 << 20
MEMORY_MAX = 16 << 20  # a store without a -wal up to this size is read into memory, not copied
# (it is held twice for a moment, as bytes and in SQLite: 32 MB per worker at most)
IN_PLACE = True  # a larger store without a -wal is read where it lies (immutable=1), not copied

# Outcomes a store can end with; "ok" is the only one that yields every record.
OUTCOMES = ("ok", "zero_byte", "not_a_database", "truncated", "corrupt", "locked", "unreadable",
            "vanished")

# Facts every store carries, whatever the reader (the reader adds its own on top).
COMMON_FACTS: Facts = {
    "status": "ok",
    "error_class": "",  # the classified sqlite3 error behind a failure ("" when none)
    "tables": "",  # known table names present, sorted, joined by ","
    "tables_other": 0,  # tables outside the known list (counted, never named)
    "wal_present": False,
    "wal_bytes": 0,
    "shm_present": False,
    "journal_present": False,  # a rollback journal beside the store (not copied, counted)
    "changed_during_read": False,  # size, mtime or inode moved while the store was copied or read
    "journal_mode_wal": False,  # header bytes 18/19 == 2: the store is in WAL mode
    "rows_seen": 0,  # rows of the known tables, read through the WAL
    "rows_wal_only": 0,  # rowids present with the WAL, absent from the bare db
    "rows_wal_deleted": 0,  # rowids present in the bare db, gone once the WAL applies
    "rows_before_failure": 0,  # records yielded before a mid-read failure
    "records": 0,  # records yielded
    "nbytes": 0,
    "hash": "",
}


# --------------------------------------------------------------------------- copying


@dataclass
class StoreCopy:
    """A private copy of one store: the folder and the db copy, or the db's bytes in memory
    (``dir`` and ``db`` None), and what was found beside it."""

    dir: Path | None
    db: Path | None
    nbytes: int
    hash: str
    wal_present: bool
    wal_bytes: int
    shm_present: bool
    journal_present: bool
    changed: bool
    bare: Path | None = None  # the db without its WAL (made only when a WAL was copied)
    data: bytes | None = None  # the db's bytes, until SQLite has them (in memory only)
    head: bytes = b""  # the db's first 100 bytes
    in_place: os.stat_result | None = None  # read where it lies (``db`` is the store): its stat then
    schema: bytes | None = None  # in memory: the bytes its schema is read from (``_schema_bytes``)

    def cleanup(self) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


def _open_regular(src: str) -> tuple[int, os.stat_result]:
    """An fd on the store itself and its stat: never through a link, never waiting on a fifo
    (``O_NONBLOCK`` does nothing to a regular file); ``OSError`` for anything else."""
    fd = os.open(src, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _hashed(fd: int, out: Any = None) -> tuple[int, str, bytes]:
    """Read ``fd`` to its end: (bytes, the walk's content hash, the first 100 bytes), each
    chunk also written to ``out`` if given."""
    h = xxhash.xxh3_128()  # the walk's content hash (census.walk.HashingReader)
    n, head = 0, b""
    while True:
        b = os.read(fd, CHUNK)
        if not b:
            break
        if n == 0:
            head = b[:100]
        h.update(b)
        if out is not None:
            out.write(b)
        n += len(b)
    return n, h.hexdigest(), head


def _moved(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_size, a.st_mtime_ns, a.st_ino) != (b.st_size, b.st_mtime_ns, b.st_ino)


def copy_store(path: str | os.PathLike[str]) -> StoreCopy:
    """Read ``path`` into memory, or hash it to be read in place, or copy it (and its
    ``-wal``/``-shm``) into a fresh private temp folder.

    A live store is a database file plus, while its writer runs, a ``-wal`` (rows not yet
    checkpointed into the file) and a ``-shm`` (the WAL index):

    1. **Read into memory, read in place, or copy.** A store with no ``-wal`` beside it and at
       most ``MEMORY_MAX`` bytes is read (and hashed) into memory and handed to SQLite with
       ``Connection.deserialize``: nothing is written anywhere, and no folder is made and removed
       per store (most of a Cursor chats corpus is ~25 KB stores; that round trip was most of
       their walk). A WAL-mode header is read as a rollback-journal one there (SQLite's memory
       database has no WAL; with no ``-wal`` there is nothing it could apply). A larger store
       with no ``-wal`` is hashed, then opened where it lies with ``file:DB?mode=ro&immutable=1``:
       SQLite then takes no lock, never looks for or makes a sidecar and writes nothing
       (``IN_PLACE``; a 1.5 GB store's copy cost 0.5-6 s of its walk and 1.5 GB of temp space).
       Its size, mtime and inode are compared again once its records are read:
       ``changed_during_read`` says they moved. Otherwise (a ``-wal`` is there) ``db``, ``db-wal``
       and ``db-shm`` if present are copied into a private ``tempfile.mkdtemp()`` folder (the db
       bytes are hashed while copying) and the copy is opened with ``file:COPY?mode=ro``, never
       ``immutable=1``, because an immutable open ignores the WAL and would silently miss its
       rows. SQLite may create a ``-shm`` beside the *copy*; that is the point of the private
       folder. This module opens the store itself without following a link and without waiting
       (``O_NOFOLLOW | O_NONBLOCK``), and anything but a regular file is ``unreadable``: a store
       that became a fifo since the crawl does not hang the walk.
    2. **Rows that lived only in the WAL.** When a ``-wal`` was copied, a second, bare copy of
       the db (no sidecars) is attached with ``immutable=1`` (safe: that folder holds no WAL), so
       ``rows_wal_only`` / ``rows_wal_deleted`` count rowids seen with the WAL but not without it,
       and the other way round. (A separate file, not a hard link: SQLite shares its locks per
       inode within a process, and two opens of one inode with different sidecars misbehave.)
    3. **Failures are counted outcomes, never exceptions**: ``zero_byte``, ``not_a_database``
       (no SQLite header, or SQLite says so), ``truncated`` (shorter than the header's own page
       count, or not a whole number of pages), ``corrupt`` (any other ``sqlite3.DatabaseError``,
       e.g. "database disk image is malformed"), ``locked``, ``unreadable``, ``vanished``. A
       store that fails before its first row yields no records at all; one that fails mid-read
       keeps what it yielded and turns its status to the failure (``rows_before_failure``).
    4. **The temp folder is always removed**: at once when the store fails to open, otherwise
       when its record iterator is exhausted or closed (``try/finally``), and by a finalizer when
       the store object is garbage-collected (an iterator never started runs no ``finally``).

    Raises ``FileNotFoundError`` / ``OSError`` (the caller classifies them); on any error the
    temp folder is removed before the exception leaves.
    """
    # the sidecars' names as strings: pathlib's work per store was a tenth of a chat store's walk
    src = os.fspath(path)
    wal = os.path.lexists(src + "-wal")
    fd, st0 = _open_regular(src)
    try:
        if not wal and st0.st_size <= MEMORY_MAX and (mem := _read_in_memory(src, fd, st0)) is not None:
            return mem
        if not wal and IN_PLACE:
            os.lseek(fd, 0, os.SEEK_SET)
            nbytes, digest, head = _hashed(fd)
            return StoreCopy(None, Path(src), nbytes, digest, False, 0, os.path.exists(src + "-shm"),
                             os.path.exists(src + "-journal"),
                             _moved(st0, os.fstat(fd)) or nbytes != st0.st_size, head=head, in_place=st0)
        return _copy(Path(src), fd, st0)
    finally:
        os.close(fd)


def _copy(src: Path, fd: int, st0: os.stat_result) -> StoreCopy:
    tmp = Path(tempfile.mkdtemp(prefix="survey-store-"))
    try:
        live = tmp / "live"
        live.mkdir()
        db = live / src.name
        os.lseek(fd, 0, os.SEEK_SET)
        with open(db, "wb") as fo:
            nbytes, digest, head = _hashed(fd, fo)
        st1 = os.fstat(fd)
        changed = _moved(st0, st1) or nbytes != st1.st_size
        wal_bytes = 0
        present = {}
        for suffix in ("-wal", "-shm"):
            side = src.with_name(src.name + suffix)
            try:
                shutil.copyfile(side, live / side.name)  # refuses a fifo (SpecialFileError)
                present[suffix] = True
                if suffix == "-wal":
                    wal_bytes = (live / side.name).stat().st_size
            except FileNotFoundError:
                present[suffix] = False
        journal = src.with_name(src.name + "-journal").exists()
        out = StoreCopy(tmp, db, nbytes, digest, present["-wal"], wal_bytes, present["-shm"],
                        journal, changed, head=head)
        if out.wal_present:
            bare_dir = tmp / "bare"
            bare_dir.mkdir()
            out.bare = bare_dir / src.name
            shutil.copyfile(db, out.bare)
        return out
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _read_in_memory(src: str, fd: int, st0: os.stat_result) -> StoreCopy | None:
    """The store's bytes, read from ``fd``; None when it has grown past ``MEMORY_MAX`` (then
    it is read in place, or copied). Each read asks for the size the stat saw plus one byte
    (a read of ``MEMORY_MAX`` made and dropped a 16 MB buffer for every 25 KB store)."""
    chunks, n = [], 0
    while n <= MEMORY_MAX:
        b = os.read(fd, min(MEMORY_MAX + 1 - n, max(st0.st_size + 1 - n, 1 << 16)))
        if not b:
            break
        chunks.append(b)
        n += len(b)
    if n > MEMORY_MAX:
        return None
    data = b"".join(chunks)
    st1 = os.fstat(fd)
    changed = _moved(st0, st1) or len(data) != st1.st_size
    return StoreCopy(None, None, len(data), xxhash.xxh3_128(data).hexdigest(), False, 0,
                     os.path.exists(src + "-shm"),  # as a copy would find it
                     os.path.exists(src + "-journal"), changed, data=data, head=data[:100])


def sqlite_uri(path: str | os.PathLike[str]) -> str:
    """``path`` as an SQLite URI: a ``?``, ``#`` or ``%`` in a name would end or change it, so
    every byte but ``/`` and the unreserved ones is %-escaped."""
    return "file:" + urllib.parse.quote(os.fsencode(path), safe="/")


def _connect(copy: StoreCopy, wal_mode: bool) -> sqlite3.Connection:
    """A read-only connection to the copy, to the store in place, or to its bytes in memory."""
    if copy.data is None:
        assert copy.db is not None
        flags = "mode=ro&immutable=1" if copy.in_place is not None else "mode=ro"
        return sqlite3.connect(f"{sqlite_uri(copy.db)}?{flags}", uri=True, timeout=0, check_same_thread=False)
    data = copy.data
    copy.schema = _schema_bytes(data)
    try:
        con, schema = _SPARE.pop()  # one pop: another thread may be reading a store too
        if copy.schema is None or schema != copy.schema:  # prepared for another schema
            con.close()
            con = _memory_connection()
    except IndexError:
        con = _memory_connection()
    try:
        if wal_mode:  # header bytes 18/19: WAL -> rollback journal (see the module's docstring)
            data = data[:18] + b"\x01\x01" + data[20:]
        con.deserialize(data)
    except BaseException:
        con.close()
        raise
    copy.data = None  # SQLite holds its own copy now
    return con


# An in-memory store's connection is kept, once its store is closed cleanly, for the next
# store this process reads, with the statements Python's cache keeps prepared: opening and
# closing a connection per store, and preparing each statement for each store, were a
# quarter of a walk of 38k small chat stores (one process: 17.2-20.4 s against 12.1-13.3 s;
# the connection kept without its statements, 15.7-16.1 s). A kept connection only ever
# takes a new store's bytes (``deserialize``) with none of its statements open:
# ``Store.close`` closes the cursors it handed out first (a deserialize under a stepped
# statement crashes the process). Its prepared statements serve only a store whose schema
# is the same to the byte (``_schema_bytes``): SQLite runs a prepared statement on new bytes
# without preparing it again where the schema cookie agrees, and would read tables at the
# last store's root pages. A store that failed, or was read from a file, closes its
# connection; at most one waits; a fork's child starts without it.
_SPARE: list[tuple[sqlite3.Connection, bytes]] = []
os.register_at_fork(after_in_child=_SPARE.clear)


def _memory_connection() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:", check_same_thread=False)
    con.execute("PRAGMA query_only = ON")  # a connection's own setting: it outlives a deserialize
    return con


def _schema_bytes(data: bytes | None) -> bytes | None:
    """What a store's schema is read from, where that is its first page alone: the header's
    fields that shape it (page size, reserved bytes, schema cookie and format, encoding) and
    page 1, the schema table's only page (a leaf) with no record spilling to an overflow
    page. Two stores with the same bytes here have the same tables at the same root pages.
    None when the schema may reach past page 1 (a kept connection's statements then serve
    no other store)."""
    if data is None or len(data) < 108:
        return None
    size = int.from_bytes(data[16:18], "big")
    size = 65536 if size == 1 else size
    if size < 512 or len(data) < size or data[100] != 0x0D:  # 0x0D: a table b-tree leaf
        return None
    usable = size - data[20]
    cells = int.from_bytes(data[103:105], "big")
    if 108 + 2 * cells > size:  # its cell pointers would run past the page
        return None
    for k in range(cells):
        at = int.from_bytes(data[108 + 2 * k:110 + 2 * k], "big")
        payload, n = 0, 0
        while n < 9 and at + n < size:  # the cell's payload size (a varint)
            b = data[at + n]
            payload = (payload << 7) | (b & 0x7F)
            n += 1
            if b < 0x80:
                break
        if at + n >= size or payload > usable - 35:  # past the page: part of it overflows
            return None
    return data[16:24] + data[40:72] + data[100:size]


# --------------------------------------------------------------------------- classifying


def header_outcome(head: bytes, nbytes: int, wal_present: bool) -> tuple[str | None, bool]:
    """Judge a copy by its first 100 bytes: (failure outcome or None, WAL-mode flag).

    ``truncated`` is decided here only without a WAL: with one, pages past the end of the
    file may legitimately live in the WAL, and a real shortfall shows up as a read error.
    """
    if nbytes == 0:
        return "zero_byte", False
    if len(head) < 100 or not head.startswith(MAGIC):
        return "not_a_database", False
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return "not_a_database", False
    wal_mode = head[18] == 2 and head[19] == 2
    if not wal_present:
        change, pages, valid_for = (int.from_bytes(head[i:i + 4], "big") for i in (24, 28, 92))
        if nbytes % page_size:
            return "truncated", wal_mode
        if pages and change == valid_for and nbytes < pages * page_size:
            return "truncated", wal_mode
    return None, wal_mode


def classify_error(exc: BaseException, nbytes: int = 0, expected: int | None = None) -> str:
    """A failure's outcome name from its exception (message text is matched, never kept)."""
    msg = str(exc).lower()
    if isinstance(exc, FileNotFoundError):
        return "vanished"
    if isinstance(exc, sqlite3.DatabaseError):
        if "not a database" in msg or "encrypted" in msg:
            return "not_a_database"
        if "locked" in msg or "busy" in msg:
            return "locked"
        if "unable to open" in msg:
            return "unreadable"
        if expected is not None and nbytes < expected:
            return "truncated"
        return "corrupt"
    if isinstance(exc, OSError):
        return "unreadable"
    return "corrupt"


def _error_class(exc: BaseException) -> str:
    """A short, fixed label for the error (type and a known phrase; never the message)."""
    msg = str(exc).lower()
    for phrase in ("not a database", "malformed", "locked", "busy", "unable to open", "disk i/o",
                   "no such table", "no such column", "encrypted"):
        if phrase in msg:
            return f"{type(exc).__name__}: {phrase}"
    return type(exc).__name__


def _expected_size(head: bytes) -> int | None:
    if len(head) < 32:
        return None
    ps = int.from_bytes(head[16:18], "big")
    ps = 65536 if ps == 1 else ps
    return int.from_bytes(head[28:32], "big") * ps


# --------------------------------------------------------------------------- a session


class Store:
    """An open, read-only view of one copied store (``con``), plus its facts.

    Use :func:`open_store`; close with :meth:`close` (idempotent). ``fail`` records a
    mid-read failure in the facts.
    """

    def __init__(self, copy: StoreCopy, con: sqlite3.Connection, facts: Facts,
                 tables: list[str]) -> None:
        self.copy = copy
        self.con = con
        self.facts = facts
        self.tables = tables
        self._cursors: list[sqlite3.Cursor] = []  # ``rows``': closed before the connection is kept
        # the schema the connection's statements were prepared for, if it may serve the next
        # in-memory store (``_SPARE``); None: it may not
        self._reuse: list[bytes | None] = [copy.schema if copy.db is None else None]
        # A record iterator that is never started never runs its ``finally``: the finalizer
        # still removes the temp folder when the store is garbage-collected.
        self._finalizer = weakref.finalize(self, _close, con, copy.dir, self._cursors, self._reuse)

    def close(self) -> None:
        """Close the connection and remove the temp folder (idempotent). A store read in
        place is looked at once more: ``changed_during_read`` if it moved while read."""
        st0 = self.copy.in_place
        if st0 is not None and self._finalizer.alive:
            assert self.copy.db is not None
            try:
                moved = _moved(st0, os.stat(self.copy.db, follow_symlinks=False))
            except OSError:
                moved = True
            if moved:
                self.facts["changed_during_read"] = True
        self._finalizer()

    def fail(self, exc: BaseException) -> None:
        self._reuse[0] = None
        f = self.facts
        f["status"] = classify_error(exc, self.copy.nbytes, _expected_size(self.copy.head))
        f["error_class"] = _error_class(exc)
        f["rows_before_failure"] = f["records"]

    def rows(self, sql_with_rowid: str, sql_plain: str) -> Iterator[tuple]:
        """Rows in rowid order when the table has rowids, else in storage order."""
        try:
            cur = self.con.execute(sql_with_rowid)
        except sqlite3.OperationalError as exc:
            if "rowid" not in str(exc).lower():
                raise
            cur = self.con.execute(sql_plain)
        self._cursors.append(cur)
        while True:
            batch = cur.fetchmany(256)
            if not batch:
                return
            yield from batch


def _close(con: sqlite3.Connection, folder: Path | None, cursors: list[sqlite3.Cursor] | None = None,
           reuse: list[bytes | None] | None = None) -> None:
    try:
        schema = reuse[0] if reuse else None
        keep = schema is not None and not _SPARE
        try:
            for cur in cursors or ():
                cur.close()
        except sqlite3.Error:
            keep = False
        if keep:
            _SPARE.append((con, schema))  # type: ignore[arg-type]
        else:
            con.close()
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def open_store(path: str | os.PathLike[str], facts: Facts, known_tables: tuple[str, ...]) -> Store | None:
    """Copy and open a store; fill the common facts. None (and the temp folder gone) on failure."""
    try:
        copy = copy_store(path)
    except Exception as exc:  # every failure is a counted outcome
        facts["status"] = classify_error(exc)
        facts["error_class"] = _error_class(exc)
        return None
    facts.update(nbytes=copy.nbytes, hash=copy.hash, wal_present=copy.wal_present,
                 wal_bytes=copy.wal_bytes, shm_present=copy.shm_present,
                 journal_present=copy.journal_present, changed_during_read=copy.changed)
    outcome, wal_mode = header_outcome(copy.head, copy.nbytes, copy.wal_present)
    facts["journal_mode_wal"] = wal_mode
    if outcome is not None:
        facts["status"] = outcome
        copy.cleanup()
        return None
    con: sqlite3.Connection | None = None
    try:
        con = _connect(copy, wal_mode)
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        present = sorted(t for t in names if t in known_tables)
        facts["tables"] = ",".join(present)
        facts["tables_other"] = len([t for t in names if t not in known_tables and not t.startswith("sqlite_")])
        # one statement for every table's rows (a statement is a few µs of a 25 KB store's walk)
        counts = " + ".join(f'(SELECT count(*) FROM "{t}")' for t in present)
        facts["rows_seen"] = con.execute(f"SELECT {counts}").fetchone()[0] if present else 0
        if copy.bare is not None:
            con.execute("ATTACH ? AS bare", (f"{sqlite_uri(copy.bare)}?immutable=1",))
            bare_tables = {r[0] for r in con.execute("SELECT name FROM bare.sqlite_master WHERE type = 'table'")}
            only = gone = 0
            for t in present:
                if t not in bare_tables:
                    only += con.execute(f'SELECT count(*) FROM main."{t}"').fetchone()[0]
                    continue
                try:
                    only += con.execute(f'SELECT count(*) FROM main."{t}" WHERE rowid NOT IN '
                                        f'(SELECT rowid FROM bare."{t}")').fetchone()[0]
                    gone += con.execute(f'SELECT count(*) FROM bare."{t}" WHERE rowid NOT IN '
                                        f'(SELECT rowid FROM main."{t}")').fetchone()[0]
                except sqlite3.OperationalError:  # WITHOUT ROWID: row counts only
                    a = con.execute(f'SELECT count(*) FROM main."{t}"').fetchone()[0]
                    b = con.execute(f'SELECT count(*) FROM bare."{t}"').fetchone()[0]
                    only += max(0, a - b)
                    gone += max(0, b - a)
            facts["rows_wal_only"] = only
            facts["rows_wal_deleted"] = gone
            con.execute("DETACH bare")
        return Store(copy, con, facts, present)
    except Exception as exc:  # classified and counted
        facts["status"] = classify_error(exc, copy.nbytes, _expected_size(copy.head))
        facts["error_class"] = _error_class(exc)
        facts["rows_seen"] = 0
        if con is not None:
            con.close()
        copy.cleanup()
        return None


def _new_facts(template: Facts) -> Facts:
    return {**COMMON_FACTS, **template}


def facts_template(reader: str) -> Facts:
    """The full fact dict (defaults) a ``module.function`` store reader fills in."""
    import importlib

    mod_name, _, fn = reader.rpartition(".")
    obj = getattr(importlib.import_module(mod_name), fn)
    return _new_facts(getattr(obj, "facts", {}))


def empty_facts_table(reader: str) -> Any:
    """An empty ``stores`` table with the reader's fact columns (for a run with no store)."""
    import polars as pl

    kinds = {bool: pl.Boolean, int: pl.Int64, float: pl.Float64, str: pl.String}
    t = facts_template(reader)
    schema = {"file_id": pl.String, **{k: kinds.get(type(v), pl.String) for k, v in t.items()
                                       if k not in ("hash", "nbytes")}}
    return pl.DataFrame(schema=schema)


def _bytes(v: Any) -> bytes | None:
    if v is None:
        return None
    if isinstance(v, bytes | bytearray | memoryview):
        return bytes(v)
    if isinstance(v, str):
        return v.encode("utf-8", "surrogatepass")
    return str(v).encode()


def looks_like_protobuf(data: bytes) -> bool:
    """True when ``data`` parses as a sequence of top-level protobuf fields, end to end."""
    i, n = 0, len(data)
    if n == 0:
        return False

    def varint(j: int) -> tuple[int, int] | None:
        shift = val = 0
        while j < n and shift < 64:
            b = data[j]
            val |= (b & 0x7F) << shift
            j += 1
            if not b & 0x80:
                return val, j
            shift += 7
        return None

    while i < n:
        t = varint(i)
        if t is None:
            return False
        tag, i = t
        wire, field = tag & 7, tag >> 3
        if field == 0:
            return False
        if wire == 0:
            t = varint(i)
            if t is None:
                return False
            i = t[1]
        elif wire == 1:
            i += 8
        elif wire == 2:
            t = varint(i)
            if t is None:
                return False
            i = t[1] + t[0]
        elif wire == 5:
            i += 4
        else:
            return False
        if i > n:
            return False
    return True


# The bytes a JSON text may begin with, after its whitespace
_JSON_FIRST = frozenset(b'{["-0123456789tfn')


def _classify_bytes(data: bytes) -> tuple[str, Any]:
    """(status, obj): ``ok`` with an object, ``not_object``, ``corrupt`` (JSON-looking but
    broken) or ``non_json``. Bytes that cannot begin a JSON text (a protobuf blob) are
    ``non_json`` without a parse, whose error costs a Python exception each."""
    head = data.lstrip()[:1]  # past bytes.lstrip's whitespace (a little more than JSON's)
    if not head or head[0] not in _JSON_FIRST:
        return "non_json", None
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return ("corrupt" if head in (b"{", b"[") else "non_json"), None
    if isinstance(obj, dict):
        return "ok", obj
    return "not_object", None


# --------------------------------------------------------------------------- the CLI chat store

CHAT_TABLES = ("blobs", "meta")
CHAT_ROLES = ("system", "user", "assistant", "tool")
_HEX = re.compile(r"^(?:[0-9a-fA-F]{2})+$")


def chat_role_class(obj: dict) -> str:
    """A chat blob's record class: its role when known, else a fixed placeholder."""
    role = obj.get("role")
    if isinstance(role, str):
        return role if role in CHAT_ROLES else "<unknown-role>"
    return "<no-role>"


def decode_meta0(value: Any) -> tuple[str, Any]:
    """(encoding, object) of a meta ``"0"`` cell: ``hex`` of JSON, plain ``json``, or
    ``undecodable``. The object is None unless it decoded."""
    raw = _bytes(value)
    if raw is None:
        return "null", None
    text = raw.strip()
    if _HEX.match(text.decode("ascii", "replace")):
        try:
            return "hex", orjson.loads(bytes.fromhex(text.decode("ascii")))
        except (ValueError, orjson.JSONDecodeError):
            pass
    try:
        return "json", orjson.loads(text)
    except orjson.JSONDecodeError:
        return "undecodable", None


def _id_is_sha256(blob_id: Any, data: bytes) -> bool:
    if isinstance(blob_id, bytes | bytearray | memoryview):
        b = bytes(blob_id)
        if len(b) == 32:
            return b == hashlib.sha256(data).digest()
        blob_id = b.decode("ascii", "replace")
    if isinstance(blob_id, str):
        return blob_id.lower() == hashlib.sha256(data).hexdigest()
    return False


CHAT_FACTS: Facts = {
    "blob_rows": 0,
    "id_is_sha256_true": 0,
    "id_is_sha256_false": 0,
    "meta_rows": 0,
    "meta0_encoding": "absent",  # hex | json | undecodable | null | absent
    "meta_other_keys": 0,  # meta rows other than "0" (counted, never named)
    "created_out_of_order": 0,  # JSON blobs whose createdAt is below an earlier row's
    # declared links the reader compares itself (Profile.declared_links, compared_by="reader"):
    # a store counts 1 under matched or unmatched where meta "0" names the id, else neither
    "link_root_blob_matched": 0,  # latestRootBlobId names a blob of this store
    "link_root_blob_unmatched": 0,
    "link_workspace_md5_matched": 0,  # MD5 of workspacePath is the bucket folder's name
    "link_workspace_md5_unmatched": 0,
}


def read_chat_store(path: str | os.PathLike[str]) -> tuple[Facts, Iterator[Record]]:
    """A Cursor CLI ``store.db``: meta ``"0"`` first (``rclass="meta:0"``), then every blob in
    rowid order (``rclass`` = role, ``<unknown-role>``, ``<no-role>``, ``blob:protobuf``,
    ``blob:binary`` or ``blob:json`` for JSON-looking bytes that do not parse)."""
    facts = _new_facts(CHAT_FACTS)
    store = open_store(path, facts, CHAT_TABLES)
    if store is None:
        return facts, iter(())
    return facts, _chat_records(store, Path(path).parent.parent.name)


read_chat_store.facts = CHAT_FACTS  # type: ignore[attr-defined]


def _blob_id_text(blob_id: Any) -> str:
    """A blob id as lower-case text: 32 raw bytes as hex, other bytes decoded, text as is."""
    if isinstance(blob_id, bytes | bytearray | memoryview):
        b = bytes(blob_id)
        return b.hex() if len(b) == 32 else b.decode("utf-8", "replace").lower()
    return str(blob_id).lower()


def _chat_records(store: Store, bucket: str = "") -> Iterator[Record]:
    """``bucket``: the name of the store's workspace folder, compared (never emitted) with the
    MD5 of meta ``"0"``'s ``workspacePath``."""
    f = store.facts
    root_blob: str | None = None  # meta "0"'s latestRootBlobId, until a blob of that id is read
    root_named = False
    try:
        if "meta" in store.tables:
            for key, value in store.rows("SELECT key, value FROM meta ORDER BY rowid",
                                         "SELECT key, value FROM meta"):
                f["meta_rows"] += 1
                if str(key) != "0":
                    f["meta_other_keys"] += 1
                    continue
                enc, obj = decode_meta0(value)
                f["meta0_encoding"] = enc
                if isinstance(obj, dict):
                    rb, ws = obj.get("latestRootBlobId"), obj.get("workspacePath")
                    if isinstance(rb, str):
                        root_blob, root_named = rb.lower(), True
                    if isinstance(ws, str) and bucket:
                        same = hashlib.md5(ws.encode("utf-8", "surrogatepass")).hexdigest() == bucket.lower()
                        f["link_workspace_md5_matched" if same else "link_workspace_md5_unmatched"] += 1
                raw = _bytes(value) or b""
                f["records"] += 1
                if isinstance(obj, dict):
                    yield "meta:0", "ok", obj, len(raw)
                else:
                    yield "meta:0", "not_object" if enc in ("hex", "json") else "non_json", None, len(raw)
        if "blobs" in store.tables:
            latest: int | None = None
            for blob_id, value in store.rows("SELECT id, data FROM blobs ORDER BY rowid",
                                             "SELECT id, data FROM blobs"):
                data = _bytes(value) or b""
                f["blob_rows"] += 1
                if root_blob is not None and _blob_id_text(blob_id) == root_blob:
                    root_blob = None  # found
                f["id_is_sha256_true" if _id_is_sha256(blob_id, data) else "id_is_sha256_false"] += 1
                status, obj = _classify_bytes(data)
                f["records"] += 1
                if obj is not None:
                    ts = obj.get("createdAt")
                    if isinstance(ts, int) and not isinstance(ts, bool):
                        if latest is not None and ts < latest:
                            f["created_out_of_order"] += 1
                        latest = ts if latest is None else max(latest, ts)
                    yield chat_role_class(obj), "ok", obj, len(data)
                elif status == "non_json":
                    yield ("blob:protobuf" if looks_like_protobuf(data) else "blob:binary"), status, None, len(data)
                else:
                    yield "blob:json", status, None, len(data)
        if root_named:
            f["link_root_blob_unmatched" if root_blob is not None else "link_root_blob_matched"] += 1
    except sqlite3.DatabaseError as exc:
        store.fail(exc)
    finally:
        store.close()


# --------------------------------------------------------------------------- the desktop store

DESKTOP_TABLES = ("ItemTable", "cursorDiskKV", "composerHeaders")
KEY_KINDS = ("composerData", "bubbleId", "checkpointId", "messageRequestContext",
             "codeBlockDiff", "agentKv", "composerVirtualRowHeights")
"""``cursorDiskKV`` key kinds (the text before the first ``:``) named on pages; any other kind
is ``<unknown-kind>``. ``agentKv`` cells are counted, never decoded."""
OPAQUE_KINDS = frozenset({"agentKv"})
ITEM_KEYS = {
    "glass.localAgentProjects.v1": "item_agent_projects",
    "glass.localAgentProjectMembership.v1": "item_agent_membership",
    "composer.composerHeaders.migratedToTable": "item_headers_migrated",
}

DESKTOP_FACTS: Facts = {
    "has_composer_headers": False,
    "composer_headers_rows": 0,
    "item_table_rows": 0,
    "item_agent_projects": False,
    "item_agent_membership": False,
    "item_headers_migrated": False,
    "kv_rows": 0,
    "kv_null": 0,
    "thinking_with_text": 0,
    "thinking_signature_only": 0,
    "thinking_blank": 0,
    "composers": 0,
    "composers_ordered_by_headers": 0,  # composerData holds fullConversationHeadersOnly
    "composers_ordered_by_rowid": 0,  # it does not: bubbles fall back to rowid order
    "composers_rowid_order_differs": 0,  # the header list and rowid order disagree
    "composers_header_set_differs": 0,  # the list names bubbles the store lacks, or vice versa
    # composers (composerData cells) with and without bubbleId rows of their id in the store,
    # and those marked isDraft (in composerData or in their composerHeaders head)
    "composers_with_bubbles": 0,
    "composers_without_bubbles": 0,
    "composers_drafts": 0,
    "composers_drafts_without_bubbles": 0,
}


# a key's first ``:`` part -> its kind, for the known kinds only (the reader's loop looks a
# kind up here once per record, as key_kind does)
_KIND = {k: k for k in KEY_KINDS}


def key_kind(key: Any) -> str:
    """The kind of a ``cursorDiskKV`` key: a known kind, or ``<unknown-kind>``. The id parts
    after the first ``:`` are never returned."""
    k = key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
    return _KIND.get(k.split(":", 1)[0], "<unknown-kind>")


def read_desktop_store(path: str | os.PathLike[str]) -> tuple[Facts, Iterator[Record]]:
    """Cursor desktop ``state.vscdb``: one record per ``composerHeaders`` row (its ``value``
    JSON, ``rclass="composerHeaders"``), then one per ``cursorDiskKV`` row in rowid order
    (``rclass`` = key kind). ``ItemTable`` is counted (rows, and whether the Agents-sidebar
    keys exist), never walked."""
    facts = _new_facts(DESKTOP_FACTS)
    store = open_store(path, facts, DESKTOP_TABLES)
    if store is None:
        return facts, iter(())
    return facts, _desktop_records(store)


read_desktop_store.facts = DESKTOP_FACTS  # type: ignore[attr-defined]
read_desktop_store.parse = _classify_bytes  # type: ignore[attr-defined]  # of UNPARSED records


def _tally_thinking(f: Facts, th: dict) -> None:
    """A bubble's ``thinking`` object, judged as a whole: text, a signature alone, or blank."""
    text, sig = th.get("text"), th.get("signature")
    if isinstance(text, str) and text.strip():
        f["thinking_with_text"] += 1
    elif sig:
        f["thinking_signature_only"] += 1
    else:
        f["thinking_blank"] += 1


# A record kind -> (a top-level key, its tally): the walk hands the key's value, where it is
# an object, to the tally with the store's facts. The C core finds the key on the tape of
# the walk's own pass and hands over the value's text alone; before, the reader searched
# every bubble's text for the key (spelled plainly or with \u escapes) and parsed those
# that might hold it whole: 1.5 s of a 1.5 GB store's 10 s walk, in one process.
read_desktop_store.probes = {"bubbleId": ("thinking", _tally_thinking)}  # type: ignore[attr-defined]


def _digest(s: Any) -> int:
    """An id's stand-in in the ordering check: equal ids give equal numbers in this process
    (Python's salted str hash, 64 bits; a BLAKE2b digest per id cost 5 % of the desktop
    store's walk). Never kept past the store, never written."""
    return hash(s if type(s) is str else str(s))


def _desktop_records(store: Store) -> Iterator[Record]:
    f = store.facts
    # ordering check, on 64-bit hashes of ids (never kept as text, never emitted)
    rowid_order: defaultdict[int, list[int]] = defaultdict(list)
    listed: dict[int, list[int]] = {}
    drafts: set[int] = set()  # composers marked isDraft (64-bit hashes of their ids)
    composer_ids: set[int] = set()
    try:
        f["has_composer_headers"] = "composerHeaders" in store.tables
        if "ItemTable" in store.tables:
            for (key,) in store.rows("SELECT key FROM ItemTable ORDER BY rowid", "SELECT key FROM ItemTable"):
                f["item_table_rows"] += 1
                name = ITEM_KEYS.get(key if isinstance(key, str) else "")
                if name:
                    f[name] = True
        if "composerHeaders" in store.tables:
            for (value,) in store.rows("SELECT value FROM composerHeaders ORDER BY rowid",
                                       "SELECT value FROM composerHeaders"):
                f["composer_headers_rows"] += 1
                data = _bytes(value)
                f["records"] += 1
                if data is None:
                    yield "composerHeaders", "null", None, 0
                    continue
                status, obj = _classify_bytes(data)
                if type(obj) is dict and obj.get("isDraft") is True and isinstance(obj.get("composerId"), str):
                    drafts.add(_digest(obj["composerId"]))
                yield "composerHeaders", status, obj, len(data)
        if "cursorDiskKV" in store.tables:
            # the loop runs once per record (543k in a 1.5 GB store): its tallies are local
            # ints until the end, its calls inlined (_bytes, _digest of a str)
            kv_rows = 0
            try:
                # a TEXT value comes as its bytes: not decoded to a str only to be encoded back
                # (and a value that is not UTF-8 is one record's outcome, not the store's end)
                as_bytes = "CASE WHEN typeof(value) = 'text' THEN CAST(value AS BLOB) ELSE value END"
                for key, value in store.rows(f"SELECT key, {as_bytes} FROM cursorDiskKV ORDER BY rowid",
                                             f"SELECT key, {as_bytes} FROM cursorDiskKV"):
                    kv_rows += 1
                    if type(key) is not str:
                        key = key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
                    parts = key.split(":")
                    kind = _KIND.get(parts[0], "<unknown-kind>")  # key_kind's lookup: never an id part
                    data = value if value is None or type(value) is bytes else _bytes(value)
                    if kind in OPAQUE_KINDS:
                        yield kind, "opaque", None, len(data or b"")
                        continue
                    if kind == "bubbleId" and len(parts) >= 3:
                        rowid_order[hash(parts[1])].append(hash(parts[2]))  # _digest of a str
                    if data is None:
                        f["kv_null"] += 1
                        yield kind, "null", None, 0
                        continue
                    # composers tallied from the parsed object (bubbles' thinking blocks by
                    # the walk: ``probes``). Every record goes to the walk as its text, these
                    # too: the C core walks JSON text faster than it walks the parsed object
                    # (the store's walk: 7 % less CPU)
                    if kind == "composerData":
                        _, obj = _classify_bytes(data)
                        if len(parts) >= 2:
                            composer_ids.add(_digest(parts[1]))
                        if obj is not None:
                            _tally_composer(f, obj, listed, parts)
                            if obj.get("isDraft") is True and len(parts) >= 2:
                                drafts.add(_digest(parts[1]))
                    yield kind, UNPARSED, data, len(data)
            finally:
                f["kv_rows"] += kv_rows
                f["records"] += kv_rows
        for cid, order in listed.items():
            have = rowid_order.get(cid, [])
            if order != have:
                f["composers_rowid_order_differs"] += 1
            if sorted(order) != sorted(have):
                f["composers_header_set_differs"] += 1
        _tally_empty(f, composer_ids, rowid_order, drafts)
    except sqlite3.DatabaseError as exc:
        store.fail(exc)
    finally:
        store.close()


def _tally_empty(f: Facts, composer_ids: set[int], with_rows: Any, drafts: set[int]) -> None:
    """Composers with and without bubbleId rows of their id, and the drafts among them."""
    for cid in composer_ids:
        has = cid in with_rows
        f["composers_with_bubbles" if has else "composers_without_bubbles"] += 1
        if cid in drafts:
            f["composers_drafts"] += 1
            f["composers_drafts_without_bubbles"] += not has


def _tally_composer(f: Facts, obj: dict, listed: dict[int, list[int]], parts: list[str]) -> None:
    f["composers"] += 1
    headers = obj.get("fullConversationHeadersOnly")
    if isinstance(headers, list):
        f["composers_ordered_by_headers"] += 1
        cid = _digest(parts[1]) if len(parts) >= 2 else -1  # no hash is -1
        listed[cid] = [_digest(h.get("bubbleId")) for h in headers if isinstance(h, dict)]
    else:
        f["composers_ordered_by_rowid"] += 1


__all__ = [
    "CHAT_ROLES", "COMMON_FACTS", "KEY_KINDS", "OUTCOMES", "UNPARSED", "Store", "StoreCopy", "chat_role_class",
    "classify_error", "copy_store", "decode_meta0", "empty_facts_table", "facts_template",
    "header_outcome", "key_kind", "looks_like_protobuf", "open_store", "read_chat_store",
    "read_desktop_store", "sqlite_uri",
]
