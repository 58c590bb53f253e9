"""Seeded generator of a Claude Code session store (the root plays ``~/.claude/projects``).

Design
------
The generator is a small simulator, not a record shuffler. A corpus is a list of sessions;
each session picks a start time from a fixed base date (never the clock), and the client
version is the one whose time window holds that start, so shapes are stratified by version
the way real stores are (oldest files carry 1.0.111, newest 2.1.80). A session plays a few
*turns*: a file-history snapshot, a user prompt, then assistant steps in which every content
block (thinking, text, tool_use) is its own ``assistant`` record sharing ``message.id``,
``requestId`` and ``usage``; every tool call gets a ``user`` record with a ``tool_result``
block and a ``toolUseResult`` shaped by the tool, plus ``progress`` records (hooks, bash
output, MCP status, web search, agent mirrors) where the version writes them. ``Task``
calls spawn subagent files (``subagents/agent-<id>.jsonl`` plus ``agent-<id>.meta.json``
with ``agentType``, ``description`` and, for directly spawned children, ``toolUseId``); in
2.1.20/2.1.29 the parent also mirrors the child's messages as ``agent_progress`` records.
Some sessions add a workflow folder (``subagents/workflows/wf_<id>/`` with agents, metas and a
``journal.jsonl`` of ``started``/``result`` records), ``tool-results/<id>.txt`` sidecars for
persisted outputs, images (``<sid>/images/*.png``, a layout assumption: no real sample shows
where images live) and a project's ``memory/*.md``. Everything that is not a transcript,
meta, journal or tool-result sidecar counts as surface ``other``.

Which key set a record carries follows version gates measured on the real samples
(``slug`` from 2.0.69, and only once a session has one; ``todos`` and ``thinkingMetadata``
on prompts; ``sourceToolAssistantUUID`` from 2.1.2; ``permissionMode`` and progress records
from 2.1.20; ``caller`` and the long ``usage`` from 2.1.62; ``entrypoint``, attachments and
the rarer record types learned from the curated fixture from 2.1.80).

Coverage is guaranteed, not hoped for: the first sessions of a corpus are *coverage
sessions*, one per version, in which every optional branch (``_S.want``/``_S.pick``) is
taken in turn before randomness resumes, and every tool the version knows is called. The
default corpus (30 sessions) therefore shows every (record class, key set) combination of
the real samples, every nested key set and JSON type they show outside data-keyed maps, and
every record class of the curated fixtures. 2.1.80 is not a real-sample version: it hosts
what only the curated fixture shows (attachments, ``entrypoint``, API errors and refusals,
titles, worktree and bridge records ...). Later sessions draw sizes from a heavy tail
(long sessions, tool results up to tens of KB), as real stores do.

Ground truth (``planted``) is computed from the records as they are serialised, so it is
exact by construction: files per surface, records and top-level key sets per class
(``type`` or ``type/subtype``), LF-framed line statuses, versions per transcript file,
bytes, mtime months, canaries, and the Claude-specific figures:

- ``duplicate_uuids`` / ``dangling_parents``: one of each is planted in one parent file and
  listed as ``{"file": relpath, "uuid": ...}``; none occur by accident.
- ``meta_tooluse_joined`` / ``meta_total``: over ``subagents/agent-*.meta.json``; joined
  means the meta's ``toolUseId`` is a ``tool_use`` id in the session's parent file. Nested
  children (spawned by a subagent) and legacy metas without ``toolUseId`` do not join.
  Workflow metas never carry ``toolUseId`` (workflow children join by directory only).
- ``tool_pairs``, ``is_error``, ``tool_use_result_types``, ``thinking``, ``usage``: over the
  top-level ``message.content`` of records in transcript files (parent, subagent, workflow
  agent); copies of subagent messages nested in ``progress.data`` are not counted.
  ``usage.dedup_output_tokens`` keeps, per (sessionId, message.id), the last record's value
  (usage may grow across the records of one streamed message, never shrink).
- ``sidechain_by_surface``: records carrying ``isSidechain``, by surface and value.
- ``agent_id_by_surface``: per transcript surface, files, files with ``agentId`` at the top
  level of a record, files with it in a nested object. Subagent and workflow records carry
  it; two parent transcripts (edge-case slots 2 and 6) carry one on their first prompt, a
  planted violation of "agentId only in subagent files".
- ``subagent_schema``: child files (subagents and workflow agents; each has its session's
  parent) and their top-level shapes (record class, ``$.key``, JSON type) no parent
  transcript has: how many children hold one, and which ``$.key`` paths. Every
  ``RETYPE_EVERY``-th subagent file writes its first prompt's ``gitBranch`` as null (a
  planted schema difference; ``retyped_children``).
- ``persisted``: tool results carrying the ``<persisted-output>`` marker and
  ``toolUseResult.persistedOutputPath``; the path is absolute under a synthetic home
  (``/home/<user>/.claude/projects/...``) and the part after ``projects/`` is relative to
  the root; ``present`` targets exist under ``<sid>/tool-results/``, ``missing`` do not.

Line framing follows the survey: LF only; ``blank``, ``malformed`` (unparsable and
LF-terminated), ``partial`` (an unparsable last line without LF). One of each is planted;
a few files also end without a final LF after a complete record (those lines are ``ok``).
Some texts carry a raw U+2028 to catch readers that split on it.

With ``canaries=True`` every free text (prompts, assistant text and thinking, tool output,
summaries, hook commands ...), every tool-input string value, every key of a data-keyed map
(``trackedFileBackups``, MCP inputs, HTTP ``headers``), the project path component (hence
the encoded-cwd folder and every ``cwd``) and every sidecar body (tool-result text, memory
notes, metas, a PNG ``tEXt`` chunk) carries a fresh ``cnry<12 hex>z`` token from a seeded rng.
``planted["canaries"]`` lists, in issue order, exactly the tokens that reached a file.

``target_bytes`` streams: each session's files are written as soon as it is built, and only
counters are kept, so memory does not grow with the corpus (except the canary list).

The module never imports the census, the walk or the evidence code.
"""

from __future__ import annotations

import base64
import random
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from survey.synth.common import (
    BLANK,
    CODE_WORDS,
    HEX,
    NON_ASCII_WORDS,
    PROSE_WORDS,
    SYSTEM_WORDS,
    Coverage,
    FramingPlan,
    JsonlCorpus,
    Schedule,
    b62,
    ch,
    ensure_root,
    iso_ms,
    ri,
    session_start,
    uuid4,
    wordlist,
)

RUNTIME = "claude"
BASE = datetime(2025, 9, 1, tzinfo=UTC)
SPAN_DAYS = 240
VERSIONS = ("1.0.111", "2.0.69", "2.0.76", "2.1.2", "2.1.20", "2.1.29", "2.1.62", "2.1.80")
DEFAULT_SESSIONS = 30
MIN_SESSIONS_FOR_PLANTS = 8
RETYPE_EVERY = 4  # every 4th subagent file carries a retyped key (see _Gen.retype)
SURFACES = ("parent", "subagent", "subagent_meta", "workflow_agent", "workflow_meta", "journal",
            "tool_result_txt", "other")
TRANSCRIPT_SURFACES = ("parent", "subagent", "workflow_agent")

_U4_MASK = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
_U4_BITS = (0x4000 << 64) | (0x8000 << 48)

_WORDS = (*CODE_WORDS,
          *wordlist("margin border widget button panel dialog modal layer canvas sprite vector "
                    "matrix tensor"),
          *SYSTEM_WORDS,
          *wordlist("metric gauge counter ledger invoice ticket report digest summary draft "
                    "outline sketch"),
          *PROSE_WORDS, *NON_ASCII_WORDS)

_ADJ = wordlist("quiet brave shiny gentle swift lucky witty mellow rapid sunny frosty dusty cosmic "
        "velvet silent golden crimson lively humble noble")
_VERB = wordlist("dancing jumping sleeping running singing coding drifting hopping wandering glowing "
         "roaming spinning floating humming")
_NOUN = wordlist("otter falcon maple river comet lantern pebble harbor meadow canyon beacon willow "
         "badger quokka narwhal heron")
_PROJECTS = ("orchard", "lighthouse", "tessellate", "ferrous", "quillpad", "sundial", "marmot",
             "gridlock")
_USERS = ("dev", "sam", "kai", "rin")
_SERVERS = (("tracker", ("get_item", "create_item", "search_items")),
            ("wiki", ("read_page", "ask_question")))
_SUBAGENT_TYPES = ("Explore", "general-purpose", "Plan", "reviewer")
_MODELS = {0: "claude-sonnet-4-20250514", 1: "claude-sonnet-4-5-20250929",
           2: "claude-sonnet-4-5-20250929", 3: "claude-opus-4-5-20251101",
           4: "claude-opus-4-5-20251101", 5: "claude-opus-4-5-20251101", 6: "claude-opus-4-6",
           7: "claude-opus-4-6"}


