"""The structural walk: one pass over a file's bytes, aggregated per file, through the gate.

Each file is read once, framed on LF only, parsed (orjson, or the C core's tape) and turned
into per-file rows of the walk tables (frames, blocks, nodes, values, links, markers,
rawsets, formats, needles), every key and value through the privacy gate (``Walker``)."""

from __future__ import annotations

import codecs
import functools
import os
import re
import select
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import xxhash

from survey.census.pool import keep_freed_memory
from survey.corpus.frames import (
    BOM,
    CHUNK,
    DEFAULT_MAX_LINE,
    FLAG_DUPLICATE_KEY,
    classify_flags,
    duplicate_keys,
    iter_frames,
    split_frames,
)
from survey.corpus.privacy import WITHHELD, Gate, id_ref, pseudonym
from survey.corpus.stores import UNPARSED
from survey.native import ENGINE, NATIVE  # noqa: F401 (ENGINE: the run records it as W.ENGINE)
from survey.runtimes.base import Profile

JTYPE = {dict: "object", list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


def _bracket_lines(buf: bytes, cut: int) -> Iterable[bytes]:
    """The lines of ``buf[:cut]`` (whole lines, each ending in LF) that begin with "[", the
    only ones a text heading can be (``walk_text``): found by searching for LF + "[", not by
    a Python object per line."""
    pos = 0 if buf.startswith(b"[") else buf.find(b"\n[", 0, cut) + 1 or cut
    while pos < cut:
        end = buf.find(b"\n", pos, cut)
        yield buf[pos:end]
        pos = buf.find(b"\n[", end, cut) + 1 or cut


def target_exists(target: str, cur_path: str, root: str, tops: dict[tuple[str, str], bool] | None = None) -> bool:
    """Whether the file a record names (an existence check's string) exists now: as written
    (a relative one beside the file being walked, ``cur_path``), else, when it was written
    on another machine (or the store was copied), the longest suffix of at least two
    components that exists under the survey ``root``.

    ``tops``: a memo, for one run, of whether ``root``/name exists for a suffix's first
    name; a suffix whose first name is not there is not looked for (most suffixes of a
    path from another machine: ``home``, ``user``, ...). It cost a stat and a join each."""
    try:
        p = os.path.expanduser(target)
        if not os.path.isabs(p):
            p = os.path.join(os.path.dirname(cur_path), p)
        ok = os.path.exists(p)
        if not ok and root and os.path.isabs(p):
            parts = [x for x in p.split(os.sep) if x and x not in (".", "..")]
            if tops is None:
                tops = {}
            for i in range(len(parts) - 1):
                top = tops.get((root, parts[i]))
                if top is None:
                    top = tops[root, parts[i]] = os.path.exists(os.path.join(root, parts[i]))
                if top and os.path.isfile(os.path.join(root, *parts[i:])):
                    return True
    except (OSError, ValueError):
        ok = False
    return ok


# the ends of an existence check's marker names: a file with one depends on other files
EXISTS_MARKERS = (":present", ":missing")


def exists_marker(name: str, ok: bool) -> str:
    """An existence check's marker (``walk/markers.parquet``): only present or missing."""
    return name + EXISTS_MARKERS[0 if ok else 1]


_PLAIN_PATH = re.compile(r"\$(\.[A-Za-z_][\w-]*)+\Z")


def _checks(profile: Profile) -> tuple[tuple[str, tuple[str, ...], bytes], ...] | None:
    """The profile's existence checks as (name, keys, the last key as JSON: the needle a line
    holding the check holds); None where a checked path is not plain keys (``$.a.b``)."""
    return _checks_of(tuple(profile.exists_checks.items()))


@functools.lru_cache(maxsize=16)
def _checks_of(declared: tuple[tuple[str, str], ...]) -> tuple[tuple[str, tuple[str, ...], bytes], ...] | None:
    # made once per profile's checks, not once per file rechecked (2.9k at 5 GB)
    checks = []
    for name, jp in declared:
        if not _PLAIN_PATH.match(jp):
            return None
        keys = tuple(jp.split(".")[1:])
        checks.append((name, keys, orjson.dumps(keys[-1])))
    return tuple(checks)


def _open(path: str) -> int | None:
    try:
        return os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None


Span = tuple[int, int, int]  # a line of a file: (line_no, its first byte, the byte past its end)


def check_spans(profile: Profile, path: str, max_line: int = DEFAULT_MAX_LINE) -> list[Span] | None:
    """Where the lines a recheck reads are in the file at ``path`` (``recheck_exists``): kept
    in the cache for a file found volatile, so the next run reads those lines, not the file.
    None where there are none to keep (no plain checks, unreadable, past ``max_line``)."""
    checks = _checks(profile)
    fd = _open(path) if checks else None
    if fd is None:
        return None
    spans: list[Span] = []
    try:
        if os.fstat(fd).st_size > max_line:  # (framed line by line: no places kept)
            return None
        for _ in _lines_holding(fd, [c[2] for c in checks or ()], max_line, spans):
            pass
    except OSError:
        return None
    finally:
        os.close(fd)
    return spans


def _lines_at(fd: int, spans: list[Span], needles: list[bytes]) -> list[tuple[int, bytes]] | None:
    """The lines ``spans`` name, each read where it is; None unless each is a whole line (an
    LF or the file's start before it, an LF or its end after it) that holds a needle (then
    the file is read as if there were no spans)."""
    out = []
    for line_no, start, end in spans:
        lo = start - 1 if start > 0 else 0
        b = os.pread(fd, end + 1 - lo, lo)
        line = b[start - lo:end - lo]
        if (len(line) != end - start or (start > 0 and b[:1] != b"\n")
                or (len(b) > end - lo and b[end - lo:end - lo + 1] != b"\n") or not any(n in line for n in needles)):
            return None
        out.append((line_no, line))
    return out


def recheck_exists(profile: Profile, path: str, cur_path: str, root: str,
                   max_line: int = DEFAULT_MAX_LINE, tops: dict[tuple[str, str], bool] | None = None,
                   spans: list[Span] | None = None, spans_out: list[Span] | None = None,
                   ) -> list[tuple[int, str, int]] | None:
    """The existence markers (``markers`` rows) a walk of the JSONL file at ``path`` would
    record now, found without walking it: each line that holds a checked key is parsed and
    the check's string looked up by its keys. A file whose only dependence on other files is
    these checks can then be served from the cache when they come out as they did (collect
    compares them with the kept rows; any difference, one found or missed here included,
    means a walk). None where a checked path is not plain keys (``$.a.b``) or the file
    cannot be read. ``tops``: ``target_exists``'s memo, for the run.

    ``spans``: where those lines were when the file, unchanged since (its cache key), was
    walked or rechecked (``check_spans``): only they are read (a 5 GB re-run read 550 MB of
    transcripts for their checks). ``spans_out`` gets the spans of the lines read."""
    checks = _checks(profile)
    if checks is None:
        return None
    if not checks:
        return []
    fd = _open(path)
    if fd is None:
        return None
    out: list[tuple[int, str, int]] = []
    needles = [c[2] for c in checks]
    try:
        lines = _lines_at(fd, spans, needles) if spans else None
        if lines is not None and spans_out is not None:
            spans_out.extend(spans or ())
        for line_no, line in lines if lines is not None else _lines_holding(fd, needles, max_line, spans_out):
            if line_no == 0 and line.startswith(BOM):
                line = line[3:]
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            for name, keys, _ in checks:
                v: Any = obj
                for k in keys:
                    v = v.get(k) if isinstance(v, dict) else None
                if isinstance(v, str):
                    out.append((line_no, exists_marker(name, target_exists(v, cur_path, root, tops)), 1))
    except OSError:
        return None
    finally:
        os.close(fd)
    return out


def _lines_holding(fd: int, needles: list[bytes], max_line: int,
                   spans: list[Span] | None = None) -> Iterator[tuple[int, bytes]]:
    """``(line_no, line)`` of each line of the file that holds a needle, framed and numbered
    as ``split_frames`` frames (a line past ``max_line`` is skipped, as the walk has it
    empty). A file of at most ``max_line`` bytes (so no line of it past the cap) is read
    whole and searched for the needles, and only those lines are framed: framing every line
    in Python was two thirds of rechecking 552 transcripts (1 GB of Claude Code sessions,
    0.29 s); the search is the C core's ``lines_holding`` where it is built (the GIL
    released). A larger one is framed line by line, memory a chunk. ``spans`` gets each
    line's place in a file read whole (``check_spans``)."""
    size = os.fstat(fd).st_size
    if size > max_line:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            for line_no, (line, _, _) in enumerate(split_frames(fh, max_line)):
                if any(n in line for n in needles):
                    yield line_no, line
        return
    chunks = []
    while chunk := os.read(fd, size + 1):  # (one read, unless it grew since)
        chunks.append(chunk)
    buf = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if NATIVE is not None:
        for line_no, start, end in NATIVE.lines_holding(buf, needles):
            if spans is not None:
                spans.append((line_no, start, end))
            yield line_no, buf[start:end]
        return
    starts = set()
    for n in needles:
        i = buf.find(n)
        while i >= 0:
            start = buf.rfind(b"\n", 0, i) + 1
            starts.add(start)
            end = buf.find(b"\n", i)
            if end < 0:
                break
            i = buf.find(n, end)
    line_no = prev = 0
    for start in sorted(starts):
        line_no += buf.count(b"\n", prev, start)
        prev = start
        end = buf.find(b"\n", start)
        end = end if end >= 0 else len(buf)
        if spans is not None:
            spans.append((line_no, start, end))
        yield line_no, buf[start:end]  # (no line of it passes the cap)


# -- value formats ------------------------------------------------------------------------
# The format class of a string or number leaf (``formats``), from a fixed list: numbers in the
# range of epoch seconds or milliseconds (2000-01-01 to 2100-01-01) or other numbers; strings
# that are empty, a UUID (8-4-4-4-12 hex digits), a hex digest (32, 40 or 64 hex digits), an
# RFC 3339 / ISO timestamp (date, "T" or space, hh:mm, then only digits and ":.+-Z"), a URL
# (a scheme of letters, digits and "+.-" then "://", no whitespace), path-like ("/", "~/",
# "./", "../" or a drive letter and a slash first, no line break) or free text. Only the
# first 64 characters, the length and (for a URL or path) the presence of whitespace are
# looked at; the C core classifies the same way (``fmt_prefix`` in _walkcore.c).
EPOCH_S = (946_684_800, 4_102_444_800)
EPOCH_MS = (946_684_800_000, 4_102_444_800_000)
NUMBER_FORMATS = ("epoch_s", "epoch_ms", "number")
STRING_FORMATS = ("empty", "uuid", "hex32", "hex40", "hex64", "timestamp", "url", "path", "text")
_HEXD = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
_TS_REST = frozenset("0123456789:.+-Zz")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SCHEME = _LETTERS | _DIGITS | frozenset("+.-")
_HEXLEN = {32: "hex32", 40: "hex40", 64: "hex64"}


def number_format(v: int | float) -> str:
    """The format class of a number (not a boolean)."""
    if EPOCH_S[0] <= v < EPOCH_S[1]:
        return "epoch_s"
    if EPOCH_MS[0] <= v < EPOCH_MS[1]:
        return "epoch_ms"
    return "number"


def _digits(s: str, lo: int, hi: int) -> bool:
    return all(ch in _DIGITS for ch in s[lo:hi])


def string_format(s: str) -> str:
    """The format class of a string."""
    n = len(s)
    if n == 0:
        return "empty"
    if n == 36 and (s[8] == s[13] == s[18] == s[23] == "-"
                    and all(ch in _HEXD for ch in s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:])):
        return "uuid"
    if n in _HEXLEN and all(ch in _HEXD for ch in s):
        return _HEXLEN[n]
    c0 = s[0]
    if (16 <= n <= 35 and c0 in _DIGITS and _digits(s, 0, 4) and s[4] == "-" and _digits(s, 5, 7) and s[7] == "-"
            and _digits(s, 8, 10) and s[10] in "Tt " and _digits(s, 11, 13) and s[13] == ":" and _digits(s, 14, 16)
            and all(ch in _TS_REST for ch in s[16:])):
        return "timestamp"
    url = path = False
    if c0 in _LETTERS:
        i = 1
        while i < n and i < 16 and s[i] in _SCHEME:
            i += 1
        url = s.startswith("://", i)
        path = n >= 3 and s[1] == ":" and s[2] in "\\/"
    elif c0 == "/" or s.startswith(("~/", "./", "../")):
        path = True
    if url and not any(ch in s for ch in " \t\n\r"):
        return "url"
    if path and "\n" not in s:
        return "path"
    return "text"


