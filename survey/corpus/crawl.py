"""Crawl a root read-only into an inventory: one row per file, every file, by class.

The crawl only ``stat``s: it opens no file and follows no symlink, so it is safe on a live
store. Each entry is classified by the first profile surface whose regex matches its
relative path (anything else is ``other``, and symlinks, special files and unreadable folders
are rows with their ``problem``), and is named by salted pseudonyms, never by its path."""

from __future__ import annotations

import array
import errno
import functools
import hashlib
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from survey.corpus.privacy import pseudonyms
from survey.native import NATIVE
from survey.runtimes.base import Profile
from survey.shared import ref_numbers

# how a relative path from os.scandir becomes bytes and back (os.fsencode/os.fsdecode): a
# name that is not UTF-8 comes as lone surrogates, which a polars string cannot hold
_FS = (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())


def path_bytes(rel: str) -> bytes:
    """A path from os.scandir as bytes (``os.fsencode``, without its type checks)."""
    return rel.encode(*_FS)


def binary_paths(rels: list[str]) -> pl.Series:
    """``path_bytes`` of each path as one Binary column: through a polars string where every
    name is UTF-8 (no Python object per name), else name by name."""
    try:
        return pl.Series(rels, dtype=pl.String).cast(pl.Binary)
    except (UnicodeEncodeError, pl.exceptions.PolarsError):
        return pl.Series(list(map(path_bytes, rels)), dtype=pl.Binary)


def path_text(raw: bytes) -> str:
    """Bytes of ``path_bytes`` as the path os.scandir gave (``os.fsdecode``)."""
    return raw.decode(*_FS)


NAMES_SCHEMA = {"file_id": pl.String, "path": pl.Binary}


def file_ids(salt: bytes, rels: list[str]) -> pl.Series:
    """The ``file_id`` of each relative path (``privacy.pseudonym(salt, rel, "f")``) as one
    column: from the C core, where it is built, as an Arrow column hashed on two threads
    without the GIL (567k names: 0.13 s as str objects read back by polars, 0.06 s so),
    else through ``pseudonyms``."""
    if NATIVE is not None:
        return pl.Series(NATIVE.pseudonym_column(salt, "f", rels, "file_id"))
    return pl.Series("file_id", pseudonyms(salt, rels, "f"), dtype=pl.String)


def int64s(name: str, packed: array.array) -> pl.Series:
    """A column of the native int64s in ``packed`` (an ``array('q')``): from its bytes where
    the C core is built (polars reads an array value by value: 567k values 12 -> 3 ms)."""
    if NATIVE is not None:
        return pl.Series(NATIVE.int64_column(name, packed))
    return pl.Series(name, packed, dtype=pl.Int64)


def ids_distinct(ids: pl.Series) -> bool:
    """Are these file_ids distinct? Counted as their 64 bits where each is a pseudonym
    (``ref_numbers``; 567k ids read from Parquet: 0.064 -> 0.026 s), else as strings. Never
    True for ids that are not: two ids with one number (``f-..ff`` and ``g-..FF``) count as
    one, so an odd pair can only send a caller to its join."""
    nums = ref_numbers(ids, strict=False)
    return (nums if not nums.null_count() else ids).n_unique() == len(ids)


def join_ids(left: pl.DataFrame, right: pl.DataFrame, distinct: bool | None = None) -> pl.DataFrame:
    """``left.join(right, on="file_id", how="left", maintain_order="left")``; where both hold
    the same ids in the same order (the crawl's frame and its paths), and ``right``'s are
    distinct, ``right``'s other columns set beside ``left``'s, which is the same frame
    without a join: 567k synthetic ids 0.055 -> 0.027 s (the check that they are distinct
    0.025 s of it); in a re-run, on real frames, 0.054-0.057 -> 0.033-0.062 s.

    Joined on the ids' 64 bits (an earlier form), this was slower than the string join
    (572k ids, real frames, six joins of a re-run: 0.66 against 0.53 s): the numbers cost
    0.035 s a join, and the string join had been slow (0.23 s) only while the frames it
    joined held their ids scattered in memory (sorted by size, which ``collect`` no longer
    does).

    ``distinct``: whether ``right``'s ids are known to be distinct (None: counted,
    ``ids_distinct``: in a re-run that changed nothing, the crawl's kept classes and the walk
    cache's rows are joined to ids equal to theirs, 567k of them, 0.10-0.17 s a count as
    strings)."""
    lk, rk = left.get_column("file_id"), right.get_column("file_id")
    if lk.dtype == rk.dtype == pl.String and len(lk) == len(rk) and not lk.null_count() \
            and not set(left.columns) & (set(right.columns) - {"file_id"}) \
            and lk.equals(rk) and (distinct if distinct is not None else ids_distinct(rk)):
        return left.hstack(right.drop("file_id").get_columns())
    return left.join(right, on="file_id", how="left", maintain_order="left")


