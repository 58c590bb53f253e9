"""Seeded generator of a realistic Cursor agent-transcript corpus (``~/.cursor/projects``).

Design
------
The generator writes, under ``root`` (which plays ``~/.cursor/projects``), one folder per
encoded project holding:

- ``agent-transcripts/<id>/<id>.jsonl``: the modern nested layout (most sessions), with
  ``<id>/subagents/<child>.jsonl`` children for a few parents (same schema);
- ``agent-transcripts/<id>.jsonl``: the flat layout of the real samples: text-only frames,
  no ``turn_ended``, last line without LF; often beside a legacy plain-text ``<id>.txt`` of
  the same session (blocks headed ``user:`` / ``assistant:``, lines ``[Thinking] …``,
  ``[Tool call] Name`` with indented ``  key: value`` arguments, ``[Tool result] Name``);
  some sessions exist only as legacy ``.txt``;
- ``agent-tools/<uuid>.txt``: sidecars of spilled tool output (always >= 15,600 bytes), read
  back by later ``ReadFile``/``Read`` calls through ``input.path`` and, rarely, a ``Shell``
  ``input.command``; and, a violation planted from a stream of its own, ``SIDECAR_WRITE_RATE``
  of the ``Write`` calls of a project that has sidecars overwrite one (``planted["sidecar_writes"]``);
- other files counted by class: ``.DS_Store``-like binaries, ``repo.json``,
  ``terminals/<n>.txt``, ``mcps/<server>/tools/<tool>.json``.

Every session is first built as an in-memory list of *entries* (an ok frame as a dict, or the
raw bytes of a blank, malformed or partial line), serialised with orjson (compact, key order
as Cursor writes it, U+2028/U+2029 and non-ASCII raw), written at once, and only then
accounted. The planted record is therefore computed from exactly what was written, never
from intentions: an accidental duplicate pair, say, is counted like a planted one. The
definitions follow the module brief (payload lengths in code points of the compact
``json.dumps(..., ensure_ascii=False)`` form; a ``tool_result`` block, a handmade-only
shape, is measured like an object input over its ``content``).

Shapes: every one the reference describes (three top-level key sets, ``text``/``tool_use``
blocks without ids, the 24 reference tool names with their weights, ``ApplyPatch`` string
inputs, ``CallMcpTool``/``CallDynamicTool`` wrappers, ``AskQuestion`` questions/options,
``model`` on ``Subagent``/``Task``, background shells, parallel calls up to 39, turn_ended
success/error/aborted, grow-in-place duplicates and prefixes, payloads over 30 KB, prose
``[...]``/``[truncated]``), plus what the real and handmade samples show beyond it: flat
layout and legacy ``.txt`` transcripts, text-only files, files without ``turn_ended``,
``[REDACTED]`` text blocks (redacted thinking), non-uuid session ids, and, once each, the
handmade fixture shapes: ``thinking`` blocks, ``tool_result`` blocks in user frames,
``Bash`` and lowercase ``shell`` tool names, ``Read`` with ``file_path``, a
``{type: error, error}`` record, a non-success ``turn_ended`` without ``error``, and a
``subagents/`` folder whose parent transcript is missing.

Edge cases are planted on fixed session indices (``_PLAN``), so every corpus of the default
size (60 sessions) holds each of them exactly where ``planted["edge_cases"]`` says; later
sessions draw their shape from the seeded rng. With ``target_bytes`` the generator keeps
adding sessions until that many bytes are on disk; each file is written as soon as it is
built, so memory stays flat (only counters, and the payload-length lists up to 2 million
blocks, are kept).

Speed comes from a text *reservoir*: one seeded string of ~500 K code points (words, code-ish
tokens, newlines, quotes, backslashes, some non-ASCII) from which every free text is a slice
of the wanted length. The reservoir holds no ``[``/``]``, no U+2028/U+2029 and no ``cnry``,
so markers, separators and canaries exist only where planted.

``canaries=True`` draws tokens ``cnry`` + 12 hex + ``z`` from a separate rng (the corpus
structure is the same as without canaries) and puts a unique one into every free text, every
string value of a tool input, every key of an MCP ``arguments`` map, the encoded-project
folder name of each project, every sidecar body, legacy transcript and other file. Copies
(grow-in-place duplicates and prefixes) get fresh tokens of the same length, so tokens stay
unique and payload lengths stay equal.

Determinism: all content comes from one seeded ``random.Random`` subclass (cheap float-based
``randint``/``choice``); mtimes come from a fixed window
(2026-05-01 .. 2026-09-30 UTC, skewed like the reference's May 4 / Jun 17 / Jul 83 /
Aug 103 / Sep 143) and are set with ``os.utime`` on files and on the folders created.
This module imports nothing from the census, the walk or the evidence code.
"""

from __future__ import annotations

import bisect
import math
import os
import random
from array import array
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from survey.synth.common import CANARY_RE, TokenStream, ensure_root, scan_canaries, uuid4

__all__ = ["DEFAULT_SESSIONS", "generate"]

DEFAULT_SESSIONS = 60
MAX_PAYLOAD_LIST = 2_000_000
SIDECAR_MIN = 15_600
SIDECAR_MAX = 1_400_000
SIDECAR_WRITE_RATE = 0.25  # Write calls that overwrite a sidecar of their project (a violation, planted)
_PARALLEL_MAX = 39

# entry kinds inside one JSONL file
OK, BLANK, MALFORMED, PARTIAL = 0, 1, 2, 3
Entry = tuple[int, Any]

_MONTHS: list[tuple[int, int, int]] = [
    (5, 31, 4),
    (6, 30, 17),
    (7, 31, 83),
    (8, 31, 103),
    (9, 30, 143),
]

# Tool names and weights from the reference inventory (300 most recent transcripts).
_TOOL_WEIGHTS: list[tuple[str, int]] = [
    ("Shell", 15417),
    ("ReadFile", 12513),
    ("rg", 6684),
    ("ApplyPatch", 5447),
    ("Read", 3800),
    ("StrReplace", 2034),
    ("Grep", 1427),
    ("Glob", 1270),
    ("AwaitShell", 610),
    ("Subagent", 484),
    ("CallMcpTool", 435),
    ("TodoWrite", 404),
    ("Write", 221),
    ("Delete", 205),
    ("AskQuestion", 182),
    ("GetMcpTools", 151),
    ("CallDynamicTool", 113),
    ("GetDynamicTools", 106),
    ("WebFetch", 60),
    ("WebSearch", 56),
    ("Task", 34),
    ("ReadLints", 8),
    ("SwitchMode", 7),
    ("CreatePlan", 4),
]
_REFERENCE_TOOLS = [n for n, _ in _TOOL_WEIGHTS]
_PARALLEL_TOOLS = ["ReadFile"] * 6 + ["rg"] * 3 + ["Read"] * 2 + ["Glob", "Grep", "Shell"]
# names the legacy .txt transcripts use (real samples show LS and mcp-<Server>-<tool> names)
_LEGACY_TOOLS: list[tuple[str, int]] = [
    ("Shell", 388),
    ("Read", 125),
    ("StrReplace", 119),
    ("TodoWrite", 35),
    ("Grep", 30),
    ("Task", 20),
    ("Glob", 17),
    ("WebFetch", 16),
    ("CreatePlan", 11),
    ("MCP", 10),
    ("AskQuestion", 6),
    ("LS", 5),
    ("WebSearch", 5),
    ("Write", 3),
    ("ReadLints", 1),
    ("Delete", 1),
]

_WORD_TEXT = (
    "the a to of and in for is it this that with on be we can should will file function "
    "test config update fix add remove check run build error value type return import "
    "module class method change need now let me look at first then also make sure use new "
    "old path line code data request response handler server client session query result "
    "output input cache index schema field key list map string number true false null "
    "async await promise export default const let var def self init main app src lib util "
    "helper service model view route api endpoint database table column migration script "
    "command option flag env variable version package install dependency issue bug feature "
    "branch commit merge review diff patch log trace debug warn info I'll I've done looks "
    "good passing failing because since which when where how why what there here into from "
    "by or not all any each only just still already"
)
_WORDS = _WORD_TEXT.split()
_CODEISH = [
    "foo()",
    "bar_baz",
    "x = 1",
    "=>",
    "{",
    "}",
    "(",
    ")",
    "==",
    "!=",
    "&&",
    "||",
    "->",
    "::",
    "#",
    "##",
    "**",
    "`",
    "```",
    "'",
    '"',
    '"name"',
    "'value'",
    "\\n",
    "C:\\tmp",
    "src/app.py",
    "./scripts/run.sh",
    "http://localhost:3000",
    "v1.2.3",
    "42",
    "100%",
    "$HOME",
    "<div>",
    "</div>",
    "&amp;",
    "e.g.",
    "i.e.",
    ":",
    ";",
    ",",
    ".",
    "!",
    "?",
    "note:",
    "TODO:",
]
_NONASCII = [
    "→",
    "—",
    "…",
    "✅",
    "❌",
    "café",
    "naïve",
    "über",
    "日本語",
    "中文",
    "Привет",
    "🚀",
    "👍",
    "😅",
    "±",
    "µs",
    "°C",
    "ß",
    "é",
]
_BREAKS = ["\n", "\n\n", "\n- ", "\n1. ", "\n```\n", "\t"]
_WEIRD = [
    '"quoted"',
    "back\\slash",
    "tab\there",
    "ctl\x01\x1b[0m",
    "ÿ",
    "𝔘𝔫𝔦",
    "🧪",
    "中文字符",
    "e\u0301",
    "\u00a0nbsp",
    "\\u2028-literal",
    "\ufeffbom",
    "zero\u200bwidth",
]

