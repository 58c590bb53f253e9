"""Seeded generator of Cursor CLI chat stores (the ``~/.cursor/chats`` tree).

Layout written under ``root`` (which plays ``~/.cursor/chats``)::

    <md5(workspace path) hex>/<session uuid>/store.db          SQLite: blobs(id, data), meta(key, value)
    <md5(workspace path) hex>/<session uuid>/store.db-wal      one store only: rows not yet checkpointed
    <md5(workspace path) hex>/<session uuid>/meta.json
    <md5(workspace path) hex>/<session uuid>/prompt_history.json

Design
------
*Shapes.* The blob shapes follow the reverse-engineered reference page (Vercel-AI-SDK-style
messages: roles ``system``/``user``/``assistant``/``tool``; parts ``text``, ``reasoning``,
``redacted-reasoning``, ``tool-call``, ``tool-result``, ``image``; ``providerOptions.cursor.
modelName``), the handmade fixture (``meta`` key ``"0"`` as hex of JSON; ``meta.json`` with
``schemaVersion``/``createdAtMs``/``hasConversation``/``updatedAtMs``/``cwd``), and the
reference's statement that a quarter of the blobs are non-JSON protobuf turn-graph state. No
real CLI store was available, so every text, id and byte here is synthetic: only the structure
is modelled.

*Edge cases planted on purpose.* A store whose last rows sit only in a ``-wal`` file (the file
is captured while the writing connection is still open, then its random salts are replaced by
seeded ones and the frame checksums recomputed, so it stays byte-deterministic); a corrupt row
(JSON cut short); JSON blobs of unknown kinds (an unknown role, and a role-less record); rows
whose ``rowid`` order disagrees with their ``createdAt``; ids that are not ``sha256(data)``;
tool calls without a ``toolCallId``, results without a call and calls without a result; and
three broken databases (zero bytes, random bytes, a valid database cut short).

*Ground truth.* ``planted`` is tallied from the Python objects as they are built (intent), not
by re-reading the files, so a test that recounts the files independently checks both sides.
Figures about blobs, parts, meta ``"0"`` and ids cover the stores that open and read fully
(``ok`` and ``wal``), as a reader that applies the WAL sees them (WAL-only rows included);
``meta.json``/``prompt_history.json`` figures cover every store directory. ``blobs["non_json"]``
counts every row whose data does not parse as JSON, so it includes the ``corrupt_rows``.

*Canaries.* With ``canaries=True`` every free text, tool argument value, data-keyed map key,
the workspace path (hence the md5 bucket) and the session folder name carry a unique
``cnry<12 hex>z`` token drawn from a separate seeded stream, so the structure is the same with
and without canaries. ``planted["canaries"]`` lists every token that was written;
``planted["canaries_unreadable"]`` the subset written only into the truncated database, which a
parser cannot reach. Exempt by construction: fixed schema names (``store.db``, ``meta`` key
``"0"``), content hashes (blob ids are ``sha256`` of canary-bearing data), enumerations
(roles, part types, model names) and hex-encoded ``meta`` cells (the token is inside the
encoding).
"""

from __future__ import annotations

import base64
import hashlib
import random
import sqlite3
import struct
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from survey.synth.common import (
    SHORT_WORDS,
    STORE_BASE_DATE,
    SeededText,
    compact_json,
    ensure_root,
    keyset,
    month_counts,
    scan_canaries,
    spread_date,
    stamp,
)

BASE_DATE = STORE_BASE_DATE
"""Fixed base date of every timestamp and mtime (never the clock)."""

DEFAULT_SESSIONS = 5
"""Readable (``ok``) stores written when neither ``sessions`` nor ``target_bytes`` is given."""

EDGE_KINDS = ("wal", "zero_byte", "not_a_database", "truncated")
MODELS = ("claude-4-sonnet", "gpt-5", "composer-1", "grok-code-fast-1")
TOOLS = ("Shell", "Read", "StrReplace", "Write", "Grep", "Glob")
TEXT_MARKERS = {"user_query": "<user_query>", "user_info": "<user_info>",
                "workspace_path": "Workspace Path:", "redacted": "[REDACTED]"}
