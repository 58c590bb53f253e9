"""Reading files for the greps without letting memory grow with a file: whole small files in
runs, large ones in pieces cut where no literal can match, bytes the DuckDB cast would escape
blanked in a piece that is not UTF-8. Only counts leave this module's callers."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

from survey.native import NATIVE

# bytes handed over per query (each query costs ~1.5 ms to plan: 5 GB in batches of 4 MB
# spent 2-3 s on that). The blobs are held here and in DuckDB at once; handed over whole, a
# file that is not UTF-8 becomes escaped text four times its size, so one that is not ASCII
# counts 4x (SQLite stores: 16 MB of them per query took 100 MB of cursor_chats to 806 MB).
# Two parts at once hold about three copies of their batch each: at 16 MB the greps of 567k
# cursor_stream files peaked 100 MB higher than at 8 MB, in the same time (1 GB of them,
# alternating: 5.9-6.8 s against 6.0-6.7 s)
FEED_BATCH_BYTES = 8 << 20
# a file that became a fifo since it was listed opens without waiting for a writer (and reads
# as empty), as the walk opens files
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


class GrepReadError(Exception):
    """DuckDB could not read some file of the scope (unreadable, or changed while read).
    Carries only the error class: DuckDB's own message names the file's real path."""


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