def _no_names() -> pl.DataFrame:
    return pl.DataFrame(schema=NAMES_SCHEMA)


@dataclass
class Inventory:
    """The crawl's result: a polars frame plus the local-only path of each file_id.

    ``frame`` holds pseudonyms, never paths: ``file_id`` and the session/parent ids are
    salted HMACs. The relative paths stay in memory (``names``) for the stages that must open
    the files, and never reach a snapshot: a frame of their own, as bytes (a dict of 567k
    paths held 243 MB, the Binary column 23 MB)."""

    frame: pl.DataFrame
    # file_id -> relative path, as os.fsencode gives it (local only: never written)
    names: pl.DataFrame = field(default_factory=_no_names)
    # a path's class (``classifier``): the children's raw session ids come from it on demand
    classify: Callable[[str], tuple] | None = None
    # are the ids of ``names`` distinct (None: not yet counted; ``with_names`` counts once)
    names_distinct: bool | None = None
    # was every regular file's class taken from the kept ``classes`` (none new to classify)?
    # Then the kept file, if still there, says what ``save_classes`` would write again
    classes_kept: bool = False

    def with_names(self, frame: pl.DataFrame) -> pl.DataFrame:
        """``frame`` (with a ``file_id`` column) with each row's relative path as bytes
        (``path``, null where the crawl did not list it), in ``frame``'s order."""
        ids = frame.get_column("file_id")
        if self.names_distinct is None and len(ids) == self.names.height and ids.equals(self.names["file_id"]):
            self.names_distinct = ids_distinct(self.names["file_id"])
        return join_ids(frame, self.names, self.names_distinct)

    def paths_of(self, file_ids: pl.Series | Iterable[str]) -> list[str | None]:
        """The relative paths (as os.scandir gave them) of these file_ids, in their order."""
        ids = (file_ids.alias("file_id").to_frame() if isinstance(file_ids, pl.Series)
               else pl.DataFrame({"file_id": list(file_ids)}, schema={"file_id": pl.String}))
        return [None if b is None else path_text(b) for b in self.with_names(ids)["path"].to_list()]

    def child_session_ids(self, file_ids: list[str]) -> dict[str, bytes]:
        """The raw session id of each of these children, from its path as the crawl read it
        (local only: searched for in the parent's bytes, never written or kept), as the bytes
        of its file name: a name that is not UTF-8 is searched for as it is on disk."""
        if self.classify is None or not file_ids:
            return {}
        got = {fid: self.classify(p)[2] for fid, p in zip(file_ids, self.paths_of(file_ids), strict=True)
               if p is not None}
        return {fid: path_bytes(s) for fid, s in got.items() if s}


SCHEMA: dict[str, Any] = {
    "file_id": pl.String,
    "surface": pl.String,
    "kind": pl.String,
    "ext": pl.String,
    "session_id": pl.String,
    "parent_id": pl.String,
    "ids_agree": pl.Boolean,
    "size": pl.Int64,
    "mtime": pl.Datetime("us", "UTC"),
    "mtime_ns": pl.Int64,
    "ctime_ns": pl.Int64,
    "inode": pl.Int64,
    "stratum": pl.String,
    "problem": pl.String,
}


# The columns a file's relative path decides (``classes``), and the kinds of row that are
# not a regular file's (their class comes from the folder walk itself, never a regex)
CLASS_COLUMNS = ("surface", "kind", "ext", "session_id", "parent_id", "ids_agree")
NOT_FILES = ("dir", "link", "special")


