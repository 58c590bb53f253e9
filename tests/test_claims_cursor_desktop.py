"""The Cursor desktop-store page's sentences, each held to figures read back from the corpus.

Corpora: the seeded desktop generator's store (with composerHeaders) given a -wal of later
rows, an extra table, a backup, an older per-workspace store and a file of no surface; the
generator's store without composerHeaders; two small stores written here, each planting the
cases the generator never writes (two drafts, a tool id shared by two names, a result that is
not a string, every cell a JSON object, more than six data-keyed map paths, ...); a global
store that is not a database; and a folder with no global store. Each expected figure is
counted here from the files with the standard library (``sqlite3`` on a private copy,
``json``, ``collections.Counter``), never taken from the census, and every sentence is
compared whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from survey.evidence.claims import fmt, human_bytes, pct
from survey.runtimes import get

from .claims_util import surveyed_claims

KNOWN_TABLES = ("ItemTable", "composerHeaders", "cursorDiskKV")
KINDS = ("composerData", "bubbleId", "checkpointId", "messageRequestContext", "codeBlockDiff", "agentKv",
         "composerVirtualRowHeights")
SIDEBAR = ("glass.localAgentProjects.v1", "glass.localAgentProjectMembership.v1",
           "composer.composerHeaders.migratedToTable")
MAP_PATHS = ("$.codeBlockData", "$.originalFileStates", "$.conversationMap", "$.usageData")
MENTIONS = ("notepads", "composers", "quotes", "selectedCommits", "selectedPullRequests", "selectedImages",
            "folderSelections", "fileSelections", "terminalFiles", "selections", "terminalSelections",
            "selectedDocs", "externalLinks", "cursorRules", "cursorCommands", "uiElementSelections", "consoleLogs")
VOCAB = Path(__file__).parents[1] / "survey" / "runtimes" / "cursor_desktop" / "vocab.json"
SURFACES = (("state", r"globalStorage/state\.vscdb"), ("state_sidecar", r"globalStorage/state\.vscdb-(wal|shm|journal)"),
            ("state_backup", r"globalStorage/state\.vscdb\.backup"),
            ("workspace_json", r"workspaceStorage/[^/]+/workspace\.json"),
            ("workspace_state", r"workspaceStorage/[^/]+/state\.vscdb(\.backup|-wal|-shm|-journal)?"))
ABSENT = (("no_stop_reason", "A stop reason"), ("no_git_branch", "A git branch"),
          ("no_cli_version", "A client version"),
          ("composer_headers_table", "The composerHeaders schema text in raw pages"),
          ("tool_former_text", 'The text "toolFormerData" in raw pages'))
DONE = ("completed", "error")


# --------------------------------------------------------------------------- reading


def _status(kind: str, value: Any) -> tuple[str, Any]:
    if kind == "agentKv":
        return "opaque", None
    if value is None:
        return "null", None
    data = value.encode() if isinstance(value, str) else bytes(value)
    try:
        obj = json.loads(data)
    except ValueError:
        return ("corrupt" if data.lstrip()[:1] in (b"{", b"[") else "non_json"), None
    return ("ok", obj) if isinstance(obj, dict) else ("not_object", None)


def _surface(rel: str) -> str:
    return next((s for s, rx in SURFACES if re.fullmatch(rx, rel)), "other")


def read(root: Path, scratch: Path) -> dict[str, Any]:
    """Every figure the page states, counted from the files (the store read from a copy)."""
    files = {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}
    surf = Counter(_surface(r) for r in files)
    t: dict[str, Any] = {"files": len(files), "surfaces": {s: surf.get(s, 0) for s, _ in SURFACES},
                         "other": surf.get("other", 0)}
    db = root / "globalStorage" / "state.vscdb"
    t["stores"] = int(db.is_file())
    t["with_wal"] = int((root / "globalStorage" / "state.vscdb-wal").is_file())
    t["with_journal"] = int((root / "globalStorage" / "state.vscdb-journal").is_file())
    scanned = [p for r, p in files.items() if _surface(r) in ("state", "state_sidecar", "workspace_state")
               and (p.name.endswith(".vscdb") or p.name.endswith(".vscdb-wal"))]
    t["scanned"] = len(scanned)
    t["text_files"] = {cid: (sum(1 for p in scanned if any(n in p.read_bytes() for n in needles)),
                             sum(p.read_bytes().count(n) for p in scanned for n in needles))
                       for cid, needles in (("no_stop_reason", (b'"stopReason"', b'"stop_reason"')),
                                            ("no_git_branch", (b'"gitBranch"', b'"git_branch"')),
                                            ("no_cli_version", (b'"cliVersion"', b'"clientVersion"')),
                                            ("composer_headers_table", (b"CREATE TABLE composerHeaders",)),
                                            ("tool_former_text", (b'"toolFormerData"',)))}
    t["walked"] = t["surfaces"]["workspace_json"] + t["stores"]
    rows: list[tuple[str, str, Any]] = []  # (kind, key, value) in the reader's order
    t["ok"] = 0
    if db.is_file():
        scratch.mkdir(parents=True, exist_ok=True)
        for s in ("", "-wal"):
            if (root / "globalStorage" / f"state.vscdb{s}").is_file():
                shutil.copyfile(root / "globalStorage" / f"state.vscdb{s}", scratch / f"state.vscdb{s}")
        try:
            con = sqlite3.connect(scratch / "state.vscdb")
            names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError:
            names = None
        if names is not None:
            t["ok"] = 1
            t["tables"] = sorted(n for n in names if n in KNOWN_TABLES)
            t["other_tables"] = len(names - set(KNOWN_TABLES))
            t["item_keys"] = [k for (k,) in con.execute("SELECT key FROM ItemTable ORDER BY rowid")]
            t["header_rows"] = (con.execute("SELECT count(*) FROM composerHeaders").fetchone()[0]
                                if "composerHeaders" in names else None)
            if "composerHeaders" in names:
                rows += [("composerHeaders", "", v) for (v,) in con.execute("SELECT value FROM composerHeaders ORDER BY rowid")]
            for k, v in con.execute("SELECT key, value FROM cursorDiskKV ORDER BY rowid"):
                kind = k.split(":")[0]
                rows.append((kind if kind in KINDS else "<unknown-kind>", k, v))
            known = [n for n in KNOWN_TABLES if n in names]
            t["rows_seen"] = sum(con.execute(f"SELECT count(*) FROM {n}").fetchone()[0] for n in known)
            con.close()
            if t["with_wal"]:  # the same store without its -wal: the rows only the WAL holds
                bare = scratch / "bare.vscdb"
                shutil.copyfile(db, bare)
                con = sqlite3.connect(bare)
                t["rows_wal_only"] = t["rows_seen"] - sum(con.execute(f"SELECT count(*) FROM {n}").fetchone()[0]
                                                          for n in known)
                con.close()
            else:
                t["rows_wal_only"] = 0
        else:
            t["outcome"] = "not_a_database"
    t.update(_records(rows))
    return t


def _records(rows: list[tuple[str, str, Any]]) -> dict[str, Any]:
    cells: Counter[tuple[str, str]] = Counter()
    kv_bytes: list[int] = []
    objs: list[tuple[str, dict]] = []
    composer_ids: set[str] = set()
    bubble_order: dict[str, list[str]] = {}
    drafts: set[str] = set()
    for kind, key, value in rows:
        status, obj = _status(kind, value)
        cells[(kind, status)] += 1
        parts = key.split(":")
        if kind == "agentKv":
            kv_bytes.append(len(value))
        if kind == "bubbleId" and len(parts) >= 3:
            bubble_order.setdefault(parts[1], []).append(parts[2])
        if kind == "composerData":
            composer_ids.add(parts[1])
        if obj is not None:
            objs.append((kind, obj))
            if obj.get("isDraft") is True and kind == "composerData":
                drafts.add(parts[1])
            if obj.get("isDraft") is True and kind == "composerHeaders" and isinstance(obj.get("composerId"), str):
                drafts.add(obj["composerId"])
    bubbles = [o for kd, o in objs if kd == "bubbleId"]
    order = {"composers": 0, "by_list": 0, "by_rowid": 0, "differs": 0, "set_differs": 0}
    for kd, o in objs:
        if kd != "composerData":
            continue
        order["composers"] += 1
        lst = o.get("fullConversationHeadersOnly")
        if not isinstance(lst, list):
            order["by_rowid"] += 1
            continue
        order["by_list"] += 1
        ids = [str(h.get("bubbleId")) for h in lst if isinstance(h, dict)]
        have = bubble_order.get(o["composerId"], [])
        order["differs"] += ids != have
        order["set_differs"] += sorted(ids) != sorted(have)
    with_b = {c for c in composer_ids if c in bubble_order}
    keysets: dict[str, Counter[str]] = {}
    reviewed = set(json.loads(VOCAB.read_bytes())["keys"])  # any other key is withheld as one mask word
    for kd, o in objs:
        keysets.setdefault(kd, Counter())[",".join(sorted({k if k in reviewed else "<unreviewed-key>" for k in o}))] += 1
    versions: Counter[tuple[str, str]] = Counter()
    for kd, o in objs:
        v = o.get("_v")
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            versions[(kd, str(int(v)) if v == int(v) else str(v))] += 1
    tfd = [b["toolFormerData"] for b in bubbles if isinstance(b.get("toolFormerData"), dict)]
    # params per tool name (the gated name: a reviewed one, else <withheld>; <none> without a name):
    # absent or null, a string parsed as JSON (an object, another type, or not JSON), or JSON as it is
    names = set(json.loads(VOCAB.read_bytes())["values"]["$.toolFormerData.name"])
    params: dict[str, Counter[str]] = {}
    for f in tfd:
        nm = f.get("name")
        c = params.setdefault(nm if nm in names else "<withheld>" if isinstance(nm, str) else "<none>", Counter())
        c["calls"] += 1
        x = f.get("params")
        if x is None:
            c["no_params"] += 1
            continue
        if isinstance(x, str):
            try:
                x = json.loads(x)
            except ValueError:
                c["not_json"] += 1
                continue
        c["object_params" if isinstance(x, dict) else "other_type"] += 1
    calls = [f for f in tfd if f.get("name") is not None or f.get("status") is not None]
    thinking: Counter[str] = Counter()
    for b in bubbles:
        th = b.get("thinking")
        if isinstance(th, dict):
            text = th.get("text")
            thinking["with_text" if isinstance(text, str) and text.strip() else
                     "signature_only" if th.get("signature") else "blank"] += 1
    tok = [b["tokenCount"] for b in bubbles if isinstance(b.get("tokenCount"), dict)
           and ("inputTokens" in b["tokenCount"] or "outputTokens" in b["tokenCount"])]
    caps = Counter(str(b["capabilityType"]) if "capabilityType" in b else "absent" for b in bubbles)
    maps: Counter[tuple[str, str]] = Counter()
    for kd, o in objs:
        for p in MAP_PATHS:
            if isinstance(o.get(p[2:]), dict):
                maps[(kd, p)] += 1
        for m, v in ((o.get("context") or {}).get("mentions") or {}).items():
            if isinstance(v, dict) and m in MENTIONS:
                maps[(kd, f"$.context.mentions.{m}")] += 1
    payload: Counter[tuple[str, str]] = Counter()
    jt = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null", int: "number", float: "number"}
    for f in tfd:
        for x in ("params", "rawArgs", "result"):
            if x in f:
                payload[(x, jt[type(f[x])])] += 1
    return {
        "cells": cells, "kv_bytes": kv_bytes, "keysets": keysets, "versions": versions,
        "bubble_types": Counter(str(o["type"]) for _, o in objs if "type" in o and o["type"] != "head"
                                and not isinstance(o["type"], (dict, list))),
        "caps": caps,
        "cap_keys": {c: (n, sum(1 for b in bubbles if (str(b["capabilityType"]) if "capabilityType" in b else "absent") == c
                                and "toolFormerData" in b),
                         sum(1 for b in bubbles if (str(b["capabilityType"]) if "capabilityType" in b else "absent") == c
                             and "thinking" in b)) for c, n in caps.items()},
        "thinking": {x: thinking.get(x, 0) for x in ("with_text", "signature_only", "blank")},
        "tokens": (sum(1 for tc in tok if tc.get("inputTokens") == 0 and tc.get("outputTokens") == 0), len(tok), len(bubbles)),
        "tool_pairs": Counter((f["name"], f.get("status")) for f in tfd if f.get("name") is not None),
        "tool_numbers": Counter((str(int(f["tool"])), f.get("name")) for f in tfd
                                if isinstance(f.get("tool"), (int, float)) and not isinstance(f.get("tool"), bool)),
        "payload": payload,
        "params": params,
        "call_ids": (sum(1 for f in tfd if isinstance(f.get("toolCallId"), str) and "\n" in f["toolCallId"]),
                     sum(1 for f in tfd if isinstance(f.get("toolCallId"), str))),
        "results": {s: (sum(1 for f in calls if (f.get("status") or "<no status>") == s),
                        sum(1 for f in calls if (f.get("status") or "<no status>") == s and isinstance(f.get("result"), str)))
                    for s in {f.get("status") or "<no status>" for f in calls}},
        "other_type": sum(1 for f in tfd if "result" in f and not isinstance(f["result"], (str, type(None)))),
        "ordering": order,
        "composer_bubbles": {"with_bubbles": len(with_b), "without_bubbles": len(composer_ids - with_b),
                             "drafts": len(drafts & composer_ids), "drafts_without_bubbles": len((drafts & composer_ids) - with_b)},
        "models": Counter((f"$.{a}.modelName", o[a]["modelName"]) for _, o in objs for a in ("modelInfo", "modelConfig")
                          if isinstance(o.get(a), dict) and isinstance(o[a].get("modelName"), str)),
        "maps": maps,
        "payload_kinds": Counter(("bubbleId", "toolFormerData") for b in bubbles if "toolFormerData" in b),
    }


# --------------------------------------------------------------------------- building


def _live_copy(db: Path, write: Any) -> None:
    """Write through a WAL that is kept: the store and its -wal are copied aside before close()
    checkpoints the WAL away, then put back."""
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    write(con)
    aside = db.with_name("aside")
    aside.mkdir()
    for s in ("", "-wal"):
        shutil.copyfile(db.with_name(db.name + s), aside / (db.name + s))
    con.close()
    for s in ("", "-wal"):
        shutil.copyfile(aside / (db.name + s), db.with_name(db.name + s))
    shutil.rmtree(aside)


def _generated(root: Path) -> None:
    """The generator's store, then a table of no known name, and later rows through a kept -wal:
    a cell that is not an object, a NULL cell, a cell that is not JSON and three bubbles of a
    composer with no composerData (one a call named without a status, one a status without a name)."""
    from survey.synth.cursor_desktop import generate

    generate(root, seed=7)
    db = root / "globalStorage" / "state.vscdb"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE extraCache (k TEXT, v BLOB)")
    con.commit()
    con.close()
    bubble = {"_v": 3, "type": 1, "bubbleId": "b0", "tokenCount": {"inputTokens": 5, "outputTokens": 0},
              "capabilityType": 15, "thinking": {"text": "", "signature": ""}}

    def later(con: sqlite3.Connection) -> None:
        con.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)",
                        [("checkpointId:c:1", "[1, 2]"), ("codeBlockDiff:c:2", None),
                         ("checkpointId:c:3", b"\x0a\x01z"), ("bubbleId:lone:b0", json.dumps(bubble)),
                         ("bubbleId:lone:b1", json.dumps({**bubble, "toolFormerData": {"name": "grep", "tool": 41}})),
                         ("bubbleId:lone:b2", json.dumps({**bubble, "toolFormerData": {"status": "completed", "result": "r"}}))])
    _live_copy(db, later)
    shutil.copyfile(db, db.with_name("state.vscdb.backup"))
    ws = next((root / "workspaceStorage").iterdir())
    (ws / "state.vscdb").write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)
    (root / "settings.json").write_bytes(b"{}")


def _store(root: Path, *, headers: list[dict] | None, items: list[str], kv: list[tuple[str, Any]],
           extra_tables: int = 0) -> None:
    db = root / "globalStorage" / "state.vscdb"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    for n in range(extra_tables):
        con.execute(f"CREATE TABLE other{n} (x)")
    con.executemany("INSERT INTO ItemTable VALUES (?, '{}')", [(k,) for k in items])
    if headers is not None:
        con.execute("CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, value TEXT)")
        con.executemany("INSERT INTO composerHeaders VALUES (?, ?)", [(h["composerId"], json.dumps(h)) for h in headers])
    con.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)",
                    [(k, v if isinstance(v, (str, bytes)) or v is None else json.dumps(v)) for k, v in kv])
    con.commit()
    con.close()
    ws = root / "workspaceStorage" / hashlib.md5(b"w").hexdigest()
    ws.mkdir(parents=True)
    (ws / "workspace.json").write_bytes(b'{"folder": "file:///w"}')


def _bubble(bid: str, tfd: dict | None = None, **more: Any) -> dict:
    b = {"_v": 3, "type": 2, "bubbleId": bid, "tokenCount": {"inputTokens": 0, "outputTokens": 0}, **more}
    if tfd is not None:
        b["toolFormerData"] = tfd
    return b


def _composer(cid: str, bubbles: list[str] | None, **more: Any) -> dict:
    c = {"_v": 10, "composerId": cid, "status": "completed", "modelConfig": {"modelName": "gpt-5"}, **more}
    if bubbles is not None:
        c["fullConversationHeadersOnly"] = [{"bubbleId": b, "type": 2} for b in bubbles]
    return c


def _planted_a(root: Path) -> None:
    """Two drafts (one with bubbles), a tool id shared by two names, an error call without its
    result and one whose result is a number, every cell an object, one version per kind, no
    agentKv cell, exactly six data-keyed map paths (one map each, the widest not first by
    path), thinking text on every block, params objects of two key sets, and a toolFormerData
    outside a bubble. Two tool names tie on calls, the one later by name on one (name, status)
    row of both calls, the other on two rows of one call each."""
    mentions = {m: {"k": 1} for m in MENTIONS[:5]}
    mentions["quotes"] = {"a": 1, "b": 2, "c": 3}  # the widest map, of a path not first by name
    kv: list[tuple[str, Any]] = [
        ("composerData:c1", _composer("c1", ["x1", "x2"], isDraft=True, context={"mentions": mentions},
                                      codeBlockData={"u": {}})),
        ("bubbleId:c1:x2", _bubble("x2", {"name": "read_file", "tool": 5, "status": "completed", "result": "r",
                                          "params": {"a": 1}, "toolCallId": "t1"}, capabilityType=15,
                                   thinking={"text": "t", "signature": "s"})),
        ("bubbleId:c1:x1", _bubble("x1", {"name": "edit_file", "tool": 5, "status": "error", "params": {}})),
        ("checkpointId:c1:x1", {"toolFormerData": {"params": {}, "result": "r"}}),  # not a bubble's
        ("bubbleId:c1:x3", _bubble("x3", {"name": "edit_file", "tool": 7, "status": "completed", "result": 3},
                                   modelInfo={"modelName": "gpt-5"})),
        ("bubbleId:c1:x4", _bubble("x4", {"name": "read_file", "tool": 5, "status": "completed", "result": "r"})),
        ("composerData:c2", _composer("c2", [], isDraft=True)),
        ("composerData:c3", _composer("c3", None)),
        ("bubbleId:c3:y1", {"_v": 3, "type": 1, "bubbleId": "y1"}),
        ("composerData:c4", _composer("c4", ["z9"])),
    ]
    _store(root, headers=[{"type": "head", "composerId": "c1", "isDraft": True}], items=[SIDEBAR[2]], kv=kv,
           extra_tables=2)


def _planted_b(root: Path) -> None:
    """One draft, with bubbles; every call completed with its result; two empty composers, not
    drafts; an agentKv cell and a cell of an unknown kind; a signature-only thinking block;
    seven data-keyed map paths."""
    kv: list[tuple[str, Any]] = [
        ("composerData:d1", _composer("d1", ["e1"], codeBlockData={"u": {}}, conversationMap={},
                                      context={"mentions": {m: {} for m in MENTIONS[-5:]}})),
        ("bubbleId:d1:e1", _bubble("e1", {"name": "grep", "tool": 3, "status": "completed", "result": "r",
                                          "rawArgs": "{}", "toolCallId": "a\nb"},
                                   thinking={"text": " ", "signature": "s"})),
        ("composerData:d2", _composer("d2", [])),
        ("composerData:d3", _composer("d3", [], _v=17)),
        ("agentKv:blob:00", b"\x0a" + b"\x01" * 40),
        ("futureKind:d1", {"entries": []}),
    ]
    _store(root, headers=[{"type": "head", "composerId": "d1", "isDraft": True}], items=list(SIDEBAR[:2]), kv=kv)


def _planted_c(root: Path) -> None:
    """Two drafts, neither with bubbles, and one composer with some: no header table. As many
    bubbleId cells as composerData cells, one of them corrupt: the kinds tie, and the kind
    whose first row is larger (composerData) is not the first by name. Two calls of two names,
    neither with a status, one with a result (a result where no status asks for one); every call
    carries params, one a JSON array, the other text that is not JSON."""
    kv: list[tuple[str, Any]] = [
        ("composerData:f1", _composer("f1", ["g1"])), ("bubbleId:f1:g1", _bubble("g1", {"name": "grep", "params": "[1]"})),
        ("bubbleId:f1:g2", _bubble("g2", {"name": "read_file", "result": "r", "params": "not json"})),
        ("bubbleId:f1:g3", '{"_v": 3, "type'),
        ("composerData:f2", _composer("f2", [], isDraft=True)), ("composerData:f3", _composer("f3", None, isDraft=True)),
    ]
    _store(root, headers=None, items=[], kv=kv)


def _planted_d(root: Path) -> None:
    """Every composer has bubbles: none is empty, none a draft. One thinking block, blank: no
    text and no signature."""
    kv: list[tuple[str, Any]] = [("composerData:h1", _composer("h1", ["i1"])),
                                 ("bubbleId:h1:i1", _bubble("i1", thinking={"text": "", "signature": ""}))]
    _store(root, headers=[], items=[], kv=kv)


# --------------------------------------------------------------------------- the sentences


def _desc() -> dict[str, str]:
    return {s.name: s.description for s in get("cursor_desktop").surfaces}


def expected_text(t: dict[str, Any]) -> dict[str, str]:
    """The sentence each claim must print, built from the figures ``read`` counted."""
    sf = t["surfaces"]
    seen = [s for s in _desc() if sf[s]]
    ok = t["ok"]
    out: dict[str, str] = {
        "basis_files": f"The User folder holds {fmt(t['files'])} files: {fmt(sf['state'])} global state.vscdb, "
                       f"{fmt(sf['state_sidecar'])} sidecars beside it, {fmt(sf['state_backup'])} backups, "
                       f"{fmt(sf['workspace_json'])} workspace.json, {fmt(sf['workspace_state'])} per-workspace "
                       f"state.vscdb files (counted, not read) and {fmt(t['other'])} other files.",
        "layout": "Files by surface: " + ("; ".join(f"{_desc()[s]}: {fmt(sf[s])}" for s in seen) or "none")
                  + (f"; no file of: {', '.join(s for s in _desc() if not sf[s])}" if len(seen) < len(_desc()) else "")
                  + ".",
    }
    other = t.get("other_tables", 0) if ok else 0
    out["store_outcomes"] = (
        f"{fmt(ok)} of {fmt(t['stores'])} global stores open and read"
        + (f"; failures: {t['outcome']} 1" if t["stores"] > ok else "")
        + f". Tables present: {', '.join(t['tables']) if ok else 'none'}"
        + (f" (+{fmt(other)} other table{'s' if other != 1 else ''} in 1 store, not named)" if other else "") + ".")
    if not ok:
        out["composer_headers"] = "No global store was read, so whether composerHeaders exists is not determined."
    else:
        items = t["item_keys"]
        tail = (f" ItemTable: {fmt(len(items))} rows; the Agents-sidebar keys glass.localAgentProjects.v1 / "
                f"glass.localAgentProjectMembership.v1 are present in {int(SIDEBAR[0] in items)} / "
                f"{int(SIDEBAR[1] in items)} stores, the header-migration key in {int(SIDEBAR[2] in items)}.")
        out["composer_headers"] = (f"composerHeaders is present in 1 of 1 stores ({fmt(t['header_rows'])} rows)."
                                   if t["header_rows"] is not None else
                                   "composerHeaders is ABSENT from all 1 stores read: no table lists the sessions.") + tail
    out["wal_rows"] = (f"{t['with_wal']} of {t['stores']} stores had a -wal beside them ({t['with_journal']} "
                       f"a rollback journal); {fmt(t.get('rows_wal_only', 0))} of {fmt(t.get('rows_seen', 0))} rows exist "
                       "only through the WAL.")
    cells = t["cells"]
    kinds: Counter[str] = Counter()
    for (kd, _), n in cells.items():
        if kd != "composerHeaders":
            kinds[kd] += n
    bad = sorted((f"{kd}:{st}", n) for (kd, st), n in cells.items() if st not in ("ok", "opaque"))
    out["key_kinds"] = (f"cursorDiskKV holds {fmt(sum(kinds.values()))} cells of {len(kinds)} kinds: "
                        + (", ".join(f"{kd} {fmt(c)}" for kd, c in sorted(kinds.items(), key=lambda x: (-x[1], x[0])))
                           or "none") + ". "
                        + ("Cells that do not parse as a JSON object: " + ", ".join(f"{x} {fmt(c)}" for x, c in bad) + "."
                           if bad else "Every decoded cell is a JSON object.")
                        + (f" {fmt(kinds['<unknown-kind>'])} cells are of kinds outside the reviewed list."
                           if kinds.get("<unknown-kind>") else ""))
    kvb = t["kv_bytes"]
    out["agent_kv"] = (f"agentKv cells: {fmt(len(kvb))}, {human_bytes(sum(kvb))} in all (largest {human_bytes(max(kvb))}): "
                       "counted and sized, never decoded." if kvb else "No agentKv cell was observed.")
    ks = sorted(t["keysets"].items(), key=lambda x: (-sum(x[1].values()), x[0]))
    parts = []
    for kd, c in ks:
        recs = sum(c.values())
        keys = Counter(k for s, n in c.items() for k in s.split(",") if k for _ in range(n))
        parts.append(f"{kd} {fmt(len(c))} key set{'s' if len(c) != 1 else ''} over {fmt(recs)} records "
                     f"({fmt(sum(1 for n in keys.values() if n == recs))} keys always present, "
                     f"{fmt(sum(1 for n in keys.values() if n < recs))} sometimes)")
    out["kind_keysets"] = "Top-level key sets per kind: " + ("; ".join(parts) or "none") + "."
    vmap: dict[str, list[tuple[str, int]]] = {}
    for (kd, v), n in sorted(t["versions"].items(), key=lambda x: (x[0][0], -x[1], x[0][1])):
        vmap.setdefault(kd, []).append((v, n))
    out["versions"] = ("Document versions (_v): "
                       + ("; ".join(f"{kd} " + ", ".join(f"{v} ×{fmt(c)}" for v, c in m) for kd, m in vmap.items()) or "none")
                       + (". Several versions of one kind coexist: a reader must not assume one."
                          if any(len(m) > 1 for m in vmap.values()) else ". One version per kind in this corpus." if vmap else "."))
    bt = sorted(t["bubble_types"].items())
    out["bubble_types"] = "Bubble type values: " + (", ".join(f"{x} in {fmt(n)}" for x, n in bt) or "none") + " bubbles."
    # the bubbles without a capabilityType are a row of their own, 0 included
    caps_rows = sorted({"absent": 0, **t["caps"]}.items(), key=lambda x: (-x[1], x[0]))
    out["capability_types"] = "capabilityType: " + ", ".join(f"{c} in {fmt(n)}" for c, n in caps_rows) + " bubbles."
    ck = sorted(t["cap_keys"].items(), key=lambda x: (-x[1][0], x[0]))
    out["capability_keys"] = "What each capabilityType goes with: " + ("; ".join(
        f"{c}: toolFormerData in {fmt(tf)}, thinking in {fmt(th)} of {fmt(n)} bubbles" for c, (n, tf, th) in ck)
        or "no bubble") + "."
    th = t["thinking"]
    out["thinking"] = (f"Of {fmt(sum(th.values()))} thinking blocks, {fmt(th['with_text'])} have text, "
                       f"{fmt(th['signature_only'])} only a signature (text blank) and {fmt(th['blank'])} neither"
                       + (": a thinking-free rendering is not evidence that no reasoning happened."
                          if th["signature_only"] + th["blank"] else "."))
    zero, with_tc, bubbles = t["tokens"]
    out["token_counts"] = (f"tokenCount is all zero in {fmt(zero)} of {fmt(with_tc)} bubbles that carry one "
                           f"({pct(zero, with_tc)}); {fmt(bubbles - with_tc)} of {fmt(bubbles)} bubbles carry none.")
    names: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for (nm, st), n in t["tool_pairs"].items():
        names[nm] += n
        statuses[st or "<no status>"] += n
    out["tool_names"] = (f"toolFormerData names ({fmt(sum(names.values()))} calls): "
                         + (", ".join(f"{x} {fmt(c)}" for x, c in sorted(names.items(), key=lambda x: (-x[1], x[0])))
                            or "none")
                         + "; statuses: " + (", ".join(f"{x} {fmt(c)}" for x, c in sorted(statuses.items())) or "none") + ".")
    tn = sorted(t["tool_numbers"].items(), key=lambda x: (-x[1], x[0][0], x[0][1] or ""))
    shared = sorted({x for (x, _) in t["tool_numbers"] if sum(1 for (y, _) in t["tool_numbers"] if y == x) > 1})
    out["tool_numbers"] = ("Numeric tool ids (toolFormerData.tool) with their names: "
                           + (", ".join(f"{x} {nm} ×{fmt(n)}" for (x, nm), n in tn) or "none")
                           + (f". Ids shared by several names: {', '.join(shared)} (a number alone does not name the tool)."
                              if shared else "."))
    by: dict[str, dict[str, int]] = {}
    for (f, jt), n in t["payload"].items():
        by.setdefault(f, {})[jt] = n
    out["tool_payload_types"] = ("toolFormerData payload types: " + ("; ".join(
        f"{f} " + ", ".join(f"{x} ×{fmt(c)}" for x, c in sorted(m.items())) for f, m in sorted(by.items()))
        or "none observed") + (" (this census does not walk a string's contents; params key sets per tool name are counted from the parsed string)." if any("string" in m for m in by.values())
                               else "."))
    out["tool_params"] = _params_text(t["params"])
    nl, ids = t["call_ids"]
    out["tool_call_id_newline"] = (f"{fmt(nl)} of {fmt(ids)} toolCallId values contain a newline (counted, never printed)"
                                   + (": a consumer must not treat a call id as one line or one token." if nl else "."))
    o = t["ordering"]
    out["ordering"] = (f"Bubble order: {fmt(o['by_list'])} of {fmt(o['composers'])} composers list their bubbles "
                       f"in fullConversationHeadersOnly; {fmt(o['by_rowid'])} do not, and only rowid orders theirs. "
                       f"Where a list exists, rowid order disagrees with it in {fmt(o['differs'])} composers "
                       f"(the list names other bubbles than the store holds in {fmt(o['set_differs'])}).")
    md = sorted(t["models"].items(), key=lambda x: (x[0][0], -x[1], x[0][1]))
    out["models"] = "Models: " + ("; ".join(f"{p} {v} ×{fmt(n)}" for (p, v), n in md) or "none") + "."
    per_path: Counter[str] = Counter()
    for (_, p), n in t["maps"].items():
        per_path[p] += n
    top = sorted(per_path.items(), key=lambda x: (-x[1], x[0]))
    out["data_keyed_maps"] = (f"{fmt(sum(per_path.values()))} data-keyed maps at {len(per_path)} paths were counted, "
                              "never described"
                              + (": " + ", ".join(f"{p} ×{fmt(c)}" for p, c in top[:6])
                                 + (f" and {len(top) - 6} more paths" if len(top) > 6 else "") if top else "") + ".")
    out["link_composer_bubbles"] = _composer_text(t["composer_bubbles"])
    out["link_tool_result_status"] = _result_text(t["results"], t["other_type"])
    tfd_files = int(any(kd == "bubbleId" and c for (kd, _), c in t["payload_kinds"].items()))
    for cid, what in ABSENT:
        n, hits = t["text_files"][cid]
        out[cid] = (f"{what}: not observed as a key in {fmt(t['walked'])} walked files; the text occurs in {fmt(n)} of "
                    f"{fmt(t['scanned'])} files" if cid.startswith("no_") or (cid == "tool_former_text" and not tfd_files) else
                    f"{what}: observed as a key in {tfd_files} of {fmt(t['walked'])} walked files ({fmt(n)} of "
                    f"{fmt(t['scanned'])} files by text)" if cid == "tool_former_text" else
                    f"{what}: observed in {fmt(n)} of {fmt(t['scanned'])} files ({fmt(hits)} hits)" if n else
                    f"{what}: not observed in {fmt(t['scanned'])} files (0 hits by DuckDB and by rg)")
    return out


PARAMS = ("calls", "object_params", "no_params", "not_json", "other_type")


def _params_rows(params: dict[str, Counter[str]]) -> list[tuple[str, Counter[str]]]:
    """Tools by calls, most first, then by name."""
    return sorted(params.items(), key=lambda x: (-x[1]["calls"], x[0]))


def _params_text(params: dict[str, Counter[str]]) -> str:
    rows = _params_rows(params)
    tot = {c: sum(n[c] for _, n in rows) for c in PARAMS}
    if not tot["calls"]:
        return "toolFormerData params (JSON carried in a string): not determined, no toolFormerData was observed."

    def by_tool(col: str) -> str:
        return ", ".join(f"{x} {fmt(n[col])}" for x, n in rows if n[col])
    return (f"toolFormerData params (a JSON object carried in a string, parsed by the walk; its key sets per tool name "
            f"below): {fmt(tot['object_params'])} of {fmt(tot['calls'])} calls hold a JSON object"
            + (f"; {fmt(tot['no_params'])} carry no params, absent or null ({by_tool('no_params')})" if tot["no_params"]
               else "; every call carries params")
            + (f"; {fmt(tot['not_json'])} hold text that is not JSON, counted and never read ({by_tool('not_json')})"
               if tot["not_json"] else "; none holds text that is not JSON")
            + (f"; {fmt(tot['other_type'])} hold JSON of another type ({by_tool('other_type')})" if tot["other_type"]
               else "") + ".")


def _composer_text(cb: dict[str, int]) -> str:
    w, wo, d, de = cb["with_bubbles"], cb["without_bubbles"], cb["drafts"], cb["drafts_without_bubbles"]
    if not w + wo:
        return "Composers with and without bubbleId rows: not determined, no composerData cell was read."
    text = (f"{fmt(w)} of {fmt(w + wo)} composers (composerData cells) have bubbleId rows of their id in the same "
            f"store ({pct(w, w + wo)})" + (f"; {fmt(wo)} have none (empty composers: no message to read)" if wo
                                            else "; none is empty"))
    if d == 1:
        text += f". 1 composer is marked isDraft, and it has {'no' if de else 'some'} bubbleId rows"
    elif d:
        text += (f". {fmt(d)} composers are marked isDraft, {fmt(de)} of them without bubbleId rows"
                 + (f" ({fmt(d - de)} with some)" if de < d else ""))
    else:
        text += ". No composer is marked isDraft"
    if wo:
        text += f"; {fmt(wo - de)} of the empty composers {'is' if wo - de == 1 else 'are'} not marked as a draft."
    else:
        text += "."
    return text


def _result_text(res: dict[str, tuple[int, int]], other_type: int) -> str:
    if not res:
        return "A tool result against its status: not determined, no toolFormerData was observed."
    done = sum(c for s, (c, _) in res.items() if s in DONE)
    done_res = sum(w for s, (_, w) in res.items() if s in DONE)
    rest = {s: v for s, v in res.items() if s not in DONE}
    rest_calls, rest_res = sum(c for c, _ in rest.values()), sum(w for _, w in rest.values())
    broken = done - done_res + rest_res
    return (f"A toolFormerData result string is present in {fmt(done_res)} of {fmt(done)} calls whose status is "
            "completed or error, "
            + (f"and in {fmt(rest_res)} of {fmt(rest_calls)} calls of any other status (" +
               ", ".join(f"{s} {fmt(w)} of {fmt(c)}" for s, (c, w) in sorted(rest.items())) + ")"
               if rest_calls else "and no call has another status")
            + (": a result is present exactly when the status is completed or error, in every call." if not broken
               else f": {fmt(broken)} call{'s do' if broken != 1 else ' does'} not (a result with another status, "
                    "or none with completed or error).")
            + (f" {fmt(other_type)} results are not strings." if other_type else ""))


# --------------------------------------------------------------------------- the corpora


def _real_like(root: Path) -> None:
    from survey.synth.cursor_desktop import generate

    generate(root, seed=5, sessions=2, variant="real_like")


def _not_a_store(root: Path) -> None:
    (root / "globalStorage").mkdir()
    (root / "globalStorage" / "state.vscdb").write_bytes(b"this is not a database file, only text" * 4)
    (root / "globalStorage" / "state.vscdb-journal").write_bytes(b"\x00" * 16)


def _no_store(root: Path) -> None:
    ws = root / "workspaceStorage" / "0a"
    ws.mkdir(parents=True)
    (ws / "workspace.json").write_bytes(b'{"folder": "file:///w"}')


def _nothing(root: Path) -> None:
    (root / "settings.json").write_bytes(b"{}")


# the small corpora first: a mutant most of them show is failed before the generated ones are built
BUILDS = {"planted_a": _planted_a, "planted_b": _planted_b, "planted_c": _planted_c, "planted_d": _planted_d,
          "not_a_store": _not_a_store, "no_store": _no_store, "nothing": _nothing,
          "real_like": _real_like, "generated": _generated}


def _build(name: str, root: Path) -> None:
    """Build a corpus at ``root``. A store written through a WAL differs in its salts at each
    build, so where ``SURVEY_MUTATE_SNAPSHOTS`` names a folder, each corpus is built once and its
    files copied back on later runs (the census kept for those bytes is then found again)."""
    shared = os.environ.get("SURVEY_MUTATE_SNAPSHOTS")
    this = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]  # a corpus as this file builds it
    kept = Path(shared) / f"desktop-corpus-{name}-{this}" if shared else None
    if kept is not None and kept.is_dir():
        shutil.copytree(kept, root)
        return
    root.mkdir()
    BUILDS[name](root)
    if kept is not None:
        tmp = kept.with_name(kept.name + f".{os.getpid()}.tmp")
        shutil.copytree(root, tmp)
        os.replace(tmp, kept) if not kept.exists() else shutil.rmtree(tmp)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """name -> (figures read from the files, claims): each corpus built and surveyed once, when first asked for."""
    done: dict[str, tuple[dict[str, Any], dict[str, dict]]] = {}

    def get(name: str) -> tuple[dict[str, Any], dict[str, dict]]:
        if name not in done:
            base = tmp_path_factory.mktemp(name)
            root = base / "User"
            _build(name, root)
            done[name] = read(root, base / "scratch"), surveyed_claims("cursor_desktop", root, base)
        return done[name]
    return get


@pytest.fixture(params=list(BUILDS))
def corpus(request: pytest.FixtureRequest, corpora: Any) -> tuple[dict[str, Any], dict[str, dict]]:
    return corpora(request.param)


SENTENCES = ("basis_files", "layout", "store_outcomes", "composer_headers", "wal_rows", "key_kinds", "agent_kv",
             "kind_keysets", "versions", "bubble_types", "capability_types", "capability_keys", "thinking",
             "token_counts", "tool_names", "tool_numbers", "tool_payload_types", "tool_params", "tool_call_id_newline",
             "ordering",
             "models", "data_keyed_maps", "link_composer_bubbles", "link_tool_result_status", *(c for c, _ in ABSENT))


def test_each_sentence_states_the_counted_figures(corpus) -> None:
    t, claims = corpus
    want = expected_text(t)
    bad = {cid: (claims[cid]["text"], want[cid]) for cid in SENTENCES if claims[cid]["text"] != want[cid]}
    assert not bad, "\n".join(f"{k}:\n  got  {g}\n  want {w}" for k, (g, w) in bad.items())


def _kinds(t: dict[str, Any]) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for (kd, _), n in t["cells"].items():
        if kd != "composerHeaders":
            kinds[kd] += n
    return kinds


def _summary(c: Counter[str]) -> dict[str, Any]:
    recs = sum(c.values())
    keys = Counter(k for s, n in c.items() for k in s.split(",") if k for _ in range(n))
    some = sorted(((k, n) for k, n in keys.items() if n < recs), key=lambda x: (-x[1], x[0]))
    return {"records": recs, "keysets": len(c), "always": sum(1 for n in keys.values() if n == recs),
            "sometimes": ", ".join(f"{k} {n}" for k, n in some)}


def expected_value(t: dict[str, Any]) -> dict[str, Any]:
    sf = t["surfaces"]
    ok = t["ok"]
    by: dict[str, dict[str, int]] = {}
    for (f, jt), n in t["payload"].items():
        by.setdefault(f, {})[jt] = n
    vmap: dict[str, dict[str, int]] = {}
    for (kd, v), n in t["versions"].items():
        vmap.setdefault(kd, {})[v] = n
    names: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for (nm, st), n in t["tool_pairs"].items():
        names[nm] += n
        statuses[st or "<no status>"] += n
    res = t["results"]
    broken = sum(c - w if s in DONE else w for s, (c, w) in res.items())
    zero, with_tc, bubbles = t["tokens"]
    return {
        "basis_files": {"total": t["files"], **sf, "other": t["other"]},
        "layout": [{"surface": s, "description": d, "files": sf[s]} for s, d in _desc().items()],
        "store_outcomes": {"ok": ok, "stores": t["stores"], "tables": t["tables"] if ok else [],
                           "other_tables": t["other_tables"] if ok else 0,
                           "stores_with_other_tables": int(bool(ok and t["other_tables"]))},
        "composer_headers": None if not ok else {"present": int(t["header_rows"] is not None), "stores": 1,
                                                 "rows": t["header_rows"] or 0},
        "wal_rows": {"with_wal": t["with_wal"], "rows_wal_only": t.get("rows_wal_only", 0),
                     "rows_seen": t.get("rows_seen", 0)},
        "key_kinds": dict(_kinds(t)),
        "agent_kv": len(t["kv_bytes"]),
        "kind_keysets": {kd: _summary(c) for kd, c in t["keysets"].items()},
        "versions": vmap,
        "bubble_types": dict(t["bubble_types"]),
        "capability_types": {"absent": 0, **t["caps"]},  # the query always gives the bubbles without one
        "capability_keys": {c: {"bubbles": n, "tool_former": tf, "thinking": th} for c, (n, tf, th) in t["cap_keys"].items()},
        "thinking": t["thinking"],
        "token_counts": [zero, with_tc, bubbles],
        "tool_names": {"names": dict(names), "statuses": dict(statuses)},
        "tool_numbers": {f"{x}:{nm}": n for (x, nm), n in t["tool_numbers"].items()},
        "tool_payload_types": by,
        "tool_params": {x: {c: n[c] for c in PARAMS} for x, n in t["params"].items()},
        "tool_call_id_newline": list(t["call_ids"]),
        "ordering": {"composers": t["ordering"]["composers"], "ordered_by_header_list": t["ordering"]["by_list"],
                     "ordered_by_rowid": t["ordering"]["by_rowid"], "rowid_order_differs": t["ordering"]["differs"],
                     "header_set_differs": t["ordering"]["set_differs"]},
        "models": {f"{p}:{v}": n for (p, v), n in t["models"].items()},
        "data_keyed_maps": {f"{kd}:{p}": n for (kd, p), n in t["maps"].items()},
        "link_composer_bubbles": t["composer_bubbles"],
        "link_tool_result_status": {"by_status": {s: {"calls": c, "with_result": w} for s, (c, w) in res.items()},
                                    "breaks": broken, "other_type": t["other_type"]},
        **{cid: (t["text_files"][cid][0] == 0 if not cid.startswith("no_") else True) for cid, _ in ABSENT
           if cid != "tool_former_text"},
        "tool_former_text": not any(kd == "bubbleId" for (kd, _) in t["payload_kinds"]),
    }


def expected_evidence(t: dict[str, Any]) -> dict[str, str]:
    """Each claim's evidence result, from the same counts."""
    sf = t["surfaces"]
    ok = t["ok"]
    cells = t["cells"]
    order = sorted(cells.items(), key=lambda x: (-x[1], x[0][0], x[0][1]))
    kvb = t["kv_bytes"]
    ks = t["keysets"]
    caps = sorted({"absent": 0, **t["caps"]}.items(), key=lambda x: (-x[1], x[0]))
    ck = sorted(t["cap_keys"].items(), key=lambda x: (-x[1][0], x[0]))
    th = t["thinking"]
    zero, with_tc, bubbles = t["tokens"]
    names = {nm for nm, _ in t["tool_pairs"]}
    statuses = {st or "<no status>" for _, st in t["tool_pairs"]}
    by: dict[str, dict[str, int]] = {}
    for (f, jt), n in sorted(t["payload"].items(), key=lambda x: (x[0][0], -x[1], x[0][1])):  # as the census orders rows
        by.setdefault(f, {})[jt] = n
    o = t["ordering"]
    cb = t["composer_bubbles"]
    tables = ",".join(t["tables"]) if ok else ""
    return {
        "basis_files": f"{fmt(t['files'])} files",
        "layout": "; ".join(f"{s} {sf[s]}" for s in _desc()),
        "store_outcomes": (f"ok 1 [{tables}] +{t['other_tables']}" if ok else
                           f"{t['outcome']} 1 [] +0" if t["stores"] else ""),
        "composer_headers": f"composerHeaders in {int(t.get('header_rows') is not None)}/1" if ok else "0 stores",
        "wal_rows": f"wal {t['with_wal']}; wal-only rows {t.get('rows_wal_only', 0)}",
        "key_kinds": "; ".join(f"{kd}/{st} {n}" for (kd, st), n in order) or "0 cells",
        "agent_kv": f"agentKv {len(kvb)}",
        "kind_keysets": f"{len(ks)} kinds",
        "versions": f"{len(t['versions'])} rows",
        "bubble_types": "; ".join(f"{x} {n}" for x, n in sorted(t["bubble_types"].items())) or "0 bubbles",
        "capability_types": "; ".join(f"{c} {n}" for c, n in caps),
        "capability_keys": "; ".join(f"{c} {tf}/{thk}/{n}" for c, (n, tf, thk) in ck) or "0 bubbles",
        "thinking": f"{th['with_text']}/{th['signature_only']}/{th['blank']}",
        "token_counts": f"{zero}/{with_tc}/{bubbles}",
        "tool_names": f"{len(names)} names, {len(statuses)} statuses",
        "tool_numbers": f"{len(t['tool_numbers'])} pairs",
        "tool_payload_types": "; ".join(f"{f} {m}" for f, m in sorted(by.items())) or "0",
        "tool_call_id_newline": f"{t['call_ids'][0]}/{t['call_ids'][1]}",
        "tool_params": "; ".join(f"{x} {n['object_params']}/{n['no_params']}/{n['not_json']}/{n['other_type']} of "
                                 f"{n['calls']}" for x, n in _params_rows(t["params"])) or "0 calls",
        "ordering": f"list {o['by_list']}, rowid {o['by_rowid']}, differs {o['differs']}",
        "models": f"{len(t['models'])} values",
        "data_keyed_maps": f"{len(t['maps'])} rows",
        "link_composer_bubbles": f"with {cb['with_bubbles']}, without {cb['without_bubbles']}; drafts {cb['drafts']} "
                                 f"({cb['drafts_without_bubbles']} without)",
        "link_tool_result_status": "; ".join(f"{s} {w}/{c}" for s, (c, w) in sorted(t["results"].items())) or "0 calls",
    }


