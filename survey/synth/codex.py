"""Seeded generator of a Codex session store (the root plays ``~/.codex/sessions``).

Design
------
Files are rollouts in the native layout ``YYYY/MM/DD/rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid>.jsonl``
(UTC clock, a time-ordered v7 uuid taken from the start time). Every record is
``{timestamp, type, payload}``; the record class is ``type`` plus ``payload.type`` where the
payload has one (``session_meta``, ``turn_context``, ``compacted`` and ``world_state`` have
none).

A rollout is simulated turn by turn: ``session_meta`` header; per turn ``task_started``,
``turn_context``, the user's ``message`` and ``user_message`` event, then steps of
``reasoning``, commentary (``agent_message`` event + assistant ``message``), tool calls
(``function_call``/``function_call_output`` joined by ``call_id``, ``custom_tool_call`` for
``apply_patch`` with a ``patch_apply_end`` event, MCP calls with ``namespace`` and an
``mcp_tool_call_end`` event, ``tool_search_call``/``output``) and a cumulative
``token_count``; a ``task_complete`` (or ``turn_aborted``) closes the turn. Some rollouts
compact mid-file (``compacted`` + ``context_compacted``; the token counter restarts at 0),
some are resumed (``session_meta`` repeated once per resume), and some spawn a subagent
child: a rollout of its own whose first header is the child's (``id`` = filename uuid,
``session_id`` = the parent's, ``source.subagent.thread_spawn``, and
``subagent_history_start_ordinal``), whose second header is the parent's, and whose records
carry a top-level ``ordinal``: the parent's history is copied in with ordinals below the
start ordinal (inherited context, including the parent's token counts and the parent's
still unanswered ``spawn_agent`` call), the child's own records follow with fresh turn ids.
Neither the real samples nor the curated fixtures contain ``subagent_history_start_ordinal``
(the fixture shows the top-level ``ordinal``); the field name and its meaning follow public
readers of the format.

Client versions (``cli_version``, 0.140.0 .. 0.146.0) follow the start time, and shapes
follow the versions as the real samples show them: 0.140 writes no ``id`` and no
``internal_chat_message_metadata_passthrough`` on items and no ``session_id`` in the header;
0.141-0.142.2 add them and ``encrypted_content`` on reasoning; later ones drop
``encrypted_content`` and add MCP ``namespace``. Exit codes: the real samples carry them
only as text inside ``function_call_output`` (``Process exited with code N``); from 0.143 the
generator also writes ``exec_command_end`` events and from 0.145 ``item_completed`` events
carrying ``exit_code`` (shapes learned from the curated fixture, which also supplies the rare
classes written by 0.146 files: world_state, review mode, collab agents, guardian ...).

Coverage is guaranteed: the first sessions are coverage sessions, one per version, in which
every optional branch is taken in turn. The default corpus (30 rollouts plus children)
shows every (record class, key set) combination of the real samples and every nested key
set they show outside data-keyed maps.

``planted`` is computed from the records as they are serialised (exact by construction):
files, records and top-level key sets per class, line statuses (LF framing; one blank,
one malformed, one partial line planted), versions (first header's ``cli_version`` per file),
bytes, mtime months, canaries, and:

- ``filename_uuid_matches`` / ``files_with_meta``: first ``session_meta.payload.id`` equal
  to the filename uuid / files with a ``session_meta`` at all.
- ``session_meta_per_file``: {"count": files}; ``subagent_files``: child rollouts.
- ``call_joins``: per file, ``call_id`` of ``function_call``/``custom_tool_call``/
  ``tool_search_call`` against their outputs; a few aborted calls and a few outputs whose
  call was compacted away are planted.
- ``exit_codes``: records carrying an exit code, by location: ``exit_code`` in
  ``exec_command_end`` and in ``item_completed.item``, and outputs whose text states one
  (``response_item/function_call_output(text)``, custom tool outputs included).
- ``caps``: {"40109": files holding at least one output of exactly 40,109 UTF-8 bytes}; the
  outputs are silently capped (several files, one of them twice; a child that inherits a
  capped output holds it too); other outputs stay small (a heavy tail up to ~30 KB).
- ``token_resets``: cumulative-counter drops, all at compaction boundaries.
- ``subagent_schema``: child rollouts (each with its parent rollout here) and their shapes at
  the top level and in ``payload`` (record class, ``$.key`` / ``$.payload.key``, JSON type)
  that no top-level rollout has: how many children hold one, and which paths. Every child
  differs: its records carry the top-level ``ordinal`` and its first header the child's
  fields (``parent_thread_id``, ``agent_*``, an object ``source``) that no parent writes.

With ``canaries=True`` every free text, every argument/input string value, every key of a
data-keyed map (MCP ``arguments``, patch ``changes``, ``structuredContent``, tool-search
arguments and tool-schema ``properties``) and the project path component (every ``cwd``)
carry a fresh ``cnry<12 hex>z`` token from a seeded rng; ``planted["canaries"]`` lists, in
issue order, exactly the tokens that reached a file.

Nothing but rollouts is written, so surface ``other`` stays 0. ``target_bytes`` streams:
each rollout is written as soon as it is built and only counters are kept.

The module never imports the census, the walk or the evidence code.
"""

from __future__ import annotations

import base64
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from survey.synth.common import (
    BLANK,
    CODE_WORDS,
    DAY_MS,
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
)

RUNTIME = "codex"
BASE = datetime(2026, 1, 5, tzinfo=UTC)
SPAN_DAYS = 200
VERSIONS = ("0.140.0", "0.141.0", "0.142.2", "0.142.4", "0.143.1", "0.144.0", "0.145.2", "0.146.0")
MODELS = ("gpt-5.4", "gpt-5.4", "gpt-5.3-codex-spark", "gpt-5.5", "gpt-5.5", "gpt-5.5", "gpt-5.5",
          "gpt-5.6-sol")
