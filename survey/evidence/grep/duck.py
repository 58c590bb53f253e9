"""The DuckDB engine: ``queries/grep_literals.sql`` over every file of a scope, all its literals
in one query, the files read here and handed over as blobs (or read by ``read_blob``), split
in parts run at once on a large scope."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from pathlib import Path
from typing import Any

import duckdb

from survey.evidence.grep import cache as grep_cache
from survey.evidence.grep import commands, reads, scopes
from survey.runtimes.base import Scope
from survey.shared import rel

GREP_MEMORY_LIMIT = "2GB"
PER_FILE_END = "-- end of per_file"
PARALLEL_MIN_BYTES = 16 << 20  # below this, one part: threads cost more than they save
PARALLEL_MAX_FILE = 64 << 20  # a larger file (a store): one part at a time, as big files cost memory
# files read by name per query: DuckDB's memory grows with the length of the list (113k
# files of cursor_stream in two lists: 563 MB; in lists of 2,048: 230 MB, in the same time)
PART_FILES = 2048
# when literals are not raw_exact: files up to this size are read here and handed to the
# query whole; larger ones are read by DuckDB's read_blob (see "Reading" in the module doc)
FEED_MAX_FILE = 4 << 20
FILES_CTE = "WITH files AS ("


# -- DuckDB ----------------------------------------------------------------------------------


def per_file_sql() -> str:
    """grep_literals.sql down to its per_file CTE, selecting that CTE's rows."""
    text = commands.GREP_SQL.read_text()
    head, found, _ = text.partition(PER_FILE_END)
    if not found:
        raise RuntimeError(f"{rel(commands.GREP_SQL)} has lost its '{PER_FILE_END}' line")
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
        raise RuntimeError(f"{rel(commands.GREP_SQL)}: its files CTE is not where the pipeline expects it")
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
            data = reads._read(os.path.join(root, f), sizes.get(f, 0))
        except OSError as exc:
            raise reads.GrepReadError(type(exc).__name__) from None
        names.append(f)
        blobs.append(data)
        cost += len(data) if data.isascii() else 4 * len(data)
        if cost >= limit:
            yield names, blobs
            names, blobs, cost = [], [], 0
    if names:
        yield names, blobs


