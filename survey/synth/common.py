"""Building blocks shared by the seeded corpus generators.

Everything here is deterministic: randomness comes only from the ``random.Random`` a caller
passes in (or seeds here from a label), and times come from the caller, never from the clock.
Like the generators, this module never imports the census, the walk or the evidence code.

- Canaries: :class:`TokenStream` issues unique ``cnry<12 hex>z`` tokens from a seeded rng of
  their own (so structure never depends on whether canaries are on); :data:`CANARY_RE` /
  :data:`CANARY_RE_B` and :func:`scan_canaries` find the ones that reached a file.
- Text: word lists (:data:`SHORT_WORDS` and the building blocks of the JSONL generators'
  pools), :func:`wordlist`, and :class:`SeededText` (the rng + canary stream + word/sentence
  makers the Cursor store generators share).
- Fast rng draws for hot paths (:func:`ri`, :func:`ch`, :func:`b62`) and :func:`uuid4`.
- Files and time: :func:`ensure_root`, :data:`STORE_BASE_DATE` and :func:`spread_date`
  (seeded dates from a fixed base), :func:`iso_ms` (ISO-8601 UTC with milliseconds),
  :func:`month_counts`, :func:`stamp` (``os.utime`` over written files).
- JSON helpers: :func:`compact_json`, :func:`keyset`.
- The Claude Code / Codex machinery: :class:`JsonlCorpus` (text pool, canaries, LF framing,
  file writing with mtimes, the common part of ``planted``), :class:`FramingPlan`,
  :class:`Coverage` (branch choices that cycle in coverage sessions), :func:`session_start`
  and :class:`Schedule`.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DAY_MS = 86_400_000
HEX = "0123456789abcdef"
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

# ------------------------------------------------------------------------------- canaries

CANARY_RE = re.compile(r"cnry[0-9a-f]{12}z")
CANARY_RE_B = re.compile(rb"cnry[0-9a-f]{12}z")


class TokenStream:
    """Unique tokens ``<prefix><12 hex><suffix>`` from an rng seeded with ``label``.

    ``tokens`` lists every token issued, in issue order.
    """

    def __init__(self, label: str, prefix: str = "cnry", suffix: str = "z") -> None:
        self.rng = random.Random(label)
        self.prefix = prefix
        self.suffix = suffix
        self.tokens: list[str] = []
        self._seen: set[str] = set()

    def __call__(self) -> str:
        while True:
            tok = f"{self.prefix}{self.rng.getrandbits(48):012x}{self.suffix}"
            if tok not in self._seen:
                self._seen.add(tok)
                self.tokens.append(tok)
                return tok


def scan_canaries(*chunks: str | bytes) -> set[str]:
    """The canary tokens present in what was written (drawn-but-unwritten ones are dropped)."""
    out: set[str] = set()
    for chunk in chunks:
        if isinstance(chunk, bytes):
            out.update(m.decode() for m in CANARY_RE_B.findall(chunk))
        else:
            out.update(CANARY_RE.findall(chunk))
    return out


# ----------------------------------------------------------------------------------- text


def wordlist(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of ``text``."""
    return tuple(text.split())


SHORT_WORDS = (
    "alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "lamp", "orbit", "maple",
    "cedar", "piano", "silver", "copper", "harbor", "meadow", "lantern", "quartz", "tiger",
    "violet", "window", "yellow", "zephyr", "amber", "bridge", "candle", "falcon", "garden",
)
"""The small vocabulary of the Cursor store generators."""

# Building blocks of the Claude Code and Codex text pools (their order is part of the output).
CODE_WORDS = wordlist(
    "alpha beta gamma delta sigma omega build cache index parse render merge split queue "
    "worker buffer token stream module config branch commit review patch table column value "
    "field record schema layout folder handler router service client server request reply "
    "status retry limit window frame chunk block shard replica cluster node graph edge vertex "
    "filter mapper reducer sorter loader writer reader cursor offset length width height"
)
SYSTEM_WORDS = wordlist(
    "kernel driver socket packet header footer anchor marker signal event hook probe sample"
)
PROSE_WORDS = wordlist(
    "plan step phase stage gate check guard fence latch mutex thread fiber task job batch "
    "the a of to and in is it for on with as at by from this that we you should could would "
    "maybe quickly carefully again later first then next finally please update remove add "
    "fix refactor rename move copy test verify ensure handle support allow avoid"
)
NON_ASCII_WORDS = ("café", "naïve", "→", "…", "λ", "über", "日本", "数据")