def test_each_value_and_evidence_is_the_counted_figures(corpus) -> None:
    t, claims = corpus
    want, ev = expected_value(t), expected_evidence(t)
    bad = {cid: (claims[cid]["value"], want[cid]) for cid in SENTENCES if claims[cid]["value"] != want[cid]}
    assert not bad, "\n".join(f"{k}:\n  got  {g}\n  want {w}" for k, (g, w) in bad.items())
    bad = {cid: ([e["result"] for e in claims[cid]["evidence"]], [r]) for cid, r in ev.items()
           if [e["result"] for e in claims[cid]["evidence"]] != [r]}
    assert not bad, "\n".join(f"{k}:\n  got  {g}\n  want {w}" for k, (g, w) in bad.items())
    assert claims["basis_files"]["evidence"][0]["scope"] == f"{fmt(t['files'])} files (whole corpus)"
    assert claims["layout"]["evidence"][0]["scope"] == "every file of the corpus"
    assert claims["store_outcomes"]["evidence"][0]["scope"] == f"{fmt(t['stores'])} state.vscdb files"


HEADLINES = {"composer_headers", "key_kinds", "ordering"}
KIND = {"basis_files": "census", "layout": "census", "store_outcomes": "census", "composer_headers": "census",
        "wal_rows": "census", "key_kinds": "value_map", "agent_kv": "census", "kind_keysets": "census",
        "versions": "value_map", "bubble_types": "value_map", "capability_types": "value_map",
        "capability_keys": "census", "thinking": "census", "token_counts": "rate", "tool_names": "value_map",
        "tool_numbers": "value_map", "tool_payload_types": "census", "tool_params": "census", "tool_call_id_newline": "rate",
        "ordering": "census", "models": "value_map", "data_keyed_maps": "census", "link_composer_bubbles": "rate",
        "link_tool_result_status": "rate", **{c: "absence" for c, _ in ABSENT}}