def _connect() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET temp_directory = ?", [tempfile.gettempdir() + "/survey-duckdb-grep"])
    # Bounded: a large binary file costs several times its size in the blob-to-text fallback;
    # past the limit the query fails, is retried, and the scope is reported not determined,
    # instead of taking the machine's memory. The limit is the database's: parts read
    # concurrently share it.
    con.execute(f"SET memory_limit = '{GREP_MEMORY_LIMIT}'")
    return con


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
    split_min = reads.SPLIT_MIN_BYTES
    split = [f for f in files if get(f, 0) >= split_min] if bounded and n > 1 else []
    spans: list[Span] = []  # a large file's spans first (each at least SPLIT_MIN_BYTES / n)
    for f in split:
        size = get(f, 0)
        cuts = sorted({size * i // n for i in range(n)})  # n spans, fewer for fewer bytes
        spans += [(f, lo, hi) for lo, hi in zip(cuts, [*cuts[1:], -1], strict=True)]
    # then the files read whole, largest first (sorted as names: 113k files in 0.04 s)
    rest = [f for f in files if get(f, 0) < split_min] if split else files
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


class _Search:
    """per_file of grep_literals.sql over the parts of one call of ``_per_file_rows``: the
    patterns worked out once (the literals', whatever the files: 8 ms each, 56 parts at 1 GB
    of cursor_stream captures), then ``run`` once per part, side by side, and ``combine``."""

    def __init__(self, con: duckdb.DuckDBPyConnection, root: Path, literals: list[str],
                 sizes: dict[str, int]) -> None:
        self.con, self.root, self.literals, self.sizes = con, root, literals, sizes
        self.sql = per_file_sql()
        set_patterns, self.fed = fed_per_file_sql()
        self.exact = reads.raw_exact(literals)
        self.prefix = os.path.join(str(root), "")
        self.reader = reads.Pieces(literals) if self.exact else None  # read-only once made: shared by the parts
        self.k = len(literals)
        try:
            cur = con.cursor()
            cur.execute("SET VARIABLE literals = ?::VARCHAR[]", [literals])
            cur.execute(set_patterns)
            row = cur.execute("SELECT getvariable('patterns')").fetchone()
            self.patterns = row[0] if row else None
            cur.close()
        except duckdb.Error as exc:
            raise reads.GrepReadError(type(exc).__name__) from None

    def run(self, spans: list[Span], in_pieces: bool | None = None) -> Any:
        """One part: ``pieces()`` (with ``raw_exact`` literals), or ``whole()``'s counts."""
        cur = self.con.cursor()
        try:
            cur.execute("SET VARIABLE root = ?", [str(self.root)])
            cur.execute("SET VARIABLE literals = ?::VARCHAR[]", [self.literals])
            cur.execute("SET VARIABLE patterns = ?::VARCHAR[]", [self.patterns])
            if self.exact if in_pieces is None else in_pieces:
                return self.pieces(cur, spans)
            return self.whole(cur, [f for f, _, _ in spans])
        except duckdb.Error as exc:
            raise reads.GrepReadError(type(exc).__name__) from None
        finally:
            cur.close()

    def whole(self, cur: duckdb.DuckDBPyConnection, files: list[str]) -> grep_cache.PerFile:
        """A part's files of at most ``FEED_MAX_FILE`` bytes handed over whole, the rest read
        by read_blob."""
        root, sizes = self.root, self.sizes
        small = [f for f in files if sizes.get(f, 0) <= FEED_MAX_FILE]
        big = [f for f in files if sizes.get(f, 0) > FEED_MAX_FILE]
        rows = grep_cache.PerFile.empty(self.k)
        for names, blobs in _fed_batches(root, small, sizes, reads.FEED_BATCH_BYTES):
            # the query is given each file's number, not its name: a name that is not
            # UTF-8 (lone surrogates from os.scandir) cannot be a DuckDB string
            for i, size, bad, occ in cur.execute(self.fed, {"ids": list(range(len(names))), "blobs": blobs}).fetchall():
                rows.add(names[i], size, bad, occ)
            del blobs  # before the generator reads the next batch: one batch held, not two
        if big:
            escape, relative = scopes._glob_escape, scopes._relative
            cur.execute("SET VARIABLE globs = ?::VARCHAR[]", [[escape(f) for f in big]])
            for fn, size, bad, occ in cur.execute(self.sql).fetchall():
                rows.add(relative(root, fn), size, bad, occ)
        return rows

    def pieces(self, cur: duckdb.DuckDBPyConnection, spans: list[Span]) -> tuple[grep_cache.PerFile, list[str], list]:
        """Every file of the part read here and handed over in ``Pieces``: the part's whole
        files' counts, its whole files to search again whole (not UTF-8, with an escape
        hazard), and per span of a split file: the file, [size, not UTF-8, occurrences (None:
        no piece), escape hazard]."""
        reader, prefix, sizes = self.reader, self.prefix, self.sizes
        assert reader is not None
        acc: list[list[Any]] = []
        owner: list[int] = []  # per piece held: its span
        blobs: list[bytes] = []
        held = 0
        files = [f for f, _, _ in spans]

        def search() -> None:
            got = cur.execute(self.fed, {"ids": list(range(len(blobs))), "blobs": blobs}).fetchall()
            for i, size, _bad, occ in got:  # not UTF-8: as the piece was before blanking
                a = acc[owner[i]]
                a[0] += size
                if a[2] is None:
                    a[2] = occ
                elif any(occ):
                    a[2] = [x + y for x, y in zip(a[2], occ, strict=True)]
            owner.clear()
            blobs.clear()

        batch_bytes, read_small = reads.FEED_BATCH_BYTES, reads._read_small
        for begin, run in reads._runs(files, sizes):
            whole_reads = read_small([prefix + f for f in run], [sizes.get(f, 0) for f in run])
            for k, f in enumerate(run):
                a: list[Any] = [0, False, None, False]
                acc.append(a)
                _, start, end = spans[begin + k]
                size = sizes.get(f, 0)
                data = whole_reads[k]
                if isinstance(data, int):  # an errno: what os.open or os.read would have raised
                    raise reads.GrepReadError(type(OSError(data, "")).__name__)
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
                        if held >= batch_bytes:
                            search()
                            held = 0
                except OSError as exc:
                    raise reads.GrepReadError(type(exc).__name__) from None
        if blobs:
            search()
        # a whole file's counts as they are (the hazardous aside), made here, beside the
        # other parts' queries; a span's (one part of a file) to be added up with the file's
        # other spans (kept apart: 113k files through one dict took 0.08 s more)
        entries = list(zip(files, acc, spans, strict=True))
        rows = grep_cache.PerFile.empty(self.k)
        for f, a, (_, s, e) in entries:
            if s == 0 and e < 0 and not (a[1] and a[3]):
                rows.add(f, a[0], a[1], a[2])
        hazardous = [f for f, a, (_, s, e) in entries if s == 0 and e < 0 and a[1] and a[3]]
        return rows, hazardous, [(f, a) for f, a, (_, s, e) in entries if s or e >= 0]

    def combine(self, results: list[Any]) -> grep_cache.PerFile:
        """The parts' counts as one: a split file's spans added up, and the files not UTF-8
        with an escape hazard searched again, whole, as the read_blob query searches them."""
        out = grep_cache.PerFile.empty(self.k)
        if not self.exact:
            for rows in results:
                out.extend(rows)
            return out
        for rows, _, _ in results:
            out.extend(rows)
        hazardous: list[Span] = [(f, 0, -1) for _, fs, _ in results for f in fs]
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
        if hazardous:
            out.extend(self.run(hazardous, in_pieces=False))
        return out


def _per_file_rows(con: duckdb.DuckDBPyConnection, root: Path, parts: tuple[list[list[Span]], int],
                   literals: list[str], sizes: dict[str, int]) -> grep_cache.PerFile:
    """per_file of grep_literals.sql, one run per part (of spans of relative paths), that
    many parts at once: the counts of each file read. With ``raw_exact`` literals
    every file is read here and handed over in ``Pieces`` (the counts of a file's spans are
    added up); else a part's files of at most ``FEED_MAX_FILE`` bytes are handed over whole
    and the rest read by read_blob."""
    search = _Search(con, root, literals, sizes)
    chunks, at_once = parts
    if at_once > 1 and len(chunks) > 1:
        with ThreadPoolExecutor(at_once) as pool:
            results = list(pool.map(search.run, chunks))
    else:
        results = [search.run(p) for p in chunks]
    return search.combine(results)


def duckdb_grep(root: Path, scope: Scope, literals: list[str], files: list[str] | None = None,
                cache: grep_cache.GrepCache | None = None, known: scopes.Known | None = None,
                everything: list[str] | None = None, by_crawl: bool = False,
                keys_out: list[grep_cache.Keys] | None = None) -> tuple[dict[str, dict], int]:
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
            keys = grep_cache.Keys(listed, picked[1])
        else:
            try:
                listed = scopes.duckdb_listing(con, root, scope.duckdb_globs, everything) if files is None else list(files)
            except duckdb.Error as exc:
                raise reads.GrepReadError(type(exc).__name__) from None
            keys = grep_cache._keys(root, listed, known, distinct=files is None and scopes.distinct_listing(scope.duckdb_globs))
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
        fresh = _per_file_rows(con, root, _parts(todo, sizes, reads.raw_exact(literals)), literals, sizes)
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
    out = grep_cache._zeros(literals)
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
        matched, occurrences = grep_cache._plus(matched, sm), grep_cache._plus(occurrences, so)
    if n:
        for i, lit in enumerate(literals):
            out[lit] = {"files_scanned": n, "bytes_scanned": nbytes, "files_not_utf8": not_utf8,
                        "files_matched": matched[i], "occurrences": occurrences[i]}
    return out, served.count if served is not None else 0