_PEOPLE = ["alice", "bob", "dana", "lee", "sam", "kim", "noor", "ravi", "jo", "mia"]
_REPOS = [
    "webapp",
    "api-server",
    "infra",
    "notes",
    "ml-pipeline",
    "dotfiles",
    "mobile-app",
    "docs-site",
    "cli-tool",
    "data-etl",
    "game",
    "blog",
]
_DIRS = [
    "src",
    "src/components/forms",
    "src/lib/utils",
    "tests/integration",
    "scripts",
    "docs/guides",
    "api/handlers/v2",
    "pkg/server/middleware",
    "internal/db/migrations",
    ".github/workflows",
    "web/src/pages/settings",
    "cmd/tool",
    "packages/core/src/runtime",
    "apps/web/src/features/billing/components",
]
_EXTS = [".py", ".ts", ".tsx", ".go", ".md", ".json", ".yaml", ".sh", ".rs", ".css"]
_COMMANDS = [
    "npm test",
    "npm run build",
    "pnpm lint",
    "pytest -q tests/",
    "go test ./...",
    "cargo build",
    "git status",
    "git diff --stat",
    "ls -la src",
    "cat package.json",
    "rg -n TODO src",
    "python -m scripts.check",
    "make lint",
    "docker compose up -d",
    "curl -s http://localhost:8080/health",
    "git log --oneline -5",
    "node --version",
]
_PIPES = [
    " 2>&1 | tail -n 50",
    " | head -100",
    " 2>&1",
    " | rg -n error",
    " && echo ok",
    " | wc -l",
]
_MODELS = [
    "composer-1",
    "gpt-5",
    "gpt-5-codex",
    "claude-4.5-sonnet",
    "claude-4.5-opus",
    "gemini-3-pro",
    "fast",
]
_SERVERS: dict[str, list[str]] = {
    "user-github": ["search_issues", "get_issue", "create_comment", "list_pull_requests"],
    "user-linear": ["list_issues", "get_issue", "update_issue"],
    "cursor-ide-browser": ["browser_navigate", "browser_snapshot", "browser_click"],
    "user-postgres": ["query", "list_tables"],
    "user-sentry": ["get_events", "search_errors"],
}
_ARG_KEYS = [
    "query",
    "owner",
    "repo",
    "issue_number",
    "limit",
    "url",
    "selector",
    "title",
    "body",
    "state",
    "sql",
    "project_id",
    "team",
]
_SUBAGENT_TYPES = ["explore", "generalPurpose", "shell", "code-reviewer"]
_ERRORS = [
    "Request failed",
    "Connection closed before the turn ended",
    "The model returned an error",
    "User aborted the request",
    "Rate limit exceeded",
]


@dataclass
class _Plan:
    """What one top-level session is, and which edge cases it carries."""

    kind: str = "nested"  # nested | flat | flat_txt | txt
    edges: set[str] = field(default_factory=set)
    children: int = 0
    slug: bool = False


# Fixed edge-case schedule over the first session indices (the default corpus holds all).
_PLAN: dict[int, _Plan] = {
    0: _Plan(edges={"redacted"}),
    1: _Plan(edges={"mention_in_input"}, children=2),
    2: _Plan(edges={"turn_ended_not_last"}),
    3: _Plan(edges={"malformed"}),
    4: _Plan(edges={"partial"}),
    5: _Plan(edges={"parallel39"}),
    6: _Plan(edges={"big_payloads"}),
    7: _Plan(edges={"weird_strings"}),
    8: _Plan(edges={"blank_lines"}),
    9: _Plan(edges={"grow_in_place", "markers"}),
    10: _Plan(edges={"status_error"}),
    11: _Plan(edges={"status_aborted"}),
    12: _Plan(edges={"error_record"}),
    13: _Plan(edges={"handmade_shapes"}),
    14: _Plan(edges={"lowercase_shell", "status_without_error_key"}),
    15: _Plan(edges={"text_only"}),
    16: _Plan(edges={"tool_tour"}),
    17: _Plan(kind="flat_txt"),
    18: _Plan(kind="flat"),
    19: _Plan(kind="txt"),
    20: _Plan(edges={"mention_in_text"}, children=3),
    21: _Plan(edges={"orphan_subagent"}),
    22: _Plan(edges={"sidecar_refs"}),
    23: _Plan(slug=True),
    24: _Plan(kind="flat_txt"),
    25: _Plan(kind="txt"),
    26: _Plan(edges={"no_turn_ended"}),
}


class _Rng(random.Random):
    """``random.Random`` with cheap float-based ``randint``/``choice``/``randrange``.

    The stdlib versions draw unbiased integers bit by bit and dominate the generator's
    profile; a float draw is deterministic too and its bias is immaterial here.
    """

    def randint(self, a: int, b: int) -> int:
        return a + int(self.random() * (b - a + 1))

    def choice(self, seq: Any) -> Any:
        return seq[int(self.random() * len(seq))]

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            return int(self.random() * start)
        return start + int(self.random() * (stop - start))


