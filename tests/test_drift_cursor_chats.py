"""Drift operators for the CLI chat-store page: each rewrites the copied stores as a CLI update
would (a new part type, call ids removed, isError dropped from every result, a key renamed, a
key appearing in messages or in meta.json, a new role), and the page must say the new thing,
keep no sentence the change made false, and ``survey diff --fail-on-drift`` must exit 3.

Blob ids stay content addresses: a rewritten blob whose id was sha256(data) gets the sha256 of
its new data, as the CLI would write it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from survey.synth import cursor_chats
from tests.drift import Surveyed, check_drift, survey_once


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Surveyed]:
    tmp = tmp_path_factory.mktemp("chats_base")
    root = tmp / "chats"
    cursor_chats.generate(root, seed=3, sessions=3)
    return root, survey_once("cursor_chats", root, tmp, "2026-01-01")


def blobs(root: Path, fn: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """Rewrite every JSON blob of every store that opens (a store with a -wal is checkpointed by
    the write, as the CLI's next run would); ``fn`` returns the new message or None to keep it."""
    for db in sorted(root.rglob("store.db")):
        if db.stat().st_size == 0:
            continue
        try:
            con = sqlite3.connect(db)
            rows = con.execute("SELECT rowid, id, data FROM blobs").fetchall()
        except sqlite3.DatabaseError:
            continue  # the planted broken stores stay broken
        with con:
            for rowid, id_, data in rows:
                try:
                    msg = json.loads(data)
                except (ValueError, UnicodeDecodeError):
                    continue
                if not isinstance(msg, dict):
                    continue
                new = fn(msg)
                if new is None:
                    continue
                nd = json.dumps(new, separators=(",", ":")).encode()
                nid = hashlib.sha256(nd).hexdigest() if id_ == hashlib.sha256(data).hexdigest() else id_
                con.execute("UPDATE blobs SET id = ?, data = ? WHERE rowid = ?", (nid, nd, rowid))
        con.close()


def parts(msg: dict[str, Any], ptype: str) -> list[dict[str, Any]]:
    c = msg.get("content")
    return [p for p in c if isinstance(p, dict) and p.get("type") == ptype] if isinstance(c, list) else []


def gone(old: Any, new: Any, *cids: str) -> None:
    for cid in cids:
        assert old.claims[cid]["text"] not in new.page, cid


def test_a_new_assistant_part_type(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def add(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") == "assistant" and isinstance(m.get("content"), list):
            m["content"].append({"type": "source", "sourceType": "url"})
            return m
        return None

    root, old = base
    new = check_drift("cursor_chats", old, root, lambda r: blobs(r, add),
                           changed=["part_types", "ref_assistant_parts"], stale=[], tmp=tmp_path)
    assert old.claims["ref_assistant_parts"]["value"] is True
    assert new.claims["ref_assistant_parts"]["value"] is False
    assert len(new.claims["part_types"]["value"]) == len(old.claims["part_types"]["value"]) + 1
    assert '"source"' not in new.page
    gone(old, new, "part_types")


def test_call_ids_removed_from_every_tool_call(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def strip(m: dict[str, Any]) -> dict[str, Any] | None:
        ps = parts(m, "tool-call")
        for p in ps:
            p.pop("toolCallId", None)
        return m if ps else None

    root, old = base
    new = check_drift("cursor_chats", old, root, lambda r: blobs(r, strip),
                           changed=["tool_call_ids", "call_result_joins"], stale=[], tmp=tmp_path)
    v = new.claims["tool_call_ids"]["value"]
    assert v["calls"] > 0 and v["calls_without_id"] == v["calls"]
    assert new.claims["call_result_joins"]["value"]["results_joined"] == 0
    gone(old, new, "tool_call_ids", "call_result_joins")


def test_is_error_dropped_from_every_result(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def strip(m: dict[str, Any]) -> dict[str, Any] | None:
        ps = parts(m, "tool-result")
        for p in ps:
            p.pop("isError", None)
        return m if ps else None

    root, old = base
    new = check_drift("cursor_chats", old, root, lambda r: blobs(r, strip), changed=["is_error"], stale=[],
                           tmp=tmp_path)
    assert old.claims["is_error"]["value"]["present"] > 0
    assert new.claims["is_error"]["value"] == {"present": 0, "true": 0, "false": 0}
    gone(old, new, "is_error")


def test_tool_call_id_renamed_on_results(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def rename(m: dict[str, Any]) -> dict[str, Any] | None:
        ps = parts(m, "tool-result")
        for p in ps:
            if "toolCallId" in p:
                p["toolUseId"] = p.pop("toolCallId")
        return m if ps else None

    root, old = base
    new = check_drift("cursor_chats", old, root, lambda r: blobs(r, rename),
                           changed=["tool_call_ids", "call_result_joins", "ref_tool_result"], stale=[],
                           tmp=tmp_path)
    assert new.claims["call_result_joins"]["value"]["results_with_id"] == 0
    assert new.claims["ref_tool_result"]["value"] is False
    gone(old, new, "tool_call_ids")


def test_usage_appearing_on_assistant_messages(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def add(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") == "assistant":
            m["usage"] = {"inputTokens": 3, "outputTokens": 4}
            return m
        return None

    root, old = base
    new = check_drift("cursor_chats", old, root, lambda r: blobs(r, add),
                           changed=["no_usage", "ref_never"], stale=[], tmp=tmp_path)
    assert old.claims["no_usage"]["value"] is True and new.claims["no_usage"]["value"] is False
    assert old.claims["ref_never"]["value"] is True and new.claims["ref_never"]["value"] is False
    gone(old, new, "no_usage")


def test_a_version_key_appearing_in_meta_json(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def add(r: Path) -> None:
        for f in sorted(r.rglob("meta.json")):
            d = json.loads(f.read_bytes())
            d["version"] = "2026.09.01"
            f.write_text(json.dumps(d))

    root, old = base
    new = check_drift("cursor_chats", old, root, add,
                           changed=["no_version_meta", "meta_json_keys"], stale=[], tmp=tmp_path)
    assert new.claims["no_version_meta"]["value"] is False
    assert all("version" in ks.split(",") for ks in new.claims["meta_json_keys"]["value"])
    assert new.claims["ref_meta_json"]["value"] is False
    assert "2026.09.01" not in new.page
    gone(old, new, "no_version_meta", "meta_json_keys")


def test_a_new_role(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def to_developer(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") == "system":
            m["role"] = "developer"
            return m
        return None

    root, old = base
    new = check_drift("cursor_chats", old, root, lambda r: blobs(r, to_developer),
                           changed=["roles", "created_at_roles"], stale=[], tmp=tmp_path)
    assert "system" not in new.claims["roles"]["value"]
    assert "developer" not in new.page
    gone(old, new, "roles")


def test_call_ids_added_where_calls_had_none(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    n = iter(range(10**6))

    def add(m: dict[str, Any]) -> dict[str, Any] | None:
        ps = [p for p in parts(m, "tool-call") if "toolCallId" not in p]
        for p in ps:
            p["toolCallId"] = f"call_{next(n)}"
        return m if ps else None

    root, old = base
    new = check_drift("cursor_chats", old, root, lambda r: blobs(r, add), tmp_path,
                      changed=["tool_call_ids", "call_result_joins"], stale=[])
    assert old.claims["tool_call_ids"]["value"]["calls_without_id"] > 0
    assert new.claims["tool_call_ids"]["value"]["calls_without_id"] == 0
    assert "(0 do not)" in new.claims["tool_call_ids"]["text"]
    gone(old, new, "tool_call_ids")


# -- drifts that move no key set, vocabulary value or absence: the diff compares the claims ----
def _readable_stores(root: Path) -> list[Path]:
    """The stores that open as SQLite databases, with no sidecar beside them (a write there would
    checkpoint the WAL and change more than the drift under test)."""
    out = []
    for db in sorted(root.rglob("store.db")):
        if db.stat().st_size == 0 or any(db.with_name(db.name + s).exists() for s in ("-wal", "-shm", "-journal")):
            continue
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            con.execute("SELECT count(*) FROM meta").fetchone()
            con.close()
        except sqlite3.DatabaseError:
            continue
        out.append(db)
    return out


def test_a_new_table_alone(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def add(r: Path) -> None:
        stores = _readable_stores(r)
        assert stores
        for db in stores:
            con = sqlite3.connect(db)
            with con:
                con.execute("CREATE TABLE attachments (id TEXT PRIMARY KEY, data BLOB)")
            con.close()

    root, old = base
    new = check_drift("cursor_chats", old, root, add, tmp_path, changed=["store_outcomes"], stale=[],
                      named=["store_outcomes"])
    assert old.claims["store_outcomes"]["value"]["other_tables"] == 0
    assert new.claims["store_outcomes"]["value"]["other_tables"] == len(_readable_stores(root))
    assert new.claims["store_outcomes"]["value"]["tables"] == old.claims["store_outcomes"]["value"]["tables"]
    assert "attachments" not in new.page  # counted, never named
    gone(old, new, "store_outcomes")


def test_meta_encoding_turning_plain(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    """Every hex-encoded meta "0" written as plain JSON, as a release that stopped hex-encoding
    would write it."""
    def plain(r: Path) -> None:
        n = 0
        for db in _readable_stores(r):
            con = sqlite3.connect(db)
            with con:
                for key, value in con.execute("SELECT key, value FROM meta").fetchall():
                    try:
                        text = bytes.fromhex(value).decode()
                    except (ValueError, TypeError):
                        continue
                    con.execute("UPDATE meta SET value = ? WHERE key = ?", (text, key))
                    n += 1
            con.close()
        assert n > 0

    root, old = base
    new = check_drift("cursor_chats", old, root, plain, tmp_path, changed=["meta0_encoding"], stale=[],
                      named=["meta0_encoding"])
    assert old.claims["meta0_encoding"]["value"].get("hex", 0) > 0
    assert "hex" not in new.claims["meta0_encoding"]["value"]
    gone(old, new, "meta0_encoding")


def test_the_wal_checkpointed_away(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    """The store with a -wal beside it checkpointed (the WAL's rows now in the file, the -wal
    gone), as a clean exit of the CLI leaves it."""
    def checkpoint(r: Path) -> None:
        wals = sorted(r.rglob("store.db-wal"))
        assert wals
        for w in wals:
            db = w.with_name("store.db")
            con = sqlite3.connect(db)
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            con.execute("PRAGMA journal_mode=DELETE")
            con.close()
            assert not w.exists()

    root, old = base
    new = check_drift("cursor_chats", old, root, checkpoint, tmp_path, changed=["wal_rows", "store_outcomes"],
                      stale=[], named=["wal_rows", "store_outcomes"])
    assert old.claims["wal_rows"]["value"]["with_wal"] > 0 and old.claims["wal_rows"]["value"]["rows_wal_only"] > 0
    assert new.claims["wal_rows"]["value"]["with_wal"] == 0 == new.claims["wal_rows"]["value"]["rows_wal_only"]
    assert "ok+wal" not in new.claims["store_outcomes"]["value"]
    gone(old, new, "wal_rows", "store_outcomes")