def ri(rng: random.Random, lo: int, hi: int) -> int:
    """``rng.randint`` without its overhead (hot path)."""
    return lo + int(rng.random() * (hi - lo + 1))


def ch(rng: random.Random, seq: Any) -> Any:
    """``rng.choice`` without its overhead (hot path)."""
    return seq[int(rng.random() * len(seq))]


_B62T = str.maketrans("+/=", "xQz")


def b62(rng: random.Random, n: int) -> str:
    """``n`` base62-looking characters from the rng (fast)."""
    return base64.b64encode(rng.randbytes(n)).decode()[:n].translate(_B62T)


def uuid4(rng: random.Random) -> str:
    """A version-4 uuid from 128 bits of ``rng``."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


class SeededText:
    """Seeded structure rng plus a canary stream kept apart (structure never depends on it).

    ``canary_label`` seeds the canary stream; ``canaries`` is the list of issued tokens.
    """

    def __init__(self, seed: int, canaries: bool, canary_label: str,
                 words: tuple[str, ...] = SHORT_WORDS) -> None:
        self.rng = random.Random(seed)
        self._tokens = TokenStream(canary_label)
        self.canaries_on = canaries
        self.canaries: list[str] = self._tokens.tokens
        self._words = words

    def canary(self) -> str:
        return self._tokens()

    def mark(self, text: str, sep: str = " ") -> str:
        """``text`` with a fresh token after ``sep`` (unchanged without canaries)."""
        return f"{text}{sep}{self.canary()}" if self.canaries_on else text

    def words(self, lo: int, hi: int) -> str:
        return " ".join(self.rng.choice(self._words) for _ in range(self.rng.randint(lo, hi)))

    def text(self, lo: int = 4, hi: int = 14) -> str:
        return self.mark(self.words(lo, hi))

    def chars(self, n: int, abc: str) -> str:
        return "".join(self.rng.choice(abc) for _ in range(n))

    def alnum(self, n: int) -> str:
        return self.chars(n, ALNUM)

    def uuid(self) -> str:
        return uuid4(self.rng)


# ------------------------------------------------------------------------------ time, json

STORE_BASE_DATE = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)
"""Fixed base date of the Cursor store generators' timestamps and mtimes (never the clock)."""


def spread_date(rng: random.Random, i: int, *, step: int, jitter: int, minutes: int,
                span_days: int = 240, base: datetime = STORE_BASE_DATE) -> datetime:
    """When item ``i`` happens: ``step`` days after the previous one plus up to ``jitter``
    days, wrapped into ``span_days`` after ``base``, plus up to ``minutes`` minutes."""
    day = (i * step + rng.randint(0, jitter)) % span_days
    return base + timedelta(days=day, minutes=rng.randint(0, minutes))


_TS_LAST: list[Any] = [-1, ""]


def iso_ms(ms: int) -> str:
    """ISO-8601 UTC with milliseconds (``...T12:34:56.789Z``), as Claude Code and Codex write it."""
    sec = ms // 1000
    if sec != _TS_LAST[0]:
        _TS_LAST[0] = sec
        _TS_LAST[1] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec))
    return f"{_TS_LAST[1]}.{ms % 1000:03d}Z"


def month_counts(written: Iterable[tuple[Path, float]]) -> Counter[str]:
    """Files per UTC ``YYYY-MM`` of their mtime (seconds)."""
    return Counter(datetime.fromtimestamp(m, UTC).strftime("%Y-%m") for _, m in written)


def stamp(written: Iterable[tuple[Path, float]]) -> None:
    """Set each path's atime and mtime to its given time (seconds)."""
    for path, mtime in written:
        os.utime(path, (mtime, mtime))


def ensure_root(root: Path | str) -> Path:
    """``root`` as a ``Path``, created if missing."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    return root


def compact_json(obj: Any) -> str:
    """JSON without spaces, non-ASCII kept as is."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def keyset(obj: dict[str, Any]) -> str:
    """The sorted top-level keys of ``obj``, comma-joined."""
    return ",".join(sorted(obj))