"""Markers in message text the reference names (label -> literal): the page counts the blobs
holding each at the message text paths (``content`` as a string, a text part's ``text``)."""
PROTO_RATE = 0.25
"""Share of assistant blobs followed by a protobuf step blob: with one per user turn and the
root, about a quarter of a store's blobs are non-JSON graph state, as the reference observed."""
REDACTED_RATE = 0.2
"""Share of assistant text parts carrying a ``[REDACTED]`` marker (its own seeded stream)."""
UNKNOWN_ROLE = "developer"
"""A role the reference does not list: an unknown record kind that still has a role."""

_PAGE = 4096


def _dumps(obj: Any) -> bytes:
    return compact_json(obj).encode()


class _Gen(SeededText):
    """Seeded randomness plus the canary stream (kept separate so structure never depends on it)."""

    def __init__(self, seed: int, canaries: bool) -> None:
        super().__init__(seed, canaries, f"cursor-chats-canary-{seed}")
        self.marker_rng = random.Random(f"cursor-chats-markers-{seed}")  # never moves the main stream

    def path(self, *parts: str) -> str:
        return "/" + "/".join(self.mark(p, "-") for p in parts)

    def opaque(self, nbytes: int) -> str:
        """Base64-looking opaque text (signatures, images); carries a canary when on."""
        raw = base64.b64encode(self.rng.randbytes(nbytes)).decode().rstrip("=")
        if self.canaries_on:
            raw = self.canary() + raw
        return raw + "A" * (-len(raw) % 4)


# --------------------------------------------------------------------------- protobuf-ish


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _fld(num: int, value: int | bytes) -> bytes:
    if isinstance(value, int):
        return _varint(num << 3) + _varint(value)
    return _varint((num << 3) | 2) + _varint(len(value)) + value


# --------------------------------------------------------------------------- rows


@dataclass
class _Row:
    data: bytes
    obj: Any = None  # the JSON object (None for protobuf / corrupt rows)
    kind: str = "json"  # "json" | "proto" | "corrupt"
    created: int | None = None
    id: str = ""
    sha_ok: bool = True
    wal: bool = False

    def finish(self) -> None:
        if not self.id:
            self.id = hashlib.sha256(self.data).hexdigest()


