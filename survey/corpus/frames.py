"""LF-byte-only JSONL framing, streaming, with a per-line cap.

A frame is the bytes between two ``\\n`` bytes. Nothing else splits a line: U+2028/U+2029,
``\\r`` and NUL stay inside the frame (the original manual recon split on U+2028 once and
reported false "malformed" lines). The reader never holds more than one frame plus one
chunk in memory; a frame longer than ``max_line`` is skipped as ``oversized``: its pieces are
dropped as soon as they pass the cap and the rest is never buffered, so a 100 MB single line
costs at most ``max_line`` plus one chunk.

Statuses (a frame gets exactly one):
``ok`` parsed to a JSON object; ``blank`` empty or whitespace only; ``malformed`` not JSON;
``partial`` the last frame has no LF and does not parse (a write in progress);
``oversized`` longer than the cap; ``not_object`` valid JSON that is not an object;
``invalid_utf8`` bytes that are not UTF-8; ``too_deep`` nesting beyond the parser's limit.
Per-frame flags, counted separately: ``bom`` (a UTF-8 BOM opened the file and was skipped),
``crlf`` (the frame ended in ``\\r``), ``nul`` (a NUL byte inside the frame).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

import orjson

CHUNK = 1 << 20
DEFAULT_MAX_LINE = 64 << 20
BOM = b"\xef\xbb\xbf"
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


def classify(frame: bytes, terminated: bool, length: int, max_line: int) -> tuple[str, object]:
    """Return ``(status, parsed_object_or_None)`` for one frame."""
    if length > max_line or (not frame and length):
        return "oversized", None
    if not frame or frame.isspace():  # no copy of a long line, unlike strip()
        return "blank", None
    try:
        obj = orjson.loads(frame)
    except orjson.JSONDecodeError as exc:
        msg = str(exc).lower()
        # orjson 3.x says "depth limit exceeded" past 1024 levels (older: "recursion limit")
        if "depth limit" in msg or "recursion" in msg:
            return "too_deep", None
        if "utf-8" in msg or "utf8" in msg:
            try:
                frame.decode("utf-8")
            except UnicodeDecodeError:
                return "invalid_utf8", None
        return ("malformed" if terminated else "partial"), None
    if not isinstance(obj, dict):
        return "not_object", None
    return "ok", obj


def iter_frames(fh: BinaryIO, max_line: int = DEFAULT_MAX_LINE) -> Iterator[tuple[int, str, int, object, int]]:
    """Yield ``(line_no, status, nbytes, obj, flags)``; flags bit 1=bom, 2=crlf, 4=nul."""
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
        status, obj = classify(frame, terminated, length, max_line)
        yield n, status, length, obj, flags
