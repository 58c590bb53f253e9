"""Drift operators for Claude Code: each rewrites a small generated store the way a client
update would, and the page must follow: the claims about that aspect change, no sentence the
drift made false is left on the page, and ``survey diff --fail-on-drift`` exits 3."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from survey.runtimes.base import HERE as RUNTIMES
from survey.synth.claude_code import generate
from tests.drift import (
    Surveyed,
    blocks,
    check_call_ids_added,
    check_drift,
    copy_edited,
    corpus_fixtures,
    page_texts,
    records,
    rewrite,
    survey_once,
)

RT = "claude_code"
MC = ("message", "content")


base_fixture, surveyed_fixture, claims_fixture = corpus_fixtures(RT, generate, "projects", sessions=8)


def _survey(root: Path, tmp: Path) -> Surveyed:
    return survey_once(RT, root, tmp / "base", "2026-01-01")


# -- operators ------------------------------------------------------------------------------------

def strip_call_ids(root: Path) -> None:
    def e(r: dict) -> dict:
        for b in blocks(r, MC):
            if b.get("type") == "tool_use":
                b.pop("id", None)
            if b.get("type") == "tool_result":
                b.pop("tool_use_id", None)
        return r
    rewrite(root, e)


def add_call_ids(root: Path) -> None:
    n = iter(range(10**9))

    def e(r: dict) -> dict:
        for b in blocks(r, MC):
            if b.get("type") == "tool_use" and "id" not in b:
                b["id"] = f"toolu_{next(n):08d}"
            if b.get("type") == "tool_result" and "tool_use_id" not in b:
                b["tool_use_id"] = f"toolu_{next(n):08d}"
        return r
    rewrite(root, e)


def drop_results(root: Path) -> None:
    def e(r: dict) -> dict:
        m = r.get("message")
        if isinstance(m, dict) and isinstance(m.get("content"), list):
            m["content"] = [b for b in m["content"] if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        r.pop("toolUseResult", None)
        return r
    rewrite(root, e)


def add_results(root: Path) -> None:
    def e(r: dict) -> dict:
        m = r.get("message")
        if r.get("type") == "user" and isinstance(m, dict) and isinstance(m.get("content"), list):
            m["content"].append({"type": "tool_result", "tool_use_id": "toolu_x", "content": "ok", "is_error": False})
        return r
    rewrite(root, e)


def _pop(key: str, *, inner: str | None = None) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        def e(r: dict) -> dict:
            tgt = r.get(inner) if inner else r
            if isinstance(tgt, dict):
                tgt.pop(key, None)
            return r
        rewrite(root, e)
    return op


def add_version(root: Path) -> None:
    def e(r: dict) -> dict:
        if r.get("type") in ("user", "assistant"):
            r["version"] = "2.1.80"
        return r
    rewrite(root, e)


def add_block_type(btype: str) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        def e(r: dict) -> dict:
            m = r.get("message")
            if r.get("type") == "user" and isinstance(m, dict) and isinstance(m.get("content"), list):
                m["content"].append({"type": btype, "source": {"type": "base64"}})
            return r
        rewrite(root, e)
    return op


def add_record_class(rtype: str) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        def e(r: dict) -> dict | list[dict]:
            if r.get("type") == "user":
                return [r, {"type": rtype, "sessionId": r.get("sessionId", ""), "timestamp": r.get("timestamp", "")}]
            return r
        rewrite(root, e)
    return op


def rename_key(old: str, new: str) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        def e(r: dict) -> dict:
            if old in r:
                r[new] = r.pop(old)
            return r
        rewrite(root, e)
    return op


# -- the drifts -----------------------------------------------------------------------------------

def test_call_ids_removed(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, strip_call_ids, tmp_path, changed=["native_call_id", "model_call_id"],
                        stale=["Calls carry a native id", *page_texts(base_claims, "native_call_id", "model_call_id")])
    assert a.claims["native_call_id"]["value"]["calls_with_id"] == 0
    assert "Calls carry no native id" in a.page


def test_call_ids_added(base: Path, tmp_path: Path) -> None:
    check_call_ids_added(RT, base, tmp_path, "projects", strip_call_ids, add_call_ids)


def test_result_blocks_vanish(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, drop_results, tmp_path, changed=["results_recorded", "model_result", "tool_use_result_types"],
                        stale=["Results are recorded", *page_texts(base_claims, "results_recorded", "failure_flag")])
    assert "No tool result was observed" in a.page


def test_result_blocks_appear(base: Path, tmp_path: Path) -> None:
    bare = copy_edited(base, tmp_path / "bare" / "projects", drop_results)
    a = check_drift(RT, _survey(bare, tmp_path), bare, add_results, tmp_path, changed=["results_recorded", "model_result", "failure_flag"],
                        stale=["No tool result was observed"])
    assert "Results are recorded" in a.page


def test_timestamp_vanishes(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    check_drift(RT, surveyed, base, _pop("timestamp"), tmp_path, changed=["timestamps"],
                stale=page_texts(base_claims, "timestamps"))


def test_model_vanishes(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, _pop("model", inner="message"), tmp_path, changed=["model"],
                        stale=["`message.model` is on", *page_texts(base_claims, "model")])
    assert "No `message` object carries a `model` key" in a.page


def test_version_vanishes(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, _pop("version"), tmp_path, changed=["client_version"],
                        stale=["The client version is on records", "Shapes below can be stratified",
                               *page_texts(base_claims, "client_version")])
    assert "No parsed record carries a `version` key" in a.page


def test_version_appears(base: Path, tmp_path: Path) -> None:
    bare = copy_edited(base, tmp_path / "bare" / "projects", _pop("version"))
    check_drift(RT, _survey(bare, tmp_path), bare, add_version, tmp_path, changed=["client_version"],
                stale=["No parsed record carries a `version` key", "cannot be stratified"])


def test_new_block_type(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    seen = {k.split(":")[0] for k in base_claims["block_types"]["value"]}
    vocab = json.loads((RUNTIMES / RT / "vocab.json").read_text())["values"]["$.message.content[].type"]
    new = next(t for t in vocab if t not in seen)
    a = check_drift(RT, surveyed, base, add_block_type(new), tmp_path, changed=["block_types"],
                        stale=page_texts(base_claims, "block_types"))
    assert new in a.claims["block_types"]["text"]


def test_new_record_class(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    seen = set(base_claims["record_classes"]["value"]["records"])
    vocab = json.loads((RUNTIMES / RT / "vocab.json").read_text())["values"]["$.type"]
    new = next(t for t in vocab if t not in seen)
    a = check_drift(RT, surveyed, base, add_record_class(new), tmp_path, changed=["record_classes"],
                        stale=page_texts(base_claims, "record_classes"))
    assert new in a.claims["record_classes"]["value"]["records"]


def test_key_renamed(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    """parentUuid renamed (to a key outside the reviewed vocabulary): the chain claim and the
    key-set masking both follow."""
    a = check_drift(RT, surveyed, base, rename_key("parentUuid", "parent_uuid"), tmp_path, changed=["uuid_dag", "record_classes"],
                        stale=page_texts(base_claims, "uuid_dag", "record_classes"))
    assert a.claims["uuid_dag"]["value"]["parent_refs"] == 0
    assert a.claims["record_classes"]["value"]["masked_keysets"] > 0
    assert "masking may have merged" in a.page


def test_field_every_record_had_dropped(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    """sessionId, on every record of the classes that carry one, dropped."""
    had = [r for _f, r in records(base) if r.get("type") in ("user", "assistant")]
    assert had and all("sessionId" in r for r in had)
    a = check_drift(RT, surveyed, base, _pop("sessionId"), tmp_path, changed=["file_identity"],
                        stale=page_texts(base_claims, "file_identity"))
    files = a.claims["file_identity"]["value"][1] + a.claims["file_identity"]["value"][3]
    assert a.claims["file_identity"]["extra"]["without_session_id"] >= files > 0
