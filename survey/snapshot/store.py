"""Dated, immutable snapshots: ``snapshots/<date>/<runtime>/``.

A run claims its snapshot's name, writes the snapshot into a temporary folder beside it, its
manifest last, and renames it over the claimed folder in one step; writing over an existing
snapshot is refused. A folder is a snapshot only once it has its manifest (``complete``)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from survey.cachedir import crash_point, write_atomic
from survey.shared import ref_numbers

SCHEMA_VERSION = 8  # 2: a per-record walk table may be a folder of parts; 3: per-record tables carry file_key;
# 4: walk/frame_counts (the frames counted per file and key), which the census's frame counts read;
# 5: walk/node_counts (nodes rolled up per part of the walk), which the key-set census reads;
# 6: the walk tables' str columns but file_id are Categorical (``collect.written``); 7: file_id too; 8: walk/rawsets and walk/formats


class SnapshotExists(Exception):
    """Refusal to overwrite an immutable snapshot (or one another run is writing now)."""


def complete(snap: Path) -> bool:
    """Is ``snap`` a whole snapshot? Its manifest is written last, and the folder renamed
    into place after it: a folder without one is a claim (``claim``) or what a killed run
    left, never a snapshot."""
    return (snap / "manifest.json").is_file()


def refusal(final: Path) -> SnapshotExists:
    """Why ``final`` cannot be written: a snapshot is there, or another run is writing it."""
    if complete(final):
        return SnapshotExists(f"snapshot {final} already exists; snapshots are immutable. "
                              "Survey again under another name (--date, --on-exists suffix), "
                              "or remove the old one on purpose.")
    with contextlib.suppress(OSError):
        if not final.is_dir() or os.listdir(final):
            return SnapshotExists(f"{final} is in the way and is not a snapshot (no manifest.json): "
                                  "survey under another name (--date, --on-exists suffix), or move it")
    return SnapshotExists(f"snapshot {final} is being written by another run now; "
                          "survey under another name (--date, --on-exists suffix), or wait for it.")


class Claim:
    """A snapshot's name, held by this run while it writes the snapshot (``claim``)."""

    def __init__(self, final: Path, fd: int) -> None:
        self.final, self._fd = final, fd

    def release(self, remove: bool = True) -> None:
        """Let the name go; ``remove``: its folder too, where it is still the empty claim."""
        if self._fd < 0:
            return
        if remove:
            with contextlib.suppress(OSError):
                os.rmdir(self.final)
        os.close(self._fd)
        self._fd = -1