def _jtype(v: Any) -> str:
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if v is None:
        return "null"
    return "number"


def _has_key(v: Any, key: str) -> bool:
    """Does ``key`` name a member of an object anywhere in ``v``?"""
    if isinstance(v, dict):
        return key in v or any(_has_key(x, key) for x in v.values())
    if isinstance(v, list):
        return any(_has_key(x, key) for x in v)
    return False


def _png(payload: bytes) -> bytes:
    """A valid 1x1 PNG whose tEXt chunk carries ``payload``."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    ihdr = (1).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    idat = zlib.compress(b"\x00\xff\xff\xff")
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"tEXt", b"Comment\x00" + payload)
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))



def _record_class(r: dict[str, Any]) -> str:
    t = r["type"]
    return f"{t}/{r['subtype']}" if "subtype" in r else t


class _Corpus(JsonlCorpus):
    """Writes files and keeps the exact tallies that become ``planted``."""

    def __init__(self, root: Path, seed: int, canaries: bool) -> None:
        super().__init__(root, seed, canaries, label="claude", words=_WORDS, surfaces=SURFACES)
        self.seed = seed
        # Claude extras
        self.dup_uuids: list[dict[str, str]] = []
        self.dangling: list[dict[str, str]] = []
        self.meta_total = 0
        self.meta_joined = 0
        self.pairs: Counter[str] = Counter({"paired": 0, "unpaired_calls": 0, "orphan_results": 0})
        self.is_error: Counter[str] = Counter({"true": 0, "false": 0, "absent": 0})
        self.tur_types: Counter[str] = Counter()
        self.persisted: Counter[str] = Counter({"present": 0, "missing": 0})
        self.naive_out = 0
        self.dedup_out = 0
        self.thinking: Counter[str] = Counter({"signature_only": 0, "with_text": 0})
        self.sidechain: dict[str, Counter[str]] = {
            s: Counter({"true": 0, "false": 0}) for s in TRANSCRIPT_SURFACES}
        # agentId by surface: files, files with it at the top level, files with it nested
        self.agent_id: dict[str, Counter[str]] = {
            s: Counter({"files": 0, "top_level": 0, "nested": 0}) for s in TRANSCRIPT_SURFACES}
        # top-level shapes (record class, $.key, JSON type): all parents', and each child file's
        self.parent_shapes: set[tuple[str, str, str]] = set()
        self.child_shapes: list[frozenset[tuple[str, str, str]]] = []
        self.children_written = 0
        self.retyped_children = 0

    # -- files ----------------------------------------------------------------------------
    def write_blob(self, rel: str, surface: str, data: bytes, mtime_ms: int) -> None:
        self.store(rel, surface, data, mtime_ms)

    def write_jsonl(self, rel: str, surface: str, recs: list[Any], mtime_ms: int, *,
                    final_lf: bool = True, partial: bytes | None = None) -> None:
        data = self.frame(recs, _record_class, final_lf=final_lf, partial=partial,
                          dumps=orjson.dumps)
        if surface in TRANSCRIPT_SURFACES:
            self._scan(rel, surface, recs)
        self.store(rel, surface, data, mtime_ms)

    def _scan(self, rel: str, surface: str, recs: list[Any]) -> None:
        """Exact per-file figures from the records being written."""
        uuids: set[str] = set()
        versions: set[str] = set()
        uses: list[str] = []
        results: list[str] = []
        last_usage: dict[tuple[str, str], int] = {}
        side = self.sidechain[surface]
        self._shapes(surface, recs)
        for r in recs:
            if not isinstance(r, dict):
                continue
            if "version" in r:
                versions.add(r["version"])
            if "isSidechain" in r:
                side["true" if r["isSidechain"] else "false"] += 1
            u = r.get("uuid")
            if isinstance(u, str):
                if u in uuids:
                    self.dup_uuids.append({"file": rel, "uuid": u})
                uuids.add(u)
            t = r["type"]
            msg = r.get("message")
            if t == "assistant" and isinstance(msg, dict):
                for b in msg.get("content", ()):
                    bt = b.get("type")
                    if bt == "tool_use" and "id" in b:
                        uses.append(b["id"])
                    elif bt == "thinking":
                        self.thinking["with_text" if b.get("thinking") else "signature_only"] += 1
                usage = msg.get("usage")
                if isinstance(usage, dict) and "id" in msg:
                    ot = int(usage.get("output_tokens") or 0)
                    self.naive_out += ot
                    last_usage[(r["sessionId"], msg["id"])] = ot
            elif t == "user" and isinstance(msg, dict):
                content = msg.get("content")
                if isinstance(content, list):
                    for b in content:
                        if b.get("type") == "tool_result":
                            results.append(b.get("tool_use_id", ""))
                            if "is_error" not in b:
                                self.is_error["absent"] += 1
                            else:
                                self.is_error["true" if b["is_error"] else "false"] += 1
                if "toolUseResult" in r:
                    self.tur_types[_jtype(r["toolUseResult"])] += 1
        for r in recs:
            if isinstance(r, dict):
                p = r.get("parentUuid")
                if isinstance(p, str) and p not in uuids:
                    self.dangling.append({"file": rel, "uuid": p})
        use_set = set(uses)
        answered = {x for x in results if x in use_set}
        self.pairs["paired"] += sum(1 for x in results if x in use_set)
        self.pairs["orphan_results"] += sum(1 for x in results if x not in use_set)
        self.pairs["unpaired_calls"] += len(use_set - answered)
        self.dedup_out += sum(last_usage.values())
        for v in versions:
            self.versions[v] += 1

    def _shapes(self, surface: str, recs: list[Any]) -> None:
        """The file's top-level shapes and where it carries an agentId key."""
        shapes = {(_record_class(r), f"$.{key}", _jtype(v)) for r in recs if isinstance(r, dict)
                  for key, v in r.items()}
        if surface == "parent":
            self.parent_shapes |= shapes
        else:
            self.child_shapes.append(frozenset(shapes))
        a = self.agent_id[surface]
        a["files"] += 1
        a["top_level"] += any(isinstance(r, dict) and "agentId" in r for r in recs)
        a["nested"] += any(isinstance(r, dict) and any(_has_key(v, "agentId") for v in r.values()) for r in recs)

    def subagent_schema(self) -> dict[str, Any]:
        """Child files (subagents and workflow agents, each paired with its session's parent)
        against the parents' top-level shapes."""
        alone = [s - self.parent_shapes for s in self.child_shapes]
        return {"children": len(self.child_shapes),
                "children_with_top_level_shape_alone": sum(1 for a in alone if a),
                "top_level_paths_alone": sorted({p for a in alone for _, p, _ in a}),
                "retyped_children": self.retyped_children}

    def planted(self) -> dict[str, Any]:
        return {
            **self.base_planted(RUNTIME),
            "duplicate_uuids": list(self.dup_uuids),
            "dangling_parents": list(self.dangling),
            "meta_tooluse_joined": self.meta_joined,
            "meta_total": self.meta_total,
            "tool_pairs": dict(self.pairs),
            "is_error": dict(self.is_error),
            "tool_use_result_types": dict(sorted(self.tur_types.items())),
            "persisted": dict(self.persisted),
            "usage": {"naive_output_tokens": self.naive_out,
                      "dedup_output_tokens": self.dedup_out},
            "thinking": dict(self.thinking),
            "sidechain_by_surface": {s: dict(c) for s, c in self.sidechain.items()},
            "agent_id_by_surface": {s: dict(c) for s, c in self.agent_id.items()},
            "subagent_schema": self.subagent_schema(),
        }


class _Project:
    def __init__(self, c: _Corpus, rng: random.Random, i: int) -> None:
        self.user = _USERS[i % len(_USERS)]
        name = _PROJECTS[i % len(_PROJECTS)] + (f"-{i // len(_PROJECTS)}" if i >= len(_PROJECTS) else "")
        if c.canaries_on:
            name = f"{name}-{c.canary()}"
        self.cwd = f"/home/{self.user}/work/{name}"
        self.enc = "".join(x if x.isalnum() else "-" for x in self.cwd)
        self.files = [f"{self.cwd}/src/{ch(rng, _NOUN)}_{ch(rng, _WORDS[:60])}.py"
                      for _ in range(8)]
        self.memory_written = False


@dataclass
class _Plan(FramingPlan):
    """Which corpus-level edge cases a session carries."""

    dup_and_dangling: bool = False
    orphan: bool = False
    agent_id: bool = False


