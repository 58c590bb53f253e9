"""LF-byte-only JSONL framing, streaming, with a per-line cap.

A frame is the bytes between two ``\n`` bytes; nothing else splits a line. The reader holds
at most one frame plus one chunk in memory, and each frame gets exactly one status and its
flags (``STATUSES``, ``classify_flags``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

CHUNK = 1 << 20
DEFAULT_MAX_LINE = 64 << 20
BOM = b"\xef\xbb\xbf"
# A frame's status: ``ok`` parsed to a JSON object; ``blank`` empty or whitespace only;
# ``malformed`` not JSON; ``partial`` the last frame has no LF and does not parse (a write in
# progress); ``oversized`` longer than the cap (its pieces dropped as they pass it, so a
# 100 MB line costs at most the cap plus one chunk); ``not_object`` valid JSON that is not an
# object; ``invalid_utf8``; ``too_deep`` nesting beyond the parser's limit. U+2028/U+2029,
# ``\r`` and NUL stay inside a frame.
STATUSES = (
    "ok",
    "blank",
    "malformed",
    "partial",
    "oversized",
    "not_object",
    "invalid_utf8",
    "too_deep",
)


def split_frames(fh: BinaryIO, max_line: int = DEFAULT_MAX_LINE) -> Iterator[tuple[bytes, bool, int]]:
    """Yield ``(frame_bytes, terminated, length)`` per LF-delimited frame.

    An oversized frame is yielded as ``(b"", terminated, length)`` with its true length and
    no bytes: the caller sees it was there without the reader ever holding it. Pending
    bytes of an unfinished line are kept as a list of pieces, so a long line is copied once.
    """
    pending: list[bytes] = []
    pending_len = 0
    skipping = False
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        start = 0
        i = chunk.find(b"\n")
        if i >= 0 and (pending or skipping):
            total = pending_len + i
            if skipping or total > max_line:
                yield b"", True, total
            else:
                pending.append(chunk[:i])
                yield b"".join(pending), True, total
            pending, pending_len, skipping = [], 0, False
            start = i + 1
            i = chunk.find(b"\n", start)
        while i >= 0:
            n = i - start
            yield (chunk[start:i] if n <= max_line else b""), True, n
            start = i + 1
            i = chunk.find(b"\n", start)
        rest = len(chunk) - start
        if rest:
            pending_len += rest
            if skipping or pending_len > max_line:
                skipping, pending = True, []
            else:
                pending.append(chunk[start:] if start else chunk)
    if skipping:
        yield b"", False, pending_len
    elif pending:
        yield b"".join(pending), False, pending_len


# the per-frame flags (``iter_frames``): bits of the frames table's ``flags``. ``bom`` (a
# UTF-8 BOM opened the file and was skipped), ``crlf`` (the frame ended in ``\r``), ``nul``,
# and three of a record kept as ``ok`` though orjson would not read it as plain JSON:
# ``duplicate_key`` (the last value kept, as orjson and Python's json do), ``out_of_range``
# (``1e400``: walked as an infinite number), ``nonstandard_number`` (``NaN``, ``Infinity``).
FLAG_BOM, FLAG_CRLF, FLAG_NUL = 1, 2, 4
FLAG_DUPLICATE_KEY, FLAG_OUT_OF_RANGE, FLAG_NONSTANDARD = 8, 16, 32
FLAGS = {"bom": FLAG_BOM, "crlf": FLAG_CRLF, "nul": FLAG_NUL, "duplicate_key": FLAG_DUPLICATE_KEY,
         "out_of_range": FLAG_OUT_OF_RANGE, "nonstandard_number": FLAG_NONSTANDARD}

# a JSON string (skipped), NaN / Infinity / -Infinity, or a number: what ``_salvage`` looks at
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)')
_I64_MIN, _U64_END = -(1 << 63), 1 << 64


def _int(s: str) -> Any:
    """An integer as orjson reads it: an int within 64 bits, else a double."""
    if len(s) <= 20:
        v = int(s)
        if _I64_MIN <= v < _U64_END:
            return v
    return float(s)


def _salvage(frame: bytes) -> tuple[Any, int] | None:
    """A frame orjson refused for its numbers alone: ``NaN``/``Infinity``/``-Infinity``
    (flag ``nonstandard_number``) or a number past a double's range (``out_of_range``). Each
    such token is put to ``0`` and the text must then be a JSON object orjson reads (so
    nothing else in it is wrong); the record is then read by Python's json, those numbers as
    doubles (NaN, +-inf) and every other as orjson reads it. None otherwise."""
    flags = 0

    def put(m: re.Match[bytes]) -> bytes:
        nonlocal flags
        if m.group(1):
            flags |= FLAG_NONSTANDARD
            return b"0"
        num = m.group(2)
        if num and float(num) in (float("inf"), float("-inf")):
            flags |= FLAG_OUT_OF_RANGE
            return b"0"
        return m.group(0)

    try:
        zeroed = _TOKENS.sub(put, frame)
        if not flags or type(orjson.loads(zeroed)) is not dict:
            return None
        dup = [0]
        obj = json.loads(frame, parse_int=_int, parse_float=float, object_pairs_hook=_pairs(dup))
    except (ValueError, RecursionError):  # (orjson's and json's errors are ValueErrors)
        return None
    return obj, flags | (FLAG_DUPLICATE_KEY if dup[0] else 0)


def _pairs(dup: list[int]) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict:
        d = dict(pairs)
        if len(d) != len(pairs):
            dup[0] = 1
        return d
    return hook


def duplicate_keys(frame: bytes | memoryview) -> bool:
    """Whether some object of a frame orjson read names a key twice (orjson keeps the last
    value, silently). Keys are compared decoded (``"a"`` and ``"\\u0061"`` are one key), by
    Python's json, which reads every frame orjson reads."""
    dup = False

    def hook(pairs: list[tuple[str, Any]]) -> None:
        nonlocal dup
        if len(pairs) > 1 and not dup and len({k for k, _ in pairs}) != len(pairs):
            dup = True

    try:
        json.loads(bytes(frame), object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return False
    return dup


def classify(frame: bytes, terminated: bool, length: int, max_line: int) -> tuple[str, object]:
    """Return ``(status, parsed_object_or_None)`` for one frame."""
    status, obj, _ = classify_flags(frame, terminated, length, max_line)
    return status, obj


def classify_flags(frame: bytes, terminated: bool, length: int, max_line: int) -> tuple[str, object, int]:
    """``classify`` with the flags of a kept record that is not plain JSON (``FLAGS``:
    duplicate_key, out_of_range, nonstandard_number), 0 otherwise."""
    if length > max_line or (not frame and length):
        return "oversized", None, 0
    if not frame or frame.isspace():  # no copy of a long line, unlike strip()
        return "blank", None, 0
    try:
        obj = orjson.loads(frame)
    except orjson.JSONDecodeError as exc:
        msg = str(exc).lower()
        if ("infinity" in msg or b"NaN" in frame or b"Infinity" in frame) and (got := _salvage(frame)):
            return "ok", got[0], got[1]
        # orjson 3.x says "depth limit exceeded" past 1024 levels (older: "recursion limit")
        if "depth limit" in msg or "recursion" in msg:
            return "too_deep", None, 0
        if "utf-8" in msg or "utf8" in msg:
            try:
                frame.decode("utf-8")
            except UnicodeDecodeError:
                return "invalid_utf8", None, 0
        return ("malformed" if terminated else "partial"), None, 0
    if not isinstance(obj, dict):
        return "not_object", None, 0
    return "ok", obj, FLAG_DUPLICATE_KEY if duplicate_keys(frame) else 0


def iter_frames(fh: BinaryIO, max_line: int = DEFAULT_MAX_LINE) -> Iterator[tuple[int, str, int, object, int]]:
    """Yield ``(line_no, status, nbytes, obj, flags)``; flags bit 1=bom, 2=crlf, 4=nul,
    8=duplicate_key, 16=out_of_range, 32=nonstandard_number (``FLAGS``)."""
    first = True
    for n, (frame, terminated, length) in enumerate(split_frames(fh, max_line)):
        flags = 0
        if first and frame.startswith(BOM):
            frame, flags = frame[3:], flags | 1
            length -= 3
        first = False
        if frame.endswith(b"\r"):
            flags |= 2
        if b"\0" in frame:
            flags |= 4
        status, obj, more = classify_flags(frame, terminated, length, max_line)
        yield n, status, length, obj, flags | more
