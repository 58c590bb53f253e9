"""Which files a scope holds: its globs matched against the crawl's listing (``Known``) or
against DuckDB's and rg's own listings, as the pasteable commands would list them. Each
engine searches exactly the files its command would read."""

from __future__ import annotations

import codecs
import functools
import operator
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from survey.corpus.crawl import path_bytes, path_text
from survey.evidence.grep import commands
from survey.runtimes.base import Profile, Scope

# paths decode as UTF-8 here (``path_text``), so a valid UTF-8 name is one polars cast away
UTF8_FS = codecs.lookup(sys.getfilesystemencoding()).name == "utf-8"
FileKey = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
KNOWN_SCHEMA = pl.Schema({"path": pl.Binary(), "file_id": pl.String(), "size": pl.Int64(), "mtime_ns": pl.Int64(),
                          "ctime_ns": pl.Int64(), "inode": pl.Int64()})


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


def _relative(root: Path, path: str) -> str:
    prefix = str(root) + "/"
    return path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, root)


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
        self.proc = subprocess.Popen([commands.rg_binary(), "-uuu", "--files", "-j", "1", *globs, "--null", str(root)],
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