@dataclass
class _Tally:
    stores: Counter[str] = field(default_factory=Counter)
    wal_only_rows: int = 0
    link_breaks: Counter[str] = field(default_factory=Counter)  # meta "0" links broken on purpose
    blobs: Counter[str] = field(default_factory=Counter)
    id_is_sha256: Counter[str] = field(default_factory=Counter)
    roles: Counter[str] = field(default_factory=Counter)
    message_keysets: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    content_part_types: Counter[str] = field(default_factory=Counter)
    part_keysets: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    string_content: Counter[str] = field(default_factory=Counter)
    tool_calls: int = 0
    tool_calls_without_id: int = 0
    tool_results: int = 0
    joined_results: int = 0
    is_error_present: int = 0
    is_error_true: int = 0
    tool_names: Counter[str] = field(default_factory=Counter)
    models: Counter[str] = field(default_factory=Counter)
    assistant_without_model: int = 0
    meta0_encoding: Counter[str] = field(default_factory=Counter)
    meta0_keysets: Counter[str] = field(default_factory=Counter)
    meta_json_keys: Counter[str] = field(default_factory=Counter)
    schema_versions: Counter[str] = field(default_factory=Counter)
    prompt_history_entries: int = 0
    prompt_history_files: int = 0
    corrupt_rows: int = 0
    unknown_kinds: int = 0
    out_of_order_rows: int = 0
    data_keyed_maps: int = 0
    # label -> JSON blobs / readable stores holding the marker in message text
    text_marker_blobs: Counter[str] = field(default_factory=Counter)
    text_marker_stores: Counter[str] = field(default_factory=Counter)

    def add_store(self, rows: list[_Row], meta0: dict[str, Any], encoding: str) -> None:
        self.meta0_encoding[encoding] += 1
        self.meta0_keysets[keyset(meta0)] += 1
        call_ids: set[str] = set()
        result_ids: list[str] = []
        in_store: set[str] = set()
        for row in rows:
            if row.kind == "json" and isinstance(row.obj, dict):
                texts = _message_texts(row.obj)
                for label, lit in TEXT_MARKERS.items():
                    if any(lit in t for t in texts):
                        self.text_marker_blobs[label] += 1
                        in_store.add(label)

            self.id_is_sha256["true" if row.sha_ok else "false"] += 1
            if row.wal:
                self.wal_only_rows += 1
            if row.kind != "json":
                self.blobs["non_json"] += 1
                if row.kind == "corrupt":
                    self.corrupt_rows += 1
                continue
            self.blobs["json"] += 1
            obj = row.obj
            role = obj.get("role")
            if isinstance(role, str):
                self.roles[role] += 1
            if role not in ("system", "user", "assistant", "tool"):
                self.unknown_kinds += 1
                continue
            self.message_keysets[role][keyset(obj)] += 1
            if role == "assistant":
                model = obj.get("providerOptions", {}).get("cursor", {}).get("modelName")
                if model is None:
                    self.assistant_without_model += 1
                else:
                    self.models[model] += 1
            content = obj.get("content")
            if isinstance(content, str):
                self.string_content[role] += 1
                continue
            for part in content:
                ptype = part["type"]
                self.content_part_types[ptype] += 1
                self.part_keysets[ptype][keyset(part)] += 1
                if ptype == "tool-call":
                    self.tool_calls += 1
                    self.tool_names[part["toolName"]] += 1
                    if "toolCallId" in part:
                        call_ids.add(part["toolCallId"])
                    else:
                        self.tool_calls_without_id += 1
                    if isinstance(part["args"].get("env"), dict):
                        self.data_keyed_maps += 1
                elif ptype == "tool-result":
                    self.tool_results += 1
                    result_ids.append(part["toolCallId"])
                    if "isError" in part:
                        self.is_error_present += 1
                        self.is_error_true += part["isError"] is True
                    if isinstance(part["result"], dict):
                        self.data_keyed_maps += 1
        self.text_marker_stores.update(in_store)
        self.joined_results += sum(1 for rid in result_ids if rid in call_ids)
        latest = -1
        for row in rows:
            if row.created is None:
                continue
            if row.created < latest:
                self.out_of_order_rows += 1
            latest = max(latest, row.created)


def _message_texts(obj: dict[str, Any]) -> list[str]:
    """A message's text: ``content`` as a string, else each text part's ``text``."""
    content = obj.get("content")
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text"
                and isinstance(p.get("text"), str)]
    return []


# --------------------------------------------------------------------------- one conversation


def _tool_call(g: _Gen, name: str, cwd: str) -> tuple[dict[str, Any], Any]:
    """Return (args, result) for one tool call."""
    rng = g.rng
    if name == "Shell":
        args: dict[str, Any] = {"command": g.mark(f"{rng.choice(SHORT_WORDS)} --{rng.choice(SHORT_WORDS)}")}
        if rng.random() < 0.6:
            args["cwd"] = cwd
        if rng.random() < 0.3:
            key = rng.choice(SHORT_WORDS).upper() + "_FLAG"
            args["env"] = {g.mark(key, "_"): g.mark(str(rng.randint(0, 9)))}
        return args, g.text(3, 20)
    if name == "Read":
        args = {"path": g.path(rng.choice(SHORT_WORDS), f"{rng.choice(SHORT_WORDS)}.py")}
        if rng.random() < 0.4:
            args["offset"] = rng.randint(1, 400)
            args["limit"] = rng.randint(10, 200)
        return args, g.text(10, 40)
    if name == "StrReplace":
        args = {
            "path": g.path(rng.choice(SHORT_WORDS), f"{rng.choice(SHORT_WORDS)}.ts"),
            "old_string": g.text(2, 6),
            "new_string": g.text(2, 6),
        }
        return args, g.text(2, 5)
    if name == "Write":
        args = {"path": g.path(rng.choice(SHORT_WORDS), f"{rng.choice(SHORT_WORDS)}.md"), "contents": g.text()}
        return args, g.text(2, 4)
    if name == "Grep":
        args = {"pattern": g.mark(rng.choice(SHORT_WORDS)), "path": cwd}
        hits = {g.path(rng.choice(SHORT_WORDS), f"{w}.rs"): rng.randint(1, 9) for w in SHORT_WORDS[:2]}
        return args, (hits if rng.random() < 0.5 else g.text(4, 12))
    args = {"glob_pattern": g.mark(f"**/*.{rng.choice(('py', 'ts', 'md'))}"), "target_directory": cwd}
    return args, [g.path(rng.choice(SHORT_WORDS), "x.py") for _ in range(rng.randint(1, 3))]