class _S(Coverage):
    """One transcript file being built (a parent session, a subagent or a workflow agent)."""

    def __init__(self, c: _Corpus, rng: random.Random, *, vi: int, sid: str, project: _Project,
                 branch: str, start_ms: int, cover: bool, side: bool = False,
                 agent_id: str | None = None, slug: str | None = None, rel_dir: str = "") -> None:
        self.c = c
        self.rng = rng
        self.vi = vi
        self.version = VERSIONS[vi]
        self.sid = sid
        self.p = project
        self.branch = branch
        self.clock = start_ms
        self.cover = cover
        self.side = side
        self.agent_id = agent_id
        self.slug = slug
        self.parent: str | None = None
        self.recs: list[Any] = []
        self.tool_ids: set[str] = set()
        self.counters: Counter[str] = Counter()
        self.rel_dir = rel_dir  # "<enc>/<sid>"
        self.children: list[tuple[str, dict[str, Any]]] = []  # (meta rel path, meta)
        self.model = _MODELS[vi]
        self.tasks: list[str] = []
        self.root: _S = self
        self._tpl: dict[str, Any] | None = None
        self.last_prompt_uuid: str | None = None

    # -- ids and time ---------------------------------------------------------------------
    def uuid(self) -> str:
        h = f"{self.rng.getrandbits(128) & _U4_MASK | _U4_BITS:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def b62(self, n: int) -> str:
        return b62(self.rng, n)

    def toolu(self) -> str:
        return "toolu_01" + self.b62(22)

    def tick(self, lo: int = 200, hi: int = 4000) -> str:
        self.clock += ri(self.rng, lo, hi)
        return iso_ms(self.clock)

    def txt(self, n: int) -> str:
        return self.c.text(self.rng, n)

    # -- record skeletons -----------------------------------------------------------------
    def base(self, t: str, *, parent: Any = ...) -> dict[str, Any]:
        """The envelope every chained record shares (a copy of a per-slug template)."""
        tpl = self._tpl
        if tpl is None or tpl.get("slug") != self.slug:
            tpl = {"parentUuid": None, "isSidechain": self.side, "userType": "external",
                   "cwd": self.p.cwd, "sessionId": self.sid, "version": self.version,
                   "gitBranch": self.branch}
            if self.agent_id is not None:
                tpl["agentId"] = self.agent_id
            if self.vi >= 7:
                tpl["entrypoint"] = "cli"
            if self.slug is not None:
                tpl["slug"] = self.slug
            tpl["type"] = ""
            self._tpl = tpl
        d = tpl.copy()
        d["parentUuid"] = self.parent if parent is ... else parent
        d["type"] = t
        return d

    def add(self, d: dict[str, Any], *, chain: bool = True, u: str | None = None) -> str:
        u = u or self.uuid()
        d["uuid"] = u
        d["timestamp"] = self.tick()
        self.recs.append(d)
        if chain:
            self.parent = u
        return u

    def plain(self, d: dict[str, Any]) -> None:
        """A record outside the uuid DAG."""
        self.recs.append(d)

    # -- assistant ------------------------------------------------------------------------
    def usage(self, out_tokens: int) -> dict[str, Any]:
        cc5 = ri(self.rng, 0, 4000)
        u: dict[str, Any] = {
            "input_tokens": ri(self.rng, 1, 40),
            "cache_creation_input_tokens": cc5,
            "cache_read_input_tokens": ri(self.rng, 0, 150_000),
            "cache_creation": {"ephemeral_5m_input_tokens": cc5, "ephemeral_1h_input_tokens": 0},
            "output_tokens": out_tokens,
            "service_tier": "standard",
        }
        if self.vi >= 6:
            if self.pick("usage_long", 2) == 0:
                u["server_tool_use"] = {"web_search_requests": 0, "web_fetch_requests": 0}
                u["inference_geo"] = ""
                u["iterations"] = []
                u["speed"] = "standard"
            else:
                u["inference_geo"] = "not_available"
        return u

    def assistant(self, blocks: list[dict[str, Any]], *, final: bool = False) -> list[str]:
        """One record per block; message.id, requestId and usage repeat (usage may grow)."""
        mid = "msg_01" + self.b62(22)
        rid = "req_011C" + self.b62(20)
        grow = len(blocks) > 1 and self.want("usage_grows", 0.15)
        out_total = ri(self.rng, 20, 900)
        usage = self.usage(out_total)  # the same usage on every record of the message ...
        uuids = []
        for i, b in enumerate(blocks):
            if grow:  # ... except while streaming, where output_tokens only grows
                usage = {**usage, "output_tokens": max(1, out_total * (i + 1) // len(blocks))}
            last = i == len(blocks) - 1
            stop: str | None = None
            if last and self.rng.random() < 0.1:
                stop = "end_turn" if final else "tool_use"
            d = self.base("assistant")
            d["message"] = {"model": self.model, "id": mid, "type": "message", "role": "assistant",
                            "content": [b], "stop_reason": stop, "stop_sequence": None,
                            "usage": usage}
            d["requestId"] = rid
            uuids.append(self.add(d))
        return uuids

    def thinking_block(self) -> dict[str, Any]:
        sig = base64.b64encode(self.rng.randbytes(ri(self.rng, 120, 400))).decode()
        if self.want("thinking_text", 0.2):
            return {"type": "thinking", "thinking": self.txt(ri(self.rng, 80, 600)),
                    "signature": sig}
        return {"type": "thinking", "thinking": "", "signature": sig}

    # -- user -----------------------------------------------------------------------------
    def prompt(self, text: str | None = None, *, image: bool = False) -> str:
        u = self.uuid()
        self.last_prompt_uuid = u
        if self.vi >= 1 and not self.side:
            self.snapshot(update=False)
        d = self.base("user")
        body = text if text is not None else self.txt(ri(self.rng, 30, 400))
        if image:
            content: Any = [{"type": "text", "text": body},
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                         "data": base64.b64encode(_png(b"x")).decode()}}]
        elif not self.side and self.want("prompt_as_list", 0.1):
            content = [{"type": "text", "text": body}]
        else:
            content = body
        d["message"] = {"role": "user", "content": content}
        if not self.side:
            if 1 <= self.vi <= 3:
                d["thinkingMetadata"] = {"maxThinkingTokens": 31999}
            elif 4 <= self.vi <= 5:
                d["thinkingMetadata"] = {"level": "high", "disabled": False, "triggers": []}
            if self.vi >= 1:
                d["todos"] = []
            if self.vi >= 4:
                d["permissionMode"] = "default" if self.rng.random() < 0.9 else "bypassPermissions"
        return self.add(d, u=u)

    def snapshot(self, *, update: bool) -> None:
        tracked: dict[str, Any] = {}
        for f in self.rng.sample(self.p.files, ri(self.rng, 0, 4)):
            bfn = None if self.rng.random() < 0.1 else f"{self.b62(16).lower()}@v{ri(self.rng, 1, 4)}"
            tracked[self.c.key(f)] = {"backupFileName": bfn, "version": ri(self.rng, 1, 5),
                                      "backupTime": iso_ms(self.clock)}
        mid = self.last_prompt_uuid or self.uuid()
        self.plain({"type": "file-history-snapshot", "messageId": mid,
                    "snapshot": {"messageId": mid, "trackedFileBackups": tracked,
                                 "timestamp": iso_ms(self.clock)},
                    "isSnapshotUpdate": update})

    def tool_result(self, tid: str, src_uuid: str, content: Any, is_error: bool | None,
                    tur: Any, *, orphan: bool = False) -> str:
        if self.c.canaries_on:  # tool output is free text: give client-formatted text a token too
            if isinstance(content, str) and "cnry" not in content:
                content = f"{content} {self.c.canary()}"
            elif isinstance(content, list):
                content = [{**b, "text": f"{b['text']} {self.c.canary()}"}
                           if "cnry" not in b.get("text", "cnry") else b for b in content]
        block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error is not None:
            block["is_error"] = is_error
        d = self.base("user")
        d["message"] = {"role": "user", "content": [block]}
        if self.vi >= 3 and not orphan:
            d["sourceToolAssistantUUID"] = src_uuid
        d["toolUseResult"] = tur
        return self.add(d)

    def err_flag(self, error: bool) -> bool | None:
        if self.vi <= 1:
            return None
        if error:
            return True
        return False if self.want("is_error_false", 0.35) else None

    # -- progress -------------------------------------------------------------------------
    def progress(self, data: dict[str, Any], tool_use_id: str, parent_tool_use_id: str, *,
                 parent: Any = ...) -> None:
        d = self.base("progress", parent=parent)
        d["data"] = data
        d["toolUseID"] = tool_use_id
        d["parentToolUseID"] = parent_tool_use_id
        self.add(d)

    def hook(self, event: str, name: str, tid: str, *, parent: Any = ...) -> None:
        if self.vi < 4 or self.side:
            return
        self.progress({"type": "hook_progress", "hookEvent": event, "hookName": name,
                       "command": self.txt(40)}, tid, tid, parent=parent)

    # -- system ---------------------------------------------------------------------------
    def system(self, subtype: str, fields: dict[str, Any], *, parent: Any = ...,
               chain: bool = True) -> str:
        d = self.base("system", parent=parent)
        d["subtype"] = subtype
        d.update(fields)
        return self.add(d, chain=chain)



