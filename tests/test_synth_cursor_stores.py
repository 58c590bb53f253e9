"""Tests for the Cursor CLI chat-store, desktop-store and stream-json generators.

Every main figure of each ``planted`` record is recounted here *independently*: plain
``sqlite3`` on read-only copies of the databases, ``json`` on the files, and nothing from the
generator modules except ``generate``. The calibration tests read the real samples under
``../shared/corpora`` (again through copies) and require every real (family, key set) and
every real ``cursorDiskKV`` key kind and top-level key set to show up in the generated output;
they also prove the corpus folder is left exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from survey.synth import cursor_chats, cursor_desktop, cursor_stream
from tests.conftest import CORPORA

CANARY = re.compile(r"cnry[0-9a-f]{12}z")
KNOWN_ROLES = {"system", "user", "assistant", "tool"}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def keyset(obj: dict[str, Any]) -> str:
    return ",".join(sorted(obj))


def tree(root: Path) -> dict[str, tuple[str, int]]:
    """Every file and directory under ``root``: content hash (files) and mtime."""
    out: dict[str, tuple[str, int]] = {}
    for p in sorted(root.rglob("*")):
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        out[p.relative_to(root).as_posix()] = (digest, p.stat().st_mtime_ns)
    return out


_copies = 0


def open_copy(scratch: Path, db: Path, *, with_wal: bool = True) -> sqlite3.Connection:
    """Open a read-only connection on a fresh copy of ``db`` (and of its ``-wal`` if asked)."""
    global _copies
    _copies += 1
    dest = scratch / f"copy{_copies}"
    dest.mkdir(parents=True)
    shutil.copyfile(db, dest / db.name)
    wal = db.with_name(db.name + "-wal")
    if with_wal and wal.exists():
        shutil.copyfile(wal, dest / wal.name)
    return sqlite3.connect(f"file:{dest / db.name}?mode=ro", uri=True)


def walk_strings(value: Any) -> Iterator[tuple[str | None, str]]:
    """(key, string) for every string leaf; dict keys themselves are not yielded."""
    stack: list[tuple[str | None, Any]] = [(None, value)]
    while stack:
        key, v = stack.pop()
        if isinstance(v, str):
            yield key, v
        elif isinstance(v, dict):
            stack.extend(v.items())
        elif isinstance(v, list):
            stack.extend((key, x) for x in v)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cursor_stores")


@pytest.fixture(scope="module")
def chats(work: Path) -> tuple[Path, dict[str, Any]]:
    root = work / "chats"
    return root, cursor_chats.generate(root)


@pytest.fixture(scope="module")
def desktop(work: Path) -> tuple[Path, dict[str, Any]]:
    root = work / "desktop"
    return root, cursor_desktop.generate(root)


@pytest.fixture(scope="module")
def desktop_real_like(work: Path) -> tuple[Path, dict[str, Any]]:
    root = work / "desktop_real_like"
    return root, cursor_desktop.generate(root, with_headers=False)


@pytest.fixture(scope="module")
def stream(work: Path) -> tuple[Path, dict[str, Any]]:
    root = work / "stream"
    return root, cursor_stream.generate(root)


# --------------------------------------------------------------------------- determinism, layout


@pytest.mark.parametrize("module", [cursor_chats, cursor_desktop, cursor_stream])
def test_deterministic_and_confined(module: Any, tmp_path: Path) -> None:
    a = module.generate(tmp_path / "a" / "root", seed=11)
    b = module.generate(tmp_path / "b" / "root", seed=11)
    c = module.generate(tmp_path / "c" / "root", seed=12)
    assert a == b
    assert json.loads(json.dumps(a)) == a  # JSON-serialisable as it stands
    assert tree(tmp_path / "a" / "root") == tree(tmp_path / "b" / "root")
    assert tree(tmp_path / "a" / "root") != tree(tmp_path / "c" / "root")
    assert a != c
    # nothing beside root, no SQLite sidecars left behind but the one planted -wal
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["root"]
    files = [p for p in (tmp_path / "a" / "root").rglob("*") if p.is_file()]
    assert len(files) == a["files"]
    assert sum(p.stat().st_size for p in files) == a["bytes_total"]
    assert not [p for p in files if p.name.endswith(("-shm", "-journal"))]
    months: Counter[str] = Counter(
        datetime.fromtimestamp(p.stat().st_mtime, UTC).strftime("%Y-%m") for p in files)
    assert dict(months) == a["mtime_months"]
    assert len(a["mtime_months"]) >= 3  # spread over months


def test_defaults_small_and_target_bytes_scales(tmp_path: Path) -> None:
    for module in (cursor_chats, cursor_desktop, cursor_stream):
        small = module.generate(tmp_path / module.__name__ / "small")
        big = module.generate(tmp_path / module.__name__ / "big", target_bytes=600_000)
        assert small["bytes_total"] < 600_000
        assert big["bytes_total"] >= 600_000 * 0.9
    assert cursor_stream.generate(tmp_path / "s3", sessions=3)["files"] == 3


def test_chats_layout(chats: tuple[Path, dict[str, Any]]) -> None:
    root, planted = chats
    allowed = {"store.db", "store.db-wal", "meta.json", "prompt_history.json"}
    for p in root.rglob("*"):
        rel = p.relative_to(root).parts
        if p.is_file():
            assert len(rel) == 3 and rel[2] in allowed, rel
            assert re.fullmatch(r"[0-9a-f]{32}", rel[0]) and UUID.fullmatch(rel[1])
    stores = sorted(p.parent for p in root.glob("*/*/store.db"))
    assert len(stores) == sum(planted["stores"].values()) == len(planted["store_kinds"])
    for d in stores:
        assert (d / "meta.json").is_file() and (d / "prompt_history.json").is_file()
        meta = json.loads((d / "meta.json").read_bytes())
        if "cwd" in meta:  # the bucket is the md5 of the workspace path
            assert hashlib.md5(meta["cwd"].encode()).hexdigest() == d.parent.name
    assert len(list(root.glob("*/*/store.db-wal"))) == planted["stores"]["wal"] == 1


def test_desktop_layout_and_variants(
    desktop: tuple[Path, dict[str, Any]], desktop_real_like: tuple[Path, dict[str, Any]],
    tmp_path: Path,
) -> None:
    for root, planted in (desktop, desktop_real_like):
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        assert "globalStorage/state.vscdb" in files
        ws_files = [f for f in files if f != "globalStorage/state.vscdb"]
        assert ws_files and all(re.fullmatch(r"workspaceStorage/[0-9a-f]{32}/workspace\.json", f)
                                for f in ws_files)
        for f in ws_files:
            folder = json.loads((root / f).read_bytes())["folder"]
            assert hashlib.md5(folder.encode()).hexdigest() == f.split("/")[1]
        con = open_copy(tmp_path, root / "globalStorage" / "state.vscdb")
        tables = sorted(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'"))
        items = con.execute("SELECT count(*) FROM ItemTable").fetchone()[0]
        con.close()
        assert tables == planted["tables"]
        assert items == len(planted["item_table_keys"])
    assert "composerHeaders" in desktop[1]["tables"] and desktop[1]["variant"] == "modern"
    assert "composerHeaders" not in desktop_real_like[1]["tables"]
    assert desktop_real_like[1]["item_table_keys"] == []
    assert cursor_desktop.generate(tmp_path / "v", variant="real_like") == \
        cursor_desktop.generate(tmp_path / "w", with_headers=False)
    with pytest.raises(ValueError):
        cursor_desktop.generate(tmp_path / "x", variant="modern", with_headers=False)


# --------------------------------------------------------------------------- chats recount


def recount_chats(root: Path, scratch: Path) -> dict[str, Any]:
    r: dict[str, Any] = {
        "stores": Counter(), "wal_only_rows": 0, "blobs": Counter(), "id_is_sha256": Counter(),
        "roles": Counter(), "content_part_types": Counter(), "part_keysets": defaultdict(Counter),
        "tool_calls": 0, "tool_results": 0, "joined_results": 0, "is_error_present": 0,
        "models": Counter(), "meta0_encoding": Counter(), "meta0_keysets": Counter(),
        "meta_json_keys": Counter(), "schema_versions": Counter(), "prompt_history_entries": 0,
        "corrupt_rows": 0, "unknown_kinds": 0, "out_of_order_rows": 0,
    }
    for db in sorted(root.glob("*/*/store.db")):
        d = db.parent
        meta_json = json.loads((d / "meta.json").read_bytes())
        r["meta_json_keys"][keyset(meta_json)] += 1
        r["schema_versions"][str(meta_json["schemaVersion"])] += 1
        history = json.loads((d / "prompt_history.json").read_bytes())
        assert isinstance(history, list) and all(isinstance(x, str) for x in history)
        r["prompt_history_entries"] += len(history)
        raw = db.read_bytes()
        if not raw:
            r["stores"]["zero_byte"] += 1
            continue
        if not raw.startswith(b"SQLite format 3\x00"):
            r["stores"]["not_a_database"] += 1
            with pytest.raises(sqlite3.DatabaseError):
                open_copy(scratch, db).execute("SELECT count(*) FROM blobs").fetchone()
            continue
        try:
            con = open_copy(scratch, db)
            rows = con.execute("SELECT id, data FROM blobs ORDER BY rowid").fetchall()
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            con.close()
        except sqlite3.DatabaseError:
            r["stores"]["truncated"] += 1
            continue
        has_wal = db.with_name("store.db-wal").exists()
        r["stores"]["wal" if has_wal else "ok"] += 1
        if has_wal:  # a reader that ignores the wal sees fewer rows
            con = open_copy(scratch, db, with_wal=False)
            db_only = con.execute("SELECT count(*) FROM blobs").fetchone()[0]
            con.close()
            assert db_only < len(rows)
            r["wal_only_rows"] += len(rows) - db_only
        value = meta["0"]
        if re.fullmatch(r"[0-9a-f]+", value):
            r["meta0_encoding"]["hex"] += 1
            meta0 = json.loads(bytes.fromhex(value))
        else:
            r["meta0_encoding"]["json"] += 1
            meta0 = json.loads(value)
        r["meta0_keysets"][keyset(meta0)] += 1
        call_ids: set[str] = set()
        result_ids: list[str] = []
        latest = -1
        for blob_id, data in rows:
            data = bytes(data)
            r["id_is_sha256"][str(hashlib.sha256(data).hexdigest() == blob_id).lower()] += 1
            try:
                obj = json.loads(data)
            except ValueError:
                r["blobs"]["non_json"] += 1
                r["corrupt_rows"] += data[:1] in (b"{", b"[")
                continue
            r["blobs"]["json"] += 1
            if isinstance(obj.get("createdAt"), int):
                r["out_of_order_rows"] += obj["createdAt"] < latest
                latest = max(latest, obj["createdAt"])
            role = obj.get("role")
            if isinstance(role, str):
                r["roles"][role] += 1
            if role not in KNOWN_ROLES:
                r["unknown_kinds"] += 1
                continue
            if role == "assistant":
                model = obj.get("providerOptions", {}).get("cursor", {}).get("modelName")
                if model:
                    r["models"][model] += 1
            if not isinstance(obj["content"], list):
                continue
            for part in obj["content"]:
                r["content_part_types"][part["type"]] += 1
                r["part_keysets"][part["type"]][keyset(part)] += 1
                if part["type"] == "tool-call":
                    r["tool_calls"] += 1
                    if "toolCallId" in part:
                        call_ids.add(part["toolCallId"])
                elif part["type"] == "tool-result":
                    r["tool_results"] += 1
                    result_ids.append(part["toolCallId"])
                    r["is_error_present"] += "isError" in part
        r["joined_results"] += sum(1 for x in result_ids if x in call_ids)
    return r


CHATS_FIGURES = (
    "stores", "wal_only_rows", "blobs", "id_is_sha256", "roles", "content_part_types",
    "part_keysets", "tool_calls", "tool_results", "joined_results", "is_error_present",
    "models", "meta0_encoding", "meta0_keysets", "meta_json_keys", "schema_versions",
    "prompt_history_entries", "corrupt_rows", "unknown_kinds", "out_of_order_rows",
)


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items() if x != 0 or not isinstance(x, int)}
    return v


def test_chats_recount_matches_planted(chats: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, planted = chats
    before = tree(root)
    got = recount_chats(root, tmp_path)
    for key in CHATS_FIGURES:
        assert _plain(got[key]) == _plain(planted[key]), key
    assert tree(root) == before  # reading went through copies only
    # every planted edge case is really there
    assert planted["stores"] == {"ok": 5, "wal": 1, "zero_byte": 1, "not_a_database": 1,
                                 "truncated": 1}
    for key in ("wal_only_rows", "corrupt_rows", "unknown_kinds", "out_of_order_rows",
                "is_error_present", "prompt_history_entries"):
        assert planted[key] > 0, key
    assert planted["id_is_sha256"]["false"] > 0
    assert planted["blobs"]["non_json"] > planted["corrupt_rows"]
    assert planted["meta0_encoding"]["hex"] > 0 and planted["meta0_encoding"]["json"] > 0
    assert len(planted["schema_versions"]) >= 2 and len(planted["meta_json_keys"]) >= 2
    assert set(planted["roles"]) >= KNOWN_ROLES
    assert planted["tool_results"] > planted["joined_results"] > 0
    assert {"text", "reasoning", "redacted-reasoning", "tool-call", "tool-result", "image"} <= \
        set(planted["content_part_types"])


def test_chats_wal_reader_sees_extra_rows(chats: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, planted = chats
    (wal,) = root.glob("*/*/store.db-wal")
    db = wal.with_name("store.db")
    with_wal = open_copy(tmp_path, db).execute("SELECT id FROM blobs").fetchall()
    without = open_copy(tmp_path, db, with_wal=False).execute("SELECT id FROM blobs").fetchall()
    assert len(with_wal) - len(without) == planted["wal_only_rows"]
    assert set(without) < set(with_wal)


# --------------------------------------------------------------------------- desktop recount


def recount_desktop(root: Path, scratch: Path) -> dict[str, Any]:
    con = open_copy(scratch, root / "globalStorage" / "state.vscdb")
    r: dict[str, Any] = {
        "tables": sorted(x for (x,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")),
        "key_kinds": Counter(), "keysets": defaultdict(Counter), "composer_v": Counter(),
        "bubble_v": Counter(), "bubble_types": Counter(), "capability_types": Counter(),
        "tool_names": Counter(), "tool_statuses": Counter(), "thinking": Counter(),
        "token_count_all_zero": 0, "bubbles": 0, "corrupt_cells": 0, "ordering": Counter(),
        "rowid_order_differs": 0, "tool_call_id_with_newline": 0,
    }
    rows = con.execute("SELECT key, value FROM cursorDiskKV ORDER BY rowid").fetchall()
    r["composer_headers_rows"] = (
        con.execute("SELECT count(*) FROM composerHeaders").fetchone()[0]
        if "composerHeaders" in r["tables"] else 0)
    con.close()
    bubble_order: dict[str, list[str]] = defaultdict(list)
    composers: list[dict[str, Any]] = []
    for key, value in rows:
        kind = key.split(":", 1)[0]
        r["key_kinds"][kind] += 1
        if kind == "bubbleId":
            bubble_order[key.split(":")[1]].append(key.split(":")[2])
        try:
            obj = json.loads(value)
        except ValueError:
            r["corrupt_cells"] += kind == "bubbleId"
            continue
        r["keysets"][kind][keyset(obj)] += 1
        if kind == "composerData":
            composers.append(obj)
            r["composer_v"][str(obj["_v"])] += 1
        if kind != "bubbleId":
            continue
        r["bubbles"] += 1
        r["bubble_v"][str(obj["_v"])] += 1
        r["bubble_types"][str(obj["type"])] += 1
        r["capability_types"][str(obj.get("capabilityType", "absent"))] += 1
        r["token_count_all_zero"] += not any(obj["tokenCount"].values())
        if "thinking" in obj:
            t = obj["thinking"]
            r["thinking"]["with_text" if t["text"].strip() else
                          "signature_only" if t["signature"] else "blank"] += 1
        if "toolFormerData" in obj:
            tfd = obj["toolFormerData"]
            r["tool_names"][tfd["name"]] += 1
            r["tool_statuses"][tfd["status"]] += 1
            r["tool_call_id_with_newline"] += "\n" in tfd["toolCallId"]
    for c in composers:
        if "fullConversationHeadersOnly" in c:
            r["ordering"]["headers"] += 1
            listed = [h["bubbleId"] for h in c["fullConversationHeadersOnly"]]
            r["rowid_order_differs"] += listed != bubble_order.get(c["composerId"], [])
            assert sorted(listed) == sorted(bubble_order.get(c["composerId"], []))
        else:
            r["ordering"]["rowid"] += 1
    return r


DESKTOP_FIGURES = (
    "tables", "key_kinds", "keysets", "composer_v", "bubble_v", "bubble_types",
    "capability_types", "tool_names", "tool_statuses", "thinking", "token_count_all_zero",
    "bubbles", "corrupt_cells", "ordering", "rowid_order_differs", "tool_call_id_with_newline",
    "composer_headers_rows",
)


@pytest.mark.parametrize("which", ["desktop", "desktop_real_like"])
def test_desktop_recount_matches_planted(which: str, request: pytest.FixtureRequest,
                                         tmp_path: Path) -> None:
    root, planted = request.getfixturevalue(which)
    before = tree(root)
    got = recount_desktop(root, tmp_path)
    for key in DESKTOP_FIGURES:
        assert _plain(got[key]) == _plain(planted[key]), key
    assert tree(root) == before
    assert planted["token_count_all_zero"] < planted["bubbles"]
    assert planted["token_count_all_zero"] > planted["bubbles"] // 2
    assert all(planted["thinking"][k] > 0 for k in ("blank", "signature_only", "with_text"))
    assert set(planted["bubble_types"]) == {"1", "2"} and all(planted["bubble_types"].values())
    assert {"15", "30", "absent"} <= set(planted["capability_types"])
    assert planted["ordering"]["headers"] > 0 and planted["ordering"]["rowid"] > 0
    assert planted["rowid_order_differs"] > 0 and planted["corrupt_cells"] == 1
    assert {"composerData", "bubbleId", "checkpointId", "messageRequestContext",
            "codeBlockDiff", "agentKv", planted["unknown_kind"]} <= set(planted["key_kinds"])
    assert len(planted["composer_v"]) >= 2 and len(planted["bubble_v"]) >= 2
    assert {"completed", "error", "started"} <= set(planted["tool_statuses"])


# --------------------------------------------------------------------------- stream recount


def recount_stream(root: Path) -> dict[str, Any]:
    r: dict[str, Any] = {
        "families": Counter(), "keysets": defaultdict(Counter), "tool_call_variants": Counter(),
        "result_outcomes": Counter(), "call_id_with_newline": 0, "non_json_lines": Counter(),
        "timestamps": defaultdict(Counter), "json_lines": 0,
    }
    for f in sorted(root.iterdir()):
        data = f.read_bytes()
        lines = data.split(b"\n")  # LF only
        if data.endswith(b"\n"):
            lines.pop()
        for line in lines:
            if not line.strip():
                r["non_json_lines"]["blank"] += 1
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                r["non_json_lines"]["truncated_json" if line.startswith(b"{") else "plain_text"] += 1
                continue
            r["json_lines"] += 1
            fam = obj["type"] + ("/" + obj["subtype"] if "subtype" in obj else "")
            r["families"][fam] += 1
            r["keysets"][fam][keyset(obj)] += 1
            r["timestamps"][fam]["present" if "timestamp_ms" in obj else "absent"] += 1
            if obj["type"] == "tool_call":
                r["call_id_with_newline"] += "\n" in obj["call_id"]
                [(variant, body)] = obj["tool_call"].items()
                assert body["args"].get("toolCallId", obj["call_id"]) == obj["call_id"]
                if obj["subtype"] == "started":
                    r["tool_call_variants"][variant] += 1
                else:
                    [outcome] = [k for k in body["result"] if k != "isBackground"]
                    r["result_outcomes"][outcome] += 1
    return r


def test_stream_recount_matches_planted(stream: tuple[Path, dict[str, Any]]) -> None:
    root, planted = stream
    got = recount_stream(root)
    for key in ("families", "keysets", "tool_call_variants", "result_outcomes",
                "call_id_with_newline", "non_json_lines", "json_lines"):
        assert _plain(got[key]) == _plain(planted[key]), key
    assert {k: dict(v) for k, v in got["timestamps"].items()} == \
        {k: {x: n for x, n in v.items() if n} for k, v in planted["timestamps"].items()}
    assert all(n for n in planted["non_json_lines"].values())
    assert set(planted["non_json_lines"]) == {"blank", "plain_text", "truncated_json"}
    assert set(planted["tool_call_variants"]) == set(cursor_stream.VARIANTS)
    assert set(planted["result_outcomes"]) == {"success", "failure", "rejected"}
    assert planted["call_id_with_newline"] > 0
    assert planted["timestamps"]["assistant"]["present"] and planted["timestamps"]["assistant"]["absent"]
    assert planted["files"] == 10


# --------------------------------------------------------------------------- canaries


def test_canaries_chats(tmp_path: Path) -> None:
    root = tmp_path / "chats"
    planted = cursor_chats.generate(root, canaries=True)
    tokens = planted["canaries"]
    assert len(tokens) == len(set(tokens)) and all(CANARY.fullmatch(t) for t in tokens)
    found: set[str] = set()
    free_keys = {"text", "content", "command", "cwd", "path", "old_string", "new_string",
                 "contents", "pattern", "glob_pattern", "target_directory", "result", "data",
                 "image", "signature", "summary"}
    for d in (p.parent for p in root.glob("*/*/store.db")):
        assert CANARY.search(d.name)
        meta = json.loads((d / "meta.json").read_bytes())
        for k in ("cwd", "title"):
            if k in meta:
                assert CANARY.search(meta[k])
        history = json.loads((d / "prompt_history.json").read_bytes())
        assert all(CANARY.search(h) for h in history)
        found.update(CANARY.findall((d / "meta.json").read_text()))
        found.update(CANARY.findall((d / "prompt_history.json").read_text()))
        found.update(CANARY.findall(d.relative_to(root).as_posix()))
        try:
            con = open_copy(tmp_path, d / "store.db")
            rows = [bytes(x) for (x,) in con.execute("SELECT data FROM blobs")]
            value = con.execute("SELECT value FROM meta WHERE key='0'").fetchone()[0]
            con.close()
        except sqlite3.DatabaseError:
            continue
        meta0 = bytes.fromhex(value).decode() if re.fullmatch(r"[0-9a-f]+", value) else value
        assert CANARY.search(json.loads(meta0)["name"])
        found.update(CANARY.findall(meta0))
        for data in rows:
            found.update(CANARY.findall(data.decode("latin-1")))
            try:
                obj = json.loads(data)
            except ValueError:
                continue
            for key, s in walk_strings(obj):
                if key in free_keys or key is None:
                    assert CANARY.search(s), (key, s[:40])
            for part in obj.get("content", []) if isinstance(obj.get("content"), list) else []:
                maps = [part.get("args", {}).get("env"), part.get("result")]
                for m in maps:
                    if isinstance(m, dict):
                        assert all(CANARY.search(k) for k in m)
    assert found == set(tokens) - set(planted["canaries_unreadable"])


def test_canaries_desktop(tmp_path: Path) -> None:
    root = tmp_path / "desktop"
    planted = cursor_desktop.generate(root, canaries=True)
    tokens = planted["canaries"]
    assert len(tokens) == len(set(tokens)) and all(CANARY.fullmatch(t) for t in tokens)
    con = open_copy(tmp_path, root / "globalStorage" / "state.vscdb")
    found: set[str] = set()
    for table in ("cursorDiskKV", "ItemTable", "composerHeaders"):
        for key, value in con.execute(f"SELECT key, value FROM {table}" if table != "composerHeaders"
                                      else "SELECT composerId, value FROM composerHeaders"):
            text = value.decode("latin-1") if isinstance(value, bytes) else value
            assert CANARY.search(text), (table, key[:40])  # every cell carries a token
            if table != "ItemTable" and not key.startswith("agentKv:"):
                assert CANARY.search(key), key[:40]
            found.update(CANARY.findall(text) + CANARY.findall(key))
    for data in con.execute("SELECT value FROM cursorDiskKV WHERE key LIKE 'composerData:%'"):
        obj = json.loads(data[0])
        for m in (obj["codeBlockData"], obj["originalFileStates"]):
            assert all(CANARY.search(k) for k in m)
    con.close()
    for ws in root.glob("workspaceStorage/*/workspace.json"):
        found.update(CANARY.findall(ws.read_text()))
    assert found == set(tokens)


def test_canaries_stream(tmp_path: Path) -> None:
    root = tmp_path / "stream"
    planted = cursor_stream.generate(root, canaries=True)
    tokens = planted["canaries"]
    assert len(tokens) == len(set(tokens)) and all(CANARY.fullmatch(t) for t in tokens)
    free_keys = {"text", "cwd", "command", "workingDirectory", "result", "stdout", "stderr",
                 "interleavedOutput", "reason", "path", "content", "fileText", "streamContent",
                 "diffString", "pattern", "globPattern", "targetDirectory", "error", "fullText",
                 "value", "name", "simpleCommands", "toolCallId", "files"}
    found: set[str] = set()
    for f in root.iterdir():
        assert CANARY.search(f.name)
        found.update(CANARY.findall(f.name))
        text = f.read_text()
        for line in text.split("\n"):
            if not line:
                continue
            found.update(CANARY.findall(line))
            try:
                obj = json.loads(line)
            except ValueError:
                if not line.startswith("{"):
                    assert CANARY.search(line)
                continue
            for key, s in walk_strings(obj):
                if key in free_keys and s:
                    assert CANARY.search(s), (key, s[:40])
            if obj["type"] == "tool_call":
                assert CANARY.search(obj["call_id"])
                for body in obj["tool_call"].values():
                    ok = body.get("result", {}).get("success", {})
                    assert all(CANARY.search(k) for k in ok.get("workspaceResults", {}))
    assert found == set(tokens)


# --------------------------------------------------------------------------- calibration


def _corpus_state() -> dict[str, tuple[int, int, str]]:
    return {p.relative_to(CORPORA).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns,
                                                hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(CORPORA.rglob("*")) if p.is_file()}


needs_corpora = pytest.mark.skipif(
    not (CORPORA / "cursor-stream-json").is_dir() or not (CORPORA / "cursor-desktop").is_dir(),
    reason=f"real corpus folder {CORPORA} is absent: calibration against real samples skipped",
)


@pytest.mark.real
@needs_corpora
def test_calibration_stream_json(stream: tuple[Path, dict[str, Any]]) -> None:
    before = _corpus_state()
    real: set[tuple[str, str]] = set()
    for f in sorted((CORPORA / "cursor-stream-json").glob("*.jsonl")):
        for line in f.read_bytes().split(b"\n"):
            if not line.strip():
                continue
            obj = json.loads(line)
            fam = obj["type"] + ("/" + obj["subtype"] if "subtype" in obj else "")
            real.add((fam, keyset(obj)))
    assert real, "no real stream-json lines read"
    _, planted = stream
    generated = {(fam, ks) for fam, sets in planted["keysets"].items() for ks in sets}
    assert real <= generated, sorted(real - generated)
    assert _corpus_state() == before


@pytest.mark.real
@needs_corpora
def test_calibration_desktop(desktop: tuple[Path, dict[str, Any]],
                             desktop_real_like: tuple[Path, dict[str, Any]],
                             tmp_path: Path) -> None:
    before = _corpus_state()
    con = open_copy(tmp_path, CORPORA / "cursor-desktop" / "User" / "globalStorage" / "state.vscdb")
    tables = sorted(x for (x,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'"))
    real: dict[str, set[str]] = defaultdict(set)
    for key, value in con.execute("SELECT key, value FROM cursorDiskKV"):
        kind = key.split(":", 1)[0]
        real[kind]
        try:
            obj = json.loads(value)
        except ValueError:
            continue
        if isinstance(obj, dict):
            real[kind].add(keyset(obj))
    con.close()
    assert real, "no real cursorDiskKV rows read"
    assert "composerHeaders" not in tables
    assert desktop_real_like[1]["tables"] == tables
    for _, planted in (desktop, desktop_real_like):
        assert set(real) <= set(planted["key_kinds"])
        for kind, sets in real.items():
            missing = sets - set(planted["keysets"].get(kind, {}))
            assert not missing, (kind, sorted(missing))
    assert _corpus_state() == before
