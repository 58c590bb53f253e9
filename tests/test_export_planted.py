"""The export modules on a small corpus written by hand to show each case (Cursor CLI
stream-json captures: three files, ten records, six record classes), surveyed once. Every
expected figure is read from the records as written here, with plain Python, never from the
export modules: required keys, closed objects, types, strata and discriminators of the
derived schema; validation's counts and failure places for records planted after the survey;
each fixture predicate's matches and the scrubbed record; each finding of a hand-written
schema held against the census."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from survey.corpus.privacy import load_salt
from survey.runtimes import get

from .export_util import survey_root
from .test_privacy import leaks

RT = "cursor_stream"
CANARIES = ["cnry0000aaaa1111z", "cnry0000aaaa2222z", "cnry0000aaaa3333z", "cnry0000aaaa4444z"]
DAY = 86_400 * 10**9
T0 = 1_760_000_000 * 10**9  # 2025-10-09 UTC


def init(s: str, m: str) -> dict:
    return {"type": "system", "subtype": "init", "session_id": s, "model": m, "cwd": "/home/" + CANARIES[0]}


def user(s: str, t: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": t}]}, "session_id": s}


def started(s: str, c: str, cmd: str) -> dict:
    return {"type": "tool_call", "subtype": "started", "call_id": c, "session_id": s,
            "tool_call": {"shellToolCall": {"args": {"command": cmd}}}}


def completed(s: str, c: str, out: str, code: int) -> dict:
    return {"type": "tool_call", "subtype": "completed", "call_id": c, "session_id": s,
            "tool_call": {"shellToolCall": {"args": {"command": "ls"}, "result": {"success": {"stdout": out, "exitCode": code}}}}}


FILES: dict[str, list[dict]] = {
    "a.jsonl": [init("S1", "gpt-5"), user("S1", "hello " + CANARIES[1]), started("S1", "c1", "ls"),
                completed("S1", "c1", CANARIES[2], 0),
                {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "session_id": "S1",
                 "duration_ms": 12}],
    "b.jsonl": [init("S2", "sonnet"), user("S2", "again"), started("S2", "c2", "pwd"),
                {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
                 "session_id": "S2"}],
    "c.jsonl": [{"type": "result", "subtype": "success", "is_error": True, "result": 7, "session_id": "S3"}],
}
MTIME = {"a.jsonl": T0, "b.jsonl": T0 + 40 * DAY, "c.jsonl": T0 + 80 * DAY}  # October, November, December


def rclass(r: dict) -> str:
    return "/".join(r[k] for k in ("type", "subtype") if k in r)


def records() -> list[tuple[str, dict]]:
    return [(f, r) for f, rs in sorted(FILES.items()) for r in rs]


def stratum(name: str) -> str:
    return dt.datetime.fromtimestamp(MTIME[name] / 1e9, dt.UTC).strftime("%Y-%m")


def jtype(v: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object",
            type(None): "null"}[type(v)]


def write_corpus(root: Path, extra: dict[str, list[bytes]] | None = None) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, recs in FILES.items():
        p = root / name
        p.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in recs) + b"".join((extra or {}).get(name, [])))
        os.utime(p, ns=(MTIME[name], MTIME[name]))


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("planted")
    write_corpus(base / "corpus")
    return base / "corpus", survey_root(RT, base / "corpus", base)


@pytest.fixture(scope="module")
def schema(planted: tuple[Path, Path]) -> dict:
    from survey.export.schema import derive

    return derive(planted[1])


# -- schema ----------------------------------------------------------------------------------

def test_each_class_has_its_required_keys_types_counts_and_discriminator(schema: dict) -> None:
    by: dict[str, list[tuple[str, dict]]] = {}
    for f, r in records():
        by.setdefault(rclass(r), []).append((f, r))
    assert sorted(schema["$defs"]) == sorted(by)
    for rc, fr in by.items():
        d = schema["$defs"][rc]
        objs = [r for _f, r in fr]
        assert d["type"] == "object"
        assert d["required"] == sorted(set.intersection(*(set(o) for o in objs))), rc
        union = set().union(*(set(o) for o in objs))
        assert {k for k, v in d["properties"].items() if v is not False} == union, rc
        assert {k for k, v in d["properties"].items() if v is False} == {"type", "subtype"} - union, rc
        o = d["x-observed"]
        assert (o["occurrences"], o["files"]) == (len(objs), len({f for f, _r in fr})), rc
        assert (o["first_stratum"], o["last_stratum"]) == (min(stratum(f) for f, _r in fr), max(stratum(f) for f, _r in fr))
        want = {f"$.{k}": objs[0][k] for k in ("type", "subtype") if k in objs[0]}
        assert d["x-discriminator"] == want, rc
        for k in want:
            assert d["properties"][k[2:]]["const"] == want[k]
        for k in union:  # one JSON type, or the sorted list of them, with counts where several
            types = Counter(jtype(x[k]) for x in objs if k in x)
            p = d["properties"][k]
            assert p["type"] == (next(iter(types)) if len(types) == 1 else sorted(types)), (rc, k)
            assert p["x-observed"].get("by_type") == (dict(sorted(types.items())) if len(types) > 1 else None)
            assert p["x-observed"]["occurrences"] == sum(types.values())
            assert p["x-observed"]["files"] == len({f for f, x in fr if k in x})


def test_an_object_is_closed_only_where_two_files_show_every_key(schema: dict) -> None:
    by: dict[str, dict[str, set[str]]] = {}
    for f, r in records():
        by.setdefault(rclass(r), {}).setdefault(f, set()).update(r)
    for rc, per_file in by.items():
        every = set().union(*per_file.values())
        closed = len(per_file) >= 2 and all(ks == every for ks in per_file.values())
        assert (schema["$defs"][rc].get("additionalProperties") is False) == closed, rc
    assert schema["$defs"]["system/init"]["additionalProperties"] is False  # the planted cases, both ways
    assert "additionalProperties" not in schema["$defs"]["result/success"]  # c.jsonl lacks duration_ms
    assert "additionalProperties" not in schema["$defs"]["assistant"]  # one file only
    msg = schema["$defs"]["user"]["properties"]["message"]
    assert msg["required"] == ["content", "role"] and msg["additionalProperties"] is False
    items = msg["properties"]["content"]["items"]
    assert items["properties"]["type"]["const"] == "text" and items["required"] == ["text", "type"]
    nested = schema["$defs"]["tool_call/completed"]["properties"]["tool_call"]["properties"]["shellToolCall"]
    assert nested["required"] == ["args", "result"]
    assert nested["properties"]["result"]["properties"]["success"]["properties"]["exitCode"]["type"] == "number"


def test_enum_only_at_reviewed_vocabulary_paths(schema: dict) -> None:
    types = sorted({r["type"] for _f, r in records()})
    subtypes = sorted({r["subtype"] for _f, r in records() if "subtype" in r})
    for rc, d in schema["$defs"].items():
        assert d["properties"]["type"]["enum"] == types, rc
        if d["properties"].get("subtype"):
            assert d["properties"]["subtype"]["enum"] == subtypes
        assert "enum" not in d["properties"]["session_id"]  # not a vocabulary path
    assert "$.session_id" not in get(RT).vocab_paths and "$.type" in get(RT).vocab_paths


def test_root_lists_every_class_by_an_escaped_ref_and_counts_the_corpus(schema: dict, planted: tuple[Path, Path]) -> None:
    from urllib.parse import quote

    classes = sorted({rclass(r) for _f, r in records()})
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["x-discriminated"] is True and "anyOf" not in schema
    assert [x["$ref"] for x in schema["oneOf"]] == [
        "#/$defs/" + quote(c.replace("~", "~0").replace("/", "~1"), safe="~") for c in classes]
    assert "#/$defs/tool_call~1started" in [x["$ref"] for x in schema["oneOf"]]
    o = schema["x-observed"]
    assert (o["runtime"], o["files"], o["walked_files"], o["records"], o["classes"]) == (
        RT, len(FILES), len(FILES), sum(map(len, FILES.values())), len(classes))
    assert o["client_versions"] == "not recorded" and o["snapshot"] == "2026-01-01"
    manifest = json.loads((planted[1] / "manifest.json").read_text())
    assert [o[k] for k in ("sample", "fingerprint", "snapshot_schema")] == [
        manifest[k] for k in ("sample", "fingerprint", "snapshot_schema")]
    assert str(planted[1]) in o["command"] and o["query"].endswith("schema_nodes.sql")
    assert schema["title"].startswith(get(RT).title)


def test_every_planted_record_validates_and_a_wrong_one_does_not(schema: dict) -> None:
    import jsonschema_rs

    v = jsonschema_rs.validator_for(schema)
    for f, r in records():
        assert v.is_valid(r), (f, r)
    bad = [{**FILES["a.jsonl"][0], "extra": 1}, {**FILES["c.jsonl"][0], "is_error": "no"},
           {**FILES["a.jsonl"][1], "subtype": "init"}, {k: v for k, v in FILES["a.jsonl"][0].items() if k != "cwd"}]
    assert [v.is_valid(b) for b in bad] == [False] * len(bad)


def test_version_order_pointer_count_and_latest(tmp_path: Path, schema: dict, planted: tuple[Path, Path]) -> None:
    from survey.export.schema import (
        count_properties,
        derive,
        dumps,
        latest,
        pointer,
        version_key,
        write_schema,
    )

    got = sorted(["2.1.20", "2.1.2", "10.0.0", "1.0.111", "2.0.0", "2.1.2-beta", "2.1.3"], key=version_key)
    assert got == ["1.0.111", "2.0.0", "2.1.2", "2.1.2-beta", "2.1.3", "2.1.20", "10.0.0"]
    assert pointer("a~b/c") == "a~0b~1c"
    # a snapshot without its census: the same classes and types, and no value named (none is known)
    import shutil

    bare = tmp_path / "bare" / RT
    shutil.copytree(planted[1], bare, ignore=shutil.ignore_patterns("census.json"))
    assert not (bare / "census.json").exists()
    no_values = derive(bare)
    assert sorted(no_values["$defs"]) == sorted(schema["$defs"])
    assert not nodes_with(no_values["$defs"], "enum")
    assert nodes_with(schema["$defs"], "enum")

    def props(x: Any) -> int:
        if isinstance(x, dict):
            return sum(props(v) for v in x.values()) + (len(x["properties"]) if isinstance(x.get("properties"), dict) else 0)
        return sum(props(v) for v in x) if isinstance(x, list) else 0

    assert count_properties(schema) == props(schema) > 0
    summary = write_schema(planted[1], tmp_path / "reports")
    out = tmp_path / "reports" / f"{RT}.schema.json"
    assert out.read_bytes() == dumps(schema) and summary["schema"] == str(out)
    assert summary["classes"] == sorted(schema["$defs"]) and summary["discriminated"] is True
    assert summary["properties"] == props(schema)
    assert [p.name for p in out.parent.iterdir()] == [out.name]  # no temporary file left
    # the newest snapshot by folder name; none at all is a clear error naming the runtime
    base = tmp_path / "snaps"
    for d in ("2026-01-01", "2026-02-01", "2025-12-31"):
        (base / d / RT).mkdir(parents=True)
        (base / d / RT / "manifest.json").write_text("{}")
    (base / "2026-03-01" / "codex").mkdir(parents=True)
    (base / "2026-03-01" / "codex" / "manifest.json").write_text("{}")
    (base / "2026-04-01" / RT).mkdir(parents=True)  # no manifest: not a snapshot
    assert latest(base, RT) == base / "2026-02-01" / RT
    for where in (tmp_path / "none", base / "2026-04-01"):
        with pytest.raises(FileNotFoundError, match=f"no snapshot of {RT} under"):
            latest(where, RT)


# -- validate --------------------------------------------------------------------------------

PLANTED_BAD = {
    # closed system/init with a reviewed key it never had; a 10-element content of wrong types
    "b.jsonl": [orjson.dumps({**init("S2", "sonnet"), "permissionMode": "default"}) + b"\n",
                orjson.dumps({"type": "user", "session_id": "S2", "message": {
                    "role": "user", "content": [{"type": "text", "text": n} for n in range(10)]}}) + b"\n",
                b"not json at all\n", b"[1, 2]\n"],
    # a reviewed class with a value of a type never seen; a class never seen, by a private value
    "c.jsonl": [orjson.dumps({**FILES["c.jsonl"][0], "is_error": "no"}) + b"\n",
                orjson.dumps({"type": CANARIES[3], "session_id": "S3"}) + b"\n"],
}


@pytest.fixture(scope="module")
def validated(planted: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, Path]:
    """The planted snapshot, its corpus grown after the survey by records it never saw."""
    from survey.export.validate import validate

    _root, snap = planted
    root = tmp_path_factory.mktemp("grown") / "corpus"
    write_corpus(root, PLANTED_BAD)
    return validate(snap, root, load_salt()), root, snap


def test_validation_counts_every_record_and_each_failure_by_place(validated: tuple[dict, Path, Path]) -> None:
    got, _root, snap = validated
    good = sum(map(len, FILES.values()))
    parsed = good + 4  # two lines of PLANTED_BAD do not parse as objects
    assert (got["files"], got["records"], got["valid"], got["invalid"]) == (len(FILES), parsed, good, 4)
    assert got["claim"] == f"{good:,} of {parsed:,} records validate against the derived schema"
    assert got["unread"] == {"frame:malformed": 1, "frame:not_object": 1}
    assert got["unseen_classes"] == {"<withheld>": 1}
    assert got["by_class"]["system/init"] == {"records": 3, "valid": 2}
    assert got["by_class"]["user"] == {"records": 3, "valid": 2}
    assert got["by_class"]["result/success"] == {"records": 3, "valid": 2}
    assert got["by_class"]["<withheld>"] == {"records": 1, "valid": 0}
    fails = {(f["class"], f["keyword"], f["at"]): (f["schema_path"], f["records"], f["files"]) for f in got["failures"]}
    assert fails[("system/init", "AdditionalProperties", "$")] == ("/$defs/system~1init/additionalProperties", 1, 1)
    assert fails[("result/success", "Type", "$.is_error")] == ("/$defs/result~1success/properties/is_error/type", 1, 1)
    assert fails[("<withheld>", "UnseenClass", "$")] == ("(record class not in the schema)", 1, 1)
    # ten wrong elements, counted up to the cap per record
    assert fails[("user", "Type", "$.message.content[].text")][1:] == (8, 1)
    assert len(fails) == 4
    assert [f["records"] for f in got["failures"]] == sorted((f["records"] for f in got["failures"]), reverse=True)
    n = sum(len(b) for b in PLANTED_BAD["b.jsonl"] + PLANTED_BAD["c.jsonl"]) - len(b"not json at all\n[1, 2]\n")
    assert got["bytes"] == sum(len(json.dumps(r)) for _f, r in records()) + n - 4  # each line without its LF
    side = snap.parent / f"{snap.name}.validation.json"
    assert got["written"] == str(side)
    written = {k: v for k, v in got.items() if k != "written"}
    assert side.read_bytes() == orjson.dumps(written, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    assert all(round(got[k], 3) == got[k] >= 0 for k in ("seconds", "validate_seconds"))
    assert not list(snap.parent.glob(".*.tmp"))
    assert got["root_matches_snapshot"] is False  # another root than the one surveyed
    assert got["command"] == f'survey validate {snap} --root "$ROOT" --json'
    assert got["scope"].startswith(f"{len(FILES)} files on the walked surfaces")
    assert not leaks(CANARIES, json.dumps(got))


def test_validation_of_the_surveyed_root_with_a_given_schema(planted: tuple[Path, Path], schema: dict) -> None:
    from survey.export.validate import load, schema_sha, validate

    root, snap = planted
    side = snap.parent / f"{snap.name}.validation.json"
    before = side.read_bytes() if side.exists() else None
    narrow = {**schema, "$defs": {**schema["$defs"], "assistant": {**schema["$defs"]["assistant"], "required": ["absent"]}}}
    got = validate(snap, root, load_salt(), schema=narrow, write=False)
    assert got["schema_sha256"] == schema_sha(narrow) != schema_sha(schema)
    assert got["root_matches_snapshot"] is True
    assert (got["records"], got["invalid"]) == (sum(map(len, FILES.values())), 1)
    assert [(f["class"], f["keyword"]) for f in got["failures"]] == [("assistant", "Required")]
    assert "written" not in got and (side.read_bytes() if side.exists() else None) == before
    assert load(snap) == (json.loads(before) if before else None)


def test_gated_paths_mask_what_the_gate_masks() -> None:
    from survey.export.validate import Classifier

    c = Classifier(get(RT), load_salt())
    assert c.gated_path(["message", "content", 3, "text"]) == "$.message.content[].text"
    assert c.gated_path([CANARIES[0], 0]) == "$.<unreviewed-key>[]"
    assert c.rclass({"type": "tool_call", "subtype": "started"}) == "tool_call/started"
    assert c.rclass({"type": "user"}) == "user"
    assert c.rclass({"type": CANARIES[0]}) == "<withheld>"
    assert c.rclass({"type": 3}) == "<withheld>"
    assert (c.rclass([1]), c.rclass("x"), c.rclass({})) == ("<array>", "<str>", "<none>")


# -- fixtures --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fixtures(planted: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    from survey.export.fixtures import make_fixtures

    root, _snap = planted
    out = tmp_path_factory.mktemp("fixtures")
    (out / "MANIFEST.json").write_text(json.dumps({"runtimes": {"other": {"kept": True}}}))
    (out / RT).mkdir()
    (out / RT / "stale.jsonl").write_text("{}\n")
    return make_fixtures(get(RT), root, load_salt(), out), out


def test_every_predicate_counts_its_planted_matches(fixtures: tuple[dict, Path]) -> None:
    got, out = fixtures
    recs = [r for _f, r in records()]

    def cls(t: str, s: str | None = None) -> int:
        return sum(r["type"] == t and (s is None or r.get("subtype") == s) for r in recs)

    unanswered = sum(bool({r["call_id"] for r in rs if rclass(r) == "tool_call/started"}
                          - {r["call_id"] for r in rs if rclass(r) == "tool_call/completed"}) for rs in FILES.values())
    want = {"system_init": cls("system", "init"), "user": cls("user"), "assistant": cls("assistant"),
            "assistant_with_model_call_id": 0, "thinking_delta": 0, "thinking_completed": 0,
            "tool_call_started": cls("tool_call", "started"), "tool_call_completed": cls("tool_call", "completed"),
            "result_success": cls("result", "success"),
            "result_error": sum(r["type"] == "result" and r.get("is_error") is True for r in recs),
            "connection_event": 0, "retry_event": 0,
            "no_result": sum(not any(r["type"] == "result" for r in rs) for rs in FILES.values()),
            "call_never_completed": unanswered, "block_over_30kb": 0}
    m = {e["predicate"]: e for e in got["predicates"]}
    assert {k: m[k]["matches"] for k in want} == want
    assert (want["no_result"], want["call_never_completed"], want["result_error"]) == (1, 1, 1)
    classes = Counter(rclass(r) for r in recs)
    assert {k[6:]: e["matches"] for k, e in m.items() if k.startswith("class:")} == classes
    assert got["not_observed"] == [k for k, n in want.items() if not n]
    assert (got["files"], got["records"], got["unread"]) == (len(FILES), len(recs), {})
    for k, e in m.items():
        assert e["status"] == ("written" if e["matches"] else "not observed"), k
        assert ("fixture" in e) == bool(e["matches"])
    written = {p.name for p in (out / RT).iterdir()}
    assert written == {Path(e["fixture"]).name for e in m.values() if e["matches"]}
    assert "class_tool_call_started.jsonl" in written and "stale.jsonl" not in written
    assert m["no_result"]["scope"] == "file" and m["user"]["scope"] == "record"
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["runtimes"]["other"] == {"kept": True}
    assert manifest["runtimes"][RT]["predicates"] == got["predicates"]
    assert got["manifest"] == str(out / "MANIFEST.json") and got["out"] == str(out / RT)


def test_a_fixture_is_its_record_scrubbed(fixtures: tuple[dict, Path]) -> None:
    from survey.export.fixtures import fixture_records, length_class

    got, out = fixtures
    m = {e["predicate"]: e for e in got["predicates"]}
    (fx,) = fixture_records(out / m["tool_call_completed"]["fixture"])
    src = FILES["a.jsonl"][3]
    assert m["tool_call_completed"]["source"]["record"] == 3 and m["tool_call_completed"]["records"] == 1
    assert (fx["type"], fx["subtype"]) == (src["type"], src["subtype"])  # reviewed vocabulary kept
    assert list(fx) == list(src)  # keys and their order kept
    sh = fx["tool_call"]["shellToolCall"]
    assert sh["result"]["success"]["exitCode"] == 0  # numbers kept
    out_s = sh["result"]["success"]["stdout"]
    assert out_s != src["tool_call"]["shellToolCall"]["result"]["success"]["stdout"]
    assert len(out_s) == length_class(len(CANARIES[2])) == 32
    assert fx["call_id"] != "c1" and len(fx["call_id"]) == 2
    # a whole file: one placeholder per distinct string, so the call id still joins
    (e,) = [e for e in got["predicates"] if e["predicate"] == "call_never_completed"]
    recs = fixture_records(out / e["fixture"])
    assert e["records"] == len(recs) == len(FILES["b.jsonl"]) and e["scope"] == "file" and "record" not in e["source"]
    assert len({r["session_id"] for r in recs}) == 1 and recs[0]["session_id"] != "S2"
    assert recs[0]["model"] != "sonnet"  # not reviewed vocabulary: scrubbed
    text = "".join(p.read_text() for p in out.rglob("*.json*"))
    assert not leaks(CANARIES, text)
    for f, r in records():  # no content string survives anywhere
        for s in ("hello", "again", "/home/", "pwd"):
            assert s not in text, (f, r, s)


def test_scrubber_keys_maps_and_json_carriers() -> None:
    from survey.export.fixtures import Scrubber
    from survey.export.validate import Classifier

    sc = Scrubber(Classifier(get(RT), load_salt()))
    assert "$.tool_call.grepToolCall.result.success.workspaceResults" in get(RT).dict_paths
    rec = {"type": "tool_call", "tool_call": {"grepToolCall": {"result": {"success": {"workspaceResults": {
        "/a/" + CANARIES[0]: {"x": 1}, "/b": {"x": 2}}}}}}, "my key": "v", "cnryX": {"type": "v"}}
    got = sc.record(rec)
    wr = got["tool_call"]["grepToolCall"]["result"]["success"]["workspaceResults"]
    # data keys become placeholders depth first, one per distinct key (inside a map too)
    assert wr == {"1-key": {"2-key": 1}, "3-key": {"2-key": 2}}
    # keys the gate masks: a non-identifier one as <dynamic-key>, an unreviewed one as <unreviewed-key>
    assert list(got) == ["type", "tool_call", "4-key", "key_5_x"]
    assert got["4-key"] == "s1" and got["key_5_x"] == {"type": "s1"}  # one string, one placeholder
    cp = Scrubber(Classifier(get("codex"), load_salt()))
    inner = {"cmd": ["ls", CANARIES[1]], "timeout_ms": 3}
    out = cp.record({"payload": {"arguments": json.dumps(inner), "name": "x"}})
    decoded = json.loads(out["payload"]["arguments"])
    # scrubbed inside (as the walk keys it: the decoded arguments are data-keyed) and encoded again
    assert sorted(decoded.values(), key=str) == [3, ["s1", "s2" + "x" * 30]] and len(decoded) == 2
    cp = Scrubber(Classifier(get("codex"), load_salt()))  # one scrubber per fixture: numbering starts again
    assert cp.record({"payload": {"arguments": "{not json"}})["payload"]["arguments"] == "s1" + "x" * 14
    assert cp.record({"payload": {"arguments": ""}})["payload"]["arguments"] == ""
    assert cp.record({"payload": {"arguments": "plain"}})["payload"]["arguments"] == "s3xxxxxx"  # the third string


# -- audit -----------------------------------------------------------------------------------

HAND = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "allOf": [{"$ref": "#/$defs/a~1b"}, {"$ref": "#/$defs/u%20v"}, {"$ref": "#/$defs/loop"}, {"$ref": "other.json#/x"},
              {"$ref": "#/$defs/missing"},  # a ref outside the file, and one to nothing: followed nowhere
              {"properties": {"tool_call": {"const": {"shellToolCall": {}}}}}],  # an object by its const
    "if": {"properties": {"ifonly": {"type": "string"}}},
    "then": {"properties": {"thenkey": {"type": "string"}}},
    "properties": {
        "type": {"enum": ["system", "user", "tool_call", "result", "assistant", "retry"]},
        "subtype": {"type": "string"}, "model": {"type": "string"},
        "session_id": {"type": ["string", "null"], "enum": ["S1"]},  # values are not known here: not judged
        "call_id": {"type": "string"}, "is_error": {"type": "boolean"}, "result": {"type": "string"},
        "duration_ms": {"type": "integer"}, "never": False,
        "tool_call": {"type": "object", "properties": {"shellToolCall": {"type": "object"}}},
        "message": {"type": "object", "properties": {
            "role": {"const": "user"},
            "content": {"type": "array", "items": {"oneOf": [{"properties": {"type": {"const": "image"}}}]},
                        "prefixItems": [{"properties": {"type": {"enum": ["video"]}}}]}}},
    },
    "$defs": {"a/b": {"properties": {"usage": {"type": "object"}}}, "u v": {"properties": {"spaced": {}}},
              "loop": {"$ref": "#/$defs/loop"}},
}


def test_audit(planted: tuple[Path, Path], schema: dict) -> None:
    from survey.export.audit import audit, iter_lines

    _root, snap = planted
    recs = [r for _f, r in records()]
    got = audit(HAND, snap)
    texts = [b for r in recs for b in (r.get("message") or {}).get("content", [])]
    results = Counter(jtype(r["result"]) for r in recs if "result" in r)
    assert results == {"string": 1, "number": 1}
    want = [
        ("never_observed", "$.message.content[type=image]", None), ("never_observed", "$.message.content[type=image].type", None),
        ("never_observed", "$.message.content[type=video]", None), ("never_observed", "$.message.content[type=video].type", None),
        ("never_observed", "$.spaced", None), ("never_observed", "$.thenkey", None), ("never_observed", "$.usage", None),
        ("type_never_observed", "$.session_id", "null"),
        ("value_never_observed", "$.type", "retry"),  # every other value documented is seen
        ("missing_key", "$.cwd", None),  # the closed root does not name it
        ("missing_type", "$.result", "number"),
        ("missing_element", "$.message.content[type=text]", None),
    ]
    assert [(f["kind"], f["path"], f.get("type", f.get("value"))) for f in got["findings"]] == want
    by = {(f["kind"], f["path"]): f for f in got["findings"]}
    assert by[("missing_key", "$.cwd")]["evidence"] == {"occurrences": sum("cwd" in r for r in recs)}
    assert by[("missing_key", "$.cwd")]["masked"] is False
    assert by[("missing_type", "$.result")]["evidence"] == {"occurrences": results["number"], "files": 1}
    assert by[("missing_element", "$.message.content[type=text]")]["evidence"] == {"occurrences": len(texts)}
    assert by[("type_never_observed", "$.session_id")]["evidence"] == {"observed_types": {"string": len(recs)}}
    assert by[("value_never_observed", "$.type")]["evidence"] == {"observed_values": sorted({r["type"] for r in recs})}
    assert by[("never_observed", "$.usage")]["schema_at"] == ["#/$defs/a~1b/properties/usage"]
    assert by[("never_observed", "$.usage")]["evidence"] == {"occurrences": 0, "files": 0}
    for f in got["findings"]:
        assert f["command"].startswith("duckdb -c \"") and str(snap) in f["command"]
    cmd = by[("never_observed", "$.usage")]["command"]
    sql = subprocess.run(["bash", "-c", "printf %s " + cmd.removeprefix("duckdb -c ")], capture_output=True, text=True,
                         check=True).stdout  # what bash hands DuckDB
    assert f"regexp_matches(path, '^{re.escape('$.usage')}$')" in sql and str(snap) + "/walk/nodes.parquet" in sql
    assert got["counts"] == dict(Counter(k for k, _p, _x in want)) and got["ok"] is False
    assert (got["runtime"], got["snapshot"], got["not_judged_under_opaque_or_map"]) == (RT, str(snap), 0)
    # "$", usage, spaced, thenkey, the ten properties but "never", shellToolCall, role, content, image, video, their type
    assert got["documented_paths"] == 1 + 3 + 10 + 1 + 2 + 4
    lines = list(iter_lines(got))
    assert len(lines) == len(want)
    assert "$.cwd: observed key the schema does not name {\"occurrences\":2}" in lines
    assert "$.type: value 'retry' allowed, never observed {\"observed_values\":" + json.dumps(
        sorted({r["type"] for r in recs}), separators=(",", ":")) + "}" in lines
    assert any(ln.startswith("$.result: observed type number the schema does not allow") for ln in lines)
    # a snapshot under a folder whose name a shell would expand: the command still names it
    import shutil

    odd_base = snap.parents[2].with_name(snap.parents[2].name + "-$HOME")
    if not odd_base.exists():
        shutil.copytree(snap, odd_base / snap.relative_to(snap.parents[2]))
    moved = odd_base / snap.relative_to(snap.parents[2])
    f = next(x for x in audit(HAND, moved)["findings"] if x["path"] == "$.usage")
    sql = subprocess.run(["bash", "-c", "printf %s " + f["command"].removeprefix("duckdb -c ")], capture_output=True,
                         text=True, check=True).stdout
    assert f"read_parquet('{moved}/walk/nodes.parquet')" in sql
    clean = audit(schema, snap)  # the schema derived from the same snapshot: nothing to say
    assert clean["findings"] == [] and clean["ok"] is True and clean["counts"] == {}


# -- the odd cases: classes the gate withholds, no class at all, an empty object, depth ------

DEEP: Any = "leaf"
for _ in range(16):  # deeper than the walk's limit (the profile's max_depth)
    DEEP = [DEEP]
ODD: dict[str, list[dict]] = {
    "x.jsonl": [{"type": CANARIES[0], "subtype": "init", "session_id": "S4"}, {"type": CANARIES[1]},
                {"session_id": "S6"}, {"type": "system", "subtype": "init", "session_id": "S5", "args": {}, "result": DEEP,
                 CANARIES[2]: 1}],  # a key the gate masks
    "y.jsonl": [{"type": CANARIES[0], "subtype": "init", "session_id": "S7"}, {"subtype": CANARIES[1]}],
}


@pytest.fixture(scope="module")
def odd(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    from survey.export.schema import derive

    base = tmp_path_factory.mktemp("odd")
    root = base / "corpus"
    root.mkdir()
    for i, (name, recs) in enumerate(sorted(ODD.items())):
        (root / name).write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in recs))
        os.utime(root / name, ns=(T0 + i * DAY, T0 + i * DAY))
    snap = survey_root(RT, root, base)
    return root, snap, derive(snap)


def test_withheld_absent_and_undiscriminated_classes(odd: tuple[Path, Path, dict]) -> None:
    _root, _snap, s = odd
    assert get(RT).max_depth < 16
    # a class name the gate withholds: "<withheld>/init", two records in two files with one key set
    d = s["$defs"]["<withheld>/init"]
    assert d["x-discriminator"] == {"$.type": "<withheld>", "$.subtype": "init"}
    assert d["properties"]["type"]["not"] == {"enum": ["system"]}  # any type but the reviewed ones seen
    assert d["properties"]["subtype"]["const"] == "init" and d["additionalProperties"] is False
    assert d["required"] == ["session_id", "subtype", "type"] and d["x-observed"]["files"] == 2
    # "<withheld>": one record has a type, the other a subtype; neither path is in every record
    assert s["$defs"]["<withheld>"]["x-discriminator"] == {}
    assert "required" not in s["$defs"]["<withheld>"]  # no key in both
    # no class-making key at all
    none = s["$defs"]["<none>"]
    assert none["properties"]["type"] is False and none["properties"]["subtype"] is False
    assert none["x-discriminator"] == {"$.type": "(absent)", "$.subtype": "(absent)"}
    # one class without discriminator: the root says so, and takes any branch
    assert s["x-discriminated"] is False and "oneOf" not in s
    assert [x["$ref"] for x in s["anyOf"]] == ["#/$defs/%3Cnone%3E", "#/$defs/%3Cwithheld%3E",
                                               "#/$defs/%3Cwithheld%3E~1init", "#/$defs/system~1init"]
    # an object never seen with a key: typed, neither closed nor given properties
    sysd = s["$defs"]["system/init"]
    assert sysd["properties"]["args"] == {"type": "object", "x-observed": sysd["properties"]["args"]["x-observed"]}
    assert "additionalProperties" not in sysd  # one file
    # depth beyond the walk's limit: an array of arrays, then a node whose type was not seen
    node, depth = sysd["properties"]["result"], 0
    while "items" in node:
        node, depth = node["items"], depth + 1
    assert "type" not in node and node["x-observed"]["below_depth_limit"] == 1
    assert 0 < depth < 16


def test_odd_records_validate_and_audit_clean(odd: tuple[Path, Path, dict]) -> None:
    import jsonschema_rs

    from survey.export.audit import audit

    _root, snap, s = odd
    v = jsonschema_rs.validator_for(s)
    for name, recs in ODD.items():
        for r in recs:
            assert v.is_valid(r), (name, r)
    got = audit(s, snap)
    assert got["findings"] == [] and got["ok"] is True
    from survey.export.validate import load

    assert load(snap) is None  # never validated: nothing beside it
    # a masked key is reported by its mask where the documenting object is closed, never where open;
    # values at a path where the gate withheld one are not judged
    keys = {k for rs in ODD.values() for r in rs for k in r} - {CANARIES[2]}
    hand = {"additionalProperties": False, "properties": {k: {} for k in sorted(keys)}}
    hand["properties"]["type"] = {"enum": ["never-seen"]}
    got = audit(hand, snap)
    assert [(f["kind"], f["path"], f["masked"], f["evidence"]) for f in got["findings"]] == [
        ("missing_key", "$.<unreviewed-key>", True, {"occurrences": 1})]
    assert audit({**hand, "additionalProperties": True}, snap)["findings"] == []


# -- the generated corpora: JSON-carrying strings and opaque objects -------------------------

def nodes_with(s: Any, key: str, out: list | None = None) -> list[dict]:
    out = [] if out is None else out
    if isinstance(s, dict):
        if key in s:
            out.append(s)
        for v in s.values():
            nodes_with(v, key, out)
    elif isinstance(s, list):
        for v in s:
            nodes_with(v, key, out)
    return out


def test_json_carried_in_a_string_is_described_inside(tmp_path_factory: pytest.TempPathFactory) -> None:
    from survey.export.schema import derive

    from .export_util import jsonl_records, survey

    _p, root, snap = survey("codex", tmp_path_factory.mktemp("codex"))
    assert get("codex").json_carriers == {"$.payload.arguments"}
    carried = 0
    for _f, _i, o in jsonl_records(root):
        a = (o.get("payload") or {}).get("arguments") if isinstance(o.get("payload"), dict) else None
        if isinstance(a, str):
            try:
                json.loads(a)
            except ValueError:
                continue
            carried += 1
    assert carried > 0
    got = nodes_with(derive(snap), "contentMediaType")
    assert got and {n["contentMediaType"] for n in got} == {"application/json"}
    assert sum(n["contentSchema"]["x-observed"]["occurrences"] for n in got) == carried


def test_an_opaque_object_is_typed_never_entered(tmp_path_factory: pytest.TempPathFactory) -> None:
    from survey.export.schema import derive

    from .export_util import jsonl_records, survey

    _p, root, snap = survey("cursor", tmp_path_factory.mktemp("cursor"))
    assert "$.message.content[type=tool_use].input.arguments" in get("cursor").opaque_paths
    held = sum(isinstance(b.get("input"), dict) and isinstance(b["input"].get("arguments"), dict)
               for _f, _i, o in jsonl_records(root) if isinstance(o.get("message"), dict)
               for b in o["message"].get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use")
    assert held > 0
    got = [n for n in nodes_with(derive(snap), "x-opaque") if n.get("type") == "object"]
    assert got and all("properties" not in n and "additionalProperties" not in n for n in got)
    assert sum(n["x-observed"]["occurrences"] for n in got) == held
    # a path documented under it is not judged (its keys were never described), and counted
    from survey.export.audit import audit

    inside = {"properties": {"arguments": {"properties": {"deep": {"type": "string"}}}}}
    hand = {"properties": {"message": {"properties": {"content": {"items": {
        "properties": {"type": {"const": "tool_use"}, "input": inside}}}}}}}
    got2 = audit(hand, snap)
    assert got2["not_judged_under_opaque_or_map"] == 1
    assert not [f for f in got2["findings"] if ".arguments" in f["path"]]
    assert {f["kind"] for f in got2["findings"]} <= {"missing_key", "missing_element"}
