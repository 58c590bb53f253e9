"""The ripgrep engine: one ``rg -uuu -a -F -o`` pass per scope (or one pass shared by several
scopes), counted per file and literal from rg's output, which holds only the matched literals.
Files larger than ``RG_WHOLE_MAX`` go to rg on stdin in pieces, so rg's memory stays bounded."""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import os
import re
import subprocess
import tempfile
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

from survey.corpus.crawl import path_text
from survey.evidence.grep import cache as grep_cache
from survey.evidence.grep import commands, reads, scopes
from survey.runtimes.base import Scope


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
    if reads.NATIVE is not None:
        return reads.NATIVE.rg_tally(out, os.fsencode(str(root)) + b"/", literals, list(hazards))
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
        fd = os.open(path, reads.READ_FLAGS)
    except OSError as exc:  # gone since it was listed: not an error (as for _rg_run)
        return b"", 1, 0 if isinstance(exc, FileNotFoundError) else 1
    errors = 0
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([rg, *argv, *RG_OUTPUT, "-"], stdin=subprocess.PIPE, stdout=out, stderr=err)
        assert proc.stdin is not None
        try:
            carry = b""
            piece_bytes = reads.PIECE_BYTES
            while chunk := os.read(fd, piece_bytes):
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


def _big_files(root: Path, names: list[str], keys: grep_cache.Keys | None, known: scopes.Known | None) -> set[str]:
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
    file_key = scopes._file_key
    for f in todo:
        k = file_key(os.path.join(root, f))
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

    def __init__(self, root: Path, searched: list[tuple[Scope, list[str]]],
                 listings: dict[str, scopes.AnyListing] | None = None) -> None:
        self.root = root
        self.scopes = [sc for sc, _ in searched]
        self.listings = listings or {}
        self._narrow: bool | None = None
        union = sorted({lit for _, lits in searched for lit in lits})
        self.union = union
        # globs of file names only (no path, no negation), so a file the pass met but a
        # listing lacks (made since) can be told to be a scope's (``in_scope``)
        self.shared = len(searched) > 1 and not any("/" in g or g.startswith("!")
                                                  for sc, _ in searched for g in sc.rg_globs)
        # a scope with no globs searches every file: so does the shared pass then
        globs = () if any(not sc.rg_globs for sc, _ in searched) else \
            tuple(dict.fromkeys(g for sc, _ in searched for g in sc.rg_globs))
        self.argv = commands.rg_args(Scope("+".join(sc.name for sc, _ in searched), (), globs, ()), union)
        self._out: tuple[bytes, int, int] | None = None

    def whole(self, scope: Scope, literals: list[str]) -> tuple[bytes, int, int]:
        """The whole-root pass for ``scope``: the shared one (run once, by the first scope
        to ask), or the scope's own."""
        root = [os.fsencode(str(self.root))]
        if self.shared and not self._all_narrow():
            self.shared = False  # one scope's wide folder: the shared walk would queue it too
        if not self.shared:
            return _rg_run(commands.rg_binary(), commands.rg_args(scope, literals), root)
        if self._out is None:
            self._out = _rg_run(commands.rg_binary(), self.argv, root)
        return self._out

    def _all_narrow(self) -> bool:
        if self._narrow is None:
            total = 0
            for sc in self.scopes:
                listing = self.listings.get(sc.name)
                own = listing or scopes.RgListing(self.root, sc)
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
    return bool(scopes.in_scope(scope, list(paths))) or any(names.match(p.rsplit("/", 1)[-1]) for p in paths)


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


def _rg_listing(root: Path, scope: Scope, listing: scopes.AnyListing | None, known: scopes.Known | None,
                keys: grep_cache.Keys | None) -> list[str]:
    """The scope's files as rg lists them (``listing``, started early, else a listing of
    its own). ``keys``: DuckDB's keys of its listing, taken as rg's when rg listed exactly
    those files (as a re-run's two listings of an unchanged scope do), told from the bytes."""
    lister = listing or scopes.RgListing(root, scope)
    try:
        raw = lister.read()
    finally:
        if listing is None:
            lister.close()
    prefix = os.fsencode(str(root)) + b"/"
    # decoded in one call (a NUL ends every name, and no character spans one)
    pre = os.fsdecode(prefix)
    listed = keys.names if keys is not None and grep_cache._same_raw(keys, raw, prefix) else _listed(os.fsdecode(raw), pre)
    del raw
    # A listing started early (before the crawl) may lack a file made since: one the crawl
    # saw, changed or made after the listing started (its ctime), that is the scope's and
    # not listed. Then rg lists the scope again. A file only changed since is listed, and
    # keeps the listing (a live store changes a file on every run; listing 567k files
    # again took 0.5 s).
    if listing is not None and known is not None and (recent := known.since(listing.started_ns)) \
            and _may_be_scopes(scope, set(recent).difference(listed)):
        relist = scopes.RgListing(root, scope)
        try:
            listed = _listed(os.fsdecode(relist.read()), pre)
        finally:
            relist.close()
    return listed


