"""Census queries split per Parquet part and merged, so a re-run reads only its new parts.

A query whose answer adds up over files has a split beside it (``queries/parts/``): its rows
per part, then those summed to exactly the reference query's rows (``Splitter``); the
per-part rows are kept by part label beside the walk's cache for the next run."""

from __future__ import annotations

import hashlib
import os
import re
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb
import orjson

# Parquet has no 128-bit integer (DuckDB would write a sum as DOUBLE): partial sums are kept
# as BIGINT, so kept and fresh rows merge into the reference's types.
_WIDE = ("HUGEINT", "UHUGEINT")
_PARTS_VAR = re.compile(r"getvariable\('(\w+)_parts'\)")
_FRESH = ""  # the label of a part written for one snapshot only (never kept)
# a split's kept rows are in a file per run that read new parts; past this many, one file
# (the walk's cache relabels every part after ``collect.COMPACT_AFTER_RUNS`` runs anyway)
KEPT_FILES = 8
LABELS_KEY = "survey_labels"  # a kept file's footer: the labels of the parts it holds rows of, as JSON
# A split's first statement runs over this many bytes of parts at a time (the parts of every
# table it reads), its rows gathered: its hash tables stay small. A first census of 5 GB of
# Claude Code sessions, ``usage_dedup``'s partials alone (one thread): all 119 parts at once
# 6.8 s, in 14 runs of 8 MB 1.9 s (2 MB: 2.3 s; 1 GB: 0.53 -> 0.38 s).
CHUNK_BYTES = 8 << 20
# Each run pays again for its joins' hash tables and its statements, so a split whose hash
# tables stay small over more parts runs faster over larger runs; its header says how large,
# as measured (``-- Chunk: 32 MB``). First censuses of 5 GB of Claude Code, the query's time
# in its lane at 8 MB, then at its own size: ``skill_evidence`` 0.41-0.48 -> 0.17-0.18 s,
# ``is_error`` 0.47-0.53 -> 0.34-0.37 s, ``timestamps`` 0.48 -> 0.37 s. Not every query
# gains: ``usage_dedup`` took 4.15-4.25 s at 8 MB and 5.1-6.0 s at 32 MB, ``uuid_dag``
# 1.32 -> 1.8 s, and five more moved within the noise.
_CHUNK_HINT = re.compile(r"^-- Chunk: (\d+) MB\b", re.MULTILINE)


def chunk_limit(text: str) -> int:
    """The bytes of parts a split's first statement runs over at a time: its header's
    ``-- Chunk: N MB``, else ``CHUNK_BYTES``."""
    m = _CHUNK_HINT.search(text)
    return int(m.group(1)) << 20 if m else CHUNK_BYTES


Labels = dict[str, list[str | None]]  # table -> the label of each of its snapshot parts, in order


def split_of(query: Path) -> Path | None:
    """The split of a census query (``queries/parts/<name>.sql``), if it has one."""
    p = query.parent / "parts" / query.name
    return p if p.exists() else None


def statements(split: Path, text: str | None = None) -> tuple[str, str]:
    """A split's two statements: the one that makes ``partials``, and the merge (from
    ``text``, the split's, where the caller has read it)."""
    got = duckdb.extract_statements(split.read_text() if text is None else text)
    if len(got) != 2 or got[0].type != duckdb.StatementType.CREATE or got[1].type != duckdb.StatementType.SELECT:
        raise ValueError(f"{split.name}: a split is a CREATE of partials, then a SELECT over them")
    return got[0].query, got[1].query


def store_of(walk_cache_dir: Path) -> Path:
    """Where partial rows are kept: beside the walk's cache (which is replaced whole each run)."""
    return walk_cache_dir.with_name(walk_cache_dir.name + ".census")