DEFAULT_SESSIONS = 30
MIN_SESSIONS_FOR_PLANTS = 10
CAP = 40_109
SURFACES = ("rollout", "other")
PT = "internal_chat_message_metadata_passthrough"

_WORDS = (*CODE_WORDS, *SYSTEM_WORDS, *PROSE_WORDS, *NON_ASCII_WORDS)
_PROJECTS = ("harbor", "juniper", "kestrel", "lattice", "monsoon", "nimbus")
_NICKS = ("Ada", "Boole", "Curie", "Dirac", "Euler", "Fermi")
_ROLES = ("explorer", "worker", "reviewer")


def _fit(text: str, nbytes: int) -> str:
    """``text`` cut or padded (with ASCII) to exactly ``nbytes`` UTF-8 bytes."""
    b = text.encode()
    if len(b) > nbytes:
        text = b[:nbytes].decode("utf-8", "ignore")
        b = text.encode()
    return text + "." * (nbytes - len(b))



def _jtype(v: Any) -> str:
    return ("object" if isinstance(v, dict) else "array" if isinstance(v, list) else "string" if isinstance(v, str)
            else "boolean" if isinstance(v, bool) else "null" if v is None else "number")


def _shapes(r: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """A record's shapes at its top level and in its payload: (record class, path, JSON type)."""
    rc = _record_class(r)
    for key, v in r.items():
        yield rc, f"$.{key}", _jtype(v)
    p = r.get("payload")
    if isinstance(p, dict):
        for key, v in p.items():
            yield rc, f"$.payload.{key}", _jtype(v)


def _record_class(r: dict[str, Any]) -> str:
    """``type`` plus ``payload.type`` where the payload has one."""
    t = r["type"]
    p = r["payload"]
    pt = p.get("type") if isinstance(p, dict) else None
    return f"{t}/{pt}" if isinstance(pt, str) else t


class _Corpus(JsonlCorpus):
    """Writes rollouts and keeps the exact tallies that become ``planted``."""

    def __init__(self, root: Path, seed: int, canaries: bool) -> None:
        super().__init__(root, seed, canaries, label="codex", words=_WORDS, surfaces=SURFACES)
        self.uuid_matches = 0
        self.files_with_meta = 0
        self.meta_per_file: Counter[str] = Counter()
        self.subagent_files = 0
        self.joins: Counter[str] = Counter({"paired": 0, "unpaired_calls": 0, "unpaired_outputs": 0})
        self.exit_codes: Counter[str] = Counter()
        self.caps: Counter[str] = Counter()
        self.token_resets = 0
        # shapes (record class, $.key or $.payload.key, JSON type): all top-level rollouts', each child's
        self.top_shapes: set[tuple[str, str, str]] = set()
        self.child_shapes: list[frozenset[tuple[str, str, str]]] = []

    def write_rollout(self, rel: str, file_uuid: str, recs: list[Any], mtime_ms: int, *,
                      final_lf: bool = True, partial: bytes | None = None) -> None:
        data = self.frame(recs, _record_class, final_lf=final_lf, partial=partial,
                          dumps=orjson.dumps)
        metas: list[dict[str, Any]] = []
        calls: set[str] = set()
        outputs: list[str] = []
        capped = False
        last_total = -1
        for r in recs:
            if not isinstance(r, dict):
                continue
            t = r["type"]
            p = r["payload"]
            pt = p.get("type") if isinstance(p, dict) else None
            if t == "session_meta":
                metas.append(p)
            elif t == "response_item":
                if pt in ("function_call", "custom_tool_call", "tool_search_call"):
                    calls.add(p["call_id"])
                elif pt in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
                    outputs.append(p["call_id"])
                    o = p.get("output")
                    if isinstance(o, str):
                        if CAP // 4 <= len(o) <= CAP and len(o.encode()) == CAP:
                            capped = True
                        if "Process exited with code" in o[:200] or o.startswith("Exit code:"):
                            self.exit_codes["response_item/function_call_output(text)"] += 1
            elif t == "event_msg":
                if pt == "token_count" and isinstance(p.get("info"), dict):
                    tot = p["info"]["total_token_usage"]["total_tokens"]
                    if tot < last_total:
                        self.token_resets += 1
                    last_total = tot
                elif pt == "exec_command_end" and "exit_code" in p:
                    self.exit_codes["event_msg/exec_command_end"] += 1
                elif pt == "item_completed" and "exit_code" in p.get("item", {}):
                    self.exit_codes["event_msg/item_completed"] += 1
        answered = {c for c in outputs if c in calls}
        self.joins["paired"] += sum(1 for c in outputs if c in calls)
        self.joins["unpaired_outputs"] += sum(1 for c in outputs if c not in calls)
        self.joins["unpaired_calls"] += len(calls - answered)
        shapes = {s for r in recs if isinstance(r, dict) for s in _shapes(r)}
        if metas and metas[0].get("session_id", metas[0].get("id")) != metas[0].get("id"):
            self.child_shapes.append(frozenset(shapes))
        else:
            self.top_shapes |= shapes
        if metas:
            self.files_with_meta += 1
            if metas[0].get("id") == file_uuid:
                self.uuid_matches += 1
            self.versions[metas[0]["cli_version"]] += 1
        self.meta_per_file[str(len(metas))] += 1
        if capped:
            self.caps[str(CAP)] += 1
        self.store(rel, "rollout", data, mtime_ms)

    def planted(self) -> dict[str, Any]:
        return {
            **self.base_planted(RUNTIME),
            "filename_uuid_matches": self.uuid_matches,
            "files_with_meta": self.files_with_meta,
            "session_meta_per_file": dict(sorted(self.meta_per_file.items())),
            "subagent_files": self.subagent_files,
            "call_joins": dict(self.joins),
            "exit_codes": dict(sorted(self.exit_codes.items())),
            "caps": dict(self.caps),
            "token_resets": self.token_resets,
            "subagent_schema": self.subagent_schema(),
        }

    def subagent_schema(self) -> dict[str, Any]:
        """Child rollouts (each with its parent here) against the top-level rollouts' shapes."""
        alone = [s - self.top_shapes for s in self.child_shapes]
        return {"children": len(self.child_shapes),
                "children_with_shape_alone": sum(1 for a in alone if a),
                "paths_alone": sorted({p for a in alone for _, p, _ in a})}


@dataclass
class _Plan(FramingPlan):
    """Which corpus-level edge cases a rollout carries."""

    caps: int = 0
    orphan_output: bool = False


class _R(Coverage):
    """One rollout being built."""

    def __init__(self, c: _Corpus, rng: random.Random, *, vi: int, start_ms: int, cwd: str,
                 cover: bool) -> None:
        self.c = c
        self.rng = rng
        self.vi = vi
        self.version = VERSIONS[vi]
        self.model = MODELS[vi]
        self.clock = start_ms
        self.start_ms = start_ms
        self.cwd = cwd
        self.cover = cover
        self.recs: list[Any] = []
        self.counters: Counter[str] = Counter()
        self.id = self.uuid7(start_ms)
        self.total = [0, 0, 0, 0, 0]  # input, cached, output, reasoning, total
        self.turn_id = ""
        self.ordinal: int | None = None
        self.window = self.uuid7(start_ms)
        self.first_window = self.window
        self.window_number = 0
        self.meta_payload: dict[str, Any] = {}

    def uuid7(self, ms: int) -> str:
        v = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | self.rng.getrandbits(12) << 64 \
            | 0b10 << 62 | self.rng.getrandbits(62)
        h = f"{v:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def txt(self, n: int) -> str:
        return self.c.text(self.rng, n)

    def call_id(self) -> str:
        return "call_" + b62(self.rng, 24)

    def item_id(self) -> str:
        return f"rs_{self.rng.getrandbits(192):048x}"

    def emit(self, t: str, payload: dict[str, Any], *, lo: int = 50, hi: int = 2500) -> dict[str, Any]:
        self.clock += ri(self.rng, lo, hi)
        r: dict[str, Any] = {"timestamp": iso_ms(self.clock), "type": t}
        if self.ordinal is not None:
            r["ordinal"] = self.ordinal
            self.ordinal += 1
        r["payload"] = payload
        self.recs.append(r)
        return r

    def ev(self, payload: dict[str, Any]) -> None:
        self.emit("event_msg", payload)

    def item(self, payload: dict[str, Any], *, with_id: bool = True) -> None:
        """A response item; id and passthrough follow the version."""
        if self.vi >= 1:
            if with_id:
                payload = {"type": payload["type"], "id": self.item_id(),
                           **{k: v for k, v in payload.items() if k != "type"}}
            payload[PT] = {"turn_id": self.turn_id}
            if self.vi >= 7 and self.want("pt_create_time", 0.2):
                payload[PT]["create_time"] = self.clock // 1000
        self.emit("response_item", payload)

    # -- records --------------------------------------------------------------------------
    def session_meta(self, *, child_of: dict[str, Any] | None = None, nick: str = "",
                     role: str = "", start_ordinal: int = 0, resumed: bool = False) -> dict[str, Any]:
        p: dict[str, Any] = {}
        if self.vi >= 1:
            p["session_id"] = child_of["id"] if child_of else self.id
        p["id"] = self.id
        if child_of:
            p["parent_thread_id"] = child_of["id"]
        p["timestamp"] = iso_ms(self.clock)
        p["cwd"] = self.cwd
        p["originator"] = "codex-tui"
        p["cli_version"] = self.version
        if child_of:
            p["source"] = {"subagent": {"thread_spawn": {
                "parent_thread_id": child_of["id"], "depth": 1, "agent_path": f"/root/{nick.lower()}",
                "agent_nickname": nick, "agent_role": role}}}
            p["thread_source"] = "subagent"
            p["agent_nickname"] = nick
            p["agent_role"] = role
            p["multi_agent_version"] = "v1"
            p["subagent_history_start_ordinal"] = start_ordinal
        else:
            p["source"] = "cli"
            p["thread_source"] = "user"
        p["model_provider"] = "openai"
        if self.vi >= 7:
            p["history_mode"] = "default"
            p["context_window"] = {"window_id": self.window}
        p["base_instructions"] = {"text": self.txt(ri(self.rng, 400, 1500))}
        p["git"] = {"commit_hash": "".join(self.rng.choices(HEX, k=40)),
                    "branch": "main" if self.rng.random() < 0.6 else f"feat/{ch(self.rng, _PROJECTS)}",
                    "repository_url": f"https://git.example.invalid/team/{ch(self.rng, _PROJECTS)}.git"}
        if not child_of and not resumed:
            self.meta_payload = p
            # the header is written with the first input, minutes after the thread was created
            self.emit("session_meta", p, lo=20_000, hi=300_000)
        else:
            self.emit("session_meta", p, lo=0, hi=5)
        return p

    def turn_context(self) -> None:
        effort = "high" if self.rng.random() < 0.7 else "medium"
        self.emit("turn_context", {
            "turn_id": self.turn_id, "cwd": self.cwd, "workspace_roots": [self.cwd],
            "current_date": iso_ms(self.clock)[:10], "timezone": "Etc/UTC", "approval_policy": "never",
            "sandbox_policy": {"type": "danger-full-access"}, "permission_profile": {"type": "disabled"},
            "model": self.model, "comp_hash": "".join(self.rng.choices(HEX, k=16)),
            "personality": "pragmatic",
            "collaboration_mode": {"mode": "default", "settings": {
                "model": self.model, "reasoning_effort": effort,
                "developer_instructions": self.txt(200)}},
            "multi_agent_version": "v1", "realtime_active": False, "effort": effort, "summary": "auto"})

    def message(self, role: str, text: str, *, phase: str | None = None) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        p: dict[str, Any] = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        if phase is not None:
            p["phase"] = phase
        if self.vi == 0:
            self.emit("response_item", p)
        else:
            self.item(p, with_id=role == "assistant")

    def token_count(self, *, info_null: bool = False) -> None:
        inp = ri(self.rng, 2000, 20000)
        cached = ri(self.rng, 0, inp)
        out = ri(self.rng, 20, 1500)
        reas = ri(self.rng, 0, out)
        last = [inp, cached, out, reas, inp + out]
        self.total = [a + b for a, b in zip(self.total, last, strict=True)]
        keys = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens",
                "total_tokens")
        rl = {"limit_id": "codex", "limit_name": None,
              "primary": {"used_percent": round(self.rng.uniform(0, 60), 1), "window_minutes": 300,
                          "resets_at": self.clock // 1000 + 9000},
              "secondary": {"used_percent": round(self.rng.uniform(0, 40), 1), "window_minutes": 10080,
                            "resets_at": self.clock // 1000 + 400000},
              "credits": None, "individual_limit": None, "plan_type": "pro",
              "rate_limit_reached_type": None}
        info: Any = None if info_null else {
            "total_token_usage": dict(zip(keys, self.total, strict=True)),
            "last_token_usage": dict(zip(keys, last, strict=True)),
            "model_context_window": 258400}
        self.ev({"type": "token_count", "info": info, "rate_limits": rl})
        if not info_null and self.rng.random() < 0.05:
            self.ev({"type": "token_count", "info": info, "rate_limits": rl})  # an equal repeat


class _Gen:
    def __init__(self, root: Path, seed: int, canaries: bool) -> None:
        self.c = _Corpus(root, seed, canaries)
        self.seed = seed
        rng = random.Random(f"codex-projects:{seed}")
        self.cwds = []
        for i, name in enumerate(_PROJECTS):
            if canaries:
                name = f"{name}-{self.c.canary()}"
            self.cwds.append(f"/home/{('dev', 'sam', 'kai')[i % 3]}/src/{name}")
        rng.shuffle(self.cwds)

    def rel(self, ms: int, uid: str) -> str:
        g = time.gmtime(ms // 1000)
        return (time.strftime("%Y/%m/%d", g) + "/rollout-" + time.strftime("%Y-%m-%dT%H-%M-%S", g)
                + f"-{uid}.jsonl")

    # -- session ---------------------------------------------------------------------------
    def session(self, idx: int, plan: _Plan) -> None:
        rng = random.Random(f"codex-session:{self.seed}:{idx}")
        cover, vi, start = session_start(rng, idx, len(VERSIONS), SPAN_DAYS, BASE)
        r = _R(self.c, rng, vi=vi, start_ms=start, cwd=self.cwds[idx % len(self.cwds)], cover=cover)
        r.session_meta()
        if vi >= 7:
            self.world_state(r)
        turns = 4 if cover else (ri(rng, 2, 4) if rng.random() < 0.85 else ri(rng, 5, 16))
        compact_at = min(2, turns - 1)
        for t in range(turns):
            if t in (1, 2) and r.vi >= 2 and ((cover and t == 1) or rng.random() < 0.08):
                # resumed: the header is written again, later, by the client that resumes
                r.clock += ri(rng, 3_600_000, 3 * DAY_MS)
                r.session_meta(resumed=True)
            if t == compact_at and (plan.orphan_output or (r.vi >= 2 and r.once("compact", 0.2))):
                self.compact(r, orphan=plan.orphan_output)
            self.turn(r, first=(t == 0), caps=plan.caps if t == 1 else 0,
                      spawn=(t == 1 and vi >= 5 and r.once("spawn", 0.12)))
        if vi >= 7:
            self.rare(r)
        recs = r.recs
        partial = None
        if plan.blank:
            recs.insert(len(recs) // 2, BLANK)
        if plan.malformed:
            recs.insert(len(recs) // 3, orjson.dumps(recs[2])[:-9] + b',"x":')
        if plan.partial:
            raw = orjson.dumps(recs[-1])
            partial = raw[: len(raw) // 2]
        self.c.write_rollout(self.rel(start, r.id), r.id, recs, r.clock + 800,
                             final_lf=not plan.no_final_lf, partial=partial)

    def turn(self, r: _R, *, first: bool, caps: int, spawn: bool) -> None:
        rng = r.rng
        r.turn_id = r.uuid7(r.clock)
        started = r.clock
        r.ev({"type": "task_started", "turn_id": r.turn_id, "started_at": r.clock // 1000,
              "model_context_window": 258400, "collaboration_mode_kind": "default"})
        if first:
            r.message("developer", r.txt(600))
            r.message("user", r.txt(300))
            if r.vi >= 7 and r.once("first_tc_info_null", 0.3):
                r.token_count(info_null=True)
        r.turn_context()
        prompt = r.txt(ri(rng, 40, 500))
        r.message("user", prompt)
        r.ev({"type": "user_message", "message": prompt, "images": [], "local_images": [],
              "text_elements": []})
        plan = ["exec", "exec_par", "patch", "mcp", "plan", "stdin", "search"] if r.cover else []
        steps = max(ri(rng, 2, 5) if not r.cover else len(plan), caps + 2)
        aborted = not first and not caps and r.once("aborted", 0.04)
        for step in range(steps):
            self.reasoning(r)
            if rng.random() < 0.5 or step == 0:
                text = r.txt(ri(rng, 30, 300))
                r.ev({"type": "agent_message", "message": text, "phase": "commentary",
                      "memory_citation": None})
                r.message("assistant", text, phase="commentary")
            kind = plan[step] if step < len(plan) else ch(rng,
                ("exec", "exec", "exec", "exec_par", "patch", "plan", "mcp", "stdin"))
            if step < caps:
                kind = "cap"
            if spawn and step == 1:
                kind = "spawn"
            if aborted and step == steps - 1:
                self.exec_call(r, output=False)
                r.ev({"type": "turn_aborted", "turn_id": r.turn_id, "reason": "interrupted",
                      "completed_at": r.clock // 1000, "duration_ms": r.clock - started})
                return
            self.tool(r, kind)
            r.token_count()
        self.reasoning(r)
        final = r.txt(ri(rng, 100, 1200))
        r.ev({"type": "agent_message", "message": final, "phase": "final_answer", "memory_citation": None})
        r.message("assistant", final, phase="final_answer")
        r.token_count()
        r.ev({"type": "task_complete", "turn_id": r.turn_id, "last_agent_message": final,
              "completed_at": r.clock // 1000, "duration_ms": r.clock - started,
              "time_to_first_token_ms": ri(rng, 300, 9000)})

    def reasoning(self, r: _R) -> None:
        if r.vi == 0:
            r.emit("response_item", {"type": "reasoning", "summary": []})
            return
        p: dict[str, Any] = {"type": "reasoning", "summary": []}
        if r.vi <= 2:
            p["encrypted_content"] = base64.b64encode(r.rng.randbytes(ri(r.rng, 60, 400))).decode()
        r.item(p)

    # -- tools ----------------------------------------------------------------------------
    def exec_output(self, r: _R, body: str, code: int, nbytes: int | None = None) -> str:
        head = (f"Chunk ID: {''.join(r.rng.choices(HEX, k=6))}\nWall time: {r.rng.uniform(0, 9):.4f} seconds\n"
                f"Process exited with code {code}\nOriginal token count: {len(body) // 4}\nOutput:\n")
        text = head + body
        return _fit(text, nbytes) if nbytes is not None else text

    def exec_call(self, r: _R, *, output: bool = True, nbytes: int | None = None) -> None:
        rng = r.rng
        v = r.pick("exec_args", 4, (0.6, 0.25, 0.1, 0.05))
        args: dict[str, Any] = {"cmd": r.txt(ri(rng, 10, 80))}
        if v == 0:
            args.update({"workdir": r.cwd, "yield_time_ms": 10000, "max_output_tokens": 12000})
        elif v == 1:
            pass
        elif v == 2:
            args["max_output_tokens"] = 4000
        else:
            args["yield_time_ms"] = 5000
        cid = r.call_id()
        r.item({"type": "function_call", "name": "exec_command",
                "arguments": orjson.dumps(self.c.canarize(args)).decode(), "call_id": cid})
        if not output:
            return
        code = 0 if rng.random() < 0.85 else ch(rng, (1, 2, 127))
        body = r.txt(ri(rng, 0, 2500) if rng.random() < 0.95 else ri(rng, 5000, 30000)) \
            if nbytes is None else r.txt(60) + " " + self.c.raw(rng, 50_000)
        out = self.exec_output(r, body, code, nbytes)
        r.item({"type": "function_call_output", "call_id": cid, "output": out}, with_id=False)
        if r.vi >= 4 and r.want("exec_end", 0.4):
            r.ev({"type": "exec_command_end", "call_id": cid, "process_id": str(ri(rng, 1000, 99999)),
                  "turn_id": r.turn_id, "command": ["/bin/bash", "-lc", args["cmd"]], "cwd": r.cwd,
                  "parsed_cmd": [{"type": "unknown", "cmd": args["cmd"]}], "source": "agent",
                  "stdout": r.txt(100), "stderr": "", "aggregated_output": r.txt(100), "exit_code": code,
                  "duration": {"secs": ri(rng, 0, 9), "nanos": ri(rng, 0, 999_999_999)},
                  "formatted_output": r.txt(100), "status": "completed" if code == 0 else "failed"})
        if r.vi >= 6 and r.want("item_completed", 0.3):
            r.ev({"type": "item_completed", "thread_id": r.id, "turn_id": r.turn_id,
                  "item": {"type": "CommandExecution", "id": r.item_id(), "process_id": str(ri(rng, 1000, 99999)),
                           "command": ["/bin/bash", "-lc", args["cmd"]], "cwd": r.cwd,
                           "parsed_cmd": [{"type": "read", "cmd": args["cmd"], "name": "file.py",
                                           "path": f"{r.cwd}/file.py"}],
                           "source": "agent", "status": "completed", "stdout": r.txt(80), "stderr": "",
                           "aggregated_output": r.txt(80), "exit_code": code,
                           "duration": {"secs": 0, "nanos": ri(rng, 0, 999_999_999)},
                           "formatted_output": r.txt(80)},
                  "started_at_ms": r.clock - 900, "completed_at_ms": r.clock})

    def tool(self, r: _R, kind: str) -> None:
        rng = r.rng
        c = self.c
        if kind == "exec":
            self.exec_call(r)
        elif kind == "cap":
            self.exec_call(r, nbytes=CAP)
        elif kind == "exec_par":
            # parallel calls: all calls first, then all outputs (as 0.140 writes them)
            cids = []
            for _ in range(ri(rng, 2, 3)):
                cid = r.call_id()
                cids.append(cid)
                r.item({"type": "function_call", "name": "exec_command",
                        "arguments": orjson.dumps(c.canarize({"cmd": r.txt(40)})).decode(),
                        "call_id": cid})
            for cid in cids:
                r.item({"type": "function_call_output", "call_id": cid,
                        "output": self.exec_output(r, r.txt(ri(rng, 0, 800)), 0)}, with_id=False)
        elif kind == "stdin":
            cid = r.call_id()
            args = {"session_id": ri(rng, 1, 90000), "chars": r.txt(10), "yield_time_ms": 1000,
                    "max_output_tokens": 4000}
            r.item({"type": "function_call", "name": "write_stdin",
                    "arguments": orjson.dumps(c.canarize(args)).decode(), "call_id": cid})
            r.item({"type": "function_call_output", "call_id": cid,
                    "output": self.exec_output(r, r.txt(200), 0)}, with_id=False)
        elif kind == "plan":
            cid = r.call_id()
            args2: dict[str, Any] = {"plan": [{"step": r.txt(30), "status": "pending"}
                                              for _ in range(ri(rng, 2, 5))]}
            if r.want("plan_expl", 0.4):
                args2 = {"explanation": r.txt(60), **args2}
            r.item({"type": "function_call", "name": "update_plan",
                    "arguments": orjson.dumps(c.canarize(args2)).decode(), "call_id": cid})
            out = f"Plan updated {c.canary()}" if c.canaries_on else "Plan updated"
            r.item({"type": "function_call_output", "call_id": cid, "output": out}, with_id=False)
        elif kind == "patch":
            self.patch(r)
        elif kind == "mcp":
            self.mcp(r)
        elif kind == "search":
            if r.vi >= 3:
                self.tool_search(r)
            else:
                self.exec_call(r)
        elif kind == "spawn":
            self.spawn(r)
        else:
            raise ValueError(kind)

    def patch(self, r: _R) -> None:
        rng = r.rng
        c = self.c
        cid = r.call_id()
        files = [f"{r.cwd}/src/{ch(rng, _PROJECTS)}_{ri(rng, 1, 99)}.py" for _ in range(ri(rng, 1, 3))]
        body = "*** Begin Patch\n" + "".join(
            f"*** Update File: {f}\n@@\n-{r.txt(30)}\n+{r.txt(30)}\n" for f in files) + "*** End Patch"
        r.item({"type": "custom_tool_call", "status": "completed", "call_id": cid, "name": "apply_patch",
                "input": body})
        changes: dict[str, Any] = {}
        for f in files:
            kind = r.pick("patch_change", 3, (0.6, 0.3, 0.1))
            if kind == 0:
                changes[c.key(f)] = {"type": "update", "unified_diff": r.txt(200), "move_path": None}
            elif kind == 1:
                changes[c.key(f)] = {"type": "add", "content": r.txt(300)}
            else:
                changes[c.key(f)] = {"type": "delete", "content": r.txt(300)}
        ok = rng.random() < 0.9
        r.ev({"type": "patch_apply_end", "call_id": cid, "turn_id": r.turn_id, "stdout": r.txt(60),
              "stderr": "" if ok else r.txt(40), "success": ok, "changes": changes, "status": "completed"})
        out = (f"Exit code: {0 if ok else 1}\nWall time: {rng.uniform(0, 1):.1f} seconds\nOutput:\n"
               + r.txt(120))
        r.item({"type": "custom_tool_call_output", "call_id": cid, "output": out}, with_id=False)

    def mcp(self, r: _R) -> None:
        rng = r.rng
        c = self.c
        if r.vi < 3:
            self.exec_call(r)
            return
        cid = r.call_id()
        server, tool = ch(rng, (("wiki", "ask_question"), ("wiki", "read_structure"),
                                   ("tracker", "get_item")))
        args = {c.key(k): r.txt(20) for k in rng.sample(("repoName", "question", "id", "query"), 2)}
        r.item({"type": "function_call", "name": tool, "namespace": f"mcp__{server}",
                "arguments": orjson.dumps(args).decode(), "call_id": cid})
        text = r.txt(ri(rng, 100, 1500))
        r.ev({"type": "mcp_tool_call_end", "call_id": cid,
              "invocation": {"server": server, "tool": tool, "arguments": args},
              "plugin_id": f"{server}@builtin",
              "duration": {"secs": ri(rng, 0, 20), "nanos": ri(rng, 0, 999_999_999)},
              "result": {"Ok": {"content": [{"type": "text", "text": text}], "isError": False,
                                "structuredContent": {c.key("result"): r.txt(120)}}}})
        r.item({"type": "function_call_output", "call_id": cid, "output": text}, with_id=False)

    def tool_search(self, r: _R) -> None:
        rng = r.rng
        k = self.c.key
        cid = r.call_id()
        r.item({"type": "tool_search_call", "call_id": cid, "status": "completed", "execution": "client",
                "arguments": {self.c.key("query"): r.txt(30)}})

        def fn(name: str, props: dict[str, Any], required: bool) -> dict[str, Any]:
            params: dict[str, Any] = {"type": "object", "properties": props}
            if required:
                params["required"] = list(props)
            return {"type": "function", "name": name, "description": r.txt(80), "strict": False,
                    "defer_loading": True, "parameters": params}

        tools = [{"type": "namespace", "name": "mcp__wiki", "description": r.txt(60), "tools": [
                    fn("read_structure", {k("repoName"): {"type": "string"}}, True),
                    fn("ask_question", {k("repoName"): {"anyOf": [{"type": "string"},
                                                                  {"type": "array", "items": {"type": "string"}}]},
                                        k("question"): {"type": "string"}}, True)]},
                 {"type": "namespace", "name": "mcp__tracker", "description": r.txt(60), "tools": [
                    fn("get_item", {k("item_id"): {"anyOf": [{"type": "integer"}, {"type": "null"}],
                                                   "description": r.txt(20)},
                                    k("item_url"): {"anyOf": [{"type": "string"}, {"type": "null"}],
                                                    "description": r.txt(20)},
                                    k("full_name"): {"type": "string", "description": r.txt(20)}},
                       rng.random() < 0.5),
                    fn("fetch_blob", {k("blob_sha"): {"type": "string", "description": r.txt(20)}}, False)]}]
        r.item({"type": "tool_search_output", "call_id": cid, "status": "completed", "execution": "client",
                "tools": tools}, with_id=False)

    def compact(self, r: _R, *, orphan: bool) -> None:
        rng = r.rng
        hist: list[dict[str, Any]] = []
        for _ in range(ri(rng, 4, 10)):
            hist.append({"type": "message", "role": "user",
                         "content": [{"type": "input_text", "text": r.txt(ri(rng, 40, 400))}
                                     for _ in range(ri(rng, 1, 2))],
                         PT: {"turn_id": r.turn_id}})
        hist.append({"type": "compaction", "id": r.item_id(),
                     "encrypted_content": base64.b64encode(rng.randbytes(120)).decode()})
        prev = r.window
        r.window = r.uuid7(r.clock)
        r.window_number += 1
        p: dict[str, Any] = {"message": "", "replacement_history": hist, "window_number": r.window_number,
                             "first_window_id": r.first_window, "previous_window_id": prev,
                             "window_id": r.window}
        if r.pick("compact_order", 2) == 1:
            p = dict(sorted(p.items()))
        r.emit("compacted", p)
        r.ev({"type": "context_compacted"})
        r.total = [0, 0, 0, 0, 0]  # a new window: the cumulative counter restarts
        if orphan:
            # the call went into the compacted history; its output arrives afterwards
            r.item({"type": "function_call_output", "call_id": r.call_id(),
                    "output": self.exec_output(r, r.txt(100), 0)}, with_id=False)

    # -- subagent child rollouts -------------------------------------------------------------
    def spawn(self, r: _R) -> None:
        rng = r.rng
        cid = r.call_id()
        nick, role = ch(rng, _NICKS), ch(rng, _ROLES)
        task = r.txt(ri(rng, 60, 400))
        r.item({"type": "function_call", "name": "spawn_agent",
                "arguments": orjson.dumps(self.c.canarize({"task_name": nick.lower(), "message": task})).decode(),
                "call_id": cid})
        history = [x for x in r.recs if isinstance(x, dict) and x["type"] != "session_meta"]
        child = _R(self.c, random.Random(f"{rng.random()}"), vi=r.vi, start_ms=r.clock + 50, cwd=r.cwd,
                   cover=False)
        child.turn_id = child.uuid7(child.clock)
        start_ordinal = len(history)
        child.session_meta(child_of=r.meta_payload, nick=nick, role=role, start_ordinal=start_ordinal)
        child.emit("session_meta", r.meta_payload, lo=0, hi=5)
        for i, rec in enumerate(history):
            child.recs.append({"timestamp": rec["timestamp"], "type": rec["type"], "ordinal": i,
                               "payload": rec["payload"]})
        child.ordinal = start_ordinal
        child.total = list(r.total)
        self.turn(child, first=False, caps=0, spawn=False)
        self.c.subagent_files += 1
        self.c.write_rollout(self.rel(child.start_ms, child.id), child.id, child.recs, child.clock + 300)
        r.clock = max(r.clock, child.clock) + 100
        r.item({"type": "function_call_output", "call_id": cid,
                "output": orjson.dumps({"agent_id": child.id, "nickname": nick,
                                        "status": "completed", "message": r.txt(200)}).decode()},
               with_id=False)

    # -- rare classes (learned from the curated fixture; 0.146 files only) -------------------
    def world_state(self, r: _R) -> None:
        r.emit("world_state", {"full": True, "state": {
            "environments": {"current_date": iso_ms(r.clock)[:10], "timezone": "Etc/UTC",
                             "environments": {"local": {"cwd": r.cwd, "shell": "bash", "status": "ready"}},
                             "filesystem": "local"},
            "collaboration_mode": {"mode": "default", "model": r.model},
            "host_skills": {"body": r.txt(100), "includeInstructions": True},
            "permissions": {"approved_command_prefixes": [["git", "status"]], "instructions": r.txt(80)}}})

    def rare(self, r: _R) -> None:
        rng = r.rng
        tid = r.turn_id
        cid = r.call_id()
        dur = {"secs": 0, "nanos": ri(rng, 0, 999_999_999)}
        r.ev({"type": "agent_reasoning", "text": r.txt(80)})
        r.item({"type": "web_search_call", "status": "completed",
                "action": {"type": "search", "query": r.txt(20), "queries": [r.txt(20)], "url": None,
                           "pattern": None}})
        r.ev({"type": "web_search_end", "call_id": cid, "query": r.txt(20),
              "action": {"type": "search", "query": r.txt(20), "queries": [r.txt(20)], "url": None,
                         "pattern": None},
              "results": [{"type": "result", "title": r.txt(20), "url": "https://docs.example.invalid/x",
                           "domain": "docs.example.invalid", "snippet": r.txt(60), "ref_id": "r1",
                           "thumbnail_url": None}]})
        r.ev({"type": "thread_settings_applied", "thread_settings": {
            "cwd": r.cwd, "model": r.model, "model_provider_id": "openai", "reasoning_effort": "medium",
            "reasoning_summary": "auto", "service_tier": "default", "approval_policy": "never",
            "approvals_reviewer": "user", "personality": "default",
            "active_permission_profile": {"id": "default"},
            "collaboration_mode": {"mode": "default", "settings": {}},
            "permission_profile": {"type": "managed", "file_system": {}, "network": "restricted"}}})
        r.ev({"type": "image_generation_end", "call_id": r.call_id(), "status": "completed",
              "revised_prompt": r.txt(40), "result": base64.b64encode(rng.randbytes(24)).decode()})
        r.item({"type": "image_generation_call", "status": "completed", "revised_prompt": r.txt(40),
                "result": base64.b64encode(rng.randbytes(24)).decode()})
        r.ev({"type": "thread_goal_updated", "threadId": r.id, "goal": {
            "threadId": r.id, "objective": r.txt(40), "status": "active", "tokensUsed": 10,
            "timeUsedSeconds": 5, "createdAt": r.clock // 1000, "updatedAt": r.clock // 1000}})
        r.ev({"type": "entered_review_mode", "target": {"type": "uncommittedChanges"},
              "user_facing_hint": r.txt(30)})
        r.ev({"type": "exited_review_mode", "review_output": {
            "findings": [{"title": r.txt(20), "body": r.txt(80), "confidence_score": 0.5, "priority": 1,
                          "code_location": {"absolute_file_path": f"{r.cwd}/src/a.py",
                                            "line_range": {"start": 1, "end": 9}}}],
            "overall_correctness": "patch is correct", "overall_explanation": r.txt(60),
            "overall_confidence_score": 0.7}})
        r.ev({"type": "thread_name_updated", "thread_id": r.id, "thread_name": r.txt(20)})
        r.ev({"type": "collab_agent_spawn_end", "call_id": cid, "sender_thread_id": r.id,
              "new_thread_id": r.uuid7(r.clock), "new_agent_nickname": "Ada", "new_agent_role": "worker",
              "prompt": r.txt(60), "model": r.model, "reasoning_effort": "medium", "status": "completed"})
        r.ev({"type": "collab_waiting_end", "sender_thread_id": r.id, "call_id": cid,
              "agent_statuses": [{"thread_id": r.uuid7(r.clock), "agent_nickname": "Ada",
                                  "agent_role": "worker", "status": {"completed": r.txt(30)}}],
              "statuses": {}})
        r.ev({"type": "collab_agent_interaction_end", "call_id": cid, "sender_thread_id": r.id,
              "receiver_thread_id": r.uuid7(r.clock), "receiver_agent_nickname": "Ada",
              "receiver_agent_role": "worker", "prompt": r.txt(40), "status": "completed"})
        r.ev({"type": "collab_close_end", "call_id": cid, "sender_thread_id": r.id,
              "receiver_thread_id": r.uuid7(r.clock), "receiver_agent_nickname": "Ada",
              "receiver_agent_role": "worker", "status": {"completed": r.txt(20)}})
        r.ev({"type": "guardian_assessment", "id": r.item_id(), "target_item_id": r.item_id(),
              "turn_id": tid, "status": "approved",
              "action": {"type": "command", "source": "agent", "command": r.txt(30), "cwd": r.cwd}})
        r.ev({"type": "view_image_tool_call", "call_id": r.call_id(), "path": f"{r.cwd}/shot.png"})
        r.ev({"type": "dynamic_tool_call_request", "callId": cid, "turnId": tid, "namespace": "example",
              "tool": "example_tool", "arguments": {self.c.key("input"): r.txt(20)}})
        r.ev({"type": "dynamic_tool_call_response", "call_id": cid, "turn_id": tid, "namespace": "example",
              "tool": "example_tool", "arguments": {self.c.key("input"): r.txt(20)},
              "content_items": [{"type": "inputText", "text": r.txt(60)}], "success": True, "error": None,
              "duration": dur})
        r.ev({"type": "error", "message": r.txt(40), "codex_error_info": "other"})
        r.ev({"type": "undo_completed", "success": True, "message": r.txt(30)})
        r.ev({"type": "sub_agent_activity", "event_id": r.item_id(), "occurred_at_ms": r.clock,
              "agent_thread_id": r.uuid7(r.clock), "agent_path": "/root/ada", "kind": "started"})
        r.emit("inter_agent_communication_metadata", {"trigger_turn": False})
        r.item({"type": "agent_message", "author": "/root/ada", "recipient": "/root",
                "content": [{"type": "input_text", "text": r.txt(60)}]})
        r.item({"type": "ghost_snapshot", "ghost_commit": {
            "id": "".join(rng.choices(HEX, k=40)), "parent": "".join(rng.choices(HEX, k=40)),
            "preexisting_untracked_files": [], "preexisting_untracked_dirs": []}}, with_id=False)
        r.ev({"type": "item_completed", "thread_id": r.id, "turn_id": tid,
              "item": {"type": "AgentMessage", "id": r.item_id(),
                       "content": [{"type": "Text", "text": r.txt(60)}], "phase": "final_answer"},
              "started_at_ms": r.clock - 500, "completed_at_ms": r.clock})


def generate(root: Path, *, seed: int = 7, sessions: int | None = None,
             target_bytes: int | None = None, canaries: bool = False) -> dict[str, Any]:
    """Write a Codex session store under ``root``; return the planted ground truth.

    ``sessions`` sets the number of top-level rollouts (default 30; subagent children come
    on top). ``target_bytes`` keeps adding rollouts, each written as soon as it is built,
    until the corpus reaches that many bytes (at least ``sessions``, and at least 10 so
    every edge case is planted).
    """
    gen = _Gen(ensure_root(root), seed, canaries)
    sched = Schedule(sessions, target_bytes, default=DEFAULT_SESSIONS,
                     minimum=MIN_SESSIONS_FOR_PLANTS)
    at = sched.at
    caps = {at(1): 1, at(3): 2, at(6): 1, at(9): 1}
    for idx in sched.indices(lambda: gen.c.bytes_total):
        plan = _Plan()
        plan.blank = idx == at(2)
        plan.malformed = idx == at(4)
        plan.partial = idx == at(5)
        plan.no_final_lf = idx in (at(7), at(8)) and not plan.partial
        plan.caps = caps.get(idx, 0)
        plan.orphan_output = idx in (at(2), at(4), at(6))
        gen.session(idx, plan)
    return gen.c.planted()