class _Canaries:
    """Unique tokens ``cnry`` + 12 hex + ``z`` from their own rng (structure unaffected)."""

    pattern = CANARY_RE

    def __init__(self, enabled: bool, seed: int) -> None:
        self.enabled = enabled
        self.tok = TokenStream(f"canary-{seed}")
        self.tokens: list[str] = self.tok.tokens

    def text(self, s: str) -> str:
        """Free text or a string value with a token (a no-op without canaries)."""
        if not self.enabled:
            return s
        return f"{s} {self.tok()}" if s else self.tok()

    def value(self, v: Any) -> Any:
        """Every string value in a JSON value gets its own token (recursively)."""
        if not self.enabled:
            return v
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v

    def retoken(self, v: Any) -> Any:
        """A copy of ``v`` whose tokens are replaced by fresh ones of the same length."""
        if not self.enabled:
            return v
        if isinstance(v, str):
            return self.pattern.sub(lambda _m: self.tok(), v)
        if isinstance(v, dict):
            return {self.retoken(k): self.retoken(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.retoken(x) for x in v]
        return v


@dataclass
class _Project:
    name: str
    home: str
    workspace: str
    files: list[str]
    servers: list[str]
    sidecars: list[str] = field(default_factory=list)


class _Stats:
    """Accounts written JSONL files exactly as a reader of the bytes would count them."""

    def __init__(self) -> None:
        self.frames: Counter[str] = Counter({"ok": 0, "blank": 0, "malformed": 0, "partial": 0})
        self._top: Counter[tuple[str, ...]] = Counter()
        self._bkeys: Counter[tuple[str, tuple[str, ...]]] = Counter()
        self._tools: Counter[tuple[str, str]] = Counter()
        self.roles: Counter[str] = Counter()
        self.turn_status: Counter[str] = Counter()
        self.status_without_error_key = 0
        self.max_parallel = 0
        self.parallel_over_3 = 0
        self.mcp: dict[str, Counter[str]] = {}
        self.with_te = 0
        self.without_te = 0
        self.te_last = 0
        self.readback: Counter[str] = Counter({"input.path": 0, "input.command": 0})
        self.pl_assistant: array[int] | None = array("q")
        self.pl_user: array[int] | None = array("q")
        self.n_blocks = 0
        self.pairs: Counter[str] = Counter(
            {"unrelated": 0, "duplicate": 0, "prefix_extension": 0, "reverse_prefix": 0}
        )
        self.markers: Counter[str] = Counter({"[...]": 0, "[truncated]": 0})
        self.over_30k = 0
        self.error_records = 0
        self.skill_reads = 0
        self.skill_files = 0
        self.user_info_hits = 0
        self.user_info_files = 0

    def _payload(self, s: str) -> int:
        if "[" in s:
            self.markers["[...]"] += s.count("[...]")
            self.markers["[truncated]"] += s.count("[truncated]")
        return len(s)

    def account(self, entries: list[Entry]) -> None:
        """Count one JSONL file's entries (hot path: raw key-order tuples, resolved later)."""
        top = self._top
        bkeys = self._bkeys
        tools = self._tools
        payload = self._payload
        dumps = orjson.dumps
        prev: tuple[tuple[str, int], ...] | None = None
        has_te = False
        last_te = False
        pl_a = self.pl_assistant
        pl_u = self.pl_user
        n_blocks = 0
        skill = info = 0
        for kind, val in entries:
            if kind != OK:
                self.frames[("", "blank", "malformed", "partial")[kind]] += 1
                continue
            top[tuple(val)] += 1
            role = val.get("role")
            if role is None:
                prev = None
                typ = val.get("type")
                if typ == "turn_ended":
                    has_te = last_te = True
                    self.turn_status[val["status"]] += 1
                    if val["status"] != "success" and "error" not in val:
                        self.status_without_error_key += 1
                else:
                    last_te = False
                    if typ == "error":
                        self.error_records += 1
                continue
            last_te = False
            self.roles[role] += 1
            is_assistant = role == "assistant"
            sig: list[tuple[str, int]] = []
            n_tool = 0
            for b in val["message"]["content"]:
                t = b["type"]
                bkeys[(t, tuple(b))] += 1
                if t == "text":
                    n = payload(b["text"])
                    info += b["text"].count("<user_info>")
                elif t == "tool_use":
                    n_tool += 1
                    name = b["name"]
                    inp = b["input"]
                    if isinstance(inp, str):
                        tools[(name, "string")] += 1
                        n = payload(inp)
                    else:
                        tools[(name, "object")] += 1
                        n = payload(dumps(inp).decode())
                        if name in ("CallMcpTool", "CallDynamicTool"):
                            self.mcp.setdefault(name, Counter())[",".join(sorted(inp))] += 1
                        p = inp.get("path")
                        if isinstance(p, str) and "SKILL.md" in p:
                            skill += 1
                        if isinstance(p, str) and "/agent-tools/" in p:
                            self.readback["input.path"] += 1
                        else:
                            c = inp.get("command")
                            if isinstance(c, str) and "/agent-tools/" in c:
                                self.readback["input.command"] += 1
                elif t == "thinking":
                    n = payload(b["thinking"])
                else:  # tool_result (handmade shape): measured over its content
                    n = payload(dumps(b.get("content")).decode())
                if n > 30_000:
                    self.over_30k += 1
                n_blocks += 1
                if is_assistant:
                    sig.append((t, n))
                    if pl_a is not None:
                        pl_a.append(n)
                elif pl_u is not None:
                    pl_u.append(n)
            if n_tool > self.max_parallel:
                self.max_parallel = n_tool
            if n_tool > 3:
                self.parallel_over_3 += 1
            if is_assistant:
                cur = tuple(sig)
                if prev is not None:
                    self.pairs[_pair_kind(prev, cur)] += 1
                prev = cur
            else:
                prev = None
        self.frames["ok"] += sum(1 for kind, _ in entries if kind == OK)
        self.skill_reads += skill
        self.skill_files += skill > 0
        self.user_info_hits += info
        self.user_info_files += info > 0
        self.n_blocks += n_blocks
        if self.n_blocks > MAX_PAYLOAD_LIST:
            self.pl_assistant = self.pl_user = None
        if has_te:
            self.with_te += 1
        else:
            self.without_te += 1
        if last_te:
            self.te_last += 1

    def resolved(self) -> dict[str, Any]:
        """Key-order tuples folded into sorted key sets, as the planted record names them."""
        top: Counter[str] = Counter()
        for k, v in self._top.items():
            top[",".join(sorted(k))] += v
        blocks: Counter[str] = Counter()
        bks: dict[str, Counter[str]] = {}
        for (t, k), v in self._bkeys.items():
            blocks[t] += v
            bks.setdefault(t, Counter())[",".join(sorted(k))] += v
        names: Counter[str] = Counter()
        types: dict[str, dict[str, int]] = {}
        for (name, kind), v in self._tools.items():
            names[name] += v
            types.setdefault(name, {"object": 0, "string": 0})[kind] += v
        return {
            "top_keysets": dict(sorted(top.items())),
            "blocks": dict(sorted(blocks.items())),
            "block_keysets": {t: dict(sorted(c.items())) for t, c in sorted(bks.items())},
            "tool_names": dict(sorted(names.items())),
            "input_types": dict(sorted(types.items())),
        }


def _pair_kind(a: tuple[tuple[str, int], ...], b: tuple[tuple[str, int], ...]) -> str:
    if a == b:
        return "duplicate"
    if len(b) > len(a) and b[: len(a)] == a:
        return "prefix_extension"
    if len(a) > len(b) and a[: len(b)] == b:
        return "reverse_prefix"
    return "unrelated"


class _Writer:
    """Writes files under root, sets mtimes, and keeps per-file counters."""

    def __init__(self, root: Path, scan: bool = False) -> None:
        self.root = root
        self.bytes_total = 0
        # canary mode: tokens that really reached disk (a cut partial line loses its tail)
        self.written: set[str] | None = set() if scan else None
        self.months: Counter[str] = Counter()
        self._dirs: dict[Path, int] = {}
        starts = []
        for m, _days, _w in _MONTHS:
            starts.append(int(datetime(2026, m, 1, tzinfo=UTC).timestamp()))
        self._month_starts = starts

    def month(self, ts: int) -> str:
        i = bisect.bisect_right(self._month_starts, ts) - 1
        return f"2026-{_MONTHS[i][0]:02d}"

    def write(self, rel: str, data: bytes, mtime: int) -> None:
        path = self.root / rel
        parent = path.parent
        if parent not in self._dirs:
            parent.mkdir(parents=True, exist_ok=True)
            p = parent
            while p != self.root and p not in self._dirs:
                self._dirs[p] = 0
                p = p.parent
        with open(path, "wb") as f:
            f.write(data)
        os.utime(path, (mtime, mtime))
        if mtime > self._dirs[parent]:
            self._dirs[parent] = mtime
        self.bytes_total += len(data)
        self.months[self.month(mtime)] += 1
        if self.written is not None:
            self.written.update(scan_canaries(data, rel))

    def finish(self) -> None:
        """Folder mtimes = newest child, deepest first (root itself is left alone)."""
        for d in sorted(self._dirs, key=lambda p: len(p.parts), reverse=True):
            t = self._dirs[d] or int(datetime(2026, 5, 1, tzinfo=UTC).timestamp())
            os.utime(d, (t, t))
            up = d.parent
            if up in self._dirs and t > self._dirs[up]:
                self._dirs[up] = t


class _Gen:
    def __init__(self, root: Path, seed: int, canaries: bool, target_bytes: int | None) -> None:
        self.rng = _Rng(seed)
        # link violations draw from a stream of their own (the other bytes stay as they were)
        self.links_rng = random.Random(f"cursor-links-{seed}")
        self.sidecar_writes = 0  # Write calls whose path is an agent-tools sidecar
        self._random = self.rng.random
        self._gauss = self.rng.gauss
        self.cn = _Canaries(canaries, seed)
        self.w = _Writer(root, scan=canaries)
        self.st = _Stats()
        self.projects: list[_Project] = []
        self.edge: dict[str, Any] = {}
        self.files: Counter[str] = Counter()
        self.other_by_ext: Counter[str] = Counter()
        self.legacy_headings: Counter[str] = Counter()
        self.sidecar_sizes: list[int] = []
        self.subagent_pairs = 0
        self.child_in_parent = 0
        self.orphans = 0
        self.u2028 = 0
        self.u2029 = 0
        self._reads = 0  # every 40th ReadFile/Read reads a SKILL.md (a counter: the rng's draws stay as they were)
        self._users = 0  # every 9th user text opens with a <user_info> block
        self.blank_empty = 0
        self.blank_ws = 0
        self.sidecar_cap = 120_000
        if target_bytes:
            self.sidecar_cap = max(120_000, min(SIDECAR_MAX, target_bytes // 200))
        self._tool_names = [n for n, _ in _TOOL_WEIGHTS]
        self._tool_cum = _cum([w for _, w in _TOOL_WEIGHTS])
        self._legacy_names = [n for n, _ in _LEGACY_TOOLS]
        self._legacy_cum = _cum([w for _, w in _LEGACY_TOOLS])
        self._month_cum = _cum([w for _, _, w in _MONTHS])
        self._force_month: int | None = None
        self._build_reservoir()

    # ---- text -------------------------------------------------------------------------
    def _build_reservoir(self) -> None:
        rng = self.rng
        pool = _WORDS + _CODEISH + _NONASCII + _BREAKS
        weights = (
            [40] * len(_WORDS) + [4] * len(_CODEISH) + [1] * len(_NONASCII) + [10, 4, 3, 2, 1, 1]
        )
        parts = rng.choices(pool, weights=weights, k=90_000)
        res = " ".join(parts)
        self.res = res
        self.res_len = len(res)

    def _slice(self, n: int) -> str:
        if n <= 0:
            return ""
        room = self.res_len - n
        if room <= 0:
            return (self.res * (n // self.res_len + 1))[:n]
        start = int(self._random() * room)
        return self.res[start : start + n]

    def _len(self, median: float, sigma: float, cap: int) -> int:
        """A log-normal length (``gauss`` caches its second draw: twice as cheap)."""
        n = int(median * math.exp(sigma * self._gauss()))
        return max(1, min(cap, n))

    def _free(self, n: int) -> str:
        return self.cn.text(self._slice(n))

    def _short(self, lo: int = 8, hi: int = 60) -> str:
        return self._slice(self.rng.randint(lo, hi)).strip() or "x"

    # ---- time -------------------------------------------------------------------------
    def _mtime(self, session: bool = False) -> int:
        i = bisect.bisect_right(self._month_cum, self.rng.random() * self._month_cum[-1])
        if session and self._force_month is not None:  # first sessions: one per month
            i = self._force_month
        m, days, _w = _MONTHS[min(i, len(_MONTHS) - 1)]
        base = int(datetime(2026, m, 1, tzinfo=UTC).timestamp())
        return base + 7_200 + self.rng.randrange(days * 86_400 - 7_200)

    # ---- ids and projects -------------------------------------------------------------
    def _uuid(self) -> str:
        return uuid4(self.rng)

    def _new_project(self) -> _Project:
        rng = self.rng
        person = rng.choice(_PEOPLE)
        home = f"/Users/{person}" if rng.random() < 0.7 else f"/home/{person}"
        repo = rng.choice(_REPOS)
        used = {p.name for p in self.projects}
        base = f"{home}/dev/{repo}" if rng.random() < 0.6 else f"{home}/src/{repo}"
        if self.cn.enabled:
            base = f"{base}-{self.cn.tok()}"
        ws = base
        k = 2
        while ws.strip("/").replace("/", "-") in used:
            ws = f"{base}{k}"
            k += 1
        name = ws.strip("/").replace("/", "-")
        files = [
            f"{rng.choice(_DIRS)}/{rng.choice(_WORDS)}_{rng.choice(_WORDS)}{rng.choice(_EXTS)}"
            for _ in range(60)
        ]
        servers = rng.sample(sorted(_SERVERS), rng.randint(1, 3))
        proj = _Project(name=name, home=home, workspace=ws, files=files, servers=servers)
        self.projects.append(proj)
        self._project_other_files(proj, first=len(self.projects) == 1)
        return proj

    def _other(self, rel: str, data: bytes) -> None:
        self.w.write(rel, data, self._mtime())
        self.files["other"] += 1
        self.other_by_ext[Path(rel).suffix] += 1

    def _project_other_files(self, proj: _Project, first: bool) -> None:
        rng, cn = self.rng, self.cn
        if first or rng.random() < 0.4:
            body = b"\x00\x00\x00\x01Bud1" + rng.randbytes(rng.randint(200, 2000))
            if cn.enabled:
                body += cn.tok().encode()
            self._other(f"{proj.name}/.DS_Store", body)
        if first:  # one inside agent-transcripts, beside the transcripts
            body = b"\x00\x00\x00\x01Bud1" + rng.randbytes(64)
            if cn.enabled:
                body += cn.tok().encode()
            self._other(f"{proj.name}/agent-transcripts/.DS_Store", body)
        if first or rng.random() < 0.5:
            repo = {
                "workspacePath": cn.text(proj.workspace),
                "remote": cn.text(
                    f"git@github.com:{rng.choice(_PEOPLE)}/{proj.workspace.rsplit('/', 1)[-1]}.git"
                ),
                "branch": cn.text(rng.choice(["main", "dev", "feature/login"])),
            }
            self._other(f"{proj.name}/repo.json", orjson.dumps(repo, option=orjson.OPT_INDENT_2))
        for n in range(1, (2 if first else rng.randint(0, 2)) + 1):
            term = (
                (
                    f"---\npid: {rng.randint(1000, 99999)}\ncwd: {proj.workspace}\n"
                    f"last_command: {rng.choice(_COMMANDS)}\n---\n"
                )
                + self._free(rng.randint(200, 3000))
                + "\n"
            )
            self._other(f"{proj.name}/terminals/{n}.txt", term.encode())
        for server in proj.servers[: (2 if first else rng.randint(0, 2))]:
            for tool in _SERVERS[server][: rng.randint(1, 2)]:
                desc = {
                    "name": tool,
                    "description": self._free(rng.randint(40, 200)),
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            k: {"type": "string", "description": self._free(20)}
                            for k in rng.sample(_ARG_KEYS, 2)
                        },
                    },
                }
                self._other(
                    f"{proj.name}/mcps/{server}/tools/{tool}.json",
                    orjson.dumps(desc, option=orjson.OPT_INDENT_2),
                )

    def _pick_project(self) -> _Project:
        if not self.projects or self.rng.random() < 0.09:
            return self._new_project()
        recent = self.projects[-6:]
        return self.rng.choice(recent)

    # ---- sidecars ---------------------------------------------------------------------
    def _sidecar(self, proj: _Project, mtime: int) -> str:
        rng = self.rng
        sid = self._uuid()
        size = max(SIDECAR_MIN, min(self.sidecar_cap, self._len(40_000, 0.7, self.sidecar_cap)))
        lines: list[bytes] = []
        total = 0
        if self.cn.enabled:  # not counted in total: the main rng stream must not change
            lines.append((self.cn.tok() + "\n").encode())
        style = rng.random()
        rnd = rng.random
        day = datetime.fromtimestamp(mtime - 3600, UTC).strftime("%Y-%m-%dT%H:")
        levels = [(2, "DEBUG"), (3, "INFO"), (4, "WARN"), (5, "ERROR")]
        n = 0
        while total < size:
            n += 1
            if style < 0.35:  # JSON log lines, tslog-like
                ts = f"{day}{n // 600 % 60:02d}:{n // 10 % 60:02d}.{int(rnd() * 1000):03d}Z"
                rec: dict[str, Any] = {"0": self._slice(rng.randint(20, 300))}
                if rnd() < 0.5:
                    rec["1"] = self._slice(rng.randint(10, 200))
                lvl = levels[int(rnd() * 4)]
                rec["_meta"] = {
                    "runtime": "node",
                    "runtimeVersion": "22.0.0",
                    "hostname": "devbox",
                    "date": ts,
                    "logLevelId": lvl[0],
                    "logLevelName": lvl[1],
                    "name": rng.choice(_WORDS),
                }
                rec["time"] = ts
                line = orjson.dumps(rec) + b"\n"
            elif style < 0.65:  # search output, grouped by file
                f = rng.choice(proj.files)
                k = int(rnd() * 900)
                line = "".join(
                    f"{f}:{k + j * 3}:{self._slice(20 + int(rnd() * 140))}\n"
                    for j in range(1 + int(rnd() * 12))
                ).encode()
            else:  # build/test output chunks
                line = (self._slice(rng.randint(200, 4000)) + "\n").encode()
            lines.append(line)
            total += len(line)
        body = b"".join(lines)
        self.w.write(f"{proj.name}/agent-tools/{sid}.txt", body, mtime)
        self.files["agent_tools"] += 1
        self.sidecar_sizes.append(len(body))
        proj.sidecars.append(sid)
        return sid

    def _sidecar_path(self, proj: _Project, sid: str) -> str:
        return f"{proj.home}/.cursor/projects/{proj.name}/agent-tools/{sid}.txt"

    # ---- tool inputs --------------------------------------------------------------------
    def _path(self, proj: _Project) -> str:
        return f"{proj.workspace}/{self.rng.choice(proj.files)}"

    def _tool_input(self, name: str, proj: _Project) -> Any:
        rng = self.rng
        path = self._path
        inp: Any
        if name == "Shell":
            cmd = rng.choice(_COMMANDS)
            if rng.random() < 0.5:
                cmd = f"{cmd} {rng.choice(proj.files)}"
            if rng.random() < 0.4:
                cmd += rng.choice(_PIPES)
            if rng.random() < 0.4:
                cmd = f"cd {proj.workspace} && {cmd}"
            inp = {"command": cmd}
            if rng.random() < 0.7:
                inp["description"] = self._short(10, 90)
            if rng.random() < 0.15:
                inp["timeout"] = rng.choice([30000, 60000, 120000])
            if rng.random() < 0.06:
                inp["run_in_background"] = True
        elif name in ("ReadFile", "Read"):
            inp = {"path": path(proj)}
            self._reads += 1
            if self._reads % 40 == 0:
                inp["path"] = f"{proj.workspace}/.cursor/skills/s{self._reads}/SKILL.md"
            if rng.random() < 0.35:
                inp["explanation"] = self._short(20, 120)
            if rng.random() < 0.3:
                inp["offset"] = rng.randint(1, 800)
            if rng.random() < 0.3:
                inp["limit"] = rng.choice([50, 100, 200, 400])
        elif name == "rg":
            inp = {"pattern": self._short(3, 40), "path": path(proj).rsplit("/", 1)[0]}
            if rng.random() < 0.35:
                inp["explanation"] = self._short(20, 120)
            if rng.random() < 0.4:
                inp["glob"] = f"*{rng.choice(_EXTS)}"
            if rng.random() < 0.3:
                inp["-n"] = True
            if rng.random() < 0.2:
                inp["-i"] = True
            if rng.random() < 0.2:
                inp["-C"] = rng.randint(1, 5)
        elif name == "ApplyPatch":
            p = path(proj)
            if rng.random() < 0.8:
                body = "\n".join(
                    ("-" if i % 3 == 0 else "+")
                    + self._slice(rng.randint(10, 90)).replace("\n", " ")
                    for i in range(self._len(8, 0.9, 400))
                )
                inp = (
                    f"*** Begin Patch\n*** Update File: {p}\n@@ {self._short(5, 40)}\n"
                    f"{body}\n*** End Patch"
                )
            else:
                body = "\n".join(
                    "+" + self._slice(rng.randint(5, 90)).replace("\n", " ")
                    for _ in range(self._len(15, 0.8, 600))
                )
                inp = f"*** Begin Patch\n*** Add File: {p}\n{body}\n*** End Patch"
        elif name == "StrReplace":
            inp = {
                "path": path(proj),
                "old_string": self._slice(self._len(120, 0.9, 4000)),
                "new_string": self._slice(self._len(140, 0.9, 4000)),
            }
            if rng.random() < 0.05:
                inp["replace_all"] = True
        elif name == "Grep":
            inp = {"pattern": self._short(3, 30), "path": path(proj).rsplit("/", 1)[0]}
            if rng.random() < 0.4:
                inp["output_mode"] = rng.choice(["content", "files_with_matches", "count"])
            if rng.random() < 0.2:
                inp["-i"] = True
        elif name == "Glob":
            inp = {"glob_pattern": f"**/*{rng.choice(_EXTS)}"}
            if rng.random() < 0.6:
                inp["target_directory"] = path(proj).rsplit("/", 1)[0]
        elif name == "AwaitShell":
            inp = {
                "shell_id": str(rng.randint(1, 40)),
                "block_until_ms": rng.choice([5000, 30000, 120000]),
            }
        elif name in ("Subagent", "Task"):
            inp = {
                "description": self._short(),
                "prompt": self._slice(self._len(500, 0.8, 6000)),
                "subagent_type": rng.choice(_SUBAGENT_TYPES),
                "model": rng.choice(_MODELS),
            }
        elif name in ("CallMcpTool", "CallDynamicTool"):
            if name == "CallMcpTool":
                server = rng.choice(proj.servers)
                tool = rng.choice(_SERVERS[server])
                ns = server.split("-", 1)[-1]
            else:
                server, ns = "dynamic-tools", rng.choice(["workspace", "browser", "notebook"])
                tool = rng.choice(["run_task", "open_url", "execute_cell", "list_tasks"])
            args: dict[str, Any] = {}
            for k in rng.sample(_ARG_KEYS, rng.randint(1, 4)):
                if self.cn.enabled:
                    k = f"{k}_{self.cn.tok()}"
                r = rng.random()
                v: Any
                if r < 0.25:
                    v = rng.randint(1, 500)
                elif r < 0.35:
                    v = r < 0.3
                elif r < 0.45:
                    v = [self._short(3, 20)]
                else:
                    v = self._short(3, 80)
                args[k] = v
            inp = {"server": server, "namespace": ns, "toolName": tool, "arguments": args}
        elif name == "TodoWrite":
            inp = {
                "merge": rng.random() < 0.5,
                "todos": [
                    {
                        "id": str(i + 1),
                        "content": self._short(10, 80),
                        "status": rng.choice(["pending", "in_progress", "completed"]),
                    }
                    for i in range(rng.randint(1, 7))
                ],
            }
        elif name == "Write":
            inp = {"path": path(proj), "contents": self._slice(self._len(900, 1.0, 20_000))}
            if proj.sidecars and self.links_rng.random() < SIDECAR_WRITE_RATE:  # a sidecar overwritten
                inp["path"] = self._sidecar_path(proj, self.links_rng.choice(proj.sidecars))
                self.sidecar_writes += 1
        elif name == "Delete":
            inp = {"path": path(proj)}
        elif name == "AskQuestion":
            inp = {
                "title": self._short(),
                "questions": [
                    {
                        "id": f"q{i + 1}",
                        "prompt": self._short(20, 120),
                        "options": [
                            {"id": chr(97 + j), "label": self._short(3, 40)}
                            for j in range(rng.randint(2, 4))
                        ],
                        "allow_multiple": rng.random() < 0.2,
                    }
                    for i in range(rng.randint(1, 3))
                ],
            }
        elif name == "GetMcpTools":
            inp = {"server": rng.choice(proj.servers)}
        elif name == "GetDynamicTools":
            inp = {} if rng.random() < 0.5 else {"namespace": rng.choice(["workspace", "browser"])}
        elif name == "WebFetch":
            inp = {"url": f"https://docs.example.com/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}"}
            if rng.random() < 0.5:  # real captures carry an explanation beside the url
                inp["explanation"] = self._short()
        elif name == "WebSearch":
            inp = {"search_term": self._short(10, 60), "explanation": self._short()}
        elif name == "ReadLints":
            inp = {"paths": [path(proj) for _ in range(rng.randint(1, 3))]}
        elif name == "SwitchMode":
            inp = {
                "target_mode_id": rng.choice(["plan", "agent", "ask"]),
                "explanation": self._short(),
            }
        elif name == "CreatePlan":
            inp = {
                "name": self._short(5, 30),
                "overview": self._short(40, 200),
                "plan": self._slice(self._len(1500, 0.6, 8000)),
                "todos": [{"id": str(i + 1), "content": self._short()} for i in range(3)],
            }
        elif name == "LS":
            inp = {"target_directory": path(proj).rsplit("/", 1)[0]}
        else:  # lowercase shell, Bash (handmade shapes)
            inp = {"command": rng.choice(_COMMANDS)}
        return inp if isinstance(inp, str) else self.cn.value(inp)

    def _tool(self, name: str, proj: _Project) -> dict[str, Any]:
        inp = self._tool_input(name, proj)
        if isinstance(inp, str):
            inp = self.cn.text(inp)
        return {"type": "tool_use", "name": name, "input": inp}

    def _pick_tool(self) -> str:
        i = bisect.bisect_right(self._tool_cum, self.rng.random() * self._tool_cum[-1])
        return self._tool_names[min(i, len(self._tool_names) - 1)]

    # ---- frames -------------------------------------------------------------------------
    def _text_block(self, n: int) -> dict[str, Any]:
        return {"type": "text", "text": self._free(n)}

    def _user_text(self, big: bool = False) -> str:
        rng = self.rng
        parts = []
        if rng.random() < 0.25:
            parts.append(
                '<attached_files>\n<code_selection path="file://'
                f'{rng.choice(self.projects).workspace}/{rng.choice(_DIRS)}/a.py" '
                f'lines="1-{rng.randint(5, 80)}">\n'
                f"{self._slice(self._len(600, 0.9, 6000))}\n</code_selection>\n"
                "</attached_files>"
            )
        if rng.random() < 0.12:
            parts.append(
                "<manually_attached_skills>\n"
                f"{self._slice(self._len(2000, 0.8, 12000))}\n</manually_attached_skills>"
            )
        if rng.random() < 0.12:
            parts.append(
                f"<git_diff_from_branch_to_main>\n{self._slice(self._len(1500, 0.9, 9000))}"
                "\n</git_diff_from_branch_to_main>"
            )
        q = self._slice(80_000 if big else self._len(220, 1.1, 8000))
        parts.append(f"<user_query>\n{q}\n</user_query>")
        self._users += 1
        if self._users % 9 == 0:
            parts.insert(0, "<user_info>\nOS Version: linux\n</user_info>")
        return self.cn.text("\n".join(parts))

    def _user(self, big: bool = False) -> dict[str, Any]:
        return {
            "role": "user",
            "message": {"content": [{"type": "text", "text": self._user_text(big)}]},
        }

    def _assistant_blocks(
        self, proj: _Project, final: bool, redacted: bool, allow_tools: bool = True
    ) -> list[dict[str, Any]]:
        rng = self.rng
        r = rng.random()
        blocks: list[dict[str, Any]] = []
        if final or not allow_tools or r < 0.28:
            blocks.append(self._text_block(self._len(480, 1.1, 20_000)))
            return blocks
        if redacted and rng.random() < 0.7:
            blocks.append({"type": "text", "text": self.cn.text("[REDACTED]")})
        elif r < 0.62:
            blocks.append(self._text_block(self._len(300, 1.1, 20_000)))
        q = rng.random()
        k = (
            1
            if q < 0.62
            else 2
            if q < 0.8
            else 3
            if q < 0.9
            else rng.randint(4, 8)
            if q < 0.985
            else rng.randint(9, 24)
        )
        if k > 3:
            for _ in range(k):
                blocks.append(self._tool(rng.choice(_PARALLEL_TOOLS), proj))
        else:
            for _ in range(k):
                blocks.append(self._tool(self._pick_tool(), proj))
        return blocks

    def _assistant(self, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        return {"role": "assistant", "message": {"content": blocks}}

    def _copy_blocks(self, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.cn.retoken(b) for b in blocks] if self.cn.enabled else list(blocks)

    def _turn_ended(self, status: str, with_error: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "turn_ended", "status": status}
        if status != "success" and with_error:
            d["error"] = self.cn.text(self.rng.choice(_ERRORS))
        return d

    def _modern(
        self,
        proj: _Project,
        plan: _Plan,
        rel: str,
        subagent: bool = False,
        child_refs: list[tuple[str, str]] | None = None,
        sidecars: list[str] | None = None,
    ) -> tuple[list[Entry], bool]:
        """Entries of one modern transcript (nested or subagent) and whether it ends in LF."""
        rng = self.rng
        e = plan.edges
        frames: list[dict[str, Any]] = []
        redacted = "redacted" in e or rng.random() < 0.05
        text_only = "text_only" in e or rng.random() < 0.03
        for name, key in (
            ("redacted", "redacted_text_blocks"),
            ("text_only", "text_only_file"),
            ("tool_tour", "every_reference_tool_name"),
        ):
            if name in e:
                self.edge[key] = rel
        if subagent:
            n_turns = 1
        else:
            n_turns = 1 if rng.random() < 0.72 else min(40, 2 + int(rng.expovariate(1 / 6)))
        for t in range(n_turns):
            frames.append(self._user(big="big_payloads" in e and t == 0))
            n_a = self._len(36, 0.9, 300) if n_turns == 1 else self._len(9, 0.8, 60)
            if subagent:
                n_a = self._len(10, 0.7, 60)
            for j in range(n_a):
                frames.append(
                    self._assistant(
                        self._assistant_blocks(
                            proj, final=j == n_a - 1, redacted=redacted, allow_tools=not text_only
                        )
                    )
                )

        def at(frac: float) -> int:
            """Index of the assistant frame found at ``frac`` of the way through."""
            idx = [k for k, f in enumerate(frames) if f.get("role") == "assistant"]
            return idx[min(len(idx) - 1, int(len(idx) * frac))]

        def insert_after(i: int, frame: dict[str, Any]) -> None:
            frames.insert(i + 1, frame)

        # ---- planted shapes -------------------------------------------------------------
        if "tool_tour" in e:
            for k, name in enumerate(_REFERENCE_TOOLS):
                insert_after(
                    at(k / len(_REFERENCE_TOOLS)),
                    self._assistant(
                        [self._text_block(self._len(120, 0.8, 2000)), self._tool(name, proj)]
                    ),
                )
        if "parallel39" in e:
            blocks = [self._text_block(self._len(150, 0.5, 1000))]
            blocks += [self._tool(rng.choice(_PARALLEL_TOOLS), proj) for _ in range(_PARALLEL_MAX)]
            mark39 = self._assistant(blocks)
            frames[at(0.3)] = mark39
        if "big_payloads" in e:
            big1 = self._text_block(rng.randint(31_000, 48_000))
            w = self._tool("Write", proj)
            w["input"]["contents"] = self.cn.text(self._slice(rng.randint(32_000, 40_000)))
            insert_after(at(0.4), self._assistant([big1]))
            insert_after(at(0.7), self._assistant([self._text_block(80), w]))
            self.edge["payload_over_30k"] = rel
        if "weird_strings" in e:
            s1 = "line\u2028sep " + " ".join(_WEIRD) + " para\u2029sep"
            insert_after(at(0.2), self._assistant([{"type": "text", "text": self.cn.text(s1)}]))
            sh = self._tool("Shell", proj)
            sh["input"]["command"] = self.cn.text("echo 'a\u2028b' \"c\\d\" \t✓ 🚀")
            insert_after(at(0.5), self._assistant([self._text_block(60), sh]))
            frames[0]["message"]["content"][0]["text"] += self.cn.text(
                " \u2029 " + " ".join(_WEIRD[:5])
            )
            self.edge["u2028_u2029"] = rel
        if "markers" in e:
            for marker in ("[...]", "[...]", "[truncated]"):
                prose = self._slice(120) + f" {marker} " + self._slice(80)
                insert_after(
                    at(rng.random()), self._assistant([{"type": "text", "text": self.cn.text(prose)}])
                )
            self.edge["text_markers"] = rel
        elif rng.random() < 0.04:
            t = self._slice(100) + rng.choice([" [...] ", " [truncated] "]) + self._slice(60)
            insert_after(
                at(rng.random()), self._assistant([{"type": "text", "text": self.cn.text(t)}])
            )
        for kind, cid in child_refs or []:
            if text_only and kind != "text":
                continue  # a text-only file holds no tool call
            if kind == "input":
                blk = self._tool("Subagent", proj)
                blk["input"]["resume"] = self.cn.text(cid)
            elif kind == "text":
                blk = {
                    "type": "text",
                    "text": self.cn.text(f"{self._slice(60)} agent {cid} {self._slice(40)}"),
                }
            else:
                blk = self._tool(rng.choice(["Subagent", "Task"]), proj)
            insert_after(at(0.35), self._assistant([self._text_block(90), blk]))
        if sidecars and not text_only:  # (an unreferenced sidecar is normal)
            forced = "sidecar_refs" in e
            for sid in sidecars:
                p = self._sidecar_path(proj, sid)
                if forced or rng.random() < 0.25:
                    blk = self._tool(rng.choice(["ReadFile", "Read"]), proj)
                    blk["input"]["path"] = self.cn.text(p)
                    insert_after(at(0.6 + 0.3 * rng.random()), self._assistant([blk]))
                if forced or rng.random() < 0.02:
                    blk = self._tool("Shell", proj)
                    blk["input"]["command"] = self.cn.text(f"tail -n 200 {p}")
                    insert_after(at(0.9), self._assistant([self._text_block(50), blk]))
            if forced:
                self.edge["sidecar_readback"] = rel
        if "handmade_shapes" in e:
            i = at(0.3)
            bash = self._tool("Bash", proj)
            frames.insert(
                i,
                self._assistant(
                    [
                        {"type": "thinking", "thinking": self._free(self._len(200, 0.8, 3000))},
                        self._text_block(40),
                        bash,
                    ]
                ),
            )
            frames.insert(
                i + 1,
                {
                    "role": "user",
                    "message": {
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"toolu_{self.rng.getrandbits(64):016x}",
                                "content": [
                                    {"type": "text", "text": self._free(self._len(300, 1, 4000))}
                                ],
                            }
                        ]
                    },
                },
            )
            rd = {
                "type": "tool_use",
                "name": "Read",
                "input": {"file_path": self.cn.text(self._path(proj))},
            }
            frames.insert(i + 2, self._assistant([rd]))
            frames.insert(
                i + 3,
                {
                    "role": "user",
                    "message": {
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"toolu_{self.rng.getrandbits(64):016x}",
                                "content": [{"type": "text", "text": self._free(200)}],
                            }
                        ]
                    },
                },
            )
            self.edge["handmade_shapes"] = rel
        elif not subagent and not text_only and rng.random() < 0.02:
            insert_after(
                at(0.5),
                self._assistant(
                    [
                        {"type": "thinking", "thinking": self._free(self._len(200, 0.8, 3000))},
                        self._text_block(80),
                    ]
                ),
            )
        if "lowercase_shell" in e:
            insert_after(
                at(0.5),
                self._assistant(
                    [
                        self._text_block(30),
                        {
                            "type": "tool_use",
                            "name": "shell",
                            "input": self.cn.value({"command": rng.choice(_COMMANDS)}),
                        },
                    ]
                ),
            )
            self.edge["lowercase_tool_name"] = rel

        # ---- grow-in-place pairs ---------------------------------------------------------
        i = 0
        while i < len(frames):
            f = frames[i]
            if f.get("role") == "assistant":
                blocks = f["message"]["content"]
                r = rng.random()
                copy: list[dict[str, Any]] | None = None
                if r < 0.008:  # exact duplicate (~0.8% of pairs in the reference)
                    copy = self._copy_blocks(blocks)
                elif r < 0.0085:  # prefix extension
                    more = (
                        self._text_block(self._len(200, 1, 3000))
                        if text_only
                        else self._tool(self._pick_tool(), proj)
                    )
                    copy = [*self._copy_blocks(blocks), more]
                elif r < 0.0105 and len(blocks) >= 2:  # reverse prefix
                    copy = self._copy_blocks(blocks[:1])
                if copy is not None:
                    frames.insert(i + 1, self._assistant(copy))
                    i += 1
            i += 1
        if "grow_in_place" in e:
            for frac in (0.2, 0.5):
                k = at(frac)
                insert_after(k, self._assistant(self._copy_blocks(frames[k]["message"]["content"])))
            for frac in (0.3, 0.7):
                k = at(frac)
                ext = self._copy_blocks(frames[k]["message"]["content"])
                insert_after(k, self._assistant([*ext, self._tool(self._pick_tool(), proj)]))
            for frac in (0.4, 0.8):
                k = at(frac)
                a = [self._text_block(self._len(150, 0.8, 2000))]
                a += [self._tool(self._pick_tool(), proj) for _ in range(rng.randint(1, 3))]
                insert_after(k, self._assistant(a))
                insert_after(k + 1, self._assistant(self._copy_blocks(a[:1])))
            self.edge["grow_in_place"] = rel

        # ---- lifecycle ---------------------------------------------------------------------
        if "error_record" in e:
            frames.insert(
                at(0.6) + 1, {"type": "error", "error": self.cn.text(rng.choice(_ERRORS))}
            )
            self.edge["error_record"] = rel
        status: str | None
        if "status_error" in e or "status_without_error_key" in e:
            status = "error"
        elif "status_aborted" in e:
            status = "aborted"
        elif e & {"text_only", "error_record", "no_turn_ended"}:
            status = None
        else:
            r = rng.random()
            status = (
                None if r < 0.12 else "success" if r < 0.975 else "error" if r < 0.99 else "aborted"
            )
        if status is not None:
            frames.append(self._turn_ended(status, "status_without_error_key" not in e))
            if "status_without_error_key" in e:
                self.edge["turn_ended_error_without_error_key"] = rel
            elif "status_error" in e:
                self.edge["turn_ended_error"] = rel
            elif "status_aborted" in e:
                self.edge["turn_ended_aborted"] = rel
        if "turn_ended_not_last" in e:
            frames.append(self._user())
            frames.append(self._assistant([self._text_block(self._len(200, 1, 3000))]))
            self.edge["turn_ended_not_last"] = rel
        if status is None and "no_turn_ended" in e:
            self.edge["no_turn_ended"] = rel

        entries: list[Entry] = [(OK, f) for f in frames]
        trailing_lf = True
        if "blank_lines" in e:
            for pos, blank in (
                (2, b""),
                (4, b"   "),
                (5, b"\t"),
                (len(entries) - 1, b""),
                (len(entries) // 2, b" \t "),
            ):
                entries.insert(min(pos, len(entries) - 1), (BLANK, blank))
                if blank:
                    self.blank_ws += 1
                else:
                    self.blank_empty += 1
            self.edge["blank_lines"] = rel
        if "parallel39" in e:
            line = next(k for k, (_, f) in enumerate(entries) if f is mark39)
            self.edge["max_parallel_frame"] = {"path": rel, "line": line + 1}
        if "malformed" in e:
            pos = len(entries) // 2

            def unsuitable(k: int) -> bool:  # a raw grep must not see a marker twice
                if entries[k][0] != OK:
                    return True
                raw = orjson.dumps(entries[k][1])
                return b"[...]" in raw or b"[truncated]" in raw

            while pos > 0 and unsuitable(pos):
                pos -= 1
            bad = _truncate(orjson.dumps(entries[pos][1]))
            entries.insert(pos + 1, (MALFORMED, bad))
            self.edge["malformed_line"] = {"path": rel, "line": pos + 2}
        if "partial" in e:
            tail = self._assistant([self._text_block(self._len(400, 0.5, 3000))])
            entries.append((PARTIAL, _truncate(orjson.dumps(tail))))
            trailing_lf = False
            self.edge["partial_last_line"] = rel
        return entries, trailing_lf

    def _write_jsonl(self, rel: str, entries: list[Entry], trailing_lf: bool, mtime: int) -> bytes:
        parts = [orjson.dumps(v) if k == OK else v for k, v in entries]
        data = b"\n".join(parts)
        if trailing_lf:
            data += b"\n"
        self.w.write(rel, data, mtime)
        self.st.account(entries)
        self.u2028 += data.count(b"\xe2\x80\xa8")
        self.u2029 += data.count(b"\xe2\x80\xa9")
        return data

    # ---- legacy (flat + txt) --------------------------------------------------------------
    def _legacy_model(self, proj: _Project, turns: int) -> list[tuple[str, list[Any]]]:
        rng = self.rng
        model: list[tuple[str, list[Any]]] = []
        for _ in range(turns):
            steps: list[Any] = []
            for j in range(self._len(5, 0.8, 40)):
                thinking = self._free(self._len(80, 1.0, 1500)) if rng.random() < 0.8 else ""
                text = self._free(self._len(400, 1.0, 8000)) if rng.random() < 0.6 or j == 0 else ""
                calls: list[tuple[str, Any]] = []
                if rng.random() < 0.7:
                    for _k in range(1 if rng.random() < 0.7 else rng.randint(2, 4)):
                        i = bisect.bisect_right(
                            self._legacy_cum, rng.random() * self._legacy_cum[-1]
                        )
                        name = self._legacy_names[min(i, len(self._legacy_names) - 1)]
                        if name == "MCP":
                            server = rng.choice(proj.servers)
                            tool = rng.choice(_SERVERS[server])
                            label = "".join(w.capitalize() for w in server.split("-")[1:])
                            calls.append(
                                (f"mcp-{label}-{tool}", self.cn.value({"query": self._short()}))
                            )
                        else:
                            calls.append((name, self._tool_input(name, proj)))
                steps.append((thinking, text, calls))
            model.append((self._user_text(), steps))
        return model

    def _render_legacy(self, model: list[tuple[str, list[Any]]]) -> bytes:
        out: list[str] = []
        for user, steps in model:
            out.append(f"user:\n{user}\n")
            for thinking, text, calls in steps:
                s = ["assistant:\n"]
                if thinking:
                    s.append(f"[Thinking] {thinking}\n")
                if text:
                    s.append(text + "\n")
                for name, args in calls:
                    self.legacy_headings[name] += 1
                    s.append(f"[Tool call] {name}\n")
                    for k, v in args.items():
                        sv = v if isinstance(v, str) else orjson.dumps(v).decode()
                        s.append(f"  {k}: " + sv.replace("\n", "\n  ") + "\n")
                if calls:
                    s.append("\n")
                    for name, _args in calls:
                        s.append(f"[Tool result] {name}\n\n")
                out.append("".join(s))
        return "\n".join(out).rstrip("\n").encode()

    def _legacy_session(self, proj: _Project, plan: _Plan) -> None:
        rng = self.rng
        sid = self._uuid()
        mtime = self._mtime(session=True)
        base = f"{proj.name}/agent-transcripts/{sid}"
        model = self._legacy_model(proj, 1 if rng.random() < 0.5 else rng.randint(2, 5))
        if plan.kind in ("flat", "flat_txt"):
            entries: list[Entry] = []
            for user, steps in model:
                entries.append(
                    (OK, {"role": "user", "message": {"content": [{"type": "text", "text": user}]}})
                )
                for _thinking, text, _calls in steps:
                    if text:
                        entries.append(
                            (
                                OK,
                                {
                                    "role": "assistant",
                                    "message": {"content": [{"type": "text", "text": text}]},
                                },
                            )
                        )
            self._write_jsonl(f"{base}.jsonl", entries, trailing_lf=False, mtime=mtime)
            self.files["transcript"] += 1
            self.files["transcript_flat"] += 1
            self.edge.setdefault("flat_last_line_without_lf", f"{base}.jsonl")
        if plan.kind in ("flat_txt", "txt"):
            self.w.write(f"{base}.txt", self._render_legacy(model), mtime)
            self.files["legacy_txt"] += 1
            key = "legacy_txt_sibling" if plan.kind == "flat_txt" else "legacy_txt_only"
            self.edge.setdefault(key, f"{base}.txt")

    # ---- nested sessions ------------------------------------------------------------------
    def _nested_session(self, proj: _Project, plan: _Plan) -> None:
        rng = self.rng
        sid = f"chat-{rng.choice(_WORDS)}-{rng.randint(1, 99)}" if plan.slug else self._uuid()
        if plan.slug:
            self.edge["non_uuid_session_id"] = f"{proj.name}/agent-transcripts/{sid}/{sid}.jsonl"
        mtime = self._mtime(session=True)
        d = f"{proj.name}/agent-transcripts/{sid}"
        rel = f"{d}/{sid}.jsonl"
        # sidecars spilled during this session (written first: they exist when read back)
        sidecars: list[str] = []
        n_side = (
            1
            if "sidecar_refs" in plan.edges
            else ((1 if rng.random() < 0.2 else 0) + (1 if rng.random() < 0.05 else 0))
        )
        for _ in range(n_side):
            sidecars.append(self._sidecar(proj, mtime - rng.randint(0, 3000)))
        if proj.sidecars and rng.random() < 0.05:
            sidecars.append(rng.choice(proj.sidecars))
        # children first, so the parent can mention their ids
        refs: list[tuple[str, str]] = []
        child_ids: list[str] = []
        for c in range(plan.children):
            cid = self._uuid()
            child_ids.append(cid)
            crel = f"{d}/subagents/{cid}.jsonl"
            centries, clf = self._modern(proj, _Plan(), crel, subagent=True)
            self._write_jsonl(crel, centries, clf, mtime - rng.randint(10, 3000))
            self.files["subagent"] += 1
            kind = "plain"
            if c == 0 and "mention_in_input" in plan.edges:
                kind = "input"
            elif c == 1 and "mention_in_text" in plan.edges:
                kind = "text"
            elif not (plan.edges & {"mention_in_input", "mention_in_text"}) and rng.random() < 0.3:
                kind = rng.choice(["input", "text"])
            refs.append((kind, cid))
        entries, lf = self._modern(proj, plan, rel, child_refs=refs, sidecars=sidecars)
        data = self._write_jsonl(rel, entries, lf, mtime)
        self.files["transcript"] += 1
        self.files["transcript_nested"] += 1
        for cid in child_ids:
            self.subagent_pairs += 1
            if cid.encode() in data:
                self.child_in_parent += 1
                self.edge.setdefault("child_id_in_parent", []).append(rel)
        if child_ids:
            self.edge.setdefault("subagent_parents", []).append(rel)
        if "orphan_subagent" in plan.edges:
            oid = self._uuid()
            cid = self._uuid()
            crel = f"{proj.name}/agent-transcripts/{oid}/subagents/{cid}.jsonl"
            centries, clf = self._modern(proj, _Plan(), crel, subagent=True)
            self._write_jsonl(crel, centries, clf, mtime)
            self.files["subagent"] += 1
            self.orphans += 1
            self.edge["orphan_subagent"] = crel

    # ---- driver ---------------------------------------------------------------------------
    def _plan_for(self, idx: int) -> _Plan:
        if idx in _PLAN:
            p = _PLAN[idx]
            return _Plan(kind=p.kind, edges=set(p.edges), children=p.children, slug=p.slug)
        r = self.rng.random()
        if r < 0.06:
            return _Plan(kind="flat_txt")
        if r < 0.09:
            return _Plan(kind="flat")
        if r < 0.13:
            return _Plan(kind="txt")
        children = self.rng.randint(1, 3) if r < 0.16 else 0
        return _Plan(children=children)

    def session(self, idx: int) -> None:
        plan = self._plan_for(idx)
        self._force_month = idx if idx < len(_MONTHS) else None
        proj = self._pick_project()
        if plan.kind == "nested":
            self._nested_session(proj, plan)
        else:
            self._legacy_session(proj, plan)

    def planted(self, seed: int, n_sessions: int) -> dict[str, Any]:
        st = self.st
        f = self.files
        other_ext = dict(sorted(self.other_by_ext.items()))
        res = st.resolved()
        return {
            "runtime": "cursor",
            "seed": seed,
            "sessions": n_sessions,
            "projects": len(self.projects),
            "files": {
                "transcript": f["transcript"],
                "transcript_nested": f["transcript_nested"],
                "transcript_flat": f["transcript_flat"],
                "subagent": f["subagent"],
                "legacy_txt": f["legacy_txt"],
                "agent_tools": f["agent_tools"],
                "other": f["other"],
                "other_by_ext": other_ext,
            },
            "frames": dict(st.frames),
            "top_keysets": res["top_keysets"],
            "roles": dict(sorted(st.roles.items())),
            "turn_status": {s: st.turn_status.get(s, 0) for s in ("success", "error", "aborted")},
            "turn_status_without_error_key": st.status_without_error_key,
            "blocks": res["blocks"],
            "block_keysets": res["block_keysets"],
            "tool_names": res["tool_names"],
            "input_types": res["input_types"],
            "max_parallel": st.max_parallel,
            "parallel_frames_over_3": st.parallel_over_3,
            "mcp_wrapper_keysets": {n: dict(c) for n, c in sorted(st.mcp.items())},
            "files_with_turn_ended": st.with_te,
            "files_without_turn_ended": st.without_te,
            "turn_ended_last": st.te_last,
            "error_records": st.error_records,
            "subagent_pairs": self.subagent_pairs,
            "sidecar_writes": self.sidecar_writes,
            "child_id_in_parent": self.child_in_parent,
            "nested_dir_equals_file": f["transcript_nested"],
            "orphan_subagents": self.orphans,
            "agent_tools_sizes": sorted(self.sidecar_sizes),
            "readback_refs": dict(st.readback),
            "skill_md_reads": {"calls": st.skill_reads, "files": st.skill_files},
            "user_info_marker": {"hits": st.user_info_hits, "files": st.user_info_files},
            "payload_lengths": None if st.pl_assistant is None else sorted(st.pl_assistant),
            "payload_lengths_user": None if st.pl_user is None else sorted(st.pl_user),
            "assistant_pairs": dict(st.pairs),
            "text_markers": dict(st.markers),
            "legacy_tool_headings": dict(sorted(self.legacy_headings.items())),
            "mtime_months": dict(sorted(self.w.months.items())),
            "canaries": sorted(t for t in self.cn.tokens if t in (self.w.written or ())),
            "bytes_total": self.w.bytes_total,
            "edge_counts": {
                "u2028": self.u2028,
                "u2029": self.u2029,
                "blank_empty": self.blank_empty,
                "blank_whitespace": self.blank_ws,
                "payloads_over_30k": st.over_30k,
                "turn_ended_not_last": st.with_te - st.te_last,
            },
            "edge_cases": dict(sorted(self.edge.items())),
        }


def _cum(weights: list[int]) -> list[float]:
    out: list[float] = []
    t = 0.0
    for w in weights:
        t += w
        out.append(t)
    return out


def _truncate(line: bytes) -> bytes:
    """A proper prefix of a serialised frame, cut on a UTF-8 boundary: never valid JSON."""
    cut = max(2, len(line) // 2)
    while cut > 1 and (line[cut] & 0xC0) == 0x80:
        cut -= 1
    bad = line[:cut].rstrip()
    try:
        orjson.loads(bad)
    except orjson.JSONDecodeError:
        return bad
    raise AssertionError("truncated frame still parses")  # pragma: no cover


def generate(
    root: Path,
    *,
    seed: int = 7,
    sessions: int | None = None,
    target_bytes: int | None = None,
    canaries: bool = False,
) -> dict[str, Any]:
    """Write a Cursor ``projects`` corpus under ``root`` and return what was planted.

    ``sessions`` top-level sessions (default 60) are written; with ``target_bytes`` the
    generator keeps going until at least that many bytes are on disk (``sessions`` then is
    a minimum). See the module docstring for layout, shapes and the planted record.
    """
    root = ensure_root(root)
    gen = _Gen(root, seed, canaries, target_bytes)
    want = sessions if sessions is not None else (0 if target_bytes else DEFAULT_SESSIONS)
    idx = 0
    while idx < want or (target_bytes is not None and gen.w.bytes_total < target_bytes):
        gen.session(idx)
        idx += 1
    gen.w.finish()
    return gen.planted(seed, idx)