def classes_signature(profile: Profile) -> str:
    """What decides a path's class: this module's code and the profile's surfaces. The
    classes of an earlier crawl are used only under the same signature.

    A file's class (surface, kind, extension, session and parent pseudonyms) is a function
    of its relative path alone, and its ``file_id`` is that path's HMAC, so a re-run takes
    the class of each file it has seen from the last crawl and runs the regexes on new names
    only. A child's raw session id (the lineage check) is kept nowhere: it is read from its
    path again only where its parent is walked (``Inventory.child_session_ids``)."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(repr([(s.name, s.pattern, s.kind) for s in profile.surfaces]).encode())
    return h.hexdigest()[:24]


def classes(frame: pl.DataFrame) -> pl.DataFrame:
    """The class of each regular file of a crawl's ``frame`` (``file_id`` and
    ``CLASS_COLUMNS``), for the next crawl of the same root to take (``crawl(known=...)``)."""
    regular = ~pl.col("kind").is_in(NOT_FILES) & pl.col("mtime").is_not_null()
    return frame.filter(regular).select("file_id", *CLASS_COLUMNS)


CLASSES_FILE = "crawl.parquet"


def load_classes(cache_dir: Path | None, profile: Profile) -> pl.DataFrame | None:
    """The ``classes`` kept in ``cache_dir`` by the last crawl of this root, or None where
    there are none, they cannot be read, or they were made under another signature."""
    f = cache_dir / CLASSES_FILE if cache_dir is not None else None
    if f is None or not f.exists():
        return None
    try:
        kept = pl.read_parquet(f)
    except (OSError, pl.exceptions.PolarsError):
        return None  # an unreadable cache is no cache
    if "sig" not in kept.columns or kept.height == 0 or kept["sig"][0] != classes_signature(profile):
        return None
    return kept.drop("sig")


def save_classes(cache_dir: Path, frame: pl.DataFrame, profile: Profile, kept: bool = False) -> None:
    """Keep the ``classes`` of this crawl's ``frame`` in ``cache_dir`` (outside the corpus:
    pseudonyms and classes only, as the snapshot's inventory holds), replaced in one step.
    ``kept``: every class was taken from the kept file (``Inventory.classes_kept``), which,
    where it is still there, is left as it is (567k files: 0.11-0.12 s of writing it again;
    the rows it holds of files gone since are never asked for, and go with the next new
    name)."""
    if kept and (cache_dir / CLASSES_FILE).exists():
        return
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = cache_dir / f"{CLASSES_FILE}.tmp-{os.getpid()}"
    # lz4, as the survey's other tables (``snapshot.store.WRITE_OPTIONS``): written every run
    classes(frame).with_columns(sig=pl.lit(classes_signature(profile))).write_parquet(tmp, compression="lz4")
    os.replace(tmp, cache_dir / CLASSES_FILE)


def ext_of(name: str) -> str:
    """A file's class among unknown files: its extension (``Path(name).suffix``, lower
    case), or ``(none)``/``(dotfile)``. ``name`` may be a relative path: its last part counts."""
    i, j = name.rfind("."), name.rfind("/")
    if i == j + 1:  # the name's only dot leads it (".env"; a name is never "." or "..")
        return "(dotfile)"
    # pathlib's rule for a suffix: a dot after the name's first character, not its last
    return _ext_class(name[i:] if i > j + 1 and i < len(name) - 1 else "")


@functools.lru_cache(maxsize=4096)  # a corpus has few suffixes: each is judged once
def _ext_class(suffix: str) -> str:
    suffix = suffix.lower()
    if not suffix or len(suffix) > 12 or not suffix[1:].replace("_", "").replace("-", "").isalnum():
        return "(none)"
    return suffix


STRATUM_FORMAT = {"month": "%Y-%m", "day": "%Y-%m-%d", "year": "%Y"}


def _strata(mtime: pl.Expr, by: str) -> pl.Expr:
    """The mtime stratum (``month``, ``day``, ``quarter``, ``year``) of each file, vectorised."""
    if by == "quarter":
        return pl.format("{}-Q{}", mtime.dt.year(), mtime.dt.quarter())
    return mtime.dt.strftime(STRATUM_FORMAT.get(by, "%Y-%m"))


NUMBERS = ("size", "mtime_ns", "ctime_ns", "inode")  # the crawl's int64 columns of a row

# scan_dir's kinds, one byte an entry, and its numbers an entry (size, mtime_ns, ctime_ns,
# inode, uid, mode)
_FILE, _DIR, _LINK, _SPECIAL, _ERROR = b"fdlse"
_EMPTY = ord("e")  # a problem byte (``tree_rows``): an empty file
_UNLISTED = ord("u")  # (scan_tree's only) a folder that could not be listed, where its entries would be
SCAN_FIELDS = 6
# threads of the C core's scan_tree: on two cores, 42k folders of Claude Code sessions listed
# in 0.38 s against 0.94 s with one (the rg listing that runs beside it takes one core too)
SCAN_TREE_THREADS = 2


def _stat4(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def scan_dir(path: str) -> tuple[list[str], bytes, bytes]:
    """One folder's entries: (names, kinds, numbers), a kind one byte of ``kinds`` (f file,
    d folder, l symlink, s other, e an entry lstat failed on) and ``numbers`` six native
    int64 an entry (``SCAN_FIELDS``: lstat's size, mtime_ns, ctime_ns, inode, uid, mode);
    folders and symlinks are not stat'ed (readdir's type says what they are) and their
    numbers are 0. Where the C core is built, its ``scan_tree`` lists the whole tree (the
    same kinds and numbers) and this is not called. Raises OSError when the folder cannot be
    listed."""
    names: list[str] = []
    kinds = bytearray()
    nums = array.array("q")
    with os.scandir(path) as it:
        for e in it:
            names.append(e.name)
            try:
                if e.is_symlink():
                    k, st = _LINK, None
                elif e.is_dir(follow_symlinks=False):
                    k, st = _DIR, None
                else:
                    st = e.stat(follow_symlinks=False)
                    k = _FILE if stat.S_ISREG(st.st_mode) else _SPECIAL
            except OSError:
                k, st = _ERROR, None
            kinds.append(k)
            nums.extend((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_uid, st.st_mode)
                        if st else (0,) * SCAN_FIELDS)
    return names, bytes(kinds), nums.tobytes()


CHUNK_ROWS = 8192
# the crawl's columns that often hold one value in a whole chunk (None for a deferred class
# or no problem, a flag, a surface or an extension): counted, then made as one column
# (``crawl``'s ``flush``)
CONSTANT = frozenset({*CLASS_COLUMNS, "problem", "_stat", "_defer"})
DRAIN_ROWS = 4096  # files' paths held before their path columns are filled (``drain``)


class _Rows:
    """The inventory's rows, gathered as columns (one append per field, no dict per file) and
    turned into a frame every ``CHUNK_ROWS`` entries, so the Python objects of at most one
    chunk are alive at a time (they are several times the frame's size, and memory Python has
    once taken it rarely gives back).

    Regular files' paths wait in ``pend`` until a few thousand are in hand: the columns that
    come from a path (its extension and class) are then filled in one pass each, not once per
    folder (a chat store has a folder of its own: 116k folders of one file at 1 GB). Every
    other row drains them first (``add``), so the rows keep the order they were found in."""

    def __init__(self, salt: bytes, classify: Callable[[str], tuple], defer: bool, progress) -> None:
        self.salt, self.classify, self.defer, self.progress = salt, classify, defer, progress
        # the numbers as packed int64 (``array``), the C core's ``tree_rows`` columns as they come
        self.cols: dict[str, Any] = {k: array.array("q") if k in NUMBERS else [] for k in SCHEMA
                                     if k not in ("mtime", "stratum")}
        self.has_stat: list[bool] = []
        self.deferred: list[bool] = []  # per row, with ``defer``: its class is left to the end
        self.rels: list[str] = []  # per row: the relative path, named (file_id) when the chunk is flushed
        self.names: list[pl.DataFrame] = []
        self.chunks: list[pl.DataFrame] = []
        self.schema = {**{k: v for k, v in SCHEMA.items() if k in self.cols}, "_stat": pl.Boolean,
                       **({"_defer": pl.Boolean} if defer else {})}
        self.pend: list[str] = []
        self.pend_problems: list[str | None] = []
        self.pend_bytes = 0

    def add(self, rel: str, surface: str, kind: str, st: tuple[int, int, int, int] | None,
            problem: str | None) -> None:
        """One row that is not a readable regular file's (those come by ``take_rows``); st:
        (size, mtime_ns, ctime_ns, inode), or None where the entry has no stat."""
        if self.pend:
            self.drain()
        c = self.cols
        self.rels.append(rel)
        for k, v in (("surface", surface), ("kind", kind), ("ext", ext_of(rel)), ("session_id", None),
                     ("parent_id", None), ("ids_agree", None), ("problem", problem)):
            c[k].append(v)
        for k, num in zip(NUMBERS, st or (0, 0, 0, 0), strict=True):
            c[k].append(num)
        self.has_stat.append(st is not None)
        if self.defer:
            self.deferred.append(False)
        if len(self.has_stat) >= CHUNK_ROWS:
            self.flush()

    def take_rows(self, rs: list[str], numbers: list[bytes] | None, problems: list[str | None],
                  nbytes: int) -> None:
        """Regular files' rows: their paths, their numbers (packed size, mtime_ns, ctime_ns
        and inode, from the C core; None where the caller added them) and problems."""
        if numbers is not None:
            for k, b in zip(NUMBERS, numbers, strict=True):
                self.cols[k].frombytes(b)
        self.pend.extend(rs)
        self.pend_problems.extend(problems)
        self.pend_bytes += nbytes
        if len(self.pend) >= DRAIN_ROWS:
            self.drain()

    def drain(self) -> None:
        pend, c = self.pend, self.cols
        n = len(pend)
        if not n:
            return
        self.rels.extend(pend)
        if self.defer:  # classified at the end: from ``known``, or by the regexes if new
            unknown = [None] * n
            for k in CLASS_COLUMNS:
                c[k].extend(unknown)
            self.deferred.extend([True] * n)
        else:
            c["ext"].extend(map(ext_of, pend))
            for k, vals in zip(("surface", "kind", "session_id", "parent_id", "ids_agree"),
                               zip(*map(self.classify, pend), strict=True), strict=True):
                c[k].extend(vals)
        self.has_stat.extend([True] * n)
        c["problem"].extend(self.pend_problems)
        if self.progress is not None:
            self.progress(n, self.pend_bytes)
        pend.clear()
        self.pend_problems.clear()
        self.pend_bytes = 0
        if len(self.has_stat) >= CHUNK_ROWS:
            self.flush()

    def flush(self) -> None:
        # the chunk's names in one call each (the C core hashes them without a Python call
        # per name); a row's session and parent ids are still the raw ids here
        c, rels, salt = self.cols, self.rels, self.salt
        fids = file_ids(salt, rels)
        # each raw session or parent id -> its pseudonym (a session's files share it), for
        # this chunk only: one dict for the whole crawl held every id seen, 567k captures'
        # ids and pseudonyms (about 130 MB) to the end
        n = len(rels)
        sess, parent = c["session_id"], c["parent_id"]
        if sess.count(None) < n or parent.count(None) < n:  # (a re-run defers them all)
            sess[:], parent[:] = _id_pseudonyms(salt, sess, parent)
        self.names.append(pl.DataFrame({"file_id": fids, "path": binary_paths(rels)}, schema=NAMES_SCHEMA))
        # a column of one value made as one (a re-run defers the six class columns, most
        # files have no problem, and all of a chunk's files may have a stat), not from a
        # list polars scans for a value and then reads item by item: 567k files 0.25 ->
        # 0.1 s; the numbers from their packed bytes
        schema = self.schema
        self.chunks.append(pl.DataFrame(
            {k: fids if k == "file_id" else int64s(k, v) if k in NUMBERS
             else pl.Series(k, v[:1], dtype=schema[k]).new_from_index(0, n)
             if k in CONSTANT and n and v.count(v[0]) == n else v
             for k, v in {**c, "_stat": self.has_stat, **({"_defer": self.deferred} if self.defer else {})}.items()},
            schema=schema))
        for col in (*c.values(), self.has_stat, rels, self.deferred):
            del col[:]

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Every row as one frame, and the paths' frame beside it (same order)."""
        self.drain()
        self.flush()
        return pl.concat(self.chunks, rechunk=True), pl.concat(self.names, rechunk=True)