class Splitter:
    """Runs split queries over one snapshot: ``labels`` from the walk, partial rows kept in
    ``store`` (None: computed, never kept). Thread-safe: each query runs on its own cursor.

    A walk table in a snapshot is a folder of parts (``walk/frames.parquet/part-000003.parquet``),
    each written by one batch of files, and all of a file's rows are in one part. So a query
    whose answer adds up over files (counts, sums, distinct files, maxima) can be split: its
    rows per part, then those summed. A split lives beside its query, in ``queries/parts/`` under
    the same name, as two statements a reviewer can run unchanged in the ``duckdb`` CLI with only
    ``snap`` set:

    1. ``CREATE OR REPLACE TEMP TABLE partials AS SELECT file_index AS part, ...``: the query's
       groups per part. Each table is read as ``read_parquet(coalesce(getvariable('<table>_parts'),
       [<every part of the table>]))``, and ``file_index`` is a part's place in that list.
    2. a ``SELECT`` over ``partials`` giving exactly the reference query's rows.

    The first statement runs over a few MB of parts at a time (``CHUNK_BYTES``, or the split's
    own ``-- Chunk: N MB`` header line), its rows gathered.

    The survey sets ``<table>_parts`` to the parts it has no partial rows for, one list per table
    with the same label at the same place (an empty file of the table's schema where a table has
    no part of that label), so ``file_index`` names the same part in every table. Run whole,
    each table lists its own parts, and a batch that gave a table no rows left it none, so the
    numbers of two tables need not agree: a split joins tables on the file (``file_key``), whose
    rows are all in one part, and takes the part from one side, never joining on the number
    (``test_partials`` holds every split to that). A part's label
    (``<run>-part-000003``) is unique and its bytes never change (the walk's cache links parts
    from run to run, ``collect._write_cache``), so its partial rows are kept under that label, by
    the signature of the split's first statement, beside the walk's cache (``<cache>.census/``).
    The next run merges them with the new parts' rows, read in place (a view, never copied), and
    keeps the new rows in a file of their own (``<query>-<signature>-<labels' hash>.parquet``, its
    labels named in its footer, so finding which parts are kept reads footers, not rows): a
    re-run writes what it read, not every kept row again. Rows of labels no longer in the
    snapshot are passed over, a file with none left is deleted, and past ``KEPT_FILES`` files
    the live rows go into one. A snapshot without labels (``--no-cache``), one whose walk tables
    are small (under ``sql.SPLIT_MIN_BYTES``: reading them again costs less than a split's
    statements) or a table written whole (the rare-key collapse rewrites ``nodes`` and
    ``values``) runs the reference query.

    ``test_partials`` holds every split query's rows to its reference's, value and type, on every
    runtime's corpus, fresh and after a re-run with files added, changed and removed.
    """

    def __init__(self, snap_dir: Path, labels: Labels, store: Path | None, spill: str) -> None:
        self.snap_dir, self.labels, self.store, self.spill = snap_dir, labels, store, Path(spill)
        self._empties: dict[str, str] = {}
        self._lock = threading.Lock()
        self.read = self.kept = 0  # parts read, and parts whose rows were kept, over all queries
        self.store_errors: dict[str, int] = {}  # what went wrong reading or writing the store, counted

    @contextmanager
    def partials(self, cur: duckdb.DuckDBPyConnection, split: Path) -> Iterator[str | None]:
        """Make ``split``'s ``partials`` on ``cur`` (kept rows, and the other parts read) and
        give its merge, to run on ``cur``; None when this snapshot cannot serve it split."""
        text = split.read_text()
        make, merge = statements(split, text)
        limit = chunk_limit(text)
        tables = sorted(set(_PARTS_VAR.findall(make)))
        if not tables or any(not self.labels.get(t) for t in tables):
            yield None
            return
        order: list[str] = []  # every label of the tables read, each once; fresh parts last
        where: dict[str, dict[str, Path]] = {}  # label -> table -> its part in the snapshot
        for t in tables:
            for i, label in enumerate(self.labels[t]):
                key = label or _FRESH
                if key not in where:
                    where[key] = {}
                    order.append(key)
                where[key][t] = self.snap_dir / "walk" / f"{t}.parquet" / f"part-{i:06d}.parquet"
        order.sort(key=lambda k: k == _FRESH)
        sig = hashlib.sha256(make.encode()).hexdigest()[:16]
        prefix = f"{split.stem}-{sig}"
        kept = sorted(self.store.glob(f"{prefix}*.parquet")) if self.store else []
        have, live = self._kept_labels(cur, kept, order)
        todo = [k for k in order if k not in have or k == _FRESH]
        gave: set[str] = set()  # the labels read now that gave rows (the others are kept as labels alone)
        try:
            for n, chunk in enumerate(_chunks(todo, where, limit)):  # the parts to read, a few MB at a time
                for t in tables:
                    cur.execute(f"SET VARIABLE {t}_parts = ?",
                                [[str(where[k].get(t) or self._empty(cur, t)) for k in chunk]])
                cur.execute(make)
                gave.update(chunk[int(i)] for (i,) in
                            cur.execute("SELECT DISTINCT part FROM partials WHERE part IS NOT NULL").fetchall())
                cur.execute(("INSERT INTO _new " if n else "CREATE OR REPLACE TEMP TABLE _new AS ")
                            + f"SELECT {_narrow(cur, 'partials')}, (?::VARCHAR[])[CAST(p.part AS BIGINT) + 1] AS label "
                            "FROM partials AS p", [chunk])
            if not todo:  # the shape of partials, no rows
                cur.execute("CREATE OR REPLACE TEMP TABLE _new AS SELECT * FROM _kept LIMIT 0")
            # a view: the kept rows are not copied again (567k of them at 5 GB of captures)
            cur.execute("DROP TABLE IF EXISTS partials")
            cur.execute("CREATE TEMP VIEW partials AS "
                        + ("SELECT * FROM _new UNION ALL BY NAME SELECT * FROM _kept" if have else "SELECT * FROM _new"))
            with self._lock:
                self.read += len(todo)
                self.kept += len(have)
            yield merge
            if self.store is not None and any(k != _FRESH for k in todo):
                self._keep(cur, split.stem, prefix, [k for k in todo if k != _FRESH],
                           [k for k in order if k != _FRESH], live, gave)
        finally:  # the cursor runs the next query: leave nothing of this one on it
            for t in tables:
                cur.execute(f"RESET VARIABLE {t}_parts")
            _drop(cur, "partials", "_new", "_kept")

    def _kept_labels(self, cur: duckdb.DuckDBPyConnection, kept: list[Path],
                     live: list[str]) -> tuple[set[str], list[Path] | None]:
        """Make ``_kept`` a view of the kept rows of the parts still in the snapshot; give the
        labels of those parts (a part that gave no rows is kept as its label alone,
        ``_only_label``) and the kept files holding any of them (None: the store could not be
        read, and is written again whole). Each file names its labels in its footer
        (``LABELS_KEY``): read from the footers alone, not from a scan of every kept row's
        label (580k rows of ``usage_dedup`` at 1 GB). A file without them is passed over,
        its parts read again and the file then deleted."""
        if not kept:
            return set(), []
        alive = set(live) - {_FRESH}
        try:
            meta = dict(cur.execute(f"SELECT file_name, decode(value) FROM parquet_kv_metadata({_listed(kept)}) "
                                    f"WHERE decode(key) = '{LABELS_KEY}'").fetchall())
            files, have, gone = [], set(), set()
            for f in kept:
                labels = orjson.loads(meta[str(f)]) if str(f) in meta else []
                if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
                    raise ValueError("labels")
                if mine := alive.intersection(labels):
                    files.append(f)
                    have |= mine
                    gone.update(set(labels) - alive)
            if files:  # a view: the kept rows are read by the merge, never copied (580k rows: 0.1 s)
                dead = f" AND label NOT IN ({', '.join(_literal(x) for x in sorted(gone))})" if gone else ""
                cur.execute(f"CREATE OR REPLACE TEMP VIEW _kept AS SELECT * EXCLUDE (_only_label) "
                            f"FROM read_parquet({_listed(files)}, union_by_name = true) WHERE NOT _only_label{dead}")
            return have, files
        except (duckdb.Error, orjson.JSONDecodeError, ValueError) as exc:  # an unreadable store is no store
            self.count(exc)
            _drop(cur, "_kept")
            return set(), None

    def _keep(self, cur: duckdb.DuckDBPyConnection, stem: str, prefix: str, new: list[str],
              every: list[str], live: list[Path] | None, gave: set[str]) -> None:
        """Keep the rows of the parts read now (``new``; ``gave``: those of them that gave
        rows), and the labels of those that gave none, in a file of their own beside the kept
        files still ``live``; the query's other files go. A re-run writes only its new parts'
        rows (rewriting 580k kept rows was a third of a 1 GB Claude Code re-run's longest
        query). Past ``KEPT_FILES`` files, or when the store could not be read, the rows of
        ``every`` part are written into one."""
        assert self.store is not None
        whole = live is None or len(live) >= KEPT_FILES
        rows, labels = ("partials", every) if whole else ("_new", new)
        # the labels without rows: from the chunks (a scan of every row's label for them cost
        # 0.2-0.35 s of ``usage_dedup``'s 2.9M rows at 5 GB), or, written whole, from the rows
        bare = "WHERE label NOT IN (SELECT label FROM partials)" if whole else \
            f"WHERE label IN ({', '.join(_literal(x) for x in sorted(set(new) - gave)) or 'NULL'})"
        fresh = "WHERE label <> ''" if whole or _FRESH in gave else ""  # (a fresh part's rows are never kept)
        try:
            self.store.mkdir(parents=True, exist_ok=True)
            # named by its labels: a run that reads the same parts again writes the same file
            dest = self.store / f"{prefix}-{hashlib.sha256(chr(0).join(labels).encode()).hexdigest()[:12]}.parquet"
            tmp = self.store / f".{stem}-{uuid.uuid4().hex[:8]}.tmp"
            cur.execute(f"COPY (SELECT *, false AS _only_label FROM {rows} {fresh} "
                        "UNION ALL BY NAME SELECT label, true AS _only_label FROM (SELECT unnest(?::VARCHAR[]) AS label) "
                        f"{bare}) "
                        f"TO '{_quoted(tmp)}' (FORMAT parquet, COMPRESSION lz4, "
                        f"KV_METADATA {{{LABELS_KEY}: {_literal(orjson.dumps(labels).decode())}}})", [labels])
            os.replace(tmp, dest)
            keep = {dest, *(live if not whole and live else [])}
            for old in self.store.glob(f"{stem}-*.parquet"):
                if old not in keep:
                    old.unlink(missing_ok=True)
        except (OSError, duckdb.Error) as exc:  # the census does not depend on its store
            self.count(exc)

    def count(self, exc: Exception) -> None:
        with self._lock:  # the error's type only: its message may name a path
            self.store_errors[type(exc).__name__] = self.store_errors.get(type(exc).__name__, 0) + 1

    def _empty(self, cur: duckdb.DuckDBPyConnection, table: str) -> str:
        """An empty Parquet file with ``table``'s columns, standing in for a part it lacks."""
        with self._lock:
            if table not in self._empties:
                f = self.spill / f"empty-{table}.parquet"
                src = self.snap_dir / "walk" / f"{table}.parquet" / "part-000000.parquet"
                cur.execute(f"COPY (SELECT * FROM read_parquet('{_quoted(src)}') LIMIT 0) TO '{_quoted(f)}' "
                            "(FORMAT parquet)")
                self._empties[table] = str(f)
            return self._empties[table]