def jtype(v: object) -> str:
    if v is None:
        return "null"
    return JTYPE.get(type(v), "number")


def content_hash() -> xxhash.xxh3_128:
    return xxhash.xxh3_128()


class HashingReader:
    """Reads a file descriptor: every byte read also feeds a hash and a byte count.

    The hash is XXH3-128: it identifies content (cache keys, snapshot fingerprints), it is
    not a security boundary, and at ~20 GB/s it costs nothing beside the parse (BLAKE2b
    cost half of it).

    It reads the descriptor itself, not through a buffered file object, and asks for the
    size the crawl saw plus one byte: most files of a corpus are small (a Cursor capture is
    ~9 KB), and a file object's set-up and a 1 MB buffer per read cost more than reading
    them. Reads may come back shorter than asked; every reader of a file takes chunks of any
    size, and only an empty read ends the file."""

    def __init__(self, fd: int, size: int = 0) -> None:
        self.fd = fd
        self.h = content_hash()
        self.n = 0
        self.size = size  # the crawl's size: a read asks for no more than it plus one byte
        self.found: set[str] = set()  # needles seen in the bytes read so far (``watch``)
        self._pending: list[tuple[str, bytes]] = []
        self._keep = 0
        self._tail = b""
        self.at_end = False  # a read has shown the file ends where it was read to

    def watch(self, needles: Iterable[tuple[str, bytes]]) -> None:
        """Look for each needle (id, bytes) in the bytes as they are read, across chunk
        boundaries too: ``found`` names those seen. The chunks the walk reads anyway are
        searched, so no file is read twice (in 1 GB of Claude Code sessions, 489 MB of
        parent transcripts are searched for their children's ids)."""
        self._pending = list(needles)
        self._keep = max((len(nb) for _, nb in self._pending), default=1) - 1

    def read(self, n: int = CHUNK) -> bytes:
        if self.at_end:
            return b""
        left = self.size - self.n
        want = min(n, left + 1) if left >= 0 else n
        b = os.read(self.fd, want)
        self.h.update(b)
        self.n += len(b)
        if self._pending and b:
            self._search(b)
        # one byte past the crawl's size asked for and none given: the file ends here, and
        # the next read gives b"" without asking the kernel again (a small file is one read)
        self.at_end = want == left + 1 and len(b) == left
        return b

    def _search(self, b: bytes) -> None:
        keep = self._keep
        # a needle that begins in the bytes before this chunk and ends in it lies in ``edge``
        edge = self._tail + b[:keep] if self._tail else b""
        still = []
        hits = NATIVE.found(b, [nb for _, nb in self._pending]) if NATIVE is not None else None
        for k, (nid, nb) in enumerate(self._pending):
            if (hits[k] if hits is not None else nb in b) or (edge and nb in edge):
                self.found.add(nid)
            else:
                still.append((nid, nb))
        self._pending = still
        if keep <= 0:
            self._tail = b""
        elif len(b) >= keep:
            self._tail = b[-keep:]
        else:
            self._tail = (self._tail + b)[-keep:]