def claim(final: Path) -> Claim | None:
    """Hold the snapshot name ``final`` for this run, or None where a snapshot is there or
    another run holds it. The folder is made empty (``os.mkdir``: of runs at once, one makes
    it) and locked (``flock`` on it, let go when the process ends however it ends); an empty
    folder no run holds is what a killed run left: taken over. A folder that holds files but
    no manifest was not made by a run (a claim is empty, a snapshot renamed over it whole):
    never emptied, never taken."""
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(final)
        fd = os.open(final, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:  # (a file where the folder should be: not a name this run can have)
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # still the folder at ``final`` (not one renamed away from it since), and no snapshot
        if complete(final) or os.fstat(fd).st_ino != os.stat(final).st_ino:
            raise BlockingIOError
    except OSError:
        os.close(fd)
        return None
    if os.listdir(fd):  # (not a claim: a claim is empty, and a snapshot is renamed over it whole)
        os.close(fd)
        return None
    return Claim(final, fd)


def claim_free(base: Path, date: str, runtime: str) -> tuple[Claim, str]:
    """The first snapshot name of ``date``, ``date.2``, ``date.3`` … that this run can hold
    (``--on-exists suffix``), held, and that name."""
    for i in range(1, 100_000):
        name = date if i == 1 else f"{date}.{i}"
        got = claim(base / name / runtime)
        if got is not None:
            return got, name
    raise SnapshotExists(f"no free snapshot name from {base / date} on")


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def fingerprint(files: pl.DataFrame) -> str:
    """A corpus fingerprint: sha256 over sorted (file_id, size, content hash), a line each
    ("<file_id>\\t<size>\\t<hash>\\n"; a row with a null has none). The lines are written
    by polars' CSV writer (a Python line per file took 1.5 s at 567k files, lines formatted
    by ``pl.format`` 0.3 s, this 0.13), sorted by each pseudonym's 64 bits (``f-`` and 16
    lowercase hex digits: the order of the strings, at a third of the cost), checked as
    strings and sorted as strings where that order is not theirs."""
    rows = files.select("file_id", "size", "hash").drop_nulls()
    number = ref_numbers(rows["file_id"], strict=False)
    if not number.null_count():
        rows = rows.sort(number)
    if not rows["file_id"].is_sorted():
        rows = rows.sort("file_id")
    out = io.BytesIO()
    rows.write_csv(out, separator="\t", include_header=False, quote_style="never", line_terminator="\n")
    return hashlib.sha256(out.getbuffer()).hexdigest()


# How the survey writes its own tables (a snapshot's inventory and walk tables, the cache's
# per-file tables): lz4, not polars' default zstd. They are written once a run and read a few
# times; at 114k files (1 GB of cursor_stream captures) zstd took twice as long to write
# (the cache's meta.parquet 0.031 -> 0.018 s, files.parquet 0.034 -> 0.015 s) and to read,
# for files 1.7x smaller.
WRITE_OPTIONS: dict[str, Any] = {"compression": "lz4"}

# The inventory's partitions, by stratum, as the last snapshot of a root wrote them: a
# partition is one Parquet file or a few. A re-run links every file of a partition whose
# rows are all still there, unchanged, and writes the partition's other rows (most often the
# files new since) as one more file: 567k files in eight months, with new files in every
# month, took 0.18-0.3 s to write again whole. A partition some row of which changed or went,
# or that holds ``INVENTORY_FILES`` files, is written again as one. Kept beside the walk's
# cache (``reuse.INVENTORY_PARTS``): each partition's files in that snapshot, their stats
# when written (a file changed or gone since is never linked), its rows' count and a digest
# of them, and a hash of each row (``row_hashes``) in a file of its own.
PARTITION_FILE = "00000000.parquet"  # (the name polars gives a partition's one file)
INVENTORY_FILES = 8
# A file more in a partition costs every read of the inventory about 2 ms (its scan's setup:
# 5 GB of Claude Code, 16 files against 8, 3.6-3.9 -> 5.6-6.1 ms a read), and writing a row
# about 0.3-0.6 us: a partition takes its new rows as a file of their own only where it has
# this many rows for each time the census reads the inventory (Claude Code's 30 reads:
# 123k rows; cursor_stream's 6: 25k), else it is written again whole.
DELTA_ROWS_PER_READ = 4096


def _partition_sig(inv: pl.DataFrame) -> str:
    """What a partition's digest and its files depend on beyond its rows: the columns and
    their types, how the files are written, and polars (whose row hashes may change with it)."""
    return hashlib.sha256(repr((sorted(inv.schema.items(), key=str), WRITE_OPTIONS, pl.__version__,
                                SCHEMA_VERSION, "files")).encode()).hexdigest()[:24]


def row_hashes(inv: pl.DataFrame) -> pl.DataFrame:
    """Each row of the inventory (the stratum included) and its 64-bit hash, ``a``: the last
    snapshot's hashes pick out the rows it had (a row changed since hashes otherwise), and a
    partition's hashes XORed are its digest, checked against the digest its files were
    written with (its rows differ in their file_id: no two cancel out)."""
    return pl.DataFrame({"stratum": inv["stratum"], "a": inv.hash_rows(seed=1)})


def _digests(hashed: pl.DataFrame) -> dict[str, tuple[int, int]]:
    """Per stratum, its rows' count and digest (a row without a stratum is in none: never linked)."""
    got = hashed.filter(pl.col("stratum").is_not_null()).group_by("stratum").agg(
        pl.len(), pl.col("a").bitwise_xor())
    return {st: (int(n), int(x)) for st, n, x in got.iter_rows()}


def _stat_of(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


class SnapshotWriter:
    """A snapshot written into ``.<runtime>.tmp`` beside its claimed name (``claimed``, else
    claimed here: ``SnapshotExists`` where it cannot be) and renamed over it by ``commit``.

    A run first claims its snapshot's name (``claim``: the final folder made empty, one run of
    any number at once makes it, and locked while the run writes), then writes the snapshot into
    a temporary folder beside it (``.<runtime>.tmp``, the holder's alone), its manifest last,
    and renames it over the claimed folder in one step. A folder is a snapshot only once it has
    its manifest (``complete``): an empty claimed folder, or one a killed run left, is read as no
    snapshot by every command and taken over by the next run that claims the name (a killed
    run's ``.<runtime>.tmp`` goes with it). Writing
    over an existing snapshot is refused: a format change means a new dated snapshot. Layout::

        manifest.json        tool + snapshot schema version, counts, sample spec, fingerprint
        inventory/stratum=YYYY-MM/*.parquet   one row per file (pseudonymous ids); a partition
                             is one file or a few: a re-run links the last snapshot's files of
                             a partition whose rows are all still there, unchanged, and writes
                             its new rows as one more file
        walk/*.parquet       frames, blocks, nodes, values, links, markers, headings, needles, files,
                             frame_counts, node_counts (counts derived from frames and nodes)
                             (a per-record table may be a folder of parts, as Spark writes one:
                             DuckDB >= 1.4 and polars read ``walk/frames.parquet`` either way;
                             every str column is dictionary-encoded: VARCHAR in DuckDB,
                             Categorical in polars, where a join with the inventory's String
                             file_id casts one side)
        census.json          every query: file, command, columns, rows
        evidence.json        every probe: DuckDB and ripgrep results, both commands
        claims.json          every sentence of the page, with its evidence and provenance
        recheck.json         (later) verdicts of `survey recheck`
    """

    def __init__(self, base: Path, date: str, runtime: str, claimed: Claim | None = None) -> None:
        self.final = base / date / runtime
        got = claimed or claim(self.final)
        if got is None:
            raise refusal(self.final)
        self.claim = got
        # the claim's holder's alone: one a killed holder left goes
        self.tmp = self.final.with_name(f".{runtime}.tmp")
        try:
            if self.tmp.exists():
                shutil.rmtree(self.tmp)
            self.tmp.mkdir(parents=True)
            (self.tmp / "walk").mkdir()
        except BaseException:
            self.claim.release()
            raise

    @property
    def dir(self) -> Path:
        return self.tmp

    def write_inventory(self, inv: pl.DataFrame, kept: dict | None = None, reads: int = 0) -> dict:
        """The inventory, a partition per stratum; where ``kept`` (what ``write_inventory``
        returned for an earlier snapshot, its files' stats added by ``inventory_parts``, its
        row hashes by ``reuse.load_inventory_parts``) has a partition all of whose rows are
        here, unchanged, in files unchanged since, those files are linked in and the
        partition's other rows written as one more file, where it is large enough for the
        ``reads`` of the inventory to come (``DELTA_ROWS_PER_READ``). Returns this snapshot's partitions
        (their files' final paths, rows and digests) and its row hashes (``a``)."""
        if inv.height == 0:  # an empty corpus still gets a readable (empty) inventory
            part = self.tmp / "inventory" / "stratum=none"
            part.mkdir(parents=True)
            inv.drop("stratum").write_parquet(part / PARTITION_FILE, **WRITE_OPTIONS)
            return {}
        sig, hashed = _partition_sig(inv), row_hashes(inv)
        prev = (kept or {}).get("hashes")
        old = (kept or {}).get("parts", {}) if (kept or {}).get("sig") == sig and isinstance(prev, pl.Series) else {}
        old = {st: p for st, p in old.items() if isinstance(p, dict)} if isinstance(old, dict) else {}
        digests = _digests(hashed)

        def linkable(st: str, n: int) -> bool:
            """May the partition's files be linked: it has not grown, or it is large enough
            for its new rows to take a file of their own?"""
            was = (old.get(st) or {}).get("rows")
            return st in old and (n >= DELTA_ROWS_PER_READ * max(1, reads) or (isinstance(was, int) and n <= was))

        # per row: was it in the last snapshot (its hash is there)? Per stratum, the count and
        # digest of those rows, to hold against the ones its files were written with
        seen = hashed["a"].is_in(prev.implode()) \
            if isinstance(prev, pl.Series) and any(linkable(st, n) for st, (n, _) in digests.items()) else None
        had = _digests(hashed.filter(seen)) if seen is not None else {}
        parts: dict[str, dict] = {}
        whole: list[str] = []  # the strata written as one file
        for st, (n, digest) in digests.items():
            names = self._link_partition(st, old[st], had.get(st)) if seen is not None and linkable(st, n) else None
            if names is None:
                whole.append(st)
                names = [PARTITION_FILE]
            elif seen is not None and n > old[st]["rows"]:  # the rows new since, as one more file
                names.append(f"{len(names):08d}.parquet")
                inv.filter((pl.col("stratum") == st) & ~seen).drop("stratum").write_parquet(
                    self.tmp / "inventory" / f"stratum={st}" / names[-1], **WRITE_OPTIONS)
            parts[st] = {"files": names, "rows": n, "digest": digest}
        if whole:
            rest = inv.filter(pl.col("stratum").is_in(whole).fill_null(False) | pl.col("stratum").is_null())
            rest.write_parquet(self.tmp / "inventory", partition_by="stratum", **WRITE_OPTIONS)
        elif inv["stratum"].null_count():  # (none has no stratum: written as polars would)
            inv.filter(pl.col("stratum").is_null()).write_parquet(self.tmp / "inventory", partition_by="stratum",
                                                                   **WRITE_OPTIONS)
        final = self.final / "inventory"
        return {"sig": sig, "hashes": hashed["a"],
                "parts": {st: {**p, "files": [str(final / f"stratum={st}" / f) for f in p["files"]]}
                          for st, p in parts.items()}}

    def _link_partition(self, st: str, kept: dict, had: tuple[int, int] | None) -> list[str] | None:
        """Link the last snapshot's files of stratum ``st`` (``kept``: their paths and stats
        then, and the count and digest of their rows), where ``had`` (the count and digest of
        this inventory's rows that were in it) says they hold those rows, their files are as
        written, and there are fewer than ``INVENTORY_FILES``; their names here, or None
        (the partition is then written whole)."""
        files, stats = kept.get("files") or [], kept.get("stats") or []
        folder = self.tmp / "inventory" / f"stratum={st}"
        try:
            if not files or had is None or had != (kept.get("rows"), kept.get("digest")) \
                    or len(files) >= INVENTORY_FILES or len(stats) != len(files) \
                    or any(Path(f).parent.name != folder.name or s is None or _stat_of(f) != s
                           for f, s in zip(files, stats, strict=True)):
                return None
        except TypeError:  # (a record not as written: the partition is written whole)
            return None
        names = [f"{i:08d}.parquet" for i in range(len(files))]
        try:
            folder.mkdir(parents=True)
            for f, name in zip(files, names, strict=True):
                os.link(f, folder / name)
        except OSError:  # (another file system, or gone since its stat: written whole)
            shutil.rmtree(folder, ignore_errors=True)
            return None
        return names

    def write_table(self, name: str, df: pl.DataFrame | pl.LazyFrame) -> None:
        if isinstance(df, pl.LazyFrame):  # streamed from the walk's spilled parts
            df.sink_parquet(self.tmp / "walk" / f"{name}.parquet", **WRITE_OPTIONS)
        else:
            df.write_parquet(self.tmp / "walk" / f"{name}.parquet", **WRITE_OPTIONS)

    def link_table(self, name: str, files: list[Path], rest: pl.LazyFrame | None = None) -> None:
        """A table as a folder of Parquet parts: ``files`` (parts the walk already wrote, whose
        rows all belong here) are hard-linked in, not re-encoded; ``rest`` is written as one
        more part. Parts are immutable wherever they live, so sharing them is safe."""
        d = self.tmp / "walk" / f"{name}.parquet"
        d.mkdir()
        link_all(((os.fspath(p), f"part-{i:06d}.parquet") for i, p in enumerate(files)), d)
        if rest is not None:
            rest.sink_parquet(d / f"part-{len(files):06d}.parquet", **WRITE_OPTIONS)

    def write_json(self, name: str, obj: Any) -> None:
        write_atomic(self.tmp / f"{name}.json", dumps(obj))

    def commit(self) -> Path:
        """Rename the snapshot over its claimed (empty) folder, in one step. Its manifest,
        written last, must be there: without it the folder would not read as a snapshot."""
        if not complete(self.tmp):
            self.abort()
            raise RuntimeError("a snapshot is committed after its manifest is written")
        crash_point("commit")
        try:
            os.rename(self.tmp, self.final)
        except OSError:  # (the claimed folder is no longer the empty one this run made)
            self.abort()
            raise refusal(self.final) from None
        self.claim.release(remove=False)
        return self.final

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.claim.release()


def inventory_parts(written: dict) -> dict:
    """``write_inventory``'s record of a committed snapshot (but its row hashes), each
    partition's files with their stats now (a file not where it was written, none: never
    linked)."""
    parts = {st: {**p, "stats": [_stat_of(f) for f in p["files"]]} for st, p in written.get("parts", {}).items()}
    return {"sig": written.get("sig"), "parts": parts}


def link_all(pairs: Iterable[tuple[str, str]], dst: Path) -> None:
    """Hard-link each (source file, name) into the folder ``dst`` (a copy where a link
    cannot be made), by names relative to each folder's descriptor: a re-run at 567k files
    links about 11k parts, and 5,600 links took 0.115 s through ``Path`` objects, 0.06 s so."""
    fds: dict[str, int] = {}
    out = os.open(dst, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for src, name in pairs:
            folder, base = os.path.split(src)
            fd = fds.get(folder)
            if fd is None:
                fd = fds[folder] = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.link(base, name, src_dir_fd=fd, dst_dir_fd=out)
            except OSError:  # another file system, or no hard links: a plain copy
                shutil.copyfile(src, os.path.join(dst, name))
    finally:
        for fd in (out, *fds.values()):
            os.close(fd)


def load_json(snap: Path, name: str) -> Any:
    p = snap / f"{name}.json"
    if not p.exists():
        return None
    return orjson.loads(p.read_bytes())


def find(base: Path, ref: str, runtime: str | None = None) -> Path:
    """Resolve a snapshot reference: a folder, ``<date>``, or ``<date>/<runtime>``; a date
    that holds one runtime's snapshot needs no ``runtime``. Not found: a ``FileNotFoundError``
    that says what the date does hold."""
    p = Path(ref)
    if (p / "manifest.json").exists():
        return p
    cand = base / ref
    if (cand / "manifest.json").exists():
        return cand
    if runtime and (cand / runtime / "manifest.json").exists():
        return cand / runtime
    held = sorted(d.name for d in cand.iterdir() if not d.name.startswith(".") and complete(d)) if cand.is_dir() else []
    if held and runtime:
        raise FileNotFoundError(f"{ref!r} holds no snapshot of {runtime} (it holds {', '.join(held)}; looked in {base})")
    if len(held) == 1 and not runtime:  # a date of one runtime needs no --runtime
        return cand / held[0]
    if held and not runtime:
        raise FileNotFoundError(f"{ref!r} holds snapshots of {', '.join(held)}: say which with --runtime")
    raise FileNotFoundError(f"no snapshot at {ref!r} (looked in {base})")
