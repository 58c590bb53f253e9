"""Declared shapes: the key sets of nested objects at a profile's named paths, and text markers
counted per record and file, each checked against what the generator planted or against a
plain recount of the generated files."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import orjson
import pytest

from survey.evidence.kit import _path_glob
from survey.pipeline import run_survey
from survey.runtimes import get
from survey.synth.cursor_chats import TEXT_MARKERS, generate


def _claims(snap: Path) -> dict[str, dict]:
    return {c["id"]: c for c in orjson.loads((snap / "claims.json").read_bytes())}


@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, dict[str, dict]]:
    base = tmp_path_factory.mktemp("chats")
    root = base / "chats"
    root.mkdir()
    planted = generate(root, seed=23, sessions=8)
    res = run_survey(get("cursor_chats"), root, snapshots=base / "s", reports=None, date="2026-01-01", cache=False)
    return planted, root, _claims(Path(res.snapshot))


def _json_blobs(root: Path) -> list[tuple[str, dict]]:
    """Every JSON object blob of every store that opens (store folder, object), by plain sqlite3."""
    out = []
    for db in sorted(root.rglob("store.db")):
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            rows = con.execute("SELECT data FROM blobs ORDER BY rowid").fetchall()
            con.close()
        except sqlite3.DatabaseError:
            continue
        for (data,) in rows:
            try:
                obj = json.loads(bytes(data))
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(obj, dict):
                out.append((db.parent.name, obj))
    return out


def test_text_markers_count_the_planted_blobs_and_stores(chats) -> None:
    planted, _root, claims = chats
    for label, lit in TEXT_MARKERS.items():
        want = planted["text_markers"][label]
        assert want["blobs"] > 0, f"the generator plants {label}"
        c = claims[f"text_marker_{label}"]
        assert c["value"] == {"records": want["blobs"], "files": want["stores"]}, label
        assert lit in c["text"] and f"{want['blobs']} records" in c["text"]


def test_text_markers_agree_with_a_plain_recount_of_the_stores(chats) -> None:
    _planted, root, claims = chats
    for label, lit in TEXT_MARKERS.items():
        blobs, stores = 0, set()
        for store, obj in _json_blobs(root):
            content = obj.get("content")
            texts = [content] if isinstance(content, str) else [
                p.get("text") for p in content or [] if isinstance(p, dict) and p.get("type") == "text"]
            if any(isinstance(t, str) and lit in t for t in texts):
                blobs += 1
                stores.add(store)
        assert claims[f"text_marker_{label}"]["value"] == {"records": blobs, "files": len(stores)}, label
    # the raw-text probe beside it counts files of the db scope (store pages and WAL files)
    raw = sum(1 for p in root.rglob("*") if p.is_file() and p.suffix in (".db", ".db-wal")
              and b"[REDACTED]" in p.read_bytes())
    assert f"by raw text in {raw} of" in claims["text_marker_redacted"]["text"]


def test_nested_key_sets_give_each_key_its_presence_over_the_objects_at_the_path(chats) -> None:
    _planted, root, claims = chats
    results: Counter[str] = Counter()
    n_results = 0
    args: Counter[str] = Counter()
    n_calls = 0
    for _store, obj in _json_blobs(root):
        if obj.get("role") not in ("tool", "assistant") or not isinstance(obj.get("content"), list):
            continue
        for p in obj["content"]:
            if not isinstance(p, dict):
                continue
            if obj["role"] == "tool" and p.get("type") == "tool-result":
                n_results += 1
                results.update(p.keys())
            if obj["role"] == "assistant" and p.get("type") == "tool-call" and isinstance(p.get("args"), dict):
                n_calls += 1
                args.update(p["args"].keys())
    got = claims["nested_tool_result"]["value"]["tool|$.content[type=tool-result]"]
    assert got["objects"] == n_results and got["keys"] == dict(results)
    assert 0 < results["isError"] < n_results  # planted present on some results only
    assert "sometimes isError" in claims["nested_tool_result"]["text"]
    got = claims["nested_tool_call_args"]["value"]["assistant|$.content[type=tool-call].args"]
    assert got["objects"] == n_calls
    # every args key is reviewed vocabulary but env (a data-keyed map, kept as a key)
    assert {k: v for k, v in got["keys"].items() if not k.startswith("<")} == \
        {k: v for k, v in args.items() if k in got["keys"]}


def test_a_record_class_narrows_a_nested_key_set(tmp_path: Path) -> None:
    root = tmp_path / "chats"
    root.mkdir()
    generate(root, seed=5, sessions=4)
    res = run_survey(get("cursor_chats"), root, snapshots=tmp_path / "s", reports=None, date="2026-01-01",
                     cache=False)
    meta0 = _claims(Path(res.snapshot))["nested_meta0"]["value"]
    assert list(meta0) == ["meta:0|$"]  # the record's own key set, of the meta "0" class alone
    assert meta0["meta:0|$"]["keys"]["agentId"] == meta0["meta:0|$"]["objects"]


def test_a_path_glob_is_literal_but_for_its_star() -> None:
    rx = _path_glob("$.tool_call.*.args")
    assert rx.match("$.tool_call.shellToolCall.args")
    assert not rx.match("$.tool_call.shellToolCall.args.command")
    rx = _path_glob("$.content[type=tool-call].args")
    assert rx.match("$.content[type=tool-call].args")
    assert not rx.match("$.content[type=tool-result].args")  # brackets are not a character class
    assert not rx.match("$.contentt.args")


@pytest.mark.parametrize("runtime", ["cursor_chats", "cursor", "cursor_desktop", "cursor_stream"])
def test_no_canary_reaches_a_declared_shape(runtime: str, tmp_path: Path) -> None:
    """Canaries planted in every text, value, key and path never reach the three new tables or
    the claims stated from them (the whole-output search in test_privacy covers them too)."""
    from survey.synth.demo import generator

    from .test_privacy import leaks

    root = tmp_path / "corpus"
    root.mkdir()
    planted = generator(runtime)(root, seed=11, canaries=True)
    res = run_survey(get(runtime), root, snapshots=tmp_path / "s", reports=tmp_path / "r", date="2026-01-01",
                     cache=False)
    snap = Path(res.snapshot)
    census = orjson.loads((snap / "census.json").read_bytes())
    declared = [c for c in _claims(snap).values() if c["extra"].get("section") == "declared"]
    assert declared and census["nested_keysets"]["rows"]
    haystack = json.dumps([census["nested_keysets"], census["text_markers"], census["tool_input_keys"], declared])
    assert not leaks(planted["canaries"], haystack)


def test_tool_input_key_sets_per_tool_match_a_recount_of_the_transcripts(cursor_survey) -> None:
    _planted, _res, snap = cursor_survey
    root = snap.parents[2] / "projects"  # (conftest's cursor_survey: <base>/projects, <base>/snapshots/<date>/cursor)
    assert root.is_dir()
    calls: Counter[str] = Counter()
    keys: dict[str, Counter[str]] = {}
    for f in sorted(root.rglob("*.jsonl")):
        for line in f.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            content = (rec.get("message") or {}).get("content") if isinstance(rec, dict) else None
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("input"), dict) \
                        and isinstance(b.get("name"), str) and b["input"]:
                    calls[b["name"]] += 1
                    keys.setdefault(b["name"], Counter()).update(b["input"].keys())
    got = _claims(snap)["nested_tool_input"]["value"]
    for name in ("Shell", "ReadFile", "AskQuestion", "Subagent"):
        assert got[name]["calls"] == calls[name], name
        for k, n in got[name]["keys"].items():
            if not k.startswith("<"):  # masked keys merge several, so only named keys compare
                assert n == keys[name][k], (name, k)
    assert 0 < got["Shell"]["keys"]["run_in_background"] < got["Shell"]["calls"]