def _drop(cur: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Drop the temp tables and views of ``names`` there are, each as what it is (DuckDB
    refuses ``DROP VIEW IF EXISTS`` of a table: ``partials`` is the split's table until it
    becomes the view of all rows), from one look at the catalog (a look per name was 5 of
    the 20-odd statements of each split query)."""
    made = cur.execute("SELECT view_name, 'VIEW' FROM duckdb_views() WHERE temporary AND NOT internal "
                       "UNION ALL SELECT table_name, 'TABLE' FROM duckdb_tables() WHERE temporary").fetchall()
    for name, kind in sorted(made, key=lambda m: m[1] != "VIEW"):  # views first: one may read a table
        if name in names:
            cur.execute(f"DROP {kind} IF EXISTS {name}")


def _narrow(cur: duckdb.DuckDBPyConnection, table: str) -> str:
    """``table``'s columns but ``part``, 128-bit integers cast to BIGINT (see ``_WIDE``)."""
    cols = cur.execute(f"DESCRIBE {table}").fetchall()
    return ", ".join(f'CAST(p."{c}" AS BIGINT) AS "{c}"' if t in _WIDE else f'p."{c}"'
                     for c, t, *_ in cols if c != "part")


def _chunks(todo: list[str], where: dict[str, dict[str, Path]], limit: int = CHUNK_BYTES) -> Iterator[list[str]]:
    """``todo``'s labels in runs whose parts (every table's the split reads) come to at most
    ``limit`` bytes (a part larger than that alone), in order."""
    chunk: list[str] = []
    size = 0
    for k in todo:
        n = 0
        for p in where[k].values():
            with suppress(OSError):  # (a part gone is the make's error to give)
                n += p.stat().st_size
        if chunk and size + n > limit:
            yield chunk
            chunk, size = [], 0
        chunk.append(k)
        size += n
    if chunk:
        yield chunk


def _listed(files: list[Path]) -> str:
    """``files`` as a SQL list of path literals."""
    return "[" + ", ".join(f"'{_quoted(f)}'" for f in files) + "]"


def _literal(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _quoted(p: Path) -> str:
    return str(p).replace("'", "''")