def _call_id(g: _Gen) -> str:
    return g.rng.choice(("toolu_", "call_")) + g.alnum(24)


def _conversation(
    g: _Gen, workspace: str, created: int, *, string_user: bool, with_unknown: bool,
    showcase: bool = False,
) -> tuple[list[_Row], list[str], str]:
    """Blob rows in rowid order, the prompts typed (for prompt_history), and the model used."""
    rng = g.rng
    rows: list[_Row] = []
    prompts: list[str] = []
    model = rng.choice(MODELS)
    t = created

    def tick() -> int:
        nonlocal t
        t += rng.randint(800, 40_000)
        return t

    def add_json(obj: dict[str, Any], with_time: bool = True) -> _Row:
        if with_time:
            obj["createdAt"] = tick()
        row = _Row(data=_dumps(obj), obj=obj, created=obj.get("createdAt"))
        rows.append(row)
        return row

    def add_proto(*refs: _Row, text: str | None = None) -> _Row:
        body = _fld(1, rng.randint(1, 6)) if rng.random() < 0.3 else b""
        if text is not None:
            body += _fld(2, text.encode())
        for ref in refs:
            ref.finish()
            body += _fld(3, bytes.fromhex(ref.id) if ref.sha_ok else ref.id.encode())
        body += _fld(4, tick())
        row = _Row(data=b"\x0a" + _varint(len(body)) + body, kind="proto")
        rows.append(row)
        return row

    add_json({"role": "system", "content": g.text(20, 60)}, with_time=False)
    n_user_turns = rng.randint(1, 2)
    last_call_open = rng.random() < 0.25
    for u in range(n_user_turns):
        prompt = g.text(3, 12)
        prompts.append(prompt)
        query = f"<user_query>\n{prompt}\n</user_query>"
        if string_user:
            user: dict[str, Any] = {"role": "user", "content": query}
        else:
            parts: list[dict[str, Any]] = []
            if u == 0:
                info = f"<user_info>\nWorkspace Path: {workspace}\n{g.text(3, 8)}\n</user_info>"
                parts.append({"type": "text", "text": info})
            parts.append({"type": "text", "text": query})
            if rng.random() < 0.2 or (showcase and u == 0):
                parts.append({"type": "image", "image": g.opaque(24), "mimeType": "image/png"})
            user = {"role": "user", "content": parts}
        user_row = add_json(user)
        add_proto(user_row, text=g.text(2, 5))
        for turn in range(rng.randint(1, 4)):
            parts = []
            force = showcase and u == 0 and turn == 0  # one of every part shape
            if rng.random() < 0.5 or force:
                reasoning: dict[str, Any] = {"type": "reasoning", "text": g.text(5, 25)}
                if rng.random() < 0.5 or force:
                    reasoning["providerOptions"] = {"cursor": {"signature": g.opaque(30)}}
                parts.append(reasoning)
            if (not parts and rng.random() < 0.2) or force:
                parts.append({"type": "redacted-reasoning", "data": g.opaque(40)})
            if rng.random() < 0.7:
                text = g.text()
                if g.marker_rng.random() < REDACTED_RATE or force:
                    text = f"{text} [REDACTED] {text[:12]}"
                parts.append({"type": "text", "text": text})
            calls: list[tuple[dict[str, Any], Any]] = []
            for k in range(2 if force else rng.choice((0, 1, 1, 2))):
                name = rng.choice(TOOLS)
                args, result = _tool_call(g, name, workspace)
                call: dict[str, Any] = {"type": "tool-call", "toolCallId": _call_id(g),
                                        "toolName": name, "args": args}
                if rng.random() < 0.08 or (force and k == 0):
                    del call["toolCallId"]
                parts.append(call)
                calls.append((call, result))
            if not parts:
                parts.append({"type": "text", "text": g.text()})
            assistant: dict[str, Any] = {"role": "assistant", "content": parts}
            if rng.random() < 0.9:
                assistant["providerOptions"] = {"cursor": {"modelName": model}}
            a_row = add_json(assistant)
            if rng.random() < PROTO_RATE:
                add_proto(a_row)
            final_turn = u == n_user_turns - 1 and turn > 0
            if calls:
                results = []
                for i, (call, result) in enumerate(calls):
                    if final_turn and last_call_open and i == len(calls) - 1:
                        continue  # a call still in flight: no result yet
                    res: dict[str, Any] = {
                        "type": "tool-result",
                        "toolCallId": call.get("toolCallId") or _call_id(g),
                        "toolName": call["toolName"],
                        "result": result,
                    }
                    roll = 0.3 if force and i == 0 else rng.random()
                    if roll < 0.25:
                        res["isError"] = False
                    elif roll < 0.4:
                        res["isError"] = True
                    results.append(res)
                if results:
                    t_row = add_json({"role": "tool", "content": results})
                    if rng.random() < 0.3:
                        add_proto(t_row)
        closing: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": g.text()}],
                                   "providerOptions": {"cursor": {"modelName": model}}}
        if showcase and u == 0:
            closing["content"].insert(0, {"type": "reasoning", "text": g.text(5, 25)})
        c_row = add_json(closing)
        if rng.random() < PROTO_RATE:
            add_proto(c_row)
    if with_unknown:
        add_json({"role": UNKNOWN_ROLE, "content": g.text(3, 9)})
        add_json({"kind": "turnSummary", "summary": g.text(3, 9), "version": 1})
    root = add_proto(*[r for r in rows if r.kind == "json"][-6:])
    root.finish()
    return rows, prompts, model