class _Lister:
    """Lists a root into ``_Rows``: by the C core's ``scan_tree`` (``native``) or folder by
    folder with ``scan_dir`` (``python``), the same rows in the same order either way.
    ``scan_tree`` lists folders side by side in threads and hands back every entry at once,
    in the order the folder-by-folder loop meets them, so the rows are taken a chunk of files
    at a time, not a folder at a time."""

    def __init__(self, root: Path, profile: Profile, rows: _Rows) -> None:
        self.root, self.rows, self.classify = root, rows, rows.classify
        # might any surface match? One regex for all (their groups unnamed): most folders match
        # none. A pattern that cannot be joined (a global flag, a back reference) leaves every
        # folder to classify().
        try:
            any_surface = re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[^>]+>', '(?:', s.pattern)})"
                                              for s in profile.surfaces) or "(?!)", re.DOTALL)
        except re.error:
            any_surface = re.compile("")
        self.named_like_file = any_surface.match
        self.euid = os.geteuid() if hasattr(os, "geteuid") else -1
        self.base_dir = os.path.join(os.fspath(root), "")  # with its separator: a path by one concatenation

    def problems(self, rs: list[str], codes: bytes, check: list[int]) -> list[str | None]:
        """Regular files' problems from their problem bytes (0 none, e empty, as the C core
        gives them), and an access() call for the ones in ``check``."""
        problems: list[str | None] = ([None] * len(rs) if _EMPTY not in codes
                                      else [None if c == 0 else "empty" for c in codes])
        for k in check:
            if not os.access(self.base_dir + rs[k], os.R_OK):
                problems[k] = "unreadable"
        return problems

    def native(self) -> None:
        """Every row from the C core's ``scan_tree`` of the root (its entries in the order
        ``python`` meets them): the regular files a range at a time, and a row for each other
        entry that has one. Folders that make no row (most) are passed over, not visited."""
        assert NATIVE is not None
        paths, offsets, kinds, packed = NATIVE.scan_tree(os.fspath(self.root), SCAN_TREE_THREADS)
        off = memoryview(offsets).cast("q")
        nums = memoryview(packed).cast("q")

        def add_range(lo: int, hi: int) -> None:
            assert NATIVE is not None
            while lo < hi:
                lo, rs, *numbers, codes, check, nbytes = NATIVE.tree_rows(paths, offsets, kinds, packed, lo, hi,
                                                                          CHUNK_ROWS, self.euid)
                if rs:
                    self.rows.take_rows(rs, numbers, self.problems(rs, codes, check), nbytes)

        lo = 0  # the first entry whose file rows are not yet taken
        for m in re.finditer(rb"[^f]", kinds):  # (most are folders that make no row)
            i = m.start()
            k, rel = kinds[i], os.fsdecode(paths[off[i]:off[i + 1]])
            if k == _DIR and not self.named_like_file(rel):
                continue
            add_range(lo, i)
            lo = i + 1
            if k == _UNLISTED:
                self.rows.add(rel, "other", "dir", None, "unreadable_dir")
            else:
                self.other(rel, k, nums, SCAN_FIELDS * i)
        add_range(lo, len(kinds))

    def python(self) -> None:
        """Folder by folder (``scan_dir``), each folder's entries in name order."""
        stack = [""]
        while stack:
            reldir = stack.pop()
            full = self.base_dir + reldir if reldir else os.fspath(self.root)
            try:
                listed, kinds, packed = scan_dir(full)
            except OSError:
                self.rows.add(reldir or ".", "other", "dir", None, "unreadable_dir")
                continue
            nums = memoryview(packed).cast("q")  # a Python int made only for the rows in hand
            prefix = f"{reldir}/" if reldir else ""
            run: list[int] = []  # consecutive regular files, added together
            for i in sorted(range(len(listed)), key=listed.__getitem__):
                k = kinds[i]
                if k == _FILE:
                    run.append(i)
                    continue
                if run:
                    self.add_files(prefix, listed, nums, run)
                    run = []
                self.other(prefix + listed[i], k, nums, SCAN_FIELDS * i)
                if k == _DIR:
                    stack.append(prefix + listed[i])
            if run:
                self.add_files(prefix, listed, nums, run)

    def add_files(self, prefix: str, listed: list[str], nums: memoryview, run: list[int]) -> None:
        """Rows for the regular files ``run`` (indices into the folder's ``scan_dir`` names
        and numbers), a column at a time: a Python call per row cost a third of the crawl."""
        c = self.rows.cols
        for lo in range(0, len(run), CHUNK_ROWS):
            at = [SCAN_FIELDS * i for i in run[lo:lo + CHUNK_ROWS]]
            sz = [nums[j] for j in at]
            c["size"].extend(sz)
            for f, k in enumerate(NUMBERS[1:], 1):
                c[k].extend([nums[j + f] for j in at])
            # a file we own with its owner-read bit set is readable (its mode bits are the
            # owner's ACL entry): only other files cost an access() call (5 us a file)
            rs = [prefix + listed[i] for i in run[lo:lo + CHUNK_ROWS]]
            check = [k for k, j in enumerate(at) if not (nums[j + 4] == self.euid and nums[j + 5] & stat.S_IRUSR)]
            self.rows.take_rows(rs, None, self.problems(rs, bytes(0 if n else _EMPTY for n in sz), check), sum(sz))

    def other(self, rel: str, k: int, nums: memoryview, j: int) -> None:
        """The row of an entry that is not a regular file, if it has one."""
        add = self.rows.add
        if k == _DIR:
            # a folder is known by its directory entry's type (no stat: folders are half
            # the entries of a Cursor tree); only one named like a surface's file is
            # stat'ed, for its row: a directory outcome, never a file of that surface
            # (surface "other"), and none of the corpus's bytes (size 0, not its entry's)
            if self.named_like_file(rel) and self.classify(rel)[0] != "other":
                try:
                    st = os.stat(self.base_dir + rel, follow_symlinks=False)
                except OSError:
                    add(rel, "other", "blob", None, "unreadable")
                    return
                add(rel, "other", "dir", (0, *_stat4(st)[1:]), "dir_named_like_file")
        elif k == _LINK:
            problem: str | None
            try:
                os.stat(self.base_dir + rel)
                problem = "symlink"
            except OSError as exc:
                problem = "symlink_loop" if exc.errno == errno.ELOOP else "broken_symlink"
            add(rel, "other", "link", None, problem)
        elif k == _SPECIAL:
            add(rel, "other", "special", (nums[j], nums[j + 1], nums[j + 2], nums[j + 3]), "special_file")
        else:
            add(rel, "other", "blob", None, "unreadable")