class _Gen:
    """Drives sessions, subagents, workflows and sidecars for one corpus."""

    def __init__(self, root: Path, seed: int, canaries: bool) -> None:
        self.c = _Corpus(root, seed, canaries)
        self.seed = seed
        rng = random.Random(f"claude-projects:{seed}")
        self.projects = [_Project(self.c, rng, i) for i in range(6)]

    # -- session ---------------------------------------------------------------------------
    def session(self, idx: int, plan: _Plan) -> None:
        c = self.c
        rng = random.Random(f"claude-session:{self.seed}:{idx}")
        cover, vi, start = session_start(rng, idx, len(VERSIONS), SPAN_DAYS, BASE)
        project = self.projects[rng.randrange(len(self.projects))] if not cover else \
            self.projects[idx % len(self.projects)]
        sid = uuid4(rng)
        branch = "main" if rng.random() < 0.5 else f"feature/{ch(rng, _NOUN)}-{ri(rng, 1, 400)}"
        rel_dir = f"{project.enc}/{sid}"
        s = _S(c, rng, vi=vi, sid=sid, project=project, branch=branch, start_ms=start,
               cover=cover, rel_dir=rel_dir)

        # head
        if 1 <= vi <= 3 and s.once("summary", 0.3):
            for _ in range(ri(rng, 1, 2)):
                s.plain({"type": "summary", "summary": s.txt(50), "leafUuid": s.uuid()})
        if vi >= 7:
            self.rare_head(s)
        if vi >= 4:
            s.hook("SessionStart", "SessionStart:startup", s.uuid(), parent=None)
        if vi >= 4 and s.once("local_command", 0.2):
            s.system("local_command", {"content": s.txt(80), "level": "info", "isMeta": False})

        turns = 4 if cover else (ri(rng, 2, 5) if rng.random() < 0.85 else ri(rng, 6, 24))
        tool_plan = self.coverage_tools(vi) if cover else []
        for t in range(turns):
            if t == 1 and plan.dup_and_dangling:
                self.plant_dup_and_dangling(s)
            if t == 2 and vi >= 4 and s.once("compact", 0.12):
                self.compact(s)
            last = t == turns - 1
            forced = tool_plan[t::turns] if cover else []
            self.turn(s, first=(t == 0), last=last, forced=forced, plan=plan)
            if t == 0 and s.slug is None and vi >= 1:
                s.slug = f"{ch(rng, _ADJ)}-{ch(rng, _VERB)}-{ch(rng, _NOUN)}"
            self.turn_tail(s)
        if vi >= 5 and s.once("pr_link", 0.2):
            s.plain({"type": "pr-link", "sessionId": sid, "prNumber": ri(rng, 1, 999),
                     "prUrl": f"https://git.example.invalid/{project.user}/repo/pull/{ri(rng, 1, 999)}",
                     "prRepository": f"{project.user}/repo", "timestamp": iso_ms(s.clock)})
        if vi >= 7:
            self.rare_tail(s)
        if vi >= 5 and s.once("workflow", 0.12):
            self.workflow(s)
        if (cover and vi in (4, 7)) or (not cover and rng.random() < 0.04):
            for n in range(ri(rng, 1, 2)):
                body = (c.canary().encode() if c.canaries_on else b"synthetic")
                c.write_blob(f"{rel_dir}/images/image-{n}.png", "other", _png(body), s.clock)
        if not project.memory_written and s.once("memory", 0.3):
            project.memory_written = True
            for name in ("MEMORY", ch(rng, _NOUN)):
                c.write_blob(f"{project.enc}/memory/{name}.md", "other",
                             ("# " + s.txt(20) + "\n\n" + s.txt(300) + "\n").encode(), s.clock)

        recs = s.recs
        final_lf = True
        partial: bytes | None = None
        if plan.agent_id:  # a parent transcript record carrying a (child's) agentId at its top level
            first = next(r for r in recs if isinstance(r, dict) and r.get("type") == "user")
            first["agentId"] = sid.replace("-", "")[:7]
        if plan.blank and len(recs) > 4:
            recs.insert(len(recs) // 2, BLANK)
        if plan.malformed and len(recs) > 4:
            recs.insert(len(recs) // 3, orjson.dumps(recs[1])[:-7] + b',"x":')
        if plan.partial:
            partial = orjson.dumps(recs[-1])[: len(orjson.dumps(recs[-1])) // 2]
        if plan.no_final_lf:
            final_lf = False
        c.write_jsonl(f"{project.enc}/{sid}.jsonl", "parent", recs, s.clock + 500,
                      final_lf=final_lf, partial=partial)
        for meta_rel, meta in s.children:
            c.meta_total += 1
            if meta.get("toolUseId") in s.tool_ids:
                c.meta_joined += 1
            c.write_blob(meta_rel, "subagent_meta", orjson.dumps(meta), s.clock + 400)

    def coverage_tools(self, vi: int) -> list[str]:
        tools = ["Bash", "Read", "Grep", "Edit", "Write", "Glob", "mcp"]
        tools += ["Bash", "Read", "Grep", "Edit", "Read", "Bash", "mcp", "Bash"]
        if vi <= 3:
            tools += ["TodoWrite", "MultiEdit"]
        if vi >= 4:
            tools += ["TaskCreate", "TaskUpdate", "TaskUpdate", "TaskUpdate", "TaskList", "Skill",
                      "WebSearch", "Skill"]
        if vi >= 1:
            tools += ["Task", "Task"]
        return tools

    def turn(self, s: _S, *, first: bool, last: bool, forced: list[str], plan: _Plan) -> None:
        rng = s.rng
        if s.vi >= 4 and s.once("queue_op", 0.25):
            s.plain({"type": "queue-operation", "operation": "enqueue", "timestamp": iso_ms(s.clock),
                     "sessionId": s.sid, "content": s.txt(60)})
            if s.pick("queue_end", 2) == 0:
                s.plain({"type": "queue-operation", "operation": "remove",
                         "timestamp": iso_ms(s.clock), "sessionId": s.sid})
            else:
                s.plain({"type": "queue-operation", "operation": "popAll",
                         "timestamp": iso_ms(s.clock), "sessionId": s.sid, "content": s.txt(60)})
        s.prompt(image=(s.vi >= 7 and s.once("image_prompt", 0.05)))
        if s.slug is not None and s.vi >= 2 and s.once("meta_user", 0.3):
            d = s.base("user")
            d["message"] = {"role": "user", "content": s.txt(120)}
            d["isMeta"] = True
            s.add(d)
        steps = ri(rng, 1, 3)
        queue = list(forced)
        if first and s.cover and s.vi >= 4:
            queue.insert(0, "Skill")
        step = 0
        while queue or step < steps:
            from_queue = bool(queue)
            if queue:
                names, queue = queue[:2], queue[2:]
            else:
                names = [self.random_tool(s) for _ in range(ri(rng, 1, 2))]
            step += 1
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.7:
                blocks.append(s.thinking_block())
            if rng.random() < 0.5:
                blocks.append({"type": "text", "text": s.txt(ri(rng, 20, 300))})
            calls = []
            for name in names:
                b, tid, tname, runner = self.tool_use(s, name)
                blocks.append(b)
                calls.append((tid, tname, runner))
            src = s.assistant(blocks)[-1]
            if last and not from_queue and step >= steps and s.once("unpaired", 0.05):
                # the user interrupts before any result is written: the calls stay unpaired
                d = s.base("user")
                d["message"] = {"role": "user", "content": "[Request interrupted by user]"}
                s.add(d)
                return
            for tid, tname, runner in calls:
                if tname == "Task":
                    s.hook("PreToolUse", "PreToolUse:Task", tid)
                runner(src)
                if rng.random() < 0.5:
                    s.hook("PostToolUse", f"PostToolUse:{tname.split('__')[0]}", tid)
                if tname in ("Edit", "Write", "MultiEdit") and s.vi >= 1 and rng.random() < 0.5:
                    s.snapshot(update=True)
        if plan.orphan and not s.side:
            plan.orphan = False
            s.tool_result(s.toolu(), s.parent or "", s.txt(40), None, s.txt(30), orphan=True)
        s.assistant([{"type": "text", "text": s.txt(ri(rng, 40, 500))}], final=True)

    def turn_tail(self, s: _S) -> None:
        if s.vi >= 2:
            tid = s.uuid()
            s.hook("Stop", "Stop", tid)
            infos: list[dict[str, Any]] = [{"command": s.txt(40)} for _ in range(ri(s.rng, 1, 2))]
            if s.want("hook_duration", 0.1):
                infos[0]["durationMs"] = ri(s.rng, 5, 900)
            s.system("stop_hook_summary", {"hookCount": len(infos), "hookInfos": infos,
                                           "hookErrors": [], "preventedContinuation": False,
                                           "stopReason": "", "hasOutput": s.rng.random() < 0.5,
                                           "level": "suggestion", "toolUseID": tid})
        if s.vi >= 3:
            s.system("turn_duration", {"durationMs": ri(s.rng, 2000, 400_000), "isMeta": False})

    def compact(self, s: _S) -> None:
        logical = s.parent
        d = s.base("system", parent=None)
        d.update({"subtype": "compact_boundary", "content": "Conversation compacted",
                  "isMeta": False, "level": "info", "logicalParentUuid": logical,
                  "compactMetadata": {"trigger": "auto", "preTokens": ri(s.rng, 100_000, 170_000)}})
        s.add(d)
        u = s.base("user")
        u["message"] = {"role": "user", "content": s.txt(900)}
        u["isCompactSummary"] = True
        u["isVisibleInTranscriptOnly"] = True
        s.add(u)

    def plant_dup_and_dangling(self, s: _S) -> None:
        first = next(r for r in s.recs if isinstance(r, dict) and r.get("type") == "user")
        s.recs.append(dict(first))  # a duplicated record: same uuid, written twice
        d = s.base("user", parent=s.uuid())  # parent that exists nowhere
        d["message"] = {"role": "user", "content": s.txt(60)}
        s.add(d)

    def random_tool(self, s: _S) -> str:
        pool = ["Bash"] * 6 + ["Read"] * 5 + ["Grep"] * 3 + ["Edit"] * 3 + ["Glob", "Write", "mcp"]
        if s.vi >= 1 and not s.side:
            pool.append("Task")
        if s.vi <= 3:
            pool += ["TodoWrite"]
        else:
            pool += ["TaskUpdate", "TaskCreate"]
        return ch(s.rng, pool)

    # -- tools ----------------------------------------------------------------------------
    def tool_use(self, s: _S, name: str) -> tuple[dict[str, Any], str, str, Callable[[str], None]]:
        """A ``tool_use`` block calling ``name`` (``caller`` from 2.1.62 on), its id, the tool's
        name and the runner that writes its result."""
        tid = s.toolu()
        tname, inp, runner = self.tool(s, name, tid)
        b: dict[str, Any] = {"type": "tool_use", "id": tid, "name": tname, "input": inp}
        if s.vi >= 6:
            b["caller"] = {"type": "direct"}
        s.tool_ids.add(tid)
        return b, tid, tname, runner

    def tool(self, s: _S, name: str, tid: str) -> tuple[str, dict[str, Any], Callable[[str], None]]:
        """(tool name, input, runner(src_uuid)) for one call."""
        c = self.c
        rng = s.rng
        error = s.pick("err_" + name, 2, (0.95, 0.05)) == 1
        path = ch(rng, s.p.files)

        def result(content: Any, tur: Any, err: bool = False) -> Callable[[str], None]:
            def run(src: str) -> None:
                if err:
                    msg = "Error: " + s.txt(60)
                    s.tool_result(tid, src, msg, s.err_flag(True), msg)
                else:
                    s.tool_result(tid, src, content, s.err_flag(False), tur)
            return run

        if name == "Bash":
            v = s.pick("bash_in", 2, (0.85, 0.15))
            inp: dict[str, Any] = {"command": s.txt(40), "description": s.txt(20)}
            if v == 1:
                inp["timeout"] = 120000
            out = s.txt(ri(rng, 0, 1200) if rng.random() < 0.95 else ri(rng, 5000, 30000))
            tur: dict[str, Any] = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
            if s.vi >= 4:
                tur["noOutputExpected"] = False
            persisted = s.vi >= 4 and not s.side and s.pick("persisted", 3, (0.02, 0.02, 0.96)) < 2
            inp = c.canarize(inp)

            def run_bash(src: str) -> None:
                if s.vi >= 4 and rng.random() < 0.4:
                    data: dict[str, Any] = {"type": "bash_progress", "output": s.txt(60),
                                            "fullOutput": s.txt(120), "elapsedTimeSeconds": ri(rng, 2, 40),
                                            "totalLines": ri(rng, 0, 90)}
                    if "timeout" in inp:
                        data["timeoutMs"] = 120000
                    elif s.vi >= 6 or s.want("bash_task", 0.3):
                        data["totalBytes"] = ri(rng, 0, 90000)
                        data["taskId"] = s.b62(9).lower()
                    for n in range(ri(rng, 1, 3)):
                        s.progress(dict(data), f"bash-progress-{n}", tid)
                if persisted:
                    present = s.pick("persist_present", 2, (0.7, 0.3)) == 0
                    rel = f"{s.rel_dir}/tool-results/{tid}.txt"
                    full = s.txt(ri(rng, 3000, 9000))
                    ptur = dict(tur)
                    ptur["persistedOutputPath"] = f"/home/{s.p.user}/.claude/projects/{rel}"
                    ptur["persistedOutputSize"] = len(full.encode())
                    content = ("<persisted-output>\nOutput too large. Full output saved to: "
                               + ptur["persistedOutputPath"] + "\n\nPreview:\n" + s.txt(400)
                               + "\n</persisted-output>")
                    s.tool_result(tid, src, content, s.err_flag(False), ptur)
                    c.persisted["present" if present else "missing"] += 1
                    if present:
                        c.write_blob(rel, "tool_result_txt", full.encode(), s.clock)
                    return
                if error:
                    result(None, None, True)(src)
                    return
                body = "(Bash completed with no output)" if not out and s.vi >= 2 else out
                if s.vi >= 3 and s.want("bash_str_tur", 0.05):
                    s.tool_result(tid, src, body, s.err_flag(False), out)
                else:
                    s.tool_result(tid, src, body, s.err_flag(False), tur)
            return "Bash", inp, run_bash

        if name == "Read":
            v = s.pick("read_in", 3, (0.6, 0.35, 0.05))
            inp = {"file_path": path}
            if v == 1:
                inp.update({"offset": ri(rng, 1, 400), "limit": ri(rng, 20, 200)})
            elif v == 2:
                inp["limit"] = ri(rng, 20, 200)
            body = s.txt(ri(rng, 100, 3000) if rng.random() < 0.94 else ri(rng, 5000, 60000))
            tur = {"type": "text", "file": {"filePath": path, "content": body,
                                            "numLines": body.count(" ") // 8 + 1,
                                            "startLine": inp.get("offset", 1), "totalLines": ri(rng, 50, 900)}}
            return "Read", c.canarize(inp), result(body, tur, error)

        if name == "Grep":
            v = s.pick("grep_in", 5, (0.5, 0.2, 0.15, 0.1, 0.05))
            inp = {"pattern": s.txt(12), "path": s.p.cwd, "output_mode": "content", "-n": True}
            if v == 1:
                inp = {"pattern": s.txt(12), "path": s.p.cwd, "output_mode": "files_with_matches"}
            elif v == 2:
                inp = {"pattern": s.txt(12), "path": s.p.cwd, "output_mode": "content", "-A": 3}
            elif v == 3:
                inp = {"pattern": s.txt(12), "output_mode": "content"}
            elif v == 4:
                inp = {"pattern": s.txt(12), "path": s.p.cwd, "glob": "*.py", "output_mode": "content",
                       "-n": True, "-i": True}
            files = rng.sample(s.p.files, ri(rng, 0, 4))
            if inp["output_mode"] == "files_with_matches":
                tur = {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}
                body = "\n".join(files) or "No files found"
            else:
                body = s.txt(ri(rng, 50, 1500))
                tur = {"mode": "content", "numFiles": 0, "filenames": [], "content": body,
                       "numLines": ri(rng, 1, 60)}
            return "Grep", c.canarize(inp), result(body, tur, error)

        if name == "Glob":
            inp = {"pattern": "**/*.py"}
            files = rng.sample(s.p.files, ri(rng, 0, 5))
            tur = {"filenames": files, "durationMs": ri(rng, 3, 300), "numFiles": len(files),
                   "truncated": False}
            return "Glob", c.canarize(inp), result("\n".join(files) or "No files found", tur, error)

        if name in ("Edit", "Write", "MultiEdit"):
            old, new = s.txt(60), s.txt(60)
            patch = [{"oldStart": ri(rng, 1, 300), "oldLines": 3, "newStart": ri(rng, 1, 300),
                      "newLines": 4, "lines": [s.txt(30) for _ in range(ri(rng, 2, 6))]}]
            if name == "Edit":
                v = s.pick("edit_in", 2, (0.75, 0.25))
                inp = {"file_path": path, "old_string": old, "new_string": new}
                if v == 0:
                    inp["replace_all"] = False
                orig: str | None = s.txt(ri(rng, 200, 2000))
                if s.want("edit_orig_null", 0.1):
                    orig = None
                tur = {"filePath": path, "oldString": old, "newString": new, "originalFile": orig,
                       "structuredPatch": patch, "userModified": False, "replaceAll": False}
                return "Edit", c.canarize(inp), result(f"The file {path} has been updated.", tur, error)
            if name == "Write":
                body = s.txt(ri(rng, 100, 1500))
                inp = {"file_path": path, "content": body}
                tur = {"type": "create", "filePath": path, "content": body, "structuredPatch": [],
                       "originalFile": None}
                return "Write", c.canarize(inp), result(f"File created successfully at: {path}", tur, error)
            edits = [{"old_string": s.txt(30), "new_string": s.txt(30), "replace_all": False}
                     for _ in range(ri(rng, 2, 5))]
            inp = {"file_path": path, "edits": edits}
            tur = {"filePath": path, "edits": edits, "originalFileContents": s.txt(800),
                   "structuredPatch": patch, "userModified": False}
            return "MultiEdit", c.canarize(inp), result(f"Applied {len(edits)} edits to {path}", tur, error)

        if name == "TodoWrite":
            todos = [{"content": s.txt(30), "status": ch(rng, ("pending", "in_progress", "completed")),
                      "activeForm": s.txt(30)} for _ in range(ri(rng, 2, 6))]
            tur = {"oldTodos": [], "newTodos": todos}
            return "TodoWrite", c.canarize({"todos": todos}), result("Todos have been modified successfully.", tur)

        if name == "TaskCreate":
            task_id = str(len(s.tasks) + 1)
            subject = s.txt(30)
            s.tasks.append(task_id)
            inp = {"subject": subject, "description": s.txt(100), "activeForm": s.txt(30)}
            return "TaskCreate", c.canarize(inp), result(f"Task #{task_id} created successfully",
                                                       {"task": {"id": task_id, "subject": subject}})

        if name == "TaskUpdate":
            v = s.pick("task_update", 3, (0.6, 0.3, 0.1))
            task_id = ch(rng, s.tasks) if s.tasks else "1"
            inp = {"taskId": task_id, "status": "completed" if v != 1 else "in_progress"}
            if v == 0:
                tur = {"success": True, "taskId": task_id, "updatedFields": ["status"],
                       "statusChange": {"from": "in_progress", "to": "completed"}}
            elif v == 1:
                tur = {"success": True, "taskId": task_id, "updatedFields": []}
            else:
                tur = {"success": False, "taskId": task_id, "updatedFields": [], "error": s.txt(30)}
            return "TaskUpdate", c.canarize(inp), result(f"Updated task #{task_id}", tur)

        if name == "TaskList":
            tasks = [{"id": str(i + 1), "subject": s.txt(30),
                      "status": ch(rng, ("pending", "completed")), "blockedBy": []}
                     for i in range(ri(rng, 1, 5))]
            return "TaskList", {}, result(s.txt(200), {"tasks": tasks})

        if name == "Skill":
            skill = f"{ch(rng, _NOUN)}-helper"
            inp = c.canarize({"skill": skill})

            def run_skill(src: str) -> None:
                s.tool_result(tid, src, f"Launching skill: {inp['skill']}", s.err_flag(False),
                              {"success": True, "commandName": skill})
                d = s.base("user")
                d["message"] = {"role": "user", "content": [{"type": "text", "text": s.txt(400)}]}
                d["isMeta"] = True
                d["sourceToolUseID"] = tid
                s.add(d)
            return "Skill", inp, run_skill

        if name == "WebSearch":
            query = s.txt(40)
            inp = c.canarize({"query": query})

            def run_search(src: str) -> None:
                if s.vi >= 4:
                    s.progress({"type": "query_update", "query": query}, "search-progress-1", tid)
                    s.progress({"type": "search_results_received", "resultCount": 5, "query": query},
                               "srvtoolu_01" + s.b62(22), tid)
                links = [{"title": s.txt(30), "url": f"https://docs.example.invalid/{s.b62(8)}"}
                         for _ in range(ri(rng, 2, 6))]
                tur = {"query": query, "results": [{"tool_use_id": "srvtoolu_01" + s.b62(22),
                                                    "content": links}, s.txt(300)],
                       "durationSeconds": round(rng.uniform(1, 20), 3)}
                s.tool_result(tid, src, s.txt(600), s.err_flag(False), tur)
            return "WebSearch", inp, run_search

        if name == "mcp":
            server, tools = _SERVERS[rng.randrange(len(_SERVERS))]
            tool = ch(rng, tools)
            tname = f"mcp__{server}__{tool}"
            inp = {c.key(k): s.txt(20) for k in rng.sample(("id", "query", "title", "team", "labels",
                                                           "priority"), ri(rng, 1, 4))}
            form = s.pick("mcp_result", 3, (0.5, 0.4, 0.1))

            def run_mcp(src: str) -> None:
                if s.vi >= 4:
                    s.progress({"type": "mcp_progress", "status": "started", "serverName": server,
                                "toolName": tool}, tid, tid)
                    s.progress({"type": "mcp_progress", "status": "failed" if error else "completed",
                                "serverName": server, "toolName": tool,
                                "elapsedTimeMs": ri(rng, 30, 5000)}, tid, tid)
                if error or form == 2:
                    msg = s.txt(80)
                    s.tool_result(tid, src, msg, s.err_flag(error), msg)
                elif form == 0:
                    blocks = [{"type": "text", "text": s.txt(300)}]
                    s.tool_result(tid, src, blocks, s.err_flag(False), blocks)
                else:
                    blocks = [{"type": "text", "text": s.txt(300)}]
                    s.tool_result(tid, src, s.txt(300), s.err_flag(False), blocks)
            return tname, inp, run_mcp

        if name == "Task":
            prompt = s.txt(ri(rng, 80, 600))
            agent_type = ch(rng, _SUBAGENT_TYPES)
            inp = c.canarize({"description": s.txt(20), "prompt": prompt, "subagent_type": agent_type})
            desc = inp["description"]

            def run_task(src: str) -> None:
                aid = "".join(rng.choices(HEX, k=7)) if s.vi < 7 else "a" + "".join(rng.choices(HEX, k=16))
                child = self.subagent(s, aid, prompt, agent_type, tid, desc)
                if 4 <= s.vi <= 5 and not s.side:
                    self.agent_progress(s, child, aid, prompt, tid)
                text = s.txt(ri(rng, 100, 800))
                out_tokens = sum(r["message"]["usage"]["output_tokens"] for r in child.recs
                                 if isinstance(r, dict) and r["type"] == "assistant")
                tur = {"status": "completed", "prompt": prompt, "agentId": aid,
                       "content": [{"type": "text", "text": text}],
                       "totalDurationMs": ri(rng, 5000, 300000), "totalTokens": out_tokens + 5000,
                       "totalToolUseCount": len(child.tool_ids),
                       "usage": s.usage(out_tokens) if s.vi < 6 else {
                           k: v for k, v in s.usage(out_tokens).items()
                           if k not in ("server_tool_use", "inference_geo", "iterations", "speed")}}
                content: Any = [{"type": "text", "text": text}] if 4 <= s.vi <= 5 else text
                s.tool_result(tid, src, content, s.err_flag(False), tur)
            return "Task", inp, run_task

        raise ValueError(name)

    # -- subagents and workflows ------------------------------------------------------------
    def subagent(self, s: _S, aid: str, prompt: str, agent_type: str, tid: str,
                 description: str = "") -> _S:
        """Write ``subagents/agent-<aid>.jsonl``; queue its meta for the parent."""
        rng = s.rng
        child = _S(self.c, rng, vi=s.vi, sid=s.sid, project=s.p, branch=s.branch,
                   start_ms=s.clock, cover=False, side=True, agent_id=aid, slug=s.slug,
                   rel_dir=s.rel_dir)
        child.root = s.root
        child.parent = None
        child.prompt(prompt)
        for _ in range(ri(rng, 1, 3)):
            names = [ch(rng, ("Read", "Grep", "Bash", "Glob")) for _ in range(ri(rng, 1, 2))]
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.5:
                blocks.append(child.thinking_block())
            calls = []
            for name in names:
                b, _, _, runner = self.tool_use(child, name)
                blocks.append(b)
                calls.append(runner)
            uuids = child.assistant(blocks)
            for runner in calls:
                runner(uuids[-1])
        if s.vi >= 2 and not s.side and ((s.cover and s.vi in (3, 5) and s.once("nested", 0))
                                         or (not s.cover and s.rng.random() < 0.03)):
            # a child that spawns a child: the grandchild's meta names the child's call,
            # which is absent from the parent file (unjoinable from the parent)
            ntid = child.toolu()
            nprompt = child.txt(200)
            child.tool_ids.add(ntid)
            src = child.assistant([{"type": "tool_use", "id": ntid, "name": "Task",
                                    "input": self.c.canarize({"description": child.txt(20),
                                                              "prompt": nprompt,
                                                              "subagent_type": "Explore"})}])[-1]
            self.subagent(child, "".join(rng.choices(HEX, k=7)), nprompt, "Explore", ntid)
            child.tool_result(ntid, src, child.txt(200), child.err_flag(False),
                              {"status": "completed", "prompt": nprompt})
        child.assistant([{"type": "text", "text": child.txt(ri(rng, 100, 700))}], final=True)
        s.clock = child.clock
        rel = f"{s.rel_dir}/subagents/agent-{aid}.jsonl"
        self.retype(child.recs)
        self.c.write_jsonl(rel, "subagent", child.recs, child.clock)
        meta: dict[str, Any] = {"agentType": agent_type, "description": description or s.txt(20)}
        if s.side or not ((s.cover and s.vi == 2 and s.once("meta_legacy", 0))
                          or (not s.cover and s.rng.random() < 0.04)):
            meta["toolUseId"] = tid
        s.root.children.append((f"{s.rel_dir}/subagents/agent-{aid}.meta.json", meta))
        return child

    def agent_progress(self, s: _S, child: _S, aid: str, prompt: str, tid: str) -> None:
        """Mirror the child's messages into the parent as ``agent_progress`` records."""
        first = True
        for r in child.recs:
            if not isinstance(r, dict) or r["type"] not in ("user", "assistant"):
                continue
            m = r["message"]
            if r["type"] == "assistant":
                blocks = [b for b in m["content"] if b["type"] == "tool_use"]
                if not blocks:
                    continue
                inner: dict[str, Any] = {
                    "type": "assistant", "message": {
                        "model": m["model"], "id": m["id"], "type": "message", "role": "assistant",
                        "content": blocks, "stop_reason": None, "stop_sequence": None,
                        "usage": {k: v for k, v in m["usage"].items()
                                  if k not in ("server_tool_use", "inference_geo", "iterations", "speed")},
                        "context_management": None},
                    "requestId": r["requestId"], "uuid": r["uuid"], "timestamp": r["timestamp"]}
            elif first:
                first = False
                inner = {"type": "user", "message": {"role": "user",
                                                     "content": [{"type": "text", "text": prompt}]},
                         "toolUseResult": prompt, "uuid": r["uuid"], "timestamp": r["timestamp"]}
            else:
                content = m["content"]
                if not isinstance(content, list):
                    continue
                inner = {"type": "user", "message": {"role": "user", "content": content},
                         "uuid": r["uuid"], "timestamp": r["timestamp"]}
            s.progress({"message": inner, "normalizedMessages": [], "type": "agent_progress",
                        "prompt": prompt, "agentId": aid}, "agent_msg_01" + s.b62(22), tid)

    def retype(self, recs: list[Any]) -> None:
        """Every ``RETYPE_EVERY``-th subagent file: its first prompt's gitBranch is null (a
        shape no parent transcript writes: a child whose schema differs from its parent's)."""
        c = self.c
        c.children_written += 1
        if c.children_written % RETYPE_EVERY:
            return
        for r in recs:
            if isinstance(r, dict) and r.get("type") == "user" and "gitBranch" in r:
                r["gitBranch"] = None
                c.retyped_children += 1
                return

    def workflow(self, s: _S) -> None:
        rng = s.rng
        wf = "wf_" + "".join(rng.choices(HEX, k=8))
        wdir = f"{s.rel_dir}/subagents/workflows/{wf}"
        journal: list[dict[str, Any]] = []
        for n in range(ri(rng, 2, 3)):
            aid = "".join(rng.choices(HEX, k=7))
            key = f"step-{n}"
            journal.append({"type": "started", "agentId": aid, "key": key})
            child = _S(self.c, rng, vi=s.vi, sid=s.sid, project=s.p, branch=s.branch,
                       start_ms=s.clock, cover=False, side=True, agent_id=aid, slug=s.slug,
                       rel_dir=s.rel_dir)
            child.parent = None
            child.prompt(child.txt(200))
            ctid = child.toolu()
            tname, inp, runner = self.tool(child, "Read", ctid)
            child.tool_ids.add(ctid)
            src = child.assistant([{"type": "tool_use", "id": ctid, "name": tname, "input": inp}])[-1]
            runner(src)
            child.assistant([{"type": "text", "text": child.txt(300)}], final=True)
            s.clock = child.clock
            self.c.write_jsonl(f"{wdir}/agent-{aid}.jsonl", "workflow_agent", child.recs, child.clock)
            self.c.write_blob(f"{wdir}/agent-{aid}.meta.json", "workflow_meta",
                              orjson.dumps({"agentType": "workflow", "description": child.txt(40)}),
                              child.clock)
            journal.append({"type": "result", "agentId": aid, "key": key,
                            "result": {"summary": child.txt(80)}})
        self.c.write_jsonl(f"{wdir}/journal.jsonl", "journal", journal, s.clock)

    # -- rare classes (learned from the curated fixture; 2.1.80 files only) ----------------
    def rare_head(self, s: _S) -> None:
        rng = s.rng
        s.system("session_start", {"content": s.txt(40), "level": "info", "isMeta": False,
                                   "cause": "startup", "durationMs": ri(rng, 5, 900),
                                   "messageCount": 0, "error": None, "retryAttempt": 0,
                                   "retryInMs": 0, "maxRetries": 10}, parent=None)
        s.plain({"type": "permission-mode", "permissionMode": "default", "sessionId": s.sid})
        s.plain({"type": "mode", "mode": "normal", "sessionId": s.sid})
        for kind in ("hook_success", "skill_listing", "nested_memory", "deferred_tools_delta",
                     "mcp_instructions_delta", "agent_listing_delta", "command_permissions",
                     "date_change"):
            self.attachment(s, kind)

    def attachment(self, s: _S, kind: str) -> None:
        rng = s.rng
        tid = s.toolu()
        a: dict[str, Any]
        if kind in ("hook_success", "hook_non_blocking_error"):
            a = {"type": kind, "hookName": "SessionStart:startup", "toolUseID": tid,
                 "hookEvent": "SessionStart", "content": s.txt(60), "stdout": s.txt(60), "stderr": "",
                 "exitCode": 0 if kind == "hook_success" else 1, "command": s.txt(40),
                 "durationMs": ri(rng, 5, 900)}
            if kind != "hook_success":
                del a["content"]
        elif kind == "hook_blocking_error":
            a = {"type": kind, "hookName": "PreToolUse:Bash", "toolUseID": tid, "hookEvent": "PreToolUse",
                 "blockingError": {"blockingError": s.txt(60), "command": s.txt(40)}}
        elif kind == "hook_additional_context":
            a = {"type": kind, "content": [s.txt(60)], "hookName": "SessionStart:startup",
                 "toolUseID": tid, "hookEvent": "SessionStart"}
        elif kind == "skill_listing":
            a = {"type": kind, "content": s.txt(200), "skillCount": 3, "isInitial": True,
                 "names": [f"{n}-helper" for n in rng.sample(_NOUN, 3)]}
        elif kind == "nested_memory":
            a = {"type": kind, "path": f"{s.p.cwd}/CLAUDE.md", "displayPath": "CLAUDE.md",
                 "content": {"type": "memory", "path": f"{s.p.cwd}/CLAUDE.md", "content": s.txt(200),
                             "contentDiffersFromDisk": False}}
        elif kind == "deferred_tools_delta":
            a = {"type": kind, "addedNames": ["mcp__wiki__read_page"], "addedLines": [s.txt(40)],
                 "removedNames": [], "readdedNames": [], "pendingMcpServers": []}
        elif kind == "mcp_instructions_delta":
            a = {"type": kind, "addedNames": ["wiki"], "addedBlocks": [s.txt(80)], "removedNames": []}
        elif kind == "agent_listing_delta":
            a = {"type": kind, "addedTypes": ["Explore"], "addedLines": [s.txt(40)], "removedTypes": [],
                 "isInitial": True, "showConcurrencyNote": False}
        elif kind == "command_permissions":
            a = {"type": kind, "allowedTools": ["Bash(git status)"]}
        elif kind == "date_change":
            a = {"type": kind, "newDate": iso_ms(s.clock)[:10]}
        elif kind == "queued_command":
            a = {"type": kind, "prompt": s.txt(60), "commandMode": "prompt", "timestamp": iso_ms(s.clock)}
        elif kind == "edited_text_file":
            a = {"type": kind, "filename": ch(rng, s.p.files), "snippet": s.txt(80)}
        elif kind == "file":
            a = {"type": kind, "filename": ch(rng, s.p.files), "displayPath": "src/x.py",
                 "content": {"type": "text", "file": {"filePath": ch(rng, s.p.files),
                                                      "content": s.txt(200), "numLines": 9,
                                                      "startLine": 1, "totalLines": 9}}}
        elif kind == "compact_file_reference":
            a = {"type": kind, "filename": ch(rng, s.p.files), "displayPath": "src/x.py"}
        elif kind == "invoked_skills":
            a = {"type": kind, "skills": [{"name": "otter-helper", "path": f"{s.p.cwd}/.claude/skills/otter",
                                           "content": s.txt(200)}]}
        elif kind in ("todo_reminder", "task_reminder"):
            items = [{"content": s.txt(30), "status": "pending", "activeForm": s.txt(30)}]
            a = {"type": kind, "content": items, "itemCount": len(items)}
        elif kind == "dynamic_skill":
            a = {"type": kind, "skillDir": f"{s.p.cwd}/.claude/skills", "skillNames": ["otter-helper"],
                 "displayPath": ".claude/skills"}
        elif kind == "plan_mode":
            a = {"type": kind, "reminderType": "full", "isSubAgent": False,
                 "planFilePath": f"{s.p.cwd}/PLAN.md", "planExists": False}
        elif kind == "plan_mode_exit":
            a = {"type": kind, "planFilePath": f"{s.p.cwd}/PLAN.md", "planExists": True}
        elif kind == "task_status":
            a = {"type": kind, "taskId": s.b62(9).lower(), "taskType": "local_bash",
                 "status": "completed", "description": s.txt(40), "deltaSummary": s.txt(60),
                 "outputFilePath": f"/tmp/{s.b62(8)}.out"}
        elif kind == "budget_usd":
            a = {"type": kind, "used": 1.5, "total": 10.0, "remaining": 8.5}
        elif kind in ("total_tokens_reminder", "silent_turn_reminder"):
            a = {"type": kind, "text": s.txt(60)}
        elif kind == "batching_reminder_sent":
            a = {"type": kind, "text": s.txt(60), "model": s.model}
        elif kind == "read_truncation_notice":
            a = {"type": kind, "toolUseID": tid, "banner": s.txt(60)}
        elif kind in ("ultra_effort_enter",):
            a = {"type": kind, "reminderType": "full"}
        elif kind == "auto_mode":
            a = {"type": kind, "autoModeConsentFlow": False, "bashFirst": False, "bypass": False,
                 "steerOnly": False}
        else:
            a = {"type": kind}
        d = s.base("attachment")
        d["attachment"] = a
        s.add(d)

    def rare_tail(self, s: _S) -> None:
        rng = s.rng
        for kind in ("queued_command", "edited_text_file", "file", "compact_file_reference",
                     "invoked_skills", "todo_reminder", "task_reminder", "dynamic_skill",
                     "plan_mode", "plan_mode_exit", "task_status", "budget_usd",
                     "total_tokens_reminder", "silent_turn_reminder", "batching_reminder_sent",
                     "read_truncation_notice", "ultra_effort_enter", "ultra_effort_exit",
                     "auto_mode", "hook_non_blocking_error", "hook_blocking_error",
                     "hook_additional_context"):
            self.attachment(s, kind)
        # an API failure: retries, then a synthetic assistant message
        headers = {s.c.key(k): s.txt(10) for k in ("retry-after", "request-id", "x-limit")}
        s.system("api_error", {"level": "error", "error": {"status": 429, "headers": headers,
                                                           "requestID": "req_011C" + s.b62(20),
                                                           "type": None},
                               "retryInMs": 2000, "retryAttempt": 1, "maxRetries": 10})
        s.system("error", {"error": {"status": 0, "message": s.txt(40), "formatted": s.txt(40),
                                     "isNetworkDown": True, "connection": None,
                                     "rateLimits": {"retryAfterSeconds": 30}}})
        d = s.base("assistant")
        d["message"] = {"id": "msg_01" + s.b62(22), "model": "<synthetic>", "role": "assistant",
                        "stop_reason": "stop_sequence", "stop_sequence": "", "type": "message",
                        "usage": {"input_tokens": 0, "output_tokens": 0, "service_tier": None},
                        "content": [{"type": "text", "text": s.txt(60)}]}
        d["error"] = "rate_limit"
        d["isApiErrorMessage"] = True
        s.add(d)
        s.system("api_refusal", {"content": s.txt(40), "apiRefusalCategory": "policy",
                                 "apiRefusalExplanation": s.txt(40), "direction": "inbound",
                                 "refusedUserMessageUuid": s.uuid(), "retractedMessageUuids": [],
                                 "requestId": "req_011C" + s.b62(20), "source": "api",
                                 "session_id": s.sid}, chain=False)
        s.system("model_refusal_fallback", {"content": s.txt(40), "level": "info", "isMeta": False,
                                            "apiRefusalCategory": "policy",
                                            "apiRefusalExplanation": s.txt(40), "direction": "inbound",
                                            "fallbackModel": "claude-sonnet-4-5-20250929",
                                            "originalModel": s.model, "refusedUserMessageUuid": s.uuid(),
                                            "retractedMessageUuids": [], "requestId": "req_011C" + s.b62(20),
                                            "scope": "turn", "trigger": "refusal"})
        sid = s.sid
        s.plain({"type": "agent-name", "agentName": s.txt(20), "sessionId": sid})
        s.plain({"type": "custom-title", "customTitle": s.txt(30), "sessionId": sid})
        s.plain({"type": "ai-title", "aiTitle": s.txt(30), "sessionId": sid})
        s.plain({"type": "last-prompt", "lastPrompt": s.txt(60), "leafUuid": s.parent, "sessionId": sid})
        s.plain({"type": "frame-link", "frameUrl": f"https://frames.example.invalid/{s.b62(10)}",
                 "path": "/", "title": s.txt(20), "timestamp": iso_ms(s.clock), "sessionId": sid})
        s.plain({"type": "relocated", "relocatedCwd": s.p.cwd + "/sub", "sessionId": sid})
        s.plain({"type": "worktree-state", "sessionId": sid,
                 "worktreeSession": {"originalCwd": s.p.cwd, "preEnterOriginalCwd": s.p.cwd,
                                     "worktreePath": s.p.cwd + "-wt", "worktreeName": ch(rng, _NOUN),
                                     "worktreeBranch": s.branch, "sessionId": sid,
                                     "enteredExisting": False}})
        s.plain({"type": "bridge-session", "bridgeSessionId": s.uuid(), "lastSequenceNum": 3,
                 "ownerAccountUuid": s.uuid(), "ownerOrganizationUuid": s.uuid(), "sessionId": sid})
        s.plain({"type": "atis-latch", "atis": True, "sessionId": sid})


def generate(root: Path, *, seed: int = 7, sessions: int | None = None,
             target_bytes: int | None = None, canaries: bool = False) -> dict[str, Any]:
    """Write a Claude Code store under ``root``; return the planted ground truth.

    ``sessions`` sets the number of parent sessions (default 30). ``target_bytes`` keeps
    adding sessions, each written as soon as it is built, until the corpus reaches that many
    bytes (at least ``sessions`` if both are given, and at least 8 so every edge case is
    planted).
    """
    gen = _Gen(ensure_root(root), seed, canaries)
    sched = Schedule(sessions, target_bytes, default=DEFAULT_SESSIONS,
                     minimum=MIN_SESSIONS_FOR_PLANTS)
    at = sched.at
    for idx in sched.indices(lambda: gen.c.bytes_total):
        plan = _Plan()
        plan.dup_and_dangling = idx == at(1)
        plan.orphan = idx == at(2)
        plan.blank = idx == at(3)
        plan.malformed = idx == at(4)
        plan.partial = idx == at(5)
        plan.no_final_lf = idx in (at(6), at(7)) and not plan.partial
        plan.agent_id = idx in (at(2), at(6))
        gen.session(idx, plan)
    return gen.c.planted()
