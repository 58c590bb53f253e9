"""Seeded generator of a *hostile* Cursor-layout corpus: one file per class of bad input.

The survey must read any store without writing to it, without losing a file and without
crashing: every bad input has to come out as a counted outcome. This module plants each
class of bad input once, in the Cursor layout (``<root>/<project>/agent-transcripts/<id>/<id>.jsonl``
and friends), and returns what it planted, per class:

====================  =====================================================================
class                 what is on disk
====================  =====================================================================
``malformed``         a transcript with two terminated lines that are not JSON
``truncated``         a transcript whose last line is a cut JSON object without LF
``big_line``          one line of ``big_line_mb`` MiB (one huge string), then a normal line;
                      written streaming, never held as one Python string
``deep``              a 10,000-level ``[[[...]]]`` inside an object (beyond any parser)
``deep_payload``      a 1,000-level array as a tool_use ``input`` (parses, but deeper than
                      an encoder will re-serialise)
``invalid_utf8``      a line with bytes that are not UTF-8 inside a string
``bom``               a UTF-8 BOM before the first line
``crlf``              three lines ending in CR LF
``nul``               a NUL byte inside a string and a line of NUL padding
``empty``             a zero-byte transcript
``unreadable``        a transcript with mode 000 (does not stop root: see ``reads_blocked``)
``broken_symlink``    a ``.jsonl`` symlink to nothing
``symlink_loop``      two ``.jsonl`` symlinks pointing at each other
``dir_like_file``     a directory named ``<id>.jsonl`` (holding one ``.bin`` file)
``duplicate_ids``     the same session id in two projects (two good transcripts)
``unknown_files``     files no runtime knows, several extensions (counted by extension)
``million_keys``      a line holding one object with 1,000,000 keys (written streaming)
``utf16``             three records in UTF-16-LE after its byte-order mark (one holds a
                      character outside the BMP, a surrogate pair)
``utf32``             two records in UTF-32-BE after its byte-order mark
``binary``            a ``.jsonl`` of 64 KiB of seeded random bytes after a PNG signature
                      (NUL bytes and LFs among them)
``out_of_range``      two records holding a number past a double's range (``1e400``,
                      ``-1e999``), one plain record
``nonstandard_number`` two records holding ``NaN`` / ``Infinity`` / ``-Infinity``, one plain
``duplicate_key``     two records naming a key twice (``role`` at the top, ``content`` inside
                      ``message``; the last value differs from the first), one plain record
====================  =====================================================================

The planted record (``generate``'s return value) holds, besides ``classes`` (per class: its
relative paths, local only, and its expected frame statuses, flags, file problem and read
status), the totals a survey must reproduce: ``frames`` (frame status -> count over all
transcripts), ``flags`` (bom / crlf / nul / duplicate_key / out_of_range / nonstandard_number
frames), ``file_problems`` (crawl problem or read status other than ok -> files), ``other_ext``
(extension -> files outside every surface), and ``canaries``: unique tokens
(``hstl`` + 12 hex + ``q``) planted in every project name, session id, other-file name,
symlink target, string value, key and bad line, so a test can prove none of them is ever
printed or written.

``ChangePlan`` is a helper for the "file changes while it is read" class: it grows, shrinks
or deletes given files when told that a reader is about to open them or has read their first
chunk; a test hooks it into the walk (this module imports nothing from the survey's census,
walk or evidence code: it must not know how it is measured).

Deterministic: the same arguments give the same bytes and mtimes (fixed base date).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from survey.synth.common import TokenStream, ensure_root

__all__ = ["ACTIONS", "CLASSES", "DEFAULT_MAX_LINE", "ChangePlan", "generate", "grow", "plant_changing", "shrink"]

CLASSES = (
    "malformed", "truncated", "big_line", "deep", "deep_payload", "invalid_utf8", "bom", "crlf",
    "nul", "empty", "unreadable", "broken_symlink", "symlink_loop", "dir_like_file",
    "duplicate_ids", "unknown_files", "million_keys", "utf16", "utf32", "binary", "out_of_range",
    "nonstandard_number", "duplicate_key",
)
DEFAULT_MAX_LINE = 64 << 20  # the framing cap the survey documents (frames longer are skipped)
DEEP_LEVELS = 10_000
DEEP_PAYLOAD_LEVELS = 1_000
MILLION = 1_000_000
MTIME = 1_781_870_400  # 2026-06-19 12:00 UTC, fixed: same seed, same mtimes
_MIB = 1 << 20


def _tokens(seed: int) -> TokenStream:
    """The canary stream: unique ``hstl<12 hex>q`` tokens (a format of their own)."""
    return TokenStream(f"hostile-{seed}", prefix="hstl", suffix="q")


def _ok(tok: TokenStream, role: str = "user") -> bytes:
    """One well-formed Cursor frame, with a token in its text."""
    return orjson.dumps({"role": role, "message": {"content": [{"type": "text", "text": f"hello {tok()}"}]}})


def _stamp(path: Path) -> None:
    os.utime(path, (MTIME, MTIME), follow_symlinks=False)


def generate(root: Path, *, seed: int = 7, big_line_mb: int = 100, max_line: int = DEFAULT_MAX_LINE,
             classes: Iterable[str] | None = None, **_: Any) -> dict[str, Any]:
    """Write one file (or pair) per hostile class under ``root``; return what was planted.

    ``big_line_mb`` sizes the single huge line (MiB of string content); ``max_line`` is the
    cap above which that line is expected to come out ``oversized``. ``classes`` restricts
    the classes written (default: all of ``CLASSES``).
    """
    root = ensure_root(root)
    want = set(CLASSES if classes is None else classes)
    unknown = want - set(CLASSES)
    if unknown:
        raise ValueError(f"unknown hostile classes: {sorted(unknown)}")
    tok = _tokens(seed)
    proj_a = root / f"-Users-dev-{tok()}-alpha"
    proj_b = root / f"-Users-dev-{tok()}-beta"
    out: dict[str, dict[str, Any]] = {}
    other_ext: Counter[str] = Counter()

    def rel(p: Path) -> str:
        return p.relative_to(root).as_posix()

    def transcript(proj: Path, sid: str | None = None) -> Path:
        sid = sid or tok()
        p = proj / "agent-transcripts" / sid / f"{sid}.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        return p

    def plant(cls: str, path: Path, body: bytes, frames: dict[str, int], flags: dict[str, int] | None = None,
              **extra: Any) -> None:
        path.write_bytes(body)
        _stamp(path)
        out[cls] = {"paths": [rel(path)], "frames": frames, "flags": flags or {}, "problem": None,
                    "read_status": "ok", **extra}

    if "malformed" in want:
        lines = [_ok(tok), b'{"role":"user","message":' + tok().encode() + b"}", _ok(tok, "assistant"),
                 b"not json at all " + tok().encode(), _ok(tok)]
        plant("malformed", transcript(proj_a), b"\n".join(lines) + b"\n", {"ok": 3, "malformed": 2})

    if "truncated" in want:
        cut = b'{"role":"assistant","message":{"content":[{"type":"text","text":"' + tok().encode()
        plant("truncated", transcript(proj_a), _ok(tok) + b"\n" + _ok(tok, "assistant") + b"\n" + cut,
              {"ok": 2, "partial": 1})

    if "big_line" in want:
        path = transcript(proj_a)
        head = b'{"role":"user","message":{"content":[{"type":"text","text":"' + tok().encode()
        tail = b'"}]}}'
        body_len = big_line_mb * _MIB
        rng = random.Random(f"hostile-big-{seed}")
        block = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz ") for _ in range(_MIB))
        with open(path, "wb") as fh:
            fh.write(head)
            left = body_len
            while left > 0:
                n = min(left, len(block))
                fh.write(block if n == len(block) else block[:n])
                left -= n
            fh.write(tail + b"\n")
            fh.write(_ok(tok, "assistant") + b"\n")
        _stamp(path)
        line = len(head) + body_len + len(tail)
        status = "oversized" if line > max_line else "ok"
        big_frames = {"ok": 1, status: 1} if status != "ok" else {"ok": 2}
        out["big_line"] = {"paths": [rel(path)], "frames": big_frames, "flags": {}, "problem": None,
                           "line_bytes": line, "file_bytes": path.stat().st_size}

    if "deep" in want:
        deep = (b'{"role":"user","deep":' + b"[" * DEEP_LEVELS + orjson.dumps(tok()) + b"]" * DEEP_LEVELS + b"}")
        plant("deep", transcript(proj_a), deep + b"\n" + _ok(tok, "assistant") + b"\n",
              {"too_deep": 1, "ok": 1}, levels=DEEP_LEVELS)

    if "deep_payload" in want:
        inner = b"[" * DEEP_PAYLOAD_LEVELS + orjson.dumps(tok()) + b"]" * DEEP_PAYLOAD_LEVELS
        frame = (b'{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Shell","input":'
                 + inner + b"}]}}")
        plant("deep_payload", transcript(proj_a), frame + b"\n", {"ok": 1}, levels=DEEP_PAYLOAD_LEVELS)

    if "invalid_utf8" in want:
        bad = b'{"role":"user","message":{"content":[{"type":"text","text":"' + tok().encode() + b'\xff\xfe\xc3("}]}}'
        plant("invalid_utf8", transcript(proj_a), _ok(tok) + b"\n" + bad + b"\n", {"ok": 1, "invalid_utf8": 1})

    if "bom" in want:
        plant("bom", transcript(proj_a), b"\xef\xbb\xbf" + _ok(tok) + b"\n" + _ok(tok, "assistant") + b"\n",
              {"ok": 2}, {"bom": 1})

    if "crlf" in want:
        plant("crlf", transcript(proj_a), b"".join(_ok(tok) + b"\r\n" for _ in range(3)), {"ok": 3}, {"crlf": 3})

    if "nul" in want:
        in_string = b'{"role":"user","message":{"content":[{"type":"text","text":"' + tok().encode() + b'\x00x"}]}}'
        padding = b"\x00" * 64
        plant("nul", transcript(proj_a), _ok(tok) + b"\n" + in_string + b"\n" + padding + b"\n",
              {"ok": 1, "malformed": 2}, {"nul": 2})

    if "empty" in want:
        plant("empty", transcript(proj_a), b"", {})
        out["empty"]["problem"] = "empty"

    if "unreadable" in want:
        path = transcript(proj_a)
        plant("unreadable", path, _ok(tok) + b"\n" + _ok(tok, "assistant") + b"\n", {"ok": 2})
        os.chmod(path, 0)
        try:
            with open(path, "rb") as probe:
                probe.read(1)
            blocked = False  # root (or CAP_DAC_OVERRIDE): mode 000 does not stop reads
        except PermissionError:
            blocked = True
        out["unreadable"].update(reads_blocked=blocked, problem="unreadable" if blocked else None,
                                 frames={} if blocked else {"ok": 2})

    if "broken_symlink" in want:
        link = proj_a / "agent-transcripts" / f"{tok()}.jsonl"
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(f"{tok()}-nowhere.jsonl")
        _stamp(link)
        other_ext[".jsonl"] += 1
        out["broken_symlink"] = {"paths": [rel(link)], "frames": {}, "flags": {}, "problem": "broken_symlink"}

    if "symlink_loop" in want:
        d = proj_a / "agent-transcripts"
        d.mkdir(parents=True, exist_ok=True)
        la, lb = d / f"{tok()}.jsonl", d / f"{tok()}.jsonl"
        la.symlink_to(lb.name)
        lb.symlink_to(la.name)
        _stamp(la)
        _stamp(lb)
        other_ext[".jsonl"] += 2
        out["symlink_loop"] = {"paths": [rel(la), rel(lb)], "frames": {}, "flags": {}, "problem": "symlink_loop"}

    if "dir_like_file" in want:
        sid = tok()
        d = proj_a / "agent-transcripts" / sid / f"{sid}.jsonl"
        d.mkdir(parents=True)
        inside = d / f"{tok()}.bin"
        inside.write_bytes(tok().encode() + b"\x00\x01")
        _stamp(inside)
        _stamp(d)
        other_ext[".bin"] += 1
        other_ext[".jsonl"] += 1  # the directory's own row: no surface's file, a directory outcome
        out["dir_like_file"] = {"paths": [rel(d)], "inner": [rel(inside)], "frames": {}, "flags": {},
                                "problem": "dir_named_like_file"}

    if "duplicate_ids" in want:
        sid = tok()
        paths = []
        for proj in (proj_a, proj_b):
            p = transcript(proj, sid)
            p.write_bytes(_ok(tok) + b"\n" + _ok(tok, "assistant") + b"\n")
            _stamp(p)
            paths.append(rel(p))
        out["duplicate_ids"] = {"paths": paths, "frames": {"ok": 4}, "flags": {}, "problem": None,
                                "ids": 1, "files": 2}

    if "unknown_files" in want:
        names = [f"{tok()}.xyz", f"{tok()}-2.xyz", f"{tok()}.bak", f"{tok()}.png", f"{tok()}.tar.gz",
                 f"Makefile-{tok()}", f".{tok()}"]
        paths = []
        by_ext: Counter[str] = Counter()
        for name in names:
            p = proj_a / name
            p.parent.mkdir(parents=True, exist_ok=True)
            head = b"\x89PNG\r\n\x1a\n" if name.endswith(".png") else b""
            p.write_bytes(head + tok().encode() + b"\n")
            _stamp(p)
            paths.append(rel(p))
            ext = ("(dotfile)" if name.startswith(".") else
                   "(none)" if "." not in name else "." + name.rsplit(".", 1)[1])
            by_ext[ext] += 1
        other_ext.update(by_ext)
        out["unknown_files"] = {"paths": paths, "frames": {}, "flags": {}, "problem": None,
                                "by_ext": dict(sorted(by_ext.items()))}

    if "million_keys" in want:
        path = transcript(proj_b)
        with open(path, "wb") as fh:
            fh.write(b'{"role":"user",' + orjson.dumps(tok()) + b":" + orjson.dumps(tok()))
            step = 10_000
            for start in range(0, MILLION - 1, step):
                fh.write(b"".join(b',"k%d":%d' % (i, i) for i in range(start, min(start + step, MILLION - 1))))
            fh.write(b"}\n" + _ok(tok, "assistant") + b"\n")
        _stamp(path)
        out["million_keys"] = {"paths": [rel(path)], "frames": {"ok": 2}, "flags": {}, "problem": None,
                               "keys": MILLION + 1}  # role + the token key + 999,999 k<i>

    def text(role: str, extra: str = "") -> str:  # one well-formed frame as text, a token in it
        return orjson.dumps({"role": role, "message": {"content": [{"type": "text", "text": f"hello {tok()}{extra}"}]}}
                            ).decode()

    if "utf16" in want:
        body = "\n".join([text("user"), text("assistant", " \U0001f600 \u00e9"), text("user")]) + "\n"
        plant("utf16", transcript(proj_a), b"\xff\xfe" + body.encode("utf-16-le"), {"ok": 3}, read_status="utf16")

    if "utf32" in want:
        body = "\n".join([text("user"), text("assistant")]) + "\n"
        plant("utf32", transcript(proj_a), b"\x00\x00\xfe\xff" + body.encode("utf-32-be"), {"ok": 2},
              read_status="utf32")

    if "binary" in want:
        rng = random.Random(f"hostile-binary-{seed}")
        noise = bytes(rng.getrandbits(8) for _ in range(64 << 10))
        data = b"\x89PNG\r\n\x1a\n" + tok().encode() + noise
        plant("binary", transcript(proj_a), data, {}, read_status="binary", lines=data.count(b"\n"))

    if "out_of_range" in want:
        lines = [b'{"role":"user","size":1e400,"message":{"content":[{"type":"text","text":"' + tok().encode() + b'"}]}}',
                 _ok(tok, "assistant"),
                 b'{"role":"assistant","message":{"content":[{"type":"text","text":"' + tok().encode()
                 + b'"}]},"offsets":[1,-1e999,2.5]}']
        plant("out_of_range", transcript(proj_a), b"\n".join(lines) + b"\n", {"ok": 3}, {"out_of_range": 2})

    if "nonstandard_number" in want:
        lines = [b'{"role":"user","score":NaN,"message":{"content":[{"type":"text","text":"' + tok().encode() + b'"}]}}',
                 _ok(tok, "assistant"),
                 b'{"role":"user","bounds":[Infinity,-Infinity],"message":{"content":[]}}']
        plant("nonstandard_number", transcript(proj_a), b"\n".join(lines) + b"\n", {"ok": 3},
              {"nonstandard_number": 2})

    if "duplicate_key" in want:
        # the census keeps the last value of a key named twice (orjson's and json's choice):
        # role "assistant" here, and the second content array
        lines = [b'{"role":"user","message":{"content":[]},"role":"assistant"}',
                 _ok(tok),
                 b'{"role":"user","message":{"content":[{"type":"text","text":"' + tok().encode()
                 + b'"}],"content":[{"type":"text","text":"' + tok().encode() + b'"},{"type":"image"}]}}']
        plant("duplicate_key", transcript(proj_a), b"\n".join(lines) + b"\n", {"ok": 3}, {"duplicate_key": 2},
              kept_role="assistant", kept_blocks=2)

    for d in sorted({p for p in root.rglob("*") if p.is_dir() and not p.is_symlink()}, reverse=True):
        _stamp(d)

    frames: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    for c in out.values():
        c.setdefault("read_status", "ok")
        frames.update(c["frames"])
        flags.update(c["flags"])
        if c["problem"]:
            problems[c["problem"]] += len(c["paths"])
        elif c.get("read_status", "ok") != "ok":  # a read outcome (the crawl's own comes first)
            problems[c["read_status"]] += len(c["paths"])
    unreadable = out.get("unreadable", {})
    return {
        "seed": seed,
        "classes": dict(sorted(out.items())),
        "frames": dict(sorted(frames.items())),
        "flags": dict(sorted(flags.items())),
        "file_problems": dict(sorted(problems.items())),
        "other_ext": dict(sorted(other_ext.items())),
        "reads_blocked": unreadable.get("reads_blocked"),
        "canaries": list(tok.tokens),
    }


# -- files that change while they are read ------------------------------------------------
def grow(path: Path | str, data: bytes | None = None) -> int:
    """Append ``data`` (default: one well-formed frame) to a file; return bytes added."""
    data = data if data is not None else b'{"role":"user","message":{"content":[]}}\n'
    with open(path, "ab") as fh:
        fh.write(data)
    return len(data)


def shrink(path: Path | str, keep: int | None = None) -> int:
    """Truncate a file to ``keep`` bytes (default: half); return bytes removed."""
    size = os.path.getsize(path)
    keep = size // 2 if keep is None else keep
    os.truncate(path, keep)
    return size - keep


ACTIONS = ("grow_before", "shrink_before", "vanish_before", "grow_during", "shrink_during")


class ChangePlan:
    """Change given files at the moment a reader reaches them.

    ``actions`` maps an absolute path to one of ``ACTIONS``: ``*_before`` act when the reader
    is about to open the file (after the crawl's ``stat``), ``*_during`` after its first
    chunk was read. Each action runs once; ``done`` counts them. Hook ``before_open`` and
    ``after_read`` into a reader (a test monkeypatches the walk to call them).
    """

    def __init__(self, actions: dict[str, str]) -> None:
        bad = {a for a in actions.values() if a not in ACTIONS}
        if bad:
            raise ValueError(f"unknown actions: {sorted(bad)}")
        self.actions = {os.path.abspath(p): a for p, a in actions.items()}
        self.done: Counter[str] = Counter()  # action -> times done
        self._acted: set[str] = set()

    def _act(self, path: str, phase: str) -> None:
        key = os.path.abspath(path)
        action = self.actions.get(key)
        if action is None or not action.endswith(phase) or key in self._acted:
            return
        self._acted.add(key)
        self.done[action] += 1
        if action.startswith("grow"):
            grow(key)
        elif action.startswith("shrink"):
            shrink(key)
        else:
            os.unlink(key)

    def before_open(self, path: str) -> None:
        self._act(path, "_before")

    def after_read(self, path: str) -> None:
        self._act(path, "_during")


def plant_changing(root: Path, *, seed: int = 7) -> dict[str, Path]:
    """One transcript per ``ACTIONS`` entry (the ``*_during`` ones over 2 MiB, so a reader
    reading 1 MiB chunks is mid-file when it changes: a small file is one read, whole
    before anything can change it); returns action -> path."""
    tok = _tokens(seed + 1)
    proj = Path(root) / f"-Users-dev-{tok()}-gamma"
    out: dict[str, Path] = {}
    for action in ACTIONS:
        sid = tok()
        p = proj / "agent-transcripts" / sid / f"{sid}.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        lines = [_ok(tok) for _ in range(3)]
        if action.endswith("_during"):
            pad = "x" * 4000
            lines = [orjson.dumps({"role": "user", "message": {"content": [{"type": "text", "text": f"{tok()} {pad}"}]}})
                     for _ in range(600)]
        p.write_bytes(b"\n".join(lines) + b"\n")
        _stamp(p)
        out[action] = p
    return out
