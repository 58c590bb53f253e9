"""Drift operators for the desktop-store page: each rewrites the copied ``state.vscdb`` as an app
update would (the header table appearing or going, a new key kind, a new tool status, a key
every bubble had dropped, a capabilityType without its companion, tool call ids removed), and
the page must say the new thing, keep no sentence the change made false, and ``survey diff
--fail-on-drift`` must exit 3.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from survey.synth import cursor_desktop
from tests.drift import Surveyed, check_drift, survey_once

STORE = Path("globalStorage") / "state.vscdb"


@pytest.fixture(scope="module", params=["modern"])
def base(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Surveyed]:
    tmp = tmp_path_factory.mktemp("desktop_base")
    root = tmp / "User"
    cursor_desktop.generate(root, seed=5, sessions=2, variant=request.param)
    return root, survey_once("cursor_desktop", root, tmp, "2026-01-01")


def bubbles(root: Path, fn: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """Rewrite every bubbleId cell through ``fn`` (in place, one transaction)."""
    con = sqlite3.connect(root / STORE)
    with con:
        for key, value in con.execute("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'").fetchall():
            try:
                d = json.loads(value)
            except ValueError:
                continue  # a cell the generator cut short stays as it is
            if not isinstance(d, dict):
                continue
            new = fn(d)
            if new is not None:
                con.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(new), key))
    con.close()


def sql(root: Path, *stmts: str) -> None:
    con = sqlite3.connect(root / STORE)
    with con:
        for s in stmts:
            con.execute(s)
    con.close()


def gone(old: Any, new: Any, *cids: str) -> None:
    for cid in cids:
        assert old.claims[cid]["text"] not in new.page, cid


def test_the_header_table_vanishing(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: sql(r, "DROP TABLE composerHeaders"),
                           changed=["composer_headers", "store_outcomes"],
                           stale=["composerHeaders is present in"], tmp=tmp_path)
    assert old.claims["composer_headers"]["value"]["present"] == 1
    assert new.claims["composer_headers"]["value"]["present"] == 0
    assert "| composerHeaders table | absent |" in new.page
    gone(old, new, "composer_headers", "store_outcomes")


def test_a_new_key_kind(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def add(r: Path) -> None:
        sql(r, "INSERT INTO cursorDiskKV (key, value) VALUES ('planSnapshot:c1:p1', '{\"_v\": 1, \"steps\": []}')",
            "INSERT INTO cursorDiskKV (key, value) VALUES ('planSnapshot:c1:p2', '{\"_v\": 1, \"steps\": []}')")

    root, old = base
    new = check_drift("cursor_desktop", old, root, add, changed=["key_kinds", "kind_keysets"], stale=[],
                           tmp=tmp_path)
    was = old.claims["key_kinds"]["value"].get("<unknown-kind>", 0)
    assert new.claims["key_kinds"]["value"]["<unknown-kind>"] == was + 2
    assert f"{was + 2} cells are of kinds outside the reviewed list" in new.page
    assert "planSnapshot" not in new.page
    gone(old, new, "key_kinds")


def test_a_new_table_alone(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    """A new table leaves every record as it was: no key set, vocabulary value or absence moves,
    and the diff names it through the store-outcome claim, whose computed result changed."""
    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: sql(r, "CREATE TABLE agentRuns (id TEXT PRIMARY KEY, value BLOB)"),
                      tmp_path, changed=["store_outcomes"], stale=[], named=["store_outcomes"])
    assert old.claims["store_outcomes"]["value"]["other_tables"] == 0
    assert new.claims["store_outcomes"]["value"]["other_tables"] == 1
    assert "(+1 other table in 1 store, not named)" in new.page
    assert "agentRuns" not in new.page
    gone(old, new, "store_outcomes")


def test_a_wal_appearing_beside_the_store(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    """The app running: the store in WAL mode with rows not yet checkpointed, its -wal (and
    -shm) beside it. Taken as a running app leaves it: the files copied while the writer is open."""
    def live(r: Path) -> None:
        db = r / STORE
        snap = r.parent / "live-copy"
        snap.mkdir()
        con = sqlite3.connect(db)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA wal_autocheckpoint=0")
        with con:
            con.execute("INSERT INTO cursorDiskKV (key, value) VALUES ('checkpointId:c1:w1', '{\"files\": []}')")
        for name in (db.name, db.name + "-wal", db.name + "-shm"):
            shutil.copy2(db.with_name(name), snap / name)
        con.close()
        for name in (db.name, db.name + "-wal", db.name + "-shm"):
            shutil.copy2(snap / name, db.with_name(name))
        shutil.rmtree(snap)
        assert db.with_name(db.name + "-wal").stat().st_size > 0

    root, old = base
    new = check_drift("cursor_desktop", old, root, live, tmp_path, changed=["wal_rows", "basis_files"], stale=[],
                      named=["wal_rows", "basis_files"])
    assert old.claims["wal_rows"]["value"]["with_wal"] == 0
    w = new.claims["wal_rows"]["value"]
    assert w["with_wal"] == 1 and w["rows_wal_only"] == 1
    assert new.claims["basis_files"]["value"]["state_sidecar"] == 2
    gone(old, new, "wal_rows")


def test_a_new_tool_status(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def cancel(d: dict[str, Any]) -> dict[str, Any]:
        if isinstance(d.get("toolFormerData"), dict):
            d["toolFormerData"]["status"] = "cancelled"
        return d

    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: bubbles(r, cancel),
                           changed=["tool_names", "ref_status"], stale=[], tmp=tmp_path)
    assert set(new.claims["tool_names"]["value"]["statuses"]) == {"cancelled"}
    assert old.claims["ref_status"]["value"] is True and new.claims["ref_status"]["value"] is False
    gone(old, new, "tool_names")


def test_token_count_dropped_from_every_bubble(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def drop(d: dict[str, Any]) -> dict[str, Any]:
        d.pop("tokenCount", None)
        return d

    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: bubbles(r, drop),
                           changed=["token_counts", "kind_keysets"], stale=[], tmp=tmp_path)
    all_zero, with_tc, n = new.claims["token_counts"]["value"]
    assert (all_zero, with_tc) == (0, 0) and n > 0
    assert f"{n} of {n} bubbles carry none" in new.page
    gone(old, new, "token_counts")


def test_a_tool_bubble_without_tool_former_data(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def strip(d: dict[str, Any]) -> dict[str, Any]:
        d.pop("toolFormerData", None)
        return d

    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: bubbles(r, strip),
                           changed=["capability_keys", "ref_capability", "tool_names"], stale=[], tmp=tmp_path)
    assert old.claims["ref_capability"]["value"] is True
    assert new.claims["ref_capability"]["value"] is False
    assert new.claims["capability_keys"]["value"]["15"]["tool_former"] == 0
    gone(old, new, "capability_keys", "tool_names")


def test_tool_call_ids_removed(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def strip(d: dict[str, Any]) -> dict[str, Any]:
        if isinstance(d.get("toolFormerData"), dict):
            d["toolFormerData"].pop("toolCallId", None)
        return d

    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: bubbles(r, strip),
                           changed=["tool_call_id_newline"], stale=[], tmp=tmp_path)
    assert new.claims["tool_call_id_newline"]["value"] == [0, 0]
    assert "a consumer must not treat a call id as one line" not in new.page
    gone(old, new, "tool_call_id_newline")


def test_a_stop_reason_appearing(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def add(d: dict[str, Any]) -> dict[str, Any]:
        if d.get("type") == 2:
            d["stopReason"] = "end_turn"
        return d

    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: bubbles(r, add),
                           changed=["no_stop_reason", "ref_never_present"], stale=[], tmp=tmp_path)
    assert old.claims["no_stop_reason"]["value"] is True and new.claims["no_stop_reason"]["value"] is False
    assert new.claims["ref_never_present"]["value"] is False
    gone(old, new, "no_stop_reason")


def test_results_dropped_from_finished_calls(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def drop(d: dict[str, Any]) -> dict[str, Any]:
        tfd = d.get("toolFormerData")
        if isinstance(tfd, dict) and tfd.get("status") in ("completed", "error"):
            tfd.pop("result", None)
        return d

    root, old = base
    new = check_drift("cursor_desktop", old, root, lambda r: bubbles(r, drop),
                      changed=["link_tool_result_status"], stale=[], tmp=tmp_path,
                      named=["link_tool_result_status"])
    by = new.claims["link_tool_result_status"]["value"]["by_status"]
    assert sum(v["with_result"] for s, v in by.items() if s in ("completed", "error")) == 0
    assert "a result is present exactly when" not in new.claims["link_tool_result_status"]["text"]
    gone(old, new, "link_tool_result_status")


def test_a_composer_emptied_of_its_bubbles(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def empty(r: Path) -> None:
        con = sqlite3.connect(r / STORE)
        (key,) = con.execute("SELECT key FROM cursorDiskKV WHERE key LIKE 'bubbleId:%' ORDER BY rowid LIMIT 1").fetchone()
        con.close()
        sql(r, f"DELETE FROM cursorDiskKV WHERE key LIKE 'bubbleId:{key.split(':')[1]}:%'")

    root, old = base
    new = check_drift("cursor_desktop", old, root, empty, changed=["link_composer_bubbles"], stale=[], tmp=tmp_path)
    a, b = old.claims["link_composer_bubbles"]["value"], new.claims["link_composer_bubbles"]["value"]
    assert (b["with_bubbles"], b["without_bubbles"]) == (a["with_bubbles"] - 1, a["without_bubbles"] + 1)
    gone(old, new, "link_composer_bubbles")