def crawl(root: Path, profile: Profile, salt: bytes, stratum: str = "month",
          progress=None, known: pl.DataFrame | None = None) -> Inventory:
    """Walk ``root`` without following links; classify every entry by the profile.

    ``known``: the ``classes`` of an earlier crawl of this root under the same salt and
    ``classes_signature``; a regular file found there takes its class from it, and only
    the others are classified (the result is the same either way). The dates and strata
    are derived from ``mtime_ns`` in one vectorised step at the end."""
    classify = classifier(profile)
    defer = known is not None and known.height > 0
    rows = _Rows(salt, classify, defer, progress)
    lister = _Lister(root, profile, rows)
    lister.native() if NATIVE is not None else lister.python()
    base, names_frame = rows.frames()
    fresh = -1  # the names classified by the regexes here (-1: all of them, none kept)
    if defer:
        assert known is not None
        base, fresh = _take_classes(base, known, names_frame, classify, salt)
    # the mtime to the nearest microsecond (as datetime.fromtimestamp(st_mtime) rounds), and its stratum
    mtime = pl.from_epoch((pl.col("mtime_ns") + 500) // 1000, time_unit="us").dt.replace_time_zone("UTC")
    frame = base.with_columns(
        mtime=pl.when(pl.col("_stat")).then(mtime),
        stratum=pl.when(pl.col("_stat")).then(_strata(mtime, stratum)).otherwise(pl.lit("unknown")),
    ).select(list(SCHEMA))
    return Inventory(frame=frame, names=names_frame, classify=classify, classes_kept=fresh == 0)


def classifier(profile: Profile) -> Callable[[str], tuple[str, str, str | None, str | None, bool | None]]:
    """A relative path's class by the profile's surfaces: (surface, kind, raw session id, raw
    parent id, whether the session id is the stem); the first surface whose regex matches wins."""
    regexes = [(s, s.regex()) for s in profile.surfaces]

    def classify(rel: str) -> tuple[str, str, str | None, str | None, bool | None]:
        for s, rx in regexes:
            m = rx.match(rel)
            if m:
                g = m.groupdict()
                sess, parent, stem = g.get("session") or None, g.get("parent") or None, g.get("stem")
                return s.name, s.kind, sess, parent, (sess == stem) if (sess and stem) else None
        return "other", "blob", None, None, None
    return classify


def _id_pseudonyms(salt: bytes, sess: list[str | None], parent: list[str | None],
                   ) -> tuple[list[str | None], list[str | None]]:
    """Files' raw session and parent ids as pseudonyms (a session's files share one)."""
    raw = list({r for r in (*sess, *parent) if r is not None})
    ids = dict(zip(raw, pseudonyms(salt, raw, "i"), strict=True))
    return ([None if r is None else ids[r] for r in sess], [None if r is None else ids[r] for r in parent])


def _take_classes(base: pl.DataFrame, known: pl.DataFrame, names: pl.DataFrame, classify,
                  salt: bytes) -> tuple[pl.DataFrame, int]:
    """The deferred rows of ``base`` with their class: ``known``'s where the file_id is
    there, else the regexes' (``classify`` of the path, its raw ids pseudonymised as a
    chunk's are), and how many took the regexes'. ``names``: the path of each row of
    ``base``, in its order."""
    cols = list(CLASS_COLUMNS)
    known = known.select("file_id", *cols)
    taken = join_ids(base.select("file_id", "_defer"), known)
    if taken.height != base.height:  # a file_id twice (a path's HMAC is unique: a damaged cache)
        taken = base.select("file_id", "_defer").join(known.unique("file_id"), on="file_id", how="left",
                                                      maintain_order="left")
    unknown = taken.select(pl.col("_defer") & pl.col("surface").is_null()).to_series()
    new = taken.filter(unknown).select("file_id")
    if new.height:
        # ``names`` holds ``base``'s rows' paths in its order (both made chunk by chunk), as
        # does ``taken``: the new files' paths picked by the same mask, not joined
        # (567k files: 0.04 s)
        paths = [path_text(b) for b in names.filter(unknown)["path"]]
        got = [(*classify(p), ext_of(p)) for p in paths]
        fids = new["file_id"].to_list()
        sess, parent = _id_pseudonyms(salt, [g[2] for g in got], [g[3] for g in got])
        found = pl.DataFrame(
            [(fid, s, k, ext, a, b, agree)
             for fid, (s, k, _, _, agree, ext), a, b in zip(fids, got, sess, parent, strict=True)],
            schema={"file_id": pl.String, **{c: SCHEMA[c] for c in cols}}, orient="row")
        taken = taken.join(found, on="file_id", how="left", suffix="_new", maintain_order="left").with_columns(
            pl.when(pl.col("surface_new").is_not_null()).then(pl.col(f"{c}_new")).otherwise(pl.col(c)).alias(c)
            for c in cols)
    return base.with_columns(
        pl.when(pl.col("_defer")).then(taken[c]).otherwise(pl.col(c)).alias(c) for c in cols), new.height


def sample(inv: pl.DataFrame, n: int | None, seed: int) -> pl.DataFrame:
    """Mark a stratified-by-mtime sample of the walkable files (``sampled`` column).

    Proportional allocation per stratum (largest remainder), shuffled with ``seed`` inside
    each stratum. ``n=None`` samples everything.
    """
    walkable = pl.col("kind").is_in(["jsonl", "json", "sqlite"]) & pl.col("problem").is_null()
    if n is None:
        return inv.with_columns(sampled=walkable)
    w = inv.filter(walkable)
    total = w.height
    if n >= total:
        return inv.with_columns(sampled=walkable)
    counts = w.group_by("stratum").len().sort("stratum")
    quotas = counts.with_columns(q=pl.col("len") * n / total)
    quotas = quotas.with_columns(base=pl.col("q").floor().cast(pl.Int64), rem=pl.col("q") - pl.col("q").floor())
    short = n - int(quotas["base"].sum())
    quotas = quotas.sort(["rem", "stratum"], descending=[True, False]).with_columns(
        take=pl.col("base") + (pl.int_range(pl.len()) < short).cast(pl.Int64)
    )
    take = dict(zip(quotas["stratum"].to_list(), quotas["take"].to_list(), strict=True))
    chosen = (
        w.sort("file_id")
        .with_columns(r=pl.int_range(pl.len()).shuffle(seed=seed).over("stratum"))
        .filter(pl.col("r") < pl.col("stratum").replace_strict(take, default=0))
    )
    ids = set(chosen["file_id"].to_list())
    return inv.with_columns(sampled=pl.col("file_id").is_in(list(ids)))
