"""Value-format claims against planted truth: a generated chat store whose meta.json
``createdAtMs`` is rewritten, at a known rate, to an RFC 3339 string, and a desktop store
whose bubble ``createdAt`` is rewritten, at a known rate, to a millisecond number. Each
claim's counts equal a plain count over the files, and the rest of the page is unharmed."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from survey.synth import cursor_chats as chats_synth
from survey.synth import cursor_desktop as desktop_synth
from tests.drift import generated, survey_once


@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated(tmp_path_factory, "chats", "chats", chats_synth.generate, seed=11, sessions=6)


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated(tmp_path_factory, "desktop", "User", desktop_synth.generate, seed=11, sessions=6)


def test_chat_store_meta_created_at_ms_counts_planted_strings(chats: Path, tmp_path: Path) -> None:
    root = tmp_path / "chats"
    shutil.copytree(chats, root)
    metas = sorted(root.rglob("meta.json"))
    assert len(metas) >= 3
    planted = 0
    for i, f in enumerate(metas):
        doc = json.loads(f.read_text())
        if i % 3 == 0 and isinstance(doc.get("createdAtMs"), int):
            doc["createdAtMs"] = "2026-08-17T18:55:41.627Z"
            planted += 1
            f.write_text(json.dumps(doc))
    assert planted
    ms = sum(1 for f in metas if isinstance(json.loads(f.read_text()).get("createdAtMs"), int)
             and 946_684_800_000 <= json.loads(f.read_text())["createdAtMs"] < 4_102_444_800_000)
    s = survey_once("cursor_chats", root, tmp_path, "2026-01-01")
    c = s.claims["fmt_created_at_ms"]
    assert c["value"] == {"path": "$.createdAtMs", "expected": ms, "total": ms + planted, "other": {"timestamp": planted}}
    assert f"meta.json `createdAtMs`: {ms} of {ms + planted} values are millisecond epoch numbers; the others: timestamp {planted}." \
        in s.page.replace("\\`", "`")
    assert "fmt_created_at_ms" in s.claims["value_formats"]["extra"]["checks"]


def test_desktop_bubble_created_at_counts_planted_numbers(desktop: Path, tmp_path: Path) -> None:
    root = tmp_path / "User"
    shutil.copytree(desktop, root)
    dbs = sorted(root.rglob("state.vscdb"))
    assert dbs
    iso = ms = planted = 0
    for db in dbs:
        con = sqlite3.connect(db)
        rows = con.execute("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'").fetchall()
        for i, (key, value) in enumerate(rows):
            try:
                doc = json.loads(value)
            except (TypeError, ValueError):
                continue
            if not isinstance(doc, dict) or "createdAt" not in doc:
                continue
            if i % 4 == 0 and isinstance(doc["createdAt"], str):
                doc["createdAt"] = 1_754_000_000_000 + i
                con.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(doc), key))
                planted += 1
            if isinstance(doc["createdAt"], str):
                iso += 1
            elif isinstance(doc["createdAt"], int):
                ms += 1
        con.commit()
        con.close()
    assert planted and iso
    s = survey_once("cursor_desktop", root, tmp_path, "2026-01-01")
    v = s.claims["fmt_bubble_created_at"]["value"]
    assert v["expected"] == iso and v["other"] == {"epoch_ms": ms} and v["total"] == iso + ms
    assert s.claims["fmt_workspace_id"]["value"]["expected"] == s.claims["fmt_workspace_id"]["value"]["total"] > 0
