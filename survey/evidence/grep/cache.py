"""Per-file counts and the cache that keeps them between runs: each file named by its salted
pseudonym and keyed by the stat the crawl saw, one Parquet file per scope beside the walk's
cache. A re-run reads only new or changed files and sums the same figures a fresh run would."""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, repeat
from pathlib import Path

import duckdb
import polars as pl

from survey.corpus.crawl import binary_paths
from survey.corpus.privacy import pseudonym
from survey.evidence.grep import commands, reads, scopes
from survey.runtimes.base import Scope
from survey.shared import ref_numbers
from survey.snapshot.store import WRITE_OPTIONS

CACHE_VERSION = "2"  # 2: Parquet frames, the signature in the file name


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


def _keys(root: Path, files: Iterable[str], known: scopes.Known | None, distinct: bool = False) -> Keys:
    """Each listed file's key (``Keys``), the crawl's by a join on its path, else a fresh
    stat of a file the crawl did not see; a file gone since it was listed is left out.
    ``distinct``: no file is listed twice (one glob's listing, rg's): not made distinct
    again (567k names: 0.17 s)."""
    names = list(files) if distinct else list(dict.fromkeys(files))
    want = binary_paths(names).alias("path").to_frame()
    got = (want.join(known.rows, on="path", how="left", maintain_order="left") if known is not None
           else want.with_columns(pl.lit(None, dtype=dt).alias(c) for c, dt in scopes.KNOWN_SCHEMA.items() if c != "path"))
    got = got.drop("path")
    unseen = got["file_id"].is_null()
    if unseen.any():  # stat'ed here, one by one (few: files made since the crawl, or no crawl)
        at = unseen.arg_true().to_list()
        file_key = scopes._file_key
        stats = [file_key(os.path.join(root, names[i])) for i in at]
        gone = {i for i, k in zip(at, stats, strict=True) if k is None}
        at, fresh = [i for i in at if i not in gone], [k for k in stats if k is not None]
        if fresh:
            idx = pl.Series(at, dtype=pl.UInt32)
            got = got.with_columns(got[c].scatter(idx, pl.Series(vals, dtype=pl.Int64))
                                   for c, vals in zip(scopes.KNOWN_SCHEMA.names()[2:], zip(*fresh, strict=True), strict=True))
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
    return reads.NATIVE is not None and reads.NATIVE.same_names(raw, prefix, keys.names) is True


# -- the per-file grep cache ------------------------------------------------------------------


def _signature(scope: Scope, literals: list[str]) -> str:
    """Everything that shapes a file's counts besides its bytes."""
    from survey import __version__

    h = hashlib.sha256()
    rg = commands.rg_binary()
    rg_key = scopes._file_key(rg)
    parts = [CACHE_VERSION, __version__, duckdb.__version__, rg, repr(rg_key and rg_key[:2]),
             repr(scope.duckdb_globs), repr(scope.rg_globs), repr(literals)]
    for p in parts:
        h.update(p.encode() + b"\0")
    for f in (commands.GREP_SQL, *sorted(Path(__file__).parent.glob("*.py"))):  # the greps' code
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


def _plus(a: list[int], b: list[int]) -> list[int]:
    return [x + y for x, y in zip(a, b, strict=True)]


def _zeros(literals: list[str]) -> dict[str, dict]:
    return {lit: {"files_scanned": 0, "bytes_scanned": 0, "files_not_utf8": 0, "files_matched": 0,
                  "occurrences": 0} for lit in literals}