@dataclass
class FileResult:
    """What the walk learned of one file. Lists of tuples, columns named in ``COLUMNS``."""

    file_id: str
    status: str = "ok"  # ok | unreadable | vanished | changed_during_read
    nbytes: int = 0
    lines: int = 0
    hash: str = ""
    frames: list[tuple] = field(default_factory=list)
    blocks: list[tuple] = field(default_factory=list)
    nodes: dict[tuple, list[int]] = field(default_factory=dict)
    values: dict[tuple, int] = field(default_factory=dict)
    links: list[tuple] = field(default_factory=list)
    markers: list[tuple] = field(default_factory=list)
    headings: dict[tuple, int] = field(default_factory=dict)
    needles: list[tuple] = field(default_factory=list)
    numbers: list[tuple] = field(default_factory=list)
    rawsets: dict[tuple, int] = field(default_factory=dict)
    formats: dict[tuple, int] = field(default_factory=dict)
    truncations: int = 0
    store: dict = field(default_factory=dict)  # facts of a SQLite store (tables, WAL, rows)
    # called with this result every SPILL_RECORDS records of a store, to take its per-record
    # rows (not its markers or per-file counts) while the walk goes on: a 1.5 GB store's
    # 543k records' rows would otherwise all be held until its end
    spill: Any = field(default=None, repr=False, compare=False)
    # the C core holding this file's node, value, raw key set and format counts
    # (``Walker.hold_counts``): they are not in ``nodes``/``values``/``rawsets``/``formats``
    # but go from the core to the batch's tables (``Core.take``)
    held: Any = field(default=None, repr=False, compare=False)


SPILL_RECORDS = 1 << 16

# A JSONL or JSON file's encoding, told by its first bytes (a byte-order mark; UTF-32's
# first, as FF FE 00 00 also opens UTF-16-LE): such a file is decoded and walked as UTF-8
# (its frames' sizes are those of the UTF-8), and its read status names the encoding. A
# byte that does not decode becomes a lone surrogate, so its frame is ``invalid_utf8``.
UTF_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le", "utf32"), (b"\x00\x00\xfe\xff", "utf-32-be", "utf32"),
            (b"\xff\xfe", "utf-16-le", "utf16"), (b"\xfe\xff", "utf-16-be", "utf16"))
# A JSONL or JSON file is ``binary`` (read and hashed, never framed: one outcome for the
# file, not one per line) when its first BINARY_SNIFF bytes (all of it, if shorter) hold a
# NUL byte and, after an optional UTF-8 BOM and whitespace, do not begin with "{" or "[":
# a record with a stray NUL stays a frame of its own (flag ``nul``).
BINARY_SNIFF = 8192
# the read statuses of a file that was read to its end (its bytes hashed and counted)
READ_WHOLE = ("ok", "utf16", "utf32", "binary")


