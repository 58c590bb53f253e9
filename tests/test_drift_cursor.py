"""Cursor pages follow a client update: each operator changes the generated corpus as a
release would, and the page's claims about that aspect change with it (tests/drift.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from survey.synth.cursor import generate
from tests.drift import Surveyed, check_drift, rewrite_jsonl, survey_once


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Surveyed]:
    tmp = tmp_path_factory.mktemp("cursor-drift-base")
    root = tmp / "projects"
    root.mkdir()
    generate(root, seed=11, sessions=14)
    return root, survey_once("cursor", root, tmp, "2026-01-01")


def _blocks(rec: dict) -> list:
    c = (rec.get("message") or {}).get("content")
    return c if isinstance(c, list) else []


def add_call_ids(root: Path) -> None:
    n = iter(range(10**9))

    def fn(rec: dict, _p: Path) -> dict:
        for b in _blocks(rec):
            if isinstance(b, dict) and b.get("type") == "tool_use":
                b["id"] = f"call_{next(n)}"
        return rec
    rewrite_jsonl(root, fn)


def add_results(root: Path) -> None:
    def fn(rec: dict, _p: Path):
        calls = [b for b in _blocks(rec) if isinstance(b, dict) and b.get("type") == "tool_use"]
        if rec.get("role") != "assistant" or not calls:
            return rec
        for i, b in enumerate(calls):
            b["id"] = f"toolu_{i}"
        result = {"role": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": b["id"], "is_error": False, "content": "ok"} for b in calls]}}
        return [rec, result]
    rewrite_jsonl(root, fn)


def add_key(key: str, value: object, inside: str | None = None):
    def op(root: Path) -> None:
        def fn(rec: dict, _p: Path) -> dict:
            if inside is None:
                rec[key] = value
            elif isinstance(rec.get(inside), dict):
                rec[inside][key] = value
            return rec
        rewrite_jsonl(root, fn)
    return op


def new_block_type(root: Path) -> None:
    def fn(rec: dict, _p: Path) -> dict:
        if rec.get("role") == "assistant" and _blocks(rec):
            rec["message"]["content"].insert(0, {"type": "redacted_thinking", "data": "x"})
        return rec
    rewrite_jsonl(root, fn)


def new_status(root: Path) -> None:
    def fn(rec: dict, _p: Path) -> dict:
        if rec.get("type") == "turn_ended":
            rec["status"] = "cancelled"
            rec.pop("error", None)
        return rec
    rewrite_jsonl(root, fn)


def rename_status(root: Path) -> None:
    def fn(rec: dict, _p: Path) -> dict:
        if rec.get("type") == "turn_ended" and "status" in rec:
            rec["state"] = rec.pop("status")
        return rec
    rewrite_jsonl(root, fn)


def drop_role(root: Path) -> None:
    def fn(rec: dict, _p: Path) -> dict:
        rec.pop("role", None)
        return rec
    rewrite_jsonl(root, fn)


def drop_turn_ended(root: Path) -> None:
    rewrite_jsonl(root, lambda rec, _p: None if rec.get("type") == "turn_ended" else rec)


OPERATORS = {
    "call ids added": (add_call_ids, ["tool_use_keyset", "max_parallel"],
                       ["no call id of any kind", "identity is positional", "pairing calls by name within a frame is unsafe"]),
    "result blocks appear": (add_results, ["no_tool_results", "per_call_outcome", "tool_use_keyset"],
                             ["No per-call outcome was observed", "No tool results corpus-wide", "no call id of any kind"]),
    "timestamp appears": (add_key("timestamp", "2026-01-01T00:00:00Z"), ["no_timestamp", "stratify_basis"],
                          ["No client version, timestamp or model field was observed as a key"]),
    "model appears": (add_key("model", "m", inside="message"), ["no_model_meta", "stratify_basis"],
                      ["No client version, timestamp or model field was observed as a key"]),
    "version appears": (add_key("version", "1.2.3"), ["no_version", "stratify_basis"],
                        ["No client version, timestamp or model field was observed as a key"]),
    "new block type": (new_block_type, ["block_types", "skeletons"], []),
    "new status": (new_status, ["no_cancelled", "turn_status"], ['status "cancelled": not observed']),
    "key renamed": (rename_status, ["turn_outcome", "top_keysets"],
                    ["A turn's outcome is recorded as turn_ended.status"]),
    "field dropped": (drop_role, ["top_keysets", "skeletons"], []),
    "end marker dropped": (drop_turn_ended, ["turn_outcome", "files_without_turn_ended"],
                           ["A turn's outcome is recorded as turn_ended.status"]),
}


@pytest.mark.parametrize("name", list(OPERATORS))
def test_cursor_page_follows_drift(name: str, base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    root, surveyed = base
    op, changed, stale = OPERATORS[name]
    check_drift("cursor", surveyed, root, op, tmp_path, changed=changed, stale=stale)


def test_call_ids_removed_again(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    """The reverse drift: a corpus whose calls carry ids loses them."""
    root, _ = base
    from tests.drift import copy_corpus

    with_ids = copy_corpus(root, tmp_path / "with-ids")
    add_call_ids(with_ids)
    before = survey_once("cursor", with_ids, tmp_path / "a", "2026-01-01")
    assert "blocks carry a call id key" in before.page

    def strip(r: Path) -> None:
        def fn(rec: dict, _p: Path) -> dict:
            for b in _blocks(rec):
                if isinstance(b, dict):
                    b.pop("id", None)
            return rec
        rewrite_jsonl(r, fn)
    check_drift("cursor", before, with_ids, strip, tmp_path / "b", changed=["tool_use_keyset"],
                stale=["blocks carry a call id key"])
