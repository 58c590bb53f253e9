"""Drift operators for Codex: each rewrites a small generated store the way a client update
would, and the page must follow: the claims about that aspect change, no sentence the drift
made false is left on the page, and ``survey diff --fail-on-drift`` exits 3."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from survey.runtimes.base import HERE as RUNTIMES
from survey.synth.codex import generate
from tests.drift import (
    Surveyed,
    check_call_ids_added,
    check_drift,
    copy_edited,
    corpus_fixtures,
    page_texts,
    records,
    rewrite,
    survey_once,
)

RT = "codex"
CALLS = ("function_call", "custom_tool_call", "tool_search_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


base_fixture, surveyed_fixture, claims_fixture = corpus_fixtures(RT, generate, "sessions", sessions=10)


def _survey(root: Path, tmp: Path) -> Surveyed:
    return survey_once(RT, root, tmp / "base", "2026-01-01")


def _ptype(r: dict) -> str | None:
    p = r.get("payload")
    return p.get("type") if isinstance(p, dict) else None


# -- operators ------------------------------------------------------------------------------------

def strip_call_ids(root: Path) -> None:
    def e(r: dict) -> dict:
        if r.get("type") == "response_item" and _ptype(r) in (*CALLS, *OUTPUTS):
            r["payload"].pop("call_id", None)
        return r
    rewrite(root, e)


def add_call_ids(root: Path) -> None:
    n = iter(range(10**9))
    last: list[str] = ["call_none"]

    def e(r: dict) -> dict:
        if r.get("type") == "response_item" and _ptype(r) in CALLS and "call_id" not in r["payload"]:
            last[0] = r["payload"]["call_id"] = f"call_{next(n):08d}"
        if r.get("type") == "response_item" and _ptype(r) in OUTPUTS and "call_id" not in r["payload"]:
            r["payload"]["call_id"] = last[0]
        return r
    rewrite(root, e)


def drop_outputs(root: Path) -> None:
    rewrite(root, lambda r: None if r.get("type") == "response_item" and _ptype(r) in OUTPUTS else r)


def add_outputs(root: Path) -> None:
    def e(r: dict) -> dict | list[dict]:
        if r.get("type") == "response_item" and _ptype(r) == "function_call":
            out = {"timestamp": r.get("timestamp"), "type": "response_item",
                   "payload": {"type": "function_call_output", "call_id": r["payload"].get("call_id"), "output": "ok"}}
            return [r, out]
        return r
    rewrite(root, e)


def _pop(key: str, *, payload_of: str | None = None) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        def e(r: dict) -> dict:
            if payload_of is None:
                r.pop(key, None)
            elif r.get("type") == payload_of and isinstance(r.get("payload"), dict):
                r["payload"].pop(key, None)
            return r
        rewrite(root, e)
    return op


def add_timestamps(root: Path) -> None:
    def e(r: dict) -> dict:
        r.setdefault("timestamp", "2026-01-01T00:00:00.000Z")
        return r
    rewrite(root, e)


def resume_with_new_version(root: Path) -> None:
    """Each rollout resumed by a newer client: a second session_meta with another cli_version."""
    for f in sorted(root.rglob("*.jsonl")):
        first = next((r for g, r in records(f.parent, f.name) if r.get("type") == "session_meta"), None)
        if first is None:
            continue
        again = json.loads(json.dumps(first))
        again["payload"]["cli_version"] = "0.999.0"
        data = f.read_bytes()
        sep = b"" if data.endswith(b"\n") or not data else b"\n"
        f.write_bytes(data + sep + json.dumps(again, separators=(",", ":")).encode() + b"\n")


def add_payload_type(rtype: str, ptype: str) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        def e(r: dict) -> dict | list[dict]:
            if r.get("type") == "turn_context":
                return [r, {"timestamp": r.get("timestamp"), "type": rtype, "payload": {"type": ptype}}]
            return r
        rewrite(root, e)
    return op


def set_status(ptype: str, status: str) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        first = [True]

        def e(r: dict) -> dict:
            if _ptype(r) == ptype and first[0]:
                r["payload"]["status"] = status
                first[0] = False
            return r
        rewrite(root, e)
    return op


def rename_payload_key(ptype: str, old: str, new: str) -> Callable[[Path], None]:
    def op(root: Path) -> None:
        def e(r: dict) -> dict:
            p = r.get("payload")
            if _ptype(r) == ptype and isinstance(p, dict) and old in p:
                p[new] = p.pop(old)
            return r
        rewrite(root, e)
    return op


# -- the drifts -----------------------------------------------------------------------------------

def test_call_ids_removed(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, strip_call_ids, tmp_path, changed=["native_call_id", "model_call_id"],
                        stale=["Calls carry a native id", *page_texts(base_claims, "native_call_id", "model_call_id")])
    assert "Calls carry no native id" in a.page


def test_call_ids_added(base: Path, tmp_path: Path) -> None:
    check_call_ids_added(RT, base, tmp_path, "sessions", strip_call_ids, add_call_ids)


def test_outputs_vanish(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, drop_outputs, tmp_path, changed=["results_recorded", "model_result", "native_call_id"],
                        stale=["Outputs are recorded as their own records",
                               *page_texts(base_claims, "results_recorded", "model_result")])
    assert "No output record was observed" in a.page


def test_outputs_appear(base: Path, tmp_path: Path) -> None:
    bare = copy_edited(base, tmp_path / "bare" / "sessions", drop_outputs)
    a = check_drift(RT, _survey(bare, tmp_path), bare, add_outputs, tmp_path, changed=["results_recorded", "model_result"],
                        stale=["No output record was observed"])
    assert "Outputs are recorded as their own records" in a.page


def test_timestamp_every_record_had_dropped(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    assert all("timestamp" in r for _f, r in records(base))
    a = check_drift(RT, surveyed, base, _pop("timestamp"), tmp_path, changed=["timestamps", "envelope"],
                        stale=page_texts(base_claims, "timestamps", "envelope"))
    assert a.claims["timestamps"]["value"]["with"] == 0


def test_timestamp_appears(base: Path, tmp_path: Path) -> None:
    bare = copy_edited(base, tmp_path / "bare" / "sessions", _pop("timestamp"))
    check_drift(RT, _survey(bare, tmp_path), bare, add_timestamps, tmp_path, changed=["timestamps", "envelope"],
                stale=["0 of 0 records", "classes where some lack one"])


def test_model_vanishes(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, _pop("model", payload_of="turn_context"), tmp_path, changed=["model"],
                        stale=page_texts(base_claims, "model"))
    assert "turn_context" not in a.claims["model"]["value"]


def test_version_vanishes(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, _pop("cli_version", payload_of="session_meta"), tmp_path, changed=["client_version"],
                        stale=["`cli_version` is on", "Shapes below can be stratified",
                               *page_texts(base_claims, "client_version")])
    assert "No session_meta header carries `cli_version`" in a.page


def test_resume_with_a_new_version(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    a = check_drift(RT, surveyed, base, resume_with_new_version, tmp_path, changed=["client_version", "headers"],
                        stale=page_texts(base_claims, "client_version", "headers"))
    rollouts = len({f for f, r in records(base) if r.get("type") == "session_meta"})
    assert a.claims["client_version"]["value"]["files_mixing"] == rollouts


def test_new_record_class(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    seen = set(base_claims["record_classes"]["value"]["records"])
    vocab = json.loads((RUNTIMES / RT / "vocab.json").read_text())["values"]["$.payload.type"]
    new = next(t for t in vocab if f"event_msg/{t}" not in seen)
    a = check_drift(RT, surveyed, base, add_payload_type("event_msg", new), tmp_path, changed=["record_classes"],
                        stale=page_texts(base_claims, "record_classes"))
    assert f"event_msg/{new}" in a.claims["record_classes"]["value"]["records"]


def test_new_status(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    assert "custom_tool_call.status is `completed` in all" in base_claims["constants"]["text"]
    seen = {str(r["payload"].get("status")) for _f, r in records(base) if isinstance(r.get("payload"), dict)}
    vocab = json.loads((RUNTIMES / RT / "vocab.json").read_text())["values"]["$.payload.status"]
    new = next(v for v in vocab if v not in seen)
    check_drift(RT, surveyed, base, set_status("custom_tool_call", new), tmp_path, changed=["constants"],
                stale=["custom_tool_call.status is `completed` in all"])


def test_key_renamed(base: Path, surveyed: Surveyed, base_claims: dict, tmp_path: Path) -> None:
    """function_call arguments renamed: the arguments claim follows."""
    a = check_drift(RT, surveyed, base, rename_payload_key("function_call", "arguments", "input"), tmp_path, changed=["arguments"],
                        stale=page_texts(base_claims, "arguments"))
    assert a.claims["arguments"]["value"][1] == 0