# --------------------------------------------------------------------------- SQLite writing


def _wal_checksum(data: bytes, s0: int, s1: int, big_endian: bool) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def _normalize_wal(wal: bytes, salt1: int, salt2: int) -> bytes:
    """Replace SQLite's random WAL salts by seeded ones and recompute every checksum."""
    magic, _version, page_size, _seq = struct.unpack(">4I", wal[:16])
    big_endian = bool(magic & 1)
    header = bytearray(wal[:32])
    struct.pack_into(">2I", header, 16, salt1, salt2)
    sums = _wal_checksum(bytes(header[:24]), 0, 0, big_endian)
    struct.pack_into(">2I", header, 24, *sums)
    out = bytearray(header)
    off = 32
    while off + 24 + page_size <= len(wal):
        frame = bytearray(wal[off : off + 24])
        page = wal[off + 24 : off + 24 + page_size]
        struct.pack_into(">2I", frame, 8, salt1, salt2)
        sums = _wal_checksum(bytes(frame[:8]) + page, sums[0], sums[1], big_endian)
        struct.pack_into(">2I", frame, 16, *sums)
        out += frame + page
        off += 24 + page_size
    return bytes(out)


def _insert(con: sqlite3.Connection, rows: list[_Row]) -> None:
    con.execute("BEGIN")
    con.executemany("INSERT INTO blobs (id, data) VALUES (?, ?)", [(r.id, r.data) for r in rows])
    con.execute("COMMIT")