def _rg_todo(cache: grep_cache.GrepCache | None, keys: grep_cache.Keys | None, listed: list[str]) -> tuple[Any, int, grep_cache.Keys | None, list[str]]:
    """What the cache serves of ``listed`` (None: nothing), how many distinct files that is,
    the keys of the files to read, and those files."""
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
    return served, hits, asked, todo


def _rg_runs(rg: str, argv: list[str], root: Path, scope: Scope, literals: list[str], shared: SharedRg,
             reading: list[str], walked: bool, big: set[str]) -> list[tuple[bytes, int, int]]:
    """rg's passes over the files to read: one walk of the scope (``walked``, as the command
    does), else the files named to rg (its memory stays flat); each file larger than rg
    should hold whole (``big``, ``RG_WHOLE_MAX``) in pieces."""
    if walked:
        runs = [shared.whole(scope, literals)]
    else:
        runs = _rg_over(rg, argv, root, [f for f in reading if f not in big] if big else reading)
    if big:
        used = {ord(ch) for lit in literals for ch in lit}
        free = re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in range(0x80) if b not in used) + b"]"
                          if len(used & set(range(0x80))) < 0x80 else b"(?!)")
        within = set(reading)
        runs += [_rg_pieces(rg, argv, root, f, free) for f in sorted(big) if f in within]
    return runs


def _rg_counts(rg: str, argv: list[str], root: Path, scope: Scope, literals: list[str], shared: SharedRg,
               runs: list[tuple[bytes, int, int]], read: list[str], walked: bool) -> dict[str, list[int]]:
    """Each file read's occurrences of each literal from rg's output (``runs``, to which a
    second pass is added). In the shared pass, files where another scope's literal matched
    that could have hidden a match of ours are searched again by our own pass."""
    lits = [lit.encode() for lit in literals]
    zeros = [0] * len(literals)  # a file without a match shares one list of zeros (most files)
    fresh: dict[str, list[int]] = dict.fromkeys(read, zeros)
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
    return fresh


def rg_grep(root: Path, scope: Scope, literals: list[str], cache: grep_cache.GrepCache | None = None,
            known: scopes.Known | None = None, listing: scopes.AnyListing | None = None,
            shared: SharedRg | None = None, keys: grep_cache.Keys | None = None) -> dict:
    """rg's counts of the scope, listed by rg itself; files whose key is unchanged are served
    from the cache. ``keys``: DuckDB's keys of its own listing of the scope, reused when rg
    listed exactly those files (at 567k files, 0.4 s of keys not made twice)."""
    rg = commands.rg_binary()
    argv = commands.rg_args(scope, literals)
    shared = shared or SharedRg(root, [(scope, literals)])
    # the listing first (the pipeline's started before the crawl): its widest folder decides
    # how the one pass over the scope runs (``RG_WALK_MAX_FILES``)
    listed = _rg_listing(root, scope, listing, known, keys if cache else None)
    keys = (keys if grep_cache._same_files(keys, listed) else grep_cache._keys(root, listed, known, distinct=True)) if cache else None
    served, hits, asked, todo = _rg_todo(cache, keys, listed)
    whole = not hits or len(todo) > len(listed) // 2  # most files to read: one pass over the scope
    if whole:
        hits, served = 0, None
    walked = whole and _widest_folder(listed) <= RG_WALK_MAX_FILES
    runs = _rg_runs(rg, argv, root, scope, literals, shared, listed if whole else todo, walked,
                    _big_files(root, listed, keys, known))
    fresh = _rg_counts(rg, argv, root, scope, literals, shared, runs, todo if hits else listed, walked)
    errors = sum(e for _o, _c, e in runs)
    read = grep_cache.PerFile.occurrences(len(literals), fresh)
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
        files_matched, occurrences = grep_cache._plus(files_matched, sm), grep_cache._plus(occurrences, so)
    per = {lit: {"files_matched": m, "occurrences": o}
           for lit, m, o in zip(literals, files_matched, occurrences, strict=True)}
    if walked and len(runs) == 1 and not shared.shared:
        code = runs[0][1]
    else:  # what one whole-scope run would exit with: 2 on an error, 0 on a match, else 1
        code = 2 if errors else (0 if any(d["occurrences"] for d in per.values()) else 1)
    return {"files_scanned": len(listed), "exit_code": code, "errors": errors, "per_literal": per,
            "files_from_cache": hits}