def test_kinds_headlines_and_provenance(corpus) -> None:
    t, claims = corpus
    assert {c: claims[c]["kind"] for c in SENTENCES} == KIND
    assert {c for c in SENTENCES if claims[c]["headline"]} == HEADLINES
    undetermined = {"composer_headers"} if not t["ok"] else set()
    if not t["ok"]:
        undetermined |= {"link_composer_bubbles", "link_tool_result_status"}
    elif not t["results"]:
        undetermined.add("link_tool_result_status")
    if not sum(n["calls"] for n in t["params"].values()):
        undetermined.add("tool_params")
    assert {c for c in SENTENCES if claims[c]["provenance"] == "not determined"} == undetermined
    short = claims["composer_headers"]["extra"]["short"]
    assert short == ("not determined" if not t["ok"] else "absent" if t["header_rows"] is None
                     else f"present ({fmt(t['header_rows'])} rows)")


def test_the_planted_corpora_show_every_case(corpora: Any) -> None:
    """The figures each sentence turns on cross zero, or flip its verdict, in some corpus."""
    g, r, a, b, bad, none = (corpora(n)[0] for n in ("generated", "real_like", "planted_a", "planted_b",
                                                     "not_a_store", "no_store"))
    assert g["with_wal"] and g["rows_wal_only"] > 0 and g["other_tables"] == 1 and g["surfaces"]["workspace_state"]
    assert {st for (_, st) in g["cells"]} >= {"ok", "opaque", "corrupt", "not_object", "null", "non_json"}
    assert g["cells"][("<unknown-kind>", "ok")] and g["kv_bytes"] and g["call_ids"][0]
    assert g["thinking"]["signature_only"] and g["thinking"]["blank"] and not a["thinking"]["signature_only"] + a["thinking"]["blank"]
    assert len({v for (kd, v) in g["versions"] if kd == "composerData"}) > 1
    assert len({p for (_, p) in g["maps"]}) > 6 and len({p for (_, p) in a["maps"]}) == 6 and len({p for (_, p) in b["maps"]}) == 7
    # the link between a result and its status: kept (r, b), broken once (g), twice with a result
    # that is no string (a); calls of another status in g and r, none in a and b
    assert g["results"]["started"][0] and not set(a["results"]) - set(DONE) and not set(b["results"]) - set(DONE)
    assert a["other_type"] == 1
    # drafts: one without bubbles (g), none (r), two of which one has bubbles (a), one with bubbles (b)
    assert [x["composer_bubbles"]["drafts"] for x in (g, r, a, b)] == [1, 0, 2, 1]
    assert [x["composer_bubbles"]["drafts_without_bubbles"] for x in (g, r, a, b)] == [1, 0, 1, 0]
    assert b["composer_bubbles"]["without_bubbles"] == 2
    cells = corpora("planted_c")[0]["cells"]
    assert sum(n for (_, st), n in corpora("planted_c")[0]["tool_pairs"].items() if st is None) == 2
    assert corpora("planted_c")[0]["results"] == {"<no status>": (2, 1)}
    assert cells[("composerData", "ok")] == cells[("bubbleId", "ok")] + cells[("bubbleId", "corrupt")] > cells[("bubbleId", "ok")]
    c, d = corpora("planted_c")[0]["composer_bubbles"], corpora("planted_d")[0]["composer_bubbles"]
    assert c["drafts"] == c["drafts_without_bubbles"] == c["without_bubbles"] == 2 and c["with_bubbles"]
    assert d["with_bubbles"] and not d["without_bubbles"] + d["drafts"]
    assert corpora("planted_d")[0]["thinking"] == {"with_text": 0, "signature_only": 0, "blank": 1}
    assert ("grep", None) in g["tool_pairs"] and "<no status>" in g["results"]
    assert sum(c for c, _ in g["results"].values()) > sum(g["tool_pairs"].values())  # a status without a name
    assert r["header_rows"] is None and a["other_tables"] == 2 and not a["call_ids"][0]
    assert len({x for (x, _) in a["tool_numbers"]}) < len(a["tool_numbers"])
    ties: Counter[str] = Counter()
    for (nm, _), n in a["tool_pairs"].items():
        ties[nm] += n
    assert ties["edit_file"] == ties["read_file"] and len({st for (nm, st) in a["tool_pairs"] if nm == "edit_file"}) == 2
    assert ("result", "number") in a["payload"] and a["ordering"]["set_differs"]
    assert a["cells"][("checkpointId", "ok")] and a["payload"][("params", "object")] == 2
    assert bad["stores"] and not bad["ok"] and bad["with_journal"] and not none["stores"]
    # params: not JSON and JSON of another type (c), none of either (a); calls with no params in a
    # and g (several tools in g), none in c; several tools in a
    pc = corpora("planted_c")[0]["params"]
    assert sum(n["not_json"] for n in pc.values()) and sum(n["other_type"] for n in pc.values())
    assert not sum(n["no_params"] for n in pc.values()) and len(a["params"]) > 1
    assert not sum(n["not_json"] + n["other_type"] for n in a["params"].values())
    assert sum(n["no_params"] for n in a["params"].values()) and sum(1 for n in g["params"].values() if n["no_params"]) > 1
    assert not any(corpora("nothing")[0]["surfaces"].values()) and all(g["surfaces"].values())