def _write_store(
    path: Path, rows: list[_Row], meta_value: str, *, wal_split: int | None, salts: tuple[int, int]
) -> list[Path]:
    """Write ``store.db`` (and, with ``wal_split``, a ``-wal`` holding the rows after it)."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute(f"PRAGMA page_size={_PAGE}")
    if wal_split is not None:
        con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    base = rows if wal_split is None else rows[:wal_split]
    _insert(con, base)
    con.execute("INSERT INTO meta (key, value) VALUES ('0', ?)", (meta_value,))
    if wal_split is None:
        con.close()
        return [path]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _insert(con, rows[wal_split:])
    wal_path = path.with_name(path.name + "-wal")
    db_bytes = path.read_bytes()
    wal_bytes = wal_path.read_bytes()  # captured before close() checkpoints it away
    con.close()
    for leftover in (wal_path, path.with_name(path.name + "-shm")):
        if leftover.exists():
            leftover.unlink()
    path.write_bytes(db_bytes)
    wal_path.write_bytes(_normalize_wal(wal_bytes, *salts))
    return [path, wal_path]


# --------------------------------------------------------------------------- generate


def _meta0(g: _Gen, sid: str, variant: int, created: int, workspace: str, model: str,
           root_id: str) -> dict[str, Any]:
    name = g.text(2, 5)
    if variant == 0:  # the handmade fixture's key set
        return {"agentId": sid, "name": name, "mode": "default", "createdAt": created,
                "lastUsedModel": model, "latestRootBlobId": root_id}
    return {"agentId": sid, "name": name, "createdAt": created, "workspacePath": workspace,
            "lastUsedModel": model, "latestRootBlobId": root_id,
            "mode": g.rng.choice(("default", "plan")),
            "approvalMode": g.rng.choice(("allowlist", "unrestricted"))}


def _plant_link_breaks(meta0: dict[str, Any], seed: int, r_index: int, tally: _Tally) -> None:
    """The links of meta ``"0"``, broken in fixed readable stores (no draw from the structure
    stream: every other byte stays as it was): ``latestRootBlobId`` naming no blob of the store
    (``r_index % 4 == 2``), ``workspacePath`` whose MD5 is not the bucket's name (the path was
    renamed; ``r_index % 4 == 3``, a key set that records it), ``agentId`` other than the
    store folder's UUID (``r_index % 5 == 4``)."""
    tag = f"{seed}-{r_index}".encode()
    if r_index % 4 == 2:
        meta0["latestRootBlobId"] = hashlib.sha256(b"no-such-blob-" + tag).hexdigest()
        tally.link_breaks["root_blob"] += 1
    if r_index % 4 == 3 and "workspacePath" in meta0:
        meta0["workspacePath"] += "-renamed"
        tally.link_breaks["workspace_md5"] += 1
    if r_index % 5 == 4:
        meta0["agentId"] = str(UUID(bytes=hashlib.md5(b"other-agent-" + tag).digest(), version=4))
        tally.link_breaks["agent_id"] += 1


def _meta_json(g: _Gen, index: int, created: int, updated: int, workspace: str,
               has_conversation: bool) -> dict[str, Any]:
    version = (1, 2, 3)[index] if index < 3 else g.rng.choice((1, 1, 1, 2))
    if index % 2 == 0:  # the handmade fixture's key set
        return {"schemaVersion": version, "createdAtMs": created,
                "hasConversation": has_conversation, "updatedAtMs": updated, "cwd": workspace}
    return {"schemaVersion": version, "title": g.text(2, 6), "createdAtMs": created,
            "updatedAtMs": updated, "hasConversation": has_conversation}