# -------------------------------------------------------------- Claude Code / Codex corpora

BLANK = object()
"""A record list entry written as a blank line."""


class JsonlCorpus:
    """Writes JSONL and sidecar files and keeps the tallies every JSONL ``planted`` shares.

    ``label`` names the runtime's rng streams (``<label>-canary:<seed>``,
    ``<label>-pool:<seed>``); ``surfaces`` are the file surfaces counted in ``files``.
    """

    def __init__(self, root: Path, seed: int, canaries: bool, *, label: str,
                 words: tuple[str, ...], surfaces: tuple[str, ...]) -> None:
        self.root = root
        self.canaries_on = canaries
        self._tokens = TokenStream(f"{label}-canary:{seed}")
        self.canaries: list[str] = self._tokens.tokens
        self._dirs: set[Path] = set()
        self._written: set[bytes] = set()  # canaries that reached a file (path or body)
        prng = random.Random(f"{label}-pool:{seed}")
        pool = prng.choices(words, k=90_000)
        for _ in range(6):
            pool[prng.randrange(len(pool))] = "\u2028"
        self.pool = " ".join(pool)
        self.files: Counter[str] = Counter({s: 0 for s in surfaces})
        self.records: Counter[str] = Counter()
        self.keysets: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.lines: Counter[str] = Counter({"ok": 0, "blank": 0, "malformed": 0, "partial": 0})
        self.versions: Counter[str] = Counter()
        self.months: Counter[str] = Counter()
        self.bytes_total = 0

    # -- text -----------------------------------------------------------------------------
    def canary(self) -> str:
        return self._tokens()

    def raw(self, rng: random.Random, n: int) -> str:
        """Pool text without a canary (only for filler that follows a canaried text)."""
        i = int(rng.random() * (len(self.pool) - n - 1))
        return self.pool[i:i + n]

    def text(self, rng: random.Random, n: int) -> str:
        """About ``n`` characters of pool text; with canaries, a token before or after it."""
        n = max(1, n)
        i = int(rng.random() * (len(self.pool) - n - 1))
        s = self.pool[i:i + n].strip() or "ok"
        if self.canaries_on:
            return f"{s} {self.canary()}" if rng.random() < 0.5 else f"{self.canary()} {s}"
        return s

    def key(self, plain: str) -> str:
        """A key of a data-keyed map."""
        return f"{plain}-{self.canary()}" if self.canaries_on else plain

    def canarize(self, v: Any) -> Any:
        """Give every string value of a tool input its own canary (canary mode only)."""
        if not self.canaries_on:
            return v
        if isinstance(v, str):
            return v if "cnry" in v else f"{v} {self.canary()}"
        if isinstance(v, list):
            return [self.canarize(x) for x in v]
        if isinstance(v, dict):
            return {k: self.canarize(x) for k, x in v.items()}
        return v

    # -- files ----------------------------------------------------------------------------
    def frame(self, recs: list[Any], classify: Callable[[dict[str, Any]], str], *,
              final_lf: bool = True, partial: bytes | None = None,
              dumps: Callable[[Any], bytes]) -> bytes:
        """LF-framed bytes of ``recs`` (dicts, :data:`BLANK`, raw malformed bytes), tallied.

        ``classify`` names a record's class for ``records``/``keysets``; ``partial`` is an
        unparsable last line written without LF.
        """
        out: list[bytes] = []
        records = self.records
        keysets = self.keysets
        lines = self.lines
        for r in recs:
            if r is BLANK:
                out.append(b"")
                lines["blank"] += 1
                continue
            if isinstance(r, bytes):
                out.append(r)
                lines["malformed"] += 1
                continue
            out.append(dumps(r))
            cls = classify(r)
            records[cls] += 1
            keysets[cls][",".join(sorted(r))] += 1
            lines["ok"] += 1
        data = b"\n".join(out)
        if final_lf or partial is not None:
            data += b"\n"
        if partial is not None:
            data += partial
            lines["partial"] += 1
        return data

    def store(self, rel: str, surface: str, data: bytes, mtime_ms: int) -> None:
        """Write ``data`` at ``root/rel`` with mtime ``mtime_ms`` and count it."""
        path = self.root / rel
        if path.parent not in self._dirs:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(path.parent)
        path.write_bytes(data)
        if self.canaries_on:
            self._written.update(CANARY_RE_B.findall(data))
            self._written.update(CANARY_RE_B.findall(rel.encode()))
        t = mtime_ms / 1000
        os.utime(path, (t, t))
        self.files[surface] += 1
        self.bytes_total += len(data)
        self.months[time.strftime("%Y-%m", time.gmtime(mtime_ms // 1000))] += 1

    def base_planted(self, runtime: str) -> dict[str, Any]:
        """The head of ``planted`` every JSONL generator shares (runtime figures follow)."""
        return {
            "runtime": runtime,
            "files": dict(self.files),
            "records": dict(sorted(self.records.items())),
            "keysets": {c: dict(sorted(k.items())) for c, k in sorted(self.keysets.items())},
            "versions": dict(sorted(self.versions.items())),
            "bytes_total": self.bytes_total,
            "canaries": [t for t in self.canaries if t.encode() in self._written],
            "mtime_months": dict(sorted(self.months.items())),
            "lines": dict(self.lines),
        }


@dataclass
class FramingPlan:
    """Which line-framing edge cases one JSONL file carries."""

    blank: bool = False  # a blank line
    malformed: bool = False  # an unparsable LF-terminated line
    partial: bool = False  # an unparsable last line without LF
    no_final_lf: bool = False  # a complete last record without LF


class Coverage:
    """Branch choices that cycle through every option in coverage sessions.

    Subclasses set ``rng``, ``cover`` (a coverage session?) and ``counters``.
    """

    rng: random.Random
    cover: bool
    counters: Counter[str]

    def pick(self, name: str, n: int, weights: tuple[float, ...] | None = None) -> int:
        """Index of a branch: cycles through all in coverage sessions, else weighted random."""
        if self.cover and self.counters[name] < n:
            i = self.counters[name]
            self.counters[name] += 1
            return i
        x = self.rng.random()
        if weights is None:
            return int(x * n)
        for i, w in enumerate(weights):
            x -= w
            if x < 0:
                return i
        return n - 1

    def want(self, name: str, p: float) -> bool:
        return self.pick(name, 2, (p, 1 - p)) == 0

    def once(self, name: str, p: float) -> bool:
        """Session-level feature: forced once in a coverage session."""
        if self.cover and not self.counters[name]:
            self.counters[name] += 1
            return True
        return self.rng.random() < p


def session_start(rng: random.Random, idx: int, n_versions: int, span_days: int,
                  base: datetime) -> tuple[bool, int, int]:
    """``(cover, version index, start ms)`` of session ``idx``.

    The first ``n_versions`` sessions are coverage sessions, one per version in its time
    slice; later ones pick a day and take the version whose slice holds it.
    """
    cover = idx < n_versions
    if cover:
        vi = idx
        day = vi * span_days / n_versions + rng.uniform(1, span_days / n_versions - 2)
    else:
        day = rng.uniform(0, span_days - 1)
        vi = min(n_versions - 1, int(day * n_versions / span_days))
    start = int(base.timestamp() * 1000 + day * DAY_MS + ri(rng, 0, DAY_MS // 2))
    return cover, vi, start


class Schedule:
    """How many sessions ``generate`` builds and where the corpus-level edge cases go.

    Without ``target_bytes``: exactly ``sessions`` (default ``default``). With it: at least
    ``max(sessions, minimum)``, then more until the corpus holds ``target_bytes``.
    """

    def __init__(self, sessions: int | None, target_bytes: int | None, *, default: int,
                 minimum: int) -> None:
        self.target_bytes = target_bytes
        if target_bytes is None:
            self.n = default if sessions is None else max(0, sessions)
            self.limit = self.n
        else:
            self.n = max(sessions or 0, minimum)
            self.limit = -1

    def at(self, k: int) -> int:
        """The session that carries edge case slot ``k`` (the last one in a short corpus)."""
        return min(k, self.n - 1) if self.limit >= 0 else k

    def indices(self, bytes_total: Callable[[], int]) -> Iterator[int]:
        """Session indices, stopping at the count or, streaming, at the byte target."""
        idx = 0
        while True:
            if self.limit >= 0 and idx >= self.limit:
                break
            if self.limit < 0 and idx >= self.n and bytes_total() >= (self.target_bytes or 0):
                break
            yield idx
            idx += 1