def _lone(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    return "\udcff", exc.end


codecs.register_error("survey.lone", _lone)


def sniff(head: bytes) -> tuple[str, str] | None:
    """What the first bytes of a file say it is: (read status, codec) for a UTF-16/32 byte
    order mark, ("binary", "") for ``BINARY_SNIFF``'s rule, None for UTF-8 (or anything else)."""
    for mark, codec, status in UTF_BOMS:
        if head.startswith(mark):
            return status, codec
    head = head[:BINARY_SNIFF]
    if b"\0" in head:
        lead = head[3:] if head.startswith(BOM) else head
        lead = lead.lstrip(b" \t\r\n")
        if lead[:1] not in (b"{", b"["):
            return "binary", ""
    return None


class Decoded:
    """A reader (``HashingReader``) of a UTF-16/32 file, read as UTF-8: ``read`` gives the
    UTF-8 of the next chunk (its byte-order mark left out), decoded as it comes (a character
    cut by a chunk's end waits for the next), never the file at once. The needles the reader
    watches for are looked for in the UTF-8 (the ids are text), not in the raw bytes."""

    def __init__(self, reader: HashingReader, first: bytes, codec: str, mark: int) -> None:
        self.reader = reader
        self.dec = codecs.getincrementaldecoder(codec)(errors="survey.lone")
        self.first: bytes | None = first[mark:]
        self.done = False
        self.finder: HashingReader | None = None
        if reader._pending:
            self.finder = HashingReader(-1)
            self.finder.watch(reader._pending)
            reader._pending = []

    def read(self, n: int = CHUNK) -> bytes:
        while not self.done:
            if self.first is not None:
                raw, self.first = self.first, None
            else:
                raw = self.reader.read(n)
            text = self.dec.decode(raw, final=not raw)
            self.done = not raw
            if text:
                out = text.encode("utf-8", "surrogatepass")
                if self.finder is not None and self.finder._pending:
                    self.finder._search(out)
                    self.reader.found |= self.finder.found
                return out
        return b""


class Replay:
    """A reader whose first chunk was read already (to tell what the file is): it first."""

    def __init__(self, reader: HashingReader, first: bytes) -> None:
        self.reader = reader
        self.first: bytes | None = first

    def read(self, n: int = CHUNK) -> bytes:
        if self.first is not None:
            b, self.first = self.first, None
            return b
        return self.reader.read(n)


def _source(res: FileResult, reader: HashingReader) -> HashingReader | Decoded | Replay | None:
    """What a JSONL or JSON file's frames are read from: the file's UTF-8 (a ``Replay`` of
    its first chunk, then the rest), a UTF-16/32 file's UTF-8 (``Decoded``, ``res.status``
    naming the encoding), or None for a ``binary`` file, then read to its end (hashed and
    counted, its lines counted as a blob's)."""
    first = reader.read(CHUNK)
    if first and len(first) < BINARY_SNIFF:  # (a read may come back short: the rule's bytes first)
        got = [first]
        while (n := sum(map(len, got))) < BINARY_SNIFF and (b := reader.read(max(CHUNK, BINARY_SNIFF - n))):
            got.append(b)
        first = b"".join(got)
    what = sniff(first) if first else None
    if what is None:
        return Replay(reader, first) if first else reader
    res.status = what[0]
    if what[0] != "binary":
        mark = next(len(m) for m, codec, _ in UTF_BOMS if codec == what[1])
        return Decoded(reader, first, what[1], mark)
    lines = first.count(b"\n")
    while b := reader.read(CHUNK):
        lines += b.count(b"\n")
    res.lines = lines
    return None
# ``Walker._heading``'s memo: lines up to this long, this many at most (then it starts afresh)
HEADING_MEMO_LINE = 256
HEADING_MEMO = 4096


COLUMNS = {
    "frames": ["line_no", "frame_status", "nbytes", "flags", "rclass", "keyset"],
    "blocks": ["line_no", "carrier", "idx", "btype", "keyset", "name", "input_type", "input_keyset", "payload_len"],
    "nodes": ["rclass", "path", "jtype", "keyset", "count", "max_len"],
    "values": ["path", "value", "withheld_id", "count"],
    "links": ["line_no", "kind", "ref", "rclass"],
    "markers": ["line_no", "name", "count"],
    "headings": ["name", "value", "count"],
    "needles": ["needle_file", "found"],
    "numbers": ["line_no", "name", "value"],
    "rawsets": ["rclass", "path", "rawset", "count"],
    "formats": ["rclass", "path", "format", "count"],
}


_PARTS: dict[str, tuple[str, ...]] = {}


def _parts(path: str) -> tuple[str, ...]:
    return tuple(path[2:].split(".") if path.startswith("$.") else path.split("."))


def _get(obj: Any, path: str) -> Any:
    """Value at a simple dotted path (``$.payload.type``); None when absent."""
    parts = _PARTS.get(path)
    if parts is None:
        parts = _PARTS[path] = _parts(path)
    cur = obj
    for part in parts:
        if type(cur) is not dict:
            return None
        cur = cur.get(part)
        if cur is None:
            return None
    return cur


class Walker:
    """Holds one profile's compiled walk settings (one per worker process).

    For each file the walk reads the bytes once (hashing them as it goes), frames them on LF
    only (``corpus.frames``), parses each frame (orjson, or the C core's own scan of the text,
    its "tape": ``_walkcore.c``) and records, per file:

    - ``frames``: one row per frame: status, size, flags, record class, top-level key set and
      the profile's gated frame fields (``role``, ``type``, ``status`` …).
    - ``blocks``: one row per element of a declared block carrier (``message.content``): type,
      key set, gated tool name, input JSON type, payload length.
    - ``nodes``: the key-set census, aggregated: (record class, path, JSON type, key set) ->
      count, longest string / largest map. Data-keyed maps are counted, never described;
      opaque paths are typed, never entered; depth beyond the limit is counted as truncated.
    - ``values``: gated vocabulary values at declared paths; anything withheld is counted with
      a salted pseudonym so distinct withheld values can be counted, not read.
    - ``links``: salted pseudonyms of id values at declared paths (uuid, parentUuid, call ids),
      so joins and DAG checks run in SQL without a single id leaving the machine; each as its
      64 bits, a number (``privacy.id_ref``: the census joins millions of them), and its
      record's class (a link's side is one class: no join with ``frames`` to find it).
    - ``markers``: per frame, how many times a declared substring occurs at a declared path
      (e.g. a later call's ``input.path`` pointing into ``agent-tools/``).
    - ``rawsets``: per (record class, path), a salted pseudonym of each object's raw key set
      (every key, before the gate masks unreviewed ones) and how often it occurs, so the census
      counts distinct key sets before masking without a key leaving the machine.
    - ``formats``: per (record class, leaf path), how many string and number values fall in
      each format class (``value_format``): counted, never the value.
    - ``needles``: which of the given ids (subagent child ids) occur in the raw bytes.

    Everything is a plain list of tuples (or a dict of counts): the worker's batch turns them
    into polars frames and Parquet parts (``collect.walk_batch``), each row keyed by the file's
    pseudonym ``file_id``; the per-record tables (``frames``, ``blocks``, ``links``,
    ``markers``, ``numbers``) also carry it as a number, ``file_key``, which the census joins
    on (``collect.KEYED``).
    Workers run in a process pool; they aggregate per file and never hold the corpus.
    """

    def __init__(self, profile: Profile, gate: Gate, salt: bytes, max_line: int = DEFAULT_MAX_LINE,
                 native: bool = True) -> None:
        self.p = profile
        self.gate = gate
        self.salt = salt
        self.max_line = max_line
        self.frame_fields = list(profile.frame_fields.items())
        self.vocab_paths = profile.vocab_paths
        self.dict_paths = profile.dict_paths
        self.opaque_paths = profile.opaque_paths
        self.link_paths = {path: kind for kind, path in profile.links.items()}
        self.marker_paths: dict[str, list[tuple[str, str]]] = {}
        for name, (path, sub) in profile.markers.items():
            self.marker_paths.setdefault(path, []).append((name, sub))
        self.carriers = [c if c.startswith("$.") else "$." + c for c in profile.carriers]
        self.max_keys = profile.max_keys
        self.max_depth = profile.max_depth
        self.headings = [(n, re.compile(rx)) for n, rx in profile.text_headings.items()]
        self._hkeys: dict[bytes, tuple] = {}  # a heading line's keys (``_heading``)
        self.number_paths = {path: name for name, path in profile.numbers.items()}
        self.exists_paths = {path: name for name, path in profile.exists_checks.items()}
        self.json_carriers = profile.json_carriers
        self.carrier_depth = profile.carrier_depth
        self.cur_path = ""  # the file being walked (its folder anchors a relative exists check)
        self.root = ""  # the survey root (targets written on another machine resolve under it)
        self._tops: dict[tuple[str, str], bool] = {}  # target_exists's memo (a walker lives for one run)
        # a JSONL file's counts stay in the C core for the batch to take (collect sets it)
        self.hold_counts = False
        # a JSONL file's rows of these tables go straight into batch Tables, not into its
        # FileResult's lists as tuples (collect sets them: ``_BatchTables.add``)
        self.row_sinks: dict[str, Any] | None = None
        self.native = native
        self._keycache: dict[str, str] = {}
        self._vcache: dict[tuple[str, str], str | None] = {}
        self._wcache: dict[tuple[str, str], str] = {}
        self._prepare()

    # -- gating helpers ---------------------------------------------------------------
    def gkey(self, k: str) -> str:
        g = self._keycache.get(k)
        if g is None:
            g = self.gate.key(k)
            if len(self._keycache) < 100_000:
                self._keycache[k] = g
        return g

    def gvalue(self, path: str, v: Any, res: FileResult) -> str | None:
        """Gate a vocabulary value; count it either way. Returns the emitted value."""
        t = type(v)
        if t is str:
            out: str | None = self.gval(path, v)
        elif t is bool:
            out = "true" if v else "false"
        elif t is int and abs(v) < 1_000_000:
            out = str(v)
        elif v is None:
            out = "null"
        else:
            out = self.gate.value(path, v)
        if out is None:
            wkey = (path, v if t is str else repr(v))
            wid = self._wcache.get(wkey)
            if wid is None:
                wid = pseudonym(self.salt, f"{path}\0{v!r}", "v")
                if len(self._wcache) < 50_000:
                    self._wcache[wkey] = wid
            key: tuple[str, str, str | None] = (path, WITHHELD, wid)
        else:
            key = (path, out, None)
        res.values[key] = res.values.get(key, 0) + 1
        return out

    # -- the node walk ----------------------------------------------------------------
    # The reference walk (the C core in _walkcore.c mirrors it; tests require equal tables).
    # Caches: the gated key set of an object by its tuple of keys (same shapes repeat), the
    # child path of a key under a parent path, and one set of "special" paths (vocabulary,
    # links, markers, numbers, existence checks, carriers) tested once per leaf.
    def _prepare(self) -> None:
        self.special = (set(self.vocab_paths) | set(self.link_paths) | set(self.marker_paths)
                        | set(self.number_paths) | set(self.exists_paths) | set(self.json_carriers))
        self.obj_special = set(self.dict_paths) | set(self.opaque_paths)
        self._kscache: dict[tuple, str] = {}
        self._rawcache: dict[tuple, str] = {}  # tuple of keys -> raw key set's pseudonym
        self._children: dict[str, dict[str, str]] = {}
        self._elem: dict[str, tuple[str, bool]] = {}
        self._bpaths: dict[tuple[str, str], tuple[str, str, int]] = {}
        # dotted paths pre-split, for the native walker's record()
        self._rc_parts = tuple((p, _parts(p)) for p in self.p.record_class)
        self._ff_parts = tuple((p, _parts(p)) for _c, p in self.frame_fields)
        self._carrier_parts = tuple((c, _parts(c), c + "[].type") for c in self.carriers)
        self._payload_keys = tuple(self.p.payload_keys)
        self._name_key = self.p.block_name_key
        self._loads = orjson.loads
        self._dumps = orjson.dumps
        # Leaves the native walker handles itself, by the roles of their path: strings where
        # those are only vocabulary, markers and links; nulls and booleans where only
        # vocabulary; numbers where only numbers; on its tape, strings where the path is only
        # a JSON carrier. Every other special leaf comes back here.
        roles = {"vocab": set(self.vocab_paths), "link": set(self.link_paths), "marker": set(self.marker_paths),
                 "number": set(self.number_paths), "exists": set(self.exists_paths),
                 "carrier": set(self.json_carriers)}

        def only(p: str, allowed: set[str]) -> bool:
            return not any(p in paths for role, paths in roles.items() if role not in allowed)

        self._c_string_roles = frozenset(p for p in self.special if only(p, {"vocab", "marker", "link"}))
        self._vocab_only = frozenset(p for p in roles["vocab"] if only(p, {"vocab"}))
        self._number_names = {p: n for p, n in self.number_paths.items() if only(p, {"number"})}
        self._vocab_number = {p: n for p, n in self.number_paths.items()
                              if p in roles["vocab"] and only(p, {"vocab", "number"})}
        self._c_carrier_only = frozenset(p for p in self.json_carriers if only(p, {"carrier"}))
        self._link_kinds = dict(self.link_paths)
        self._marker_tuples = {p: tuple(ms) for p, ms in self.marker_paths.items()}
        self._classify = classify_flags
        self._duplicate_keys = duplicate_keys
        # the C core reads a line's JSON onto its tape instead of through orjson's objects
        # where it can (_walkcore.c, "the tape"); SURVEY_TAPE=0 keeps every line on orjson
        self._use_tape = os.environ.get("SURVEY_TAPE") != "0"
        self._core = NATIVE.Core(self) if NATIVE is not None and self.native else None

    def keyset_of(self, d: dict) -> str:
        kt = tuple(d)
        ks = self._kscache.get(kt)
        if ks is None:
            ks = ",".join(sorted({self.gkey(k) for k in kt}))
            if len(self._kscache) < 50_000:
                self._kscache[kt] = ks
        return ks

    def rawset_of(self, kt: tuple) -> str:
        """A salted pseudonym of an object's raw key set (every key, sorted, before the gate):
        distinct raw key sets can be counted, none read. Cached by the tuple of keys."""
        keys = sorted(kt)
        try:  # each key after its length: one text for one set of keys, whatever they hold
            raw = pseudonym(self.salt, "".join(f"{len(k)}:{k}" for k in keys), "k")
        except UnicodeEncodeError:  # a lone surrogate in a key
            raw = pseudonym(self.salt, repr(keys), "k")
        if len(self._rawcache) < 50_000:
            self._rawcache[kt] = raw
        return raw

    def node(self, res: FileResult, rclass: str, path: str, v: Any, depth: int, line_no: int) -> None:
        if self._core is not None:
            self._core.node(res, rclass, path, v, depth, line_no)
            return
        t = type(v)
        if t is dict:
            self._obj(res, rclass, path, v, depth, line_no)
        elif t is list:
            self._arr(res, rclass, path, v, depth, line_no)
        else:
            self._leaf(res, rclass, path, v, t, line_no, depth)

    def _leaf(self, res: FileResult, rclass: str, path: str, v: Any, t: type, line_no: int, depth: int) -> None:
        if path in self.special:
            self._special_leaf(res, rclass, path, v, t, line_no, depth)
        if t is str:
            # UTF-8 bytes, so an exact byte cap shows as one repeated maximum
            n = len(v) if v.isascii() else len(v.encode("utf-8", "surrogatepass"))
            self._count(res.nodes, (rclass, path, "string", ""), n)
            fk = (rclass, path, string_format(v))
            res.formats[fk] = res.formats.get(fk, 0) + 1
        else:
            self._count(res.nodes, (rclass, path, JTYPE.get(t, "number") if v is not None else "null", ""), 0)
            if t is int or t is float:
                fk = (rclass, path, number_format(v))
                res.formats[fk] = res.formats.get(fk, 0) + 1

    def _special_leaf(self, res: FileResult, rclass: str, path: str, v: Any, t: type, line_no: int,
                      depth: int) -> None:
        if path in self.vocab_paths:
            self.gvalue(path, v, res)
        if t is str:
            if path in self.link_paths:
                res.links.append((line_no, self.link_paths[path], id_ref(self.salt, v), rclass))
            ms = self.marker_paths.get(path)
            if ms:
                for name, sub in ms:
                    if sub in v:
                        res.markers.append((line_no, name, 1))
            if path in self.exists_paths:
                self._exists(res, line_no, self.exists_paths[path], v)
            if path in self.json_carriers:
                self._carrier(res, rclass, path, v, depth, line_no)
        elif t is int or t is float:
            if path in self.link_paths:
                res.links.append((line_no, self.link_paths[path], id_ref(self.salt, str(v)), rclass))
            num = self.number_paths.get(path)
            if num is not None:
                name = num
                try:
                    res.numbers.append((line_no, name, float(v)))
                except OverflowError:
                    res.numbers.append((line_no, name, None))

    def _obj(self, res: FileResult, rclass: str, path: str, v: dict, depth: int, line_no: int) -> None:
        if depth >= self.max_depth:
            self._truncated(res, rclass, path)
            return
        if path in self.obj_special or len(v) > self.max_keys:
            self._obj_special(res, rclass, path, v)
            return
        self._count(res.nodes, (rclass, path, "object", self.keyset_of(v)), len(v))
        kt = tuple(v)
        raw = self._rawcache.get(kt)
        if raw is None:
            raw = self.rawset_of(kt)
        rk = (rclass, path, raw)
        res.rawsets[rk] = res.rawsets.get(rk, 0) + 1
        children = self._children.get(path)
        if children is None:
            children = self._children[path] = {}
        d1 = depth + 1
        for key, val in v.items():
            cp = children.get(key)
            if cp is None:
                cp = path + "." + self.gkey(key)
                if len(children) < 2_000:
                    children[key] = cp
            t = type(val)
            if t is dict:
                self._obj(res, rclass, cp, val, d1, line_no)
            elif t is list:
                self._arr(res, rclass, cp, val, d1, line_no)
            else:
                self._leaf(res, rclass, cp, val, t, line_no, d1)

    def _arr(self, res: FileResult, rclass: str, path: str, v: list, depth: int, line_no: int) -> None:
        nodes = res.nodes
        if depth >= self.max_depth:
            self._truncated(res, rclass, path)
            return
        if path in self.opaque_paths:
            self._count(nodes, (rclass, path, "array", "<opaque>"), len(v))
            return
        self._count(nodes, (rclass, path, "array", ""), len(v))
        ep, vocab_type = self._elem.get(path) or self._elem_info(path)
        d1 = depth + 1
        for el in v:
            t = type(el)
            if t is dict:
                self._obj(res, rclass, self._typed_path(path, ep, el) if vocab_type else ep, el, d1, line_no)
            elif t is list:
                self._arr(res, rclass, ep, el, d1, line_no)
            else:
                self._leaf(res, rclass, ep, el, t, line_no, d1)

    # -- the rare cases (the native walker calls these too: one implementation) ------
    def _truncated(self, res: FileResult, rclass: str, path: str) -> None:
        res.truncations += 1
        self._count(res.nodes, (rclass, path, "<truncated>", ""), 0)

    def _obj_special(self, res: FileResult, rclass: str, path: str, v: dict) -> None:
        """An opaque object is typed; a data-keyed map (declared, or with more keys than
        ``max_keys``) is counted with its value types, never its keys."""
        nodes = res.nodes
        if path in self.opaque_paths:
            self._count(nodes, (rclass, path, "object", "<opaque>"), len(v))
            return
        self._count(nodes, (rclass, path, "object", "<map>"), len(v))
        vp = path + ".<map-value>"
        for val in v.values():
            self._count(nodes, (rclass, vp, jtype(val), ""), 0)

    def _elem_info(self, path: str) -> tuple[str, bool]:
        """An array's element path, and whether its elements are told apart by ``type``."""
        ep = path + "[]"
        info = self._elem[path] = (ep, ep + ".type" in self.vocab_paths)
        return info

    def _typed_path(self, path: str, ep: str, el: dict) -> str:
        bt = el.get("type")
        if not isinstance(bt, str):
            return ep
        g = self.gval(ep + ".type", bt)
        return f"{path}[type={g if g is not None else WITHHELD}]"

    def gval(self, path: str, v: str) -> str | None:
        """``gate.value`` with a bounded cache (vocabulary values repeat endlessly)."""
        key = (path, v)
        try:
            return self._vcache[key]
        except KeyError:
            out = self.gate.value(path, v)
            if len(self._vcache) < 50_000:
                self._vcache[key] = out
            return out

    def _exists(self, res: FileResult, line_no: int, name: str, target: str) -> None:
        """Record only whether the named file exists here: never the path itself."""
        res.markers.append((line_no, exists_marker(name, target_exists(target, self.cur_path, self.root,
                                                                       self._tops)), 1))

    def _carrier(self, res: FileResult, rclass: str, path: str, v: str, depth: int, line_no: int) -> None:
        """JSON inside a string, decoded only at a declared carrier, at most ``carrier_depth``
        levels deep from there; a string that is not JSON is counted as such."""
        s = v.lstrip()
        if s[:1] not in ("{", "["):
            self._count(res.nodes, (rclass, path + ".<json>", "<not-json>", ""), 0)
            return
        try:
            doc = orjson.loads(v)
        except orjson.JSONDecodeError:
            self._count(res.nodes, (rclass, path + ".<json>", "<not-json>", ""), 0)
            return
        inner = max(depth + 1, self.max_depth - self.carrier_depth)
        self.node(res, rclass, path + ".<json>", doc, inner, line_no)

    @staticmethod
    def _count(nodes: dict, k: tuple, n: int) -> None:
        a = nodes.get(k)
        if a is None:
            nodes[k] = [1, n]
        else:
            a[0] += 1
            if n > a[1]:
                a[1] = n

    # -- per record -------------------------------------------------------------------
    def record(self, res: FileResult, line_no: int, status: str, nbytes: int, flags: int, obj: Any,
               rclass: str | None = None) -> None:
        if self._core is not None:
            self._core.record(res, line_no, status, nbytes, flags, obj, rclass)
            return
        if obj is None:
            res.frames.append((line_no, status, nbytes, flags, None, None, *([None] * len(self.frame_fields))))
            return
        if rclass is None:
            parts = []
            for path in self.p.record_class:
                v = _get(obj, path)
                if v is not None:
                    g = self.gval(path, v) if isinstance(v, str) else None
                    parts.append(g if g is not None else WITHHELD)
            rclass = "/".join(parts) if parts else "<none>"
        fields: list[str | None] = []
        for _col, path in self.frame_fields:
            v = _get(obj, path)
            if v is None:
                fields.append(None)
            elif isinstance(v, str):
                g = self.gval(path, v)
                fields.append(g if g is not None else WITHHELD)
            elif isinstance(v, bool):
                fields.append("true" if v else "false")
            else:
                fields.append(f"<{jtype(v)}>")
        ks = self.keyset_of(obj) if len(obj) <= self.max_keys else "<map>"
        res.frames.append((line_no, status, nbytes, flags, rclass, ks, *fields))
        self.node(res, rclass, "$", obj, 0, line_no)
        for carrier in self.carriers:
            arr = _get(obj, carrier)
            if isinstance(arr, list):
                self.blocks(res, line_no, carrier, arr)

    def blocks(self, res: FileResult, line_no: int, carrier: str, arr: list) -> None:
        tpath = carrier + "[].type"
        for i, b in enumerate(arr):
            if not isinstance(b, dict):
                res.blocks.append((line_no, carrier, i, f"<{jtype(b)}>", None, None, None, None, None))
                continue
            bt = b.get("type")
            g = self.gval(tpath, bt) if isinstance(bt, str) else None
            btype = g if g is not None else (WITHHELD if bt is not None else "<none>")
            npath, _ipath, ikind = self._bpaths.get((carrier, btype)) or self._block_paths(carrier, btype)
            name = None
            nv = b.get(self.p.block_name_key)
            if isinstance(nv, str):
                name = self.gval(npath, nv)
                if name is None:
                    name = WITHHELD
            payload = None
            for pk in self.p.payload_keys:
                if pk in b:
                    payload = b[pk]
                    break
            if isinstance(payload, str):
                plen: int | None = len(payload)
            elif payload is None:
                plen = None
            else:
                plen = self._payload_len(res, payload)
            inp = b.get("input")
            itype = jtype(inp) if "input" in b else (jtype(payload) if payload is not None else None)
            if not isinstance(inp, dict):
                iks = None
            elif ikind == 1 or len(inp) > self.max_keys:
                iks = "<map>"  # keyed by data (e.g. MCP arguments): counted, never described
            elif ikind == 2:
                iks = "<opaque>"
            else:
                iks = self.keyset_of(inp)
            res.blocks.append((line_no, carrier, i, btype, self.keyset_of(b), name, itype, iks, plen))

    def _block_paths(self, carrier: str, btype: str) -> tuple[str, str, int]:
        """A block type's name path, input path, and how its input is described:
        0 by key set, 1 as a data-keyed map, 2 as opaque."""
        ipath = f"{carrier}[type={btype}].input"
        kind = 1 if ipath in self.dict_paths else (2 if ipath in self.opaque_paths else 0)
        out = self._bpaths[(carrier, btype)] = (f"{carrier}[type={btype}].{self.p.block_name_key}", ipath, kind)
        return out

    @staticmethod
    def _payload_len(res: FileResult, payload: Any) -> int | None:
        """Length of a non-string payload as compact JSON text, in characters."""
        try:
            return len(orjson.dumps(payload).decode("utf-8", "replace"))
        except orjson.JSONEncodeError:
            # deeper than the encoder goes (255 levels; the parser allows 1024):
            # not measured, counted as a truncation, never an exception
            res.truncations += 1
            return None

    # -- per file ---------------------------------------------------------------------
    def walk_jsonl(self, res: FileResult, reader: HashingReader, needles: Iterable[tuple[str, bytes]] = ()) -> None:
        # Needles are ids from paths (not content), found or not in the bytes as they are read
        needles = list(needles)
        if needles:
            reader.watch(needles)
        src = _source(res, reader)
        if src is None:  # binary: no frames
            pass
        elif self._core is not None:
            if self.hold_counts:
                self._core.hold(res)
                res.held = self._core
            try:
                res.lines = self._native_frames(res, src)
            except BaseException:
                if res.held is not None:  # the counts so far into res, as without holding
                    res.held = None
                    self._core.release(res)
                raise
        else:
            lines = 0
            for line_no, status, nbytes, obj, flags in iter_frames(src, self.max_line):  # type: ignore[arg-type]
                lines = line_no + 1
                self.record(res, line_no, status, nbytes, flags, obj)
            res.lines = lines
        res.nbytes = reader.n
        res.hash = reader.h.hexdigest()
        if needles:
            res.needles = [(nid, nid in reader.found) for nid, _ in needles]

    def _native_frames(self, res: FileResult, reader: HashingReader | Decoded | Replay) -> int:
        """``corpus.frames`` semantics with the per-line loop in C: whole lines go to
        ``Core.lines``; a line cut by a chunk boundary is joined here first, and one longer
        than ``max_line`` is never held, only measured (as ``split_frames`` does)."""
        core, cap = self._core, self.max_line
        assert core is not None
        line = 0
        pending: list[bytes] = []
        pending_len = 0
        skipping = False
        while chunk := reader.read(CHUNK):
            i = chunk.find(b"\n")
            if i < 0:  # no line ends in this chunk
                pending_len += len(chunk)
                if skipping or pending_len > cap:
                    skipping, pending = True, []
                else:
                    pending.append(chunk)
                continue
            start = 0
            if pending or skipping:  # the first LF ends the line begun in earlier chunks
                total = pending_len + i
                if skipping or total > cap:
                    self.record(res, line, "oversized", total, 0, None)
                    line += 1
                else:
                    line = core.lines(res, b"".join([*pending, chunk[:i]]), line, cap, 1)
                pending, pending_len, skipping = [], 0, False
                start = i + 1
            j = chunk.rfind(b"\n") + 1
            if j > start:
                line = core.lines(res, memoryview(chunk)[start:j], line, cap, 0)
            if j < len(chunk):
                pending_len = len(chunk) - j
                if pending_len > cap:
                    skipping = True
                else:
                    pending = [chunk[j:]]
        if skipping:
            self.record(res, line, "oversized", pending_len, 0, None)
            line += 1
        elif pending:
            line = core.lines(res, b"".join(pending), line, cap, 2)
        return line

    def walk_json(self, res: FileResult, reader: HashingReader) -> None:
        data = b""
        chunks = []
        src = _source(res, reader)
        while src is not None:
            b = src.read(1 << 20)
            if not b:
                break
            chunks.append(b)
            if reader.n > self.max_line:
                break
        data = b"".join(chunks)
        res.nbytes, res.hash = reader.n, reader.h.hexdigest()
        if src is None:  # binary: no frame
            return
        res.lines = data.count(b"\n")
        if reader.n > self.max_line:
            self.record(res, 0, "oversized", reader.n, 0, None)
            return
        flags = 0
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            # the same taxonomy as a frame: blank, malformed, invalid_utf8 or too_deep; or
            # a record kept with a flag (non-standard or out-of-range numbers)
            status, obj, flags = classify_flags(data, True, len(data), self.max_line)
            if status != "ok":
                self.record(res, 0, status, len(data), 0, None)
                return
        else:
            if duplicate_keys(data):
                flags = FLAG_DUPLICATE_KEY
        if isinstance(obj, dict):
            self.record(res, 0, "ok", len(data), flags, obj)
        else:
            # A top-level array (e.g. prompt history) is described, never read out.
            res.frames.append((0, "ok", len(data), flags, f"<{jtype(obj)}>", None,
                               *([None] * len(self.frame_fields))))
            self.node(res, f"<{jtype(obj)}>", "$", obj, 0, 0)

    def walk_text(self, res: FileResult, reader: HashingReader) -> None:
        lines = 0
        tail = b""
        dropped = False  # the line begun in tail was too long to hold, and is still open
        while True:
            b = reader.read(1 << 20)
            if not b:
                break
            buf = tail + b
            cut = buf.rfind(b"\n") + 1  # the buffer's whole lines end here
            n = buf.count(b"\n", 0, cut)
            lines += n
            dropped = dropped and not n
            if self.headings:  # only the lines that begin with "[" can be headings
                for ln in _bracket_lines(buf, cut):
                    self._heading(res, ln)
            tail = buf[cut:]
            if len(tail) > self.max_line:
                tail, dropped = b"", True
        if tail or dropped:  # a last line without an LF is a line, however long
            lines += 1
            if self.headings:
                self._heading(res, tail)
        res.lines, res.nbytes, res.hash = lines, reader.n, reader.h.hexdigest()

    def _heading(self, res: FileResult, ln: bytes) -> None:
        # a transcript repeats its heading lines ("[Tool call] Read"): each distinct short
        # line is decoded, matched and gated once per walker (1 GB of Cursor: 69k lines,
        # 0.18 s), its keys then counted from the memo
        keys = self._hkeys.get(ln)
        if keys is None:
            keys = self._heading_keys(ln)
            if len(ln) <= HEADING_MEMO_LINE:
                if len(self._hkeys) >= HEADING_MEMO:
                    self._hkeys.clear()
                self._hkeys[ln] = keys
        for key in keys:
            res.headings[key] = res.headings.get(key, 0) + 1

    def _heading_keys(self, ln: bytes) -> tuple[tuple[str, str], ...]:
        """The heading keys (name, gated value) of one line: one per heading pattern it matches."""
        if not ln.startswith(b"["):
            return ()
        s = ln.decode("utf-8", "replace")
        keys = []
        for name, rx in self.headings:
            m = rx.match(s)
            if m:
                g = self.gate.value(f"heading:{name}", m.group(1))
                keys.append((name, g if g is not None else WITHHELD))
        return tuple(keys)

    def walk_sqlite(self, res: FileResult, path: str) -> None:
        """A SQLite store: the profile's ``store_reader`` yields records; each is walked
        like a frame (``line_no`` = record index). The reader copies the database with its
        ``-wal``/``-shm`` into a private temp dir and opens the copy read-only, so nothing
        is ever written beside the original. Store-level facts (tables, WAL presence, rows
        seen only through the WAL, open failures) come back as ``store`` facts.

        Order matters: readers finish their facts while their records are consumed, so the
        facts dict is read (``res.store``, ``facts["status"]``) only after the loop."""
        import importlib

        mod_name, _, fn = self.p.store_reader.rpartition(".")
        reader = getattr(importlib.import_module(mod_name), fn)
        facts, records = reader(path)
        res.store = facts
        res.hash = facts.get("hash", "")
        res.nbytes = facts.get("nbytes", 0)
        parse = getattr(reader, "parse", None)  # a reader that hands some records over unparsed
        # a record kind -> its probed top-level keys and what each key's object goes to (where
        # the value is an object; found on the C core's tape in its pass): the reader's
        # ``probes`` (a tally of the store's facts) and the profile's ``named_objects``
        probes = self._store_probes(getattr(reader, "probes", {}), facts, res)
        core = self._core
        n = 0
        if core is not None:
            # the C core keeps the store's node counts until the end, not merging them into
            # res.nodes after each record; on an error the counts so far are kept, as the
            # Python walker keeps what it counted
            core.hold(res)
        spill, due = res.spill, SPILL_RECORDS
        try:
            for n, (rclass, status, obj, nbytes) in enumerate(records):
                if n == due and spill is not None:
                    spill(res)
                    due += SPILL_RECORDS
                probe = probes.get(rclass)
                if status == UNPARSED:  # the record's JSON text: on the tape if it can, else parsed here
                    if core is not None:
                        got = core.record_text(res, n, obj, rclass, probe[0]) if probe else \
                            core.record_text(res, n, obj, rclass)
                        if got is not False:
                            if got is not True:  # what each probe found in the text
                                for i, j, use in probe[1]:  # type: ignore[index]
                                    use(n, got[i:j], obj)  # type: ignore[index]
                            continue
                    status, obj = parse(obj)  # type: ignore[misc]
                if obj is None:
                    res.frames.append((n, status, nbytes, 0, rclass, None, *([None] * len(self.frame_fields))))
                    continue
                self.record(res, n, status, nbytes, 0, obj, rclass=rclass)
                if probe and isinstance(obj, dict):
                    found = tuple(_probed(obj, k) for k in probe[0])
                    for i, j, use in probe[1]:
                        use(n, found[i:j], None)
        finally:
            if core is not None:
                core.release(res)
        res.lines = n + 1 if res.frames else 0
        if facts.get("status") and facts["status"] != "ok":
            res.status = facts["status"]

    def _store_probes(self, tallies: dict[str, tuple[str, Any]], facts: dict,
                      res: FileResult) -> dict[str, tuple[tuple[Any, ...], tuple[tuple[int, int, Any], ...]]]:
        """Per record kind, what to find in each record (``Core.record_text``'s probes: a
        top-level key's object, or the value at a path) and, for each slice of the findings,
        what it goes to (``use(line_no, found, text)``): a reader's tally of the store's facts
        (a top-level key's object), or the profile's named object (its name and its input)."""
        out: dict[str, tuple[tuple[Any, ...], tuple[tuple[int, int, Any], ...]]] = {}

        def add(kind: str, probes: tuple[Any, ...], use: Any) -> None:
            keys, uses = out.get(kind, ((), ()))
            out[kind] = ((*keys, *probes), (*uses, (len(keys), len(keys) + len(probes), use)))

        for kind, (key, tally) in tallies.items():
            def use_tally(_n: int, found: tuple, text: Any, tally: Any = tally) -> None:
                if found[0] is not None:
                    tally(facts, _object(found[0], text))
            add(kind, (sys.intern(key),), use_tally)
        for kind, (key, name_key, input_key) in self.p.named_objects.items():
            carrier = "$." + key

            def use_named(n: int, found: tuple, text: Any, carrier: str = carrier, name_key: str = name_key,
                          input_key: str = input_key) -> None:
                if found[0] is not None:  # the object is there (its span is not read)
                    self.named_block(res, carrier, name_key, input_key, n, found[1], _object(found[2], text))
            k = sys.intern(key)
            add(kind, (k, (k, sys.intern(name_key)), (k, sys.intern(input_key))), use_named)
        return out

    def named_block(self, res: FileResult, carrier: str, name_key: str, input_key: str, line_no: int, nv: Any,
                    inp: Any) -> None:
        """A record's object at a top-level key as one block (``Profile.named_objects``): its
        name through the gate, and its input's type and gated key set; an input that is a
        string is JSON carried in it, parsed, ``<not-json>`` where it does not parse (absent or
        null: no input). The object's own key sets are the node census's. Never a value, never
        a key outside the gate."""
        name = None
        if isinstance(nv, str):
            g = self.gval(f"{carrier}.{name_key}", nv)
            name = g if g is not None else WITHHELD
        itype: str | None = None
        iks: str | None = None
        if inp is not None:
            if isinstance(inp, str):
                try:
                    inp = orjson.loads(inp)
                except orjson.JSONDecodeError:
                    inp, itype = None, "<not-json>"
            if itype is None:
                itype = jtype(inp)
            if isinstance(inp, dict):
                if len(inp) > self.max_keys or f"{carrier}.{input_key}" in self.dict_paths:
                    iks = "<map>"  # keyed by data: counted, never described
                else:
                    iks = self.keyset_of(inp)
        res.blocks.append((line_no, carrier, 0, "<none>", None, name, itype, iks, None))

    def walk_blob(self, res: FileResult, reader: HashingReader) -> None:
        lines = 0
        while True:
            b = reader.read(1 << 20)
            if not b:
                break
            lines += b.count(b"\n")
        res.lines, res.nbytes, res.hash = lines, reader.n, reader.h.hexdigest()


def _probed(obj: dict, probe: Any) -> Any:
    """What ``Core.record_text`` finds for a probe in a parsed record: a top-level key's object,
    or (a tuple of keys) the value at that path; None where absent, null or (a key) not an object."""
    if isinstance(probe, str):
        top = obj.get(probe)
        return top if isinstance(top, dict) else None
    v: Any = obj
    for k in probe:
        if not isinstance(v, dict):
            return None
        v = v.get(k)
    return v


def _object(found: Any, text: Any) -> Any:
    """A probe's finding as a value: a span of the record's text (an object or array) parsed."""
    if type(found) is tuple:
        return orjson.loads(memoryview(text)[found[0]:found[0] + found[1]])
    return found


def walk_file(walker: Walker, path: str, file_id: str, kind: str, size: int,
              needles: Iterable[tuple[str, bytes]] = (), spill: Any = None) -> FileResult:
    """Walk one file; every failure becomes a counted status, never an exception.
    ``spill``: see ``FileResult.spill`` (a store's rows handed over as the walk goes)."""
    res = FileResult(file_id=file_id, spill=spill)
    walker.cur_path = path
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        res.status = "vanished"
        return res
    except OSError:
        res.status = "unreadable"
        return res
    if kind == "sqlite":
        os.close(fd)
        try:
            walker.walk_sqlite(res, path)
        except RecursionError:
            res.status = "too_deep"
        return res
    reader = HashingReader(fd, size)
    try:
        if kind == "jsonl":
            if walker.row_sinks is not None:
                for name, sink in walker.row_sinks.items():
                    setattr(res, name, sink)
            walker.walk_jsonl(res, reader, needles)
        elif kind == "json":
            walker.walk_json(res, reader)
        elif kind == "text":
            walker.walk_text(res, reader)
        else:
            walker.walk_blob(res, reader)
    except RecursionError:
        res.status = "too_deep"
    except OSError:
        res.status = "unreadable"
    finally:
        os.close(fd)
    if res.status in READ_WHOLE and res.nbytes != size:
        res.status = "changed_during_read"
    return res


__all__ = ["COLUMNS", "FileResult", "Walker", "walk_file"]


# -- the pool ---------------------------------------------------------------------------
_WORKER: Walker | None = None


def end_with(pid: int) -> bool:
    """End this process as soon as process ``pid`` (the survey) has ended.

    A pool worker's parent is the fork server, which lives while any worker does (each holds
    its "alive" pipe), so neither ends with a survey killed mid-walk: its workers walked the
    batches already sent to them (up to ``IN_FLIGHT`` each, minutes of CPU at 5 GB) into a
    spill folder nobody reads. A thread here waits on the survey's pidfd (Linux 5.3; no
    CPU while it waits) and ends the worker. Returns whether the watch is set; where pidfds
    are missing, workers run as before."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:  # already gone
        os._exit(1)
    except (AttributeError, OSError):  # not Linux, or an older kernel
        return False

    def watch() -> None:
        waiting = select.poll()
        waiting.register(fd, select.POLLIN)  # readable once the process has ended
        waiting.poll()
        os._exit(1)

    threading.Thread(target=watch, name="survey-watch", daemon=True).start()
    return True


def _init_worker(profile_name: str, mode: str, allow_mcp: bool, salt: bytes, max_line: int,
                 root: str = "", survey_pid: int = 0) -> None:
    global _WORKER
    if survey_pid:
        end_with(survey_pid)
    keep_freed_memory()
    _WORKER = make_walker(profile_name, mode, allow_mcp, salt, max_line)
    _WORKER.root = root


def make_walker(profile_name: str, mode: str, allow_mcp: bool, salt: bytes,
                max_line: int = DEFAULT_MAX_LINE) -> Walker:
    from survey.runtimes import get
    from survey.runtimes.base import load_vocab

    profile = get(profile_name)
    keys, values = load_vocab(profile_name)
    gate = Gate(keys=keys, values=values, mode=mode, allow_mcp_names=allow_mcp,
                withheld_paths=profile.withheld_paths)
    return Walker(profile, gate, salt, max_line)


def _work(task: tuple) -> FileResult:
    assert _WORKER is not None
    return walk_file(_WORKER, *task)