def generate(
    root: Path,
    *,
    seed: int = 7,
    sessions: int | None = None,
    target_bytes: int | None = None,
    canaries: bool = False,
) -> dict[str, Any]:
    """Write a Cursor CLI chat-store tree under ``root`` and return its planted record.

    ``sessions`` is the number of readable non-WAL stores (default 5); the four edge stores
    (``wal``, ``zero_byte``, ``not_a_database``, ``truncated``) are always added. With
    ``target_bytes``, readable stores keep being added until the tree holds that many bytes.
    """
    root = ensure_root(root)
    g = _Gen(seed, canaries)
    rng = g.rng
    tally = _Tally()
    written: list[tuple[Path, float]] = []
    dir_times: dict[Path, float] = {}
    store_kinds: dict[str, str] = {}
    workspaces = [g.path("home", "dev", rng.choice(SHORT_WORDS)) for _ in range(3)]

    n_ok = DEFAULT_SESSIONS if sessions is None else sessions
    kinds = ["ok"] * n_ok + list(EDGE_KINDS)
    rng.shuffle(kinds)
    # the planted oddities go to fixed readable stores so they exist whatever the seed
    readable = [i for i, k in enumerate(kinds) if k in ("ok", "wal")]
    corrupt_at = readable[0]
    unknown_at = set(readable[:2])
    out_of_order_at = readable[-1]
    non_sha_at = set(readable[::2])
    total_bytes = 0
    index = 0
    seen_readable: set[str] = set()  # canaries a parser of the readable files can find
    seen_broken: set[str] = set()  # canaries written only into the truncated database

    while index < len(kinds) or (target_bytes is not None and total_bytes < target_bytes):
        kind = kinds[index] if index < len(kinds) else "ok"
        workspace = workspaces[index % len(workspaces)]
        bucket = root / hashlib.md5(workspace.encode()).hexdigest()
        sid = g.uuid()
        store_dir = bucket / (g.mark(sid, "-") if canaries else sid)
        store_dir.mkdir(parents=True, exist_ok=True)
        when = spread_date(rng, index, step=23, jitter=9, minutes=600)
        created = int(when.timestamp() * 1000)
        rows, prompts, model = _conversation(
            g, workspace, created, string_user=index % 3 == 2 and index != readable[0],
            with_unknown=index in unknown_at, showcase=index == readable[0],
        )
        if index == corrupt_at:
            victim = _Row(data=_dumps({"role": "assistant", "content": [
                {"type": "text", "text": g.text(6, 12)}]})[: rng.randint(20, 40)], kind="corrupt")
            rows.insert(len(rows) // 2, victim)
        if index == out_of_order_at:
            pos = [i for i, r in enumerate(rows) if r.created is not None][1:3]
            rows[pos[0]], rows[pos[1]] = rows[pos[1]], rows[pos[0]]
        if index in non_sha_at:
            victim = rows[rng.randrange(1, len(rows) - 1)]
            victim.sha_ok = False
            victim.id = rng.choice((f"{rng.getrandbits(256):064x}", g.uuid()))
        for r in rows:
            r.finish()
        root_id = rows[-1].id
        updated = max(r.created or 0 for r in rows) or created
        # cycle the meta "0" variants over the readable stores: (hex, A), (json, B), (json, A), ...
        r_index = readable.index(index) if index in readable else index
        meta0 = _meta0(g, sid, r_index % 2, created, workspace, model, root_id)
        if kind in ("ok", "wal"):
            _plant_link_breaks(meta0, seed, r_index, tally)
        encoding = "hex" if r_index % 3 == 0 else "json"
        meta_value = _dumps(meta0).hex() if encoding == "hex" else _dumps(meta0).decode()
        db_path = store_dir / "store.db"
        paths: list[Path]
        if kind in ("ok", "wal"):
            split = None
            if kind == "wal":
                split = len(rows) - min(4, len(rows) // 2)
                for r in rows[split:]:
                    r.wal = True
            salts = (rng.getrandbits(32), rng.getrandbits(32))
            paths = _write_store(db_path, rows, meta_value, wal_split=split, salts=salts)
            tally.add_store(rows, meta0, encoding)
            seen_readable.update(scan_canaries(*(r.data for r in rows), _dumps(meta0)))
        elif kind == "zero_byte":
            db_path.write_bytes(b"")
            paths = [db_path]
        elif kind == "not_a_database":
            db_path.write_bytes(rng.randbytes(rng.randint(2000, 6000)))
            paths = [db_path]
        else:  # truncated: a valid database cut inside its third page
            rows += [_Row(data=_dumps({"role": "tool", "content": g.text(40, 60)})) for _ in range(12)]
            for r in rows:
                r.finish()
            _write_store(db_path, rows, meta_value, wal_split=None, salts=(0, 0))
            seen_broken.update(scan_canaries(*(r.data for r in rows), _dumps(meta0)))
            db_path.write_bytes(db_path.read_bytes()[: 2 * _PAGE + rng.randint(100, 3000)])
            paths = [db_path]
        tally.stores[kind] += 1
        store_kinds[store_dir.relative_to(root).as_posix()] = kind

        meta_json = _meta_json(g, index, created, updated, workspace, kind in ("ok", "wal"))
        (store_dir / "meta.json").write_bytes(_dumps(meta_json))
        tally.meta_json_keys[keyset(meta_json)] += 1
        tally.schema_versions[str(meta_json["schemaVersion"])] += 1
        history = [] if index == len(kinds) - 1 else prompts
        (store_dir / "prompt_history.json").write_bytes(_dumps(history))
        tally.prompt_history_entries += len(history)
        tally.prompt_history_files += 1
        paths += [store_dir / "meta.json", store_dir / "prompt_history.json"]
        seen_readable.update(scan_canaries(_dumps(meta_json), _dumps(history),
                                   store_dir.relative_to(root).as_posix().encode()))

        mtime = (when + timedelta(hours=rng.randint(1, 30))).timestamp()
        for p in paths:
            written.append((p, mtime))
            total_bytes += p.stat().st_size
        dir_times[store_dir] = mtime
        dir_times[bucket] = max(dir_times.get(bucket, 0.0), mtime)
        index += 1

    stamp(written)
    stamp(dir_times.items())

    months = month_counts(written)
    return {
        "runtime": "cursor-chats",
        "seed": seed,
        "files": len(written),
        "bytes_total": total_bytes,
        "stores": {k: tally.stores.get(k, 0) for k in ("ok", *EDGE_KINDS)},
        "store_kinds": store_kinds,
        "wal_only_rows": tally.wal_only_rows,
        "link_breaks": {k: tally.link_breaks.get(k, 0) for k in ("root_blob", "workspace_md5", "agent_id")},
        "blobs": {"json": tally.blobs["json"], "non_json": tally.blobs["non_json"]},
        "id_is_sha256": {"true": tally.id_is_sha256["true"], "false": tally.id_is_sha256["false"]},
        "roles": dict(sorted(tally.roles.items())),
        "message_keysets": {k: dict(sorted(v.items())) for k, v in sorted(tally.message_keysets.items())},
        "string_content": dict(sorted(tally.string_content.items())),
        "content_part_types": dict(sorted(tally.content_part_types.items())),
        "part_keysets": {k: dict(sorted(v.items())) for k, v in sorted(tally.part_keysets.items())},
        "tool_calls": tally.tool_calls,
        "tool_calls_without_id": tally.tool_calls_without_id,
        "tool_results": tally.tool_results,
        "joined_results": tally.joined_results,
        "is_error_present": tally.is_error_present,
        "is_error_true": tally.is_error_true,
        "tool_names": dict(sorted(tally.tool_names.items())),
        "models": dict(sorted(tally.models.items())),
        "assistant_without_model": tally.assistant_without_model,
        "meta0_encoding": {"hex": tally.meta0_encoding["hex"], "json": tally.meta0_encoding["json"]},
        "meta0_keysets": dict(sorted(tally.meta0_keysets.items())),
        "meta_json_keys": dict(sorted(tally.meta_json_keys.items())),
        "schema_versions": dict(sorted(tally.schema_versions.items())),
        "prompt_history_entries": tally.prompt_history_entries,
        "prompt_history_files": tally.prompt_history_files,
        "corrupt_rows": tally.corrupt_rows,
        "unknown_kinds": tally.unknown_kinds,
        "out_of_order_rows": tally.out_of_order_rows,
        "data_keyed_maps": tally.data_keyed_maps,
        "text_markers": {label: {"blobs": tally.text_marker_blobs[label], "stores": tally.text_marker_stores[label]}
                         for label in TEXT_MARKERS},
        "canaries": [c for c in g.canaries if c in seen_readable or c in seen_broken],
        "canaries_unreadable": [c for c in g.canaries
                                if c in seen_broken and c not in seen_readable],
        "mtime_months": dict(sorted(months.items())),
    }
