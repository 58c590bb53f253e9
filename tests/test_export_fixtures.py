"""``survey fixtures``: one scrubbed real record or file per declared predicate. No canary
survives; the fixtures validate against the derived schema; surveying them gives the key sets
of the records they came from; joins still hold; every predicate is counted."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from typer.testing import CliRunner

from survey.census.walk import FileResult, Walker
from survey.cli import app
from survey.corpus.privacy import Gate, load_salt
from survey.export.fixtures import Scrubber, fixture_records, length_class, predicates
from survey.export.schema import derive
from survey.export.validate import Classifier, read_records, walked_files
from survey.runtimes import get
from survey.runtimes.base import load_vocab

from .export_util import RUNTIMES, jsonl_records, survey
from .test_privacy import leaks, written_text


class Made(dict):
    """Each runtime's canary-planted corpus, surveyed, and its fixtures made (CLI, --json), on
    first use: a run of one runtime's tests surveys that runtime alone."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.factory = factory

    def __missing__(self, rt: str) -> tuple[dict, Path, Path, dict, Path]:
        base = self.factory.mktemp(rt)
        planted, root, snap = survey(rt, base, seed=11, canaries=True)
        r = CliRunner().invoke(app, ["fixtures", "-r", rt, "--root", str(root), "--out", str(base / "fixtures"), "--json"])
        assert r.exit_code == 0, r.output
        got = self[rt] = (planted, root, snap, json.loads(r.output), base / "fixtures")
        return got


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return Made(tmp_path_factory)


def surveyed_keys(walker: Walker, rclass: str, objs: list[Any]) -> set[tuple]:
    """The (class, path, JSON type, key set) the walk writes for these records."""
    res = FileResult(file_id="f-0")
    for o in objs:
        walker.node(res, rclass, "$", o, 0, 0)
    return set(res.nodes)


def python_walker(rt: str) -> Walker:
    p = get(rt)
    keys, values = load_vocab(rt)
    return Walker(p, Gate(keys=keys, values=values, withheld_paths=p.withheld_paths), load_salt(), native=False)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_no_canary_in_fixtures(runtime: str, made: dict) -> None:
    planted, root, _snap, result, out = made[runtime]
    canaries = planted["canaries"]
    assert len(canaries) > 20
    assert not leaks(canaries, written_text(out) + json.dumps(result))
    corpus_text = written_text(root)
    assert sum(c in corpus_text for c in canaries) >= len(canaries) // 2  # (they are there to leak)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_every_predicate_is_counted(runtime: str, made: dict) -> None:
    _p, _root, _snap, _result, out = made[runtime]
    manifest = json.loads((out / "MANIFEST.json").read_text())["runtimes"][runtime]
    declared = [p.id for p in predicates(get(runtime))]
    assert declared, "the runtime declares fixture predicates"
    ids = [e["predicate"] for e in manifest["predicates"]]
    assert ids[:len(declared)] == declared and all(i.startswith("class:") for i in ids[len(declared):])
    for e in manifest["predicates"]:
        assert isinstance(e["matches"], int)
        if e["matches"]:
            assert e["status"] == "written" and (out / e["fixture"]).exists()
            assert (e["source"].get("file") or e["source"]["child"]).startswith("f-")
        else:
            assert e["status"] == "not observed" and "fixture" not in e
    assert manifest["not_observed"] == [e["predicate"] for e in manifest["predicates"] if not e["matches"]]
    assert any(e["matches"] for e in manifest["predicates"][:len(declared)])


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_fixtures_validate_and_keep_key_sets(runtime: str, made: dict) -> None:
    _p, root, snap, result, out = made[runtime]
    profile = get(runtime)
    validator = jsonschema_rs.validator_for(derive(snap))
    walker = python_walker(runtime)
    classify = Classifier(profile, load_salt())
    files = {f.file_id: f for f in walked_files(profile, root, load_salt())}

    def source(fid: str) -> list:
        return list(read_records(profile, classify, files[fid], Counter()))

    checked = 0
    for e in result["predicates"]:
        if not e["matches"]:
            continue
        path = out / e["fixture"]
        if path.is_dir():  # a child with its parent
            pairs = [(fixture_records(path / "child.jsonl"), source(e["source"]["child"])),
                     (fixture_records(path / "parent.jsonl"), source(e["source"]["parent"]))]
        elif e["scope"] == "record":
            pairs = [(fixture_records(path), [r for r in source(e["source"]["file"]) if r.line_no == e["source"]["record"]])]
        else:
            pairs = [(fixture_records(path), source(e["source"]["file"]))]
        for fx, src in pairs:
            assert len(fx) == len(src) > 0, e["predicate"]
            for f_obj, s_rec in zip(fx, src, strict=True):
                assert validator.is_valid(f_obj), e["predicate"]
                assert surveyed_keys(walker, s_rec.rclass, [f_obj]) == surveyed_keys(walker, s_rec.rclass, [s_rec.obj]), \
                    e["predicate"]
                if isinstance(f_obj, dict):  # key order kept where keys are reviewed
                    assert [k for k in f_obj if k in s_rec.obj] == [k for k in s_rec.obj if k in f_obj]
                checked += 1
    assert checked >= len([e for e in result["predicates"] if e["matches"]])


def test_cursor_counts_match_an_independent_reading(made: dict) -> None:
    _p, root, _snap, result, _out = made["cursor"]
    recs = [o for _f, _i, o in jsonl_records(root)]
    m = {e["predicate"]: e["matches"] for e in result["predicates"]}

    def calls(o: dict) -> list:
        c = (o.get("message") or {}).get("content")
        return [b for b in c if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(c, list) else []

    assert m["user_frame"] == sum(o.get("role") == "user" for o in recs)
    assert m["parallel_calls"] == sum(len(calls(o)) > 3 for o in recs) > 0
    assert m["string_input"] == sum(any(isinstance(b.get("input"), str) for b in calls(o)) for o in recs) > 0
    for status in ("success", "error", "aborted", "cancelled"):
        assert m[f"turn_ended_{status}"] == sum(o.get("type") == "turn_ended" and o.get("status") == status for o in recs)
    assert m["turn_ended_cancelled"] == 0 and "turn_ended_cancelled" in result["not_observed"]
    # a child whose parent transcript is there (<id>/<id>.jsonl, or the flat <id>.jsonl beside its folder)
    kids = list(root.rglob("subagents/*.jsonl"))
    with_parent = [k for k in kids if (k.parents[1] / f"{k.parents[1].name}.jsonl").exists()
                   or (k.parents[2] / f"{k.parents[1].name}.jsonl").exists()]
    assert m["subagent_with_parent"] == len(with_parent) > 0
    fam = next(e for e in result["predicates"] if e["predicate"] == "subagent_with_parent")
    assert fam["source"]["child_surface"] == "subagent"  # a subagents/ file, its parent a transcript beside it
    assert fam["source"]["parent_surface"] in ("transcript", "transcript_flat")


def test_claude_code_joins_survive_scrubbing(made: dict) -> None:
    _p, _root, _snap, result, out = made["claude_code"]
    e = {x["predicate"]: x for x in result["predicates"]}
    recs = fixture_records(out / e["call_and_result_joined"]["fixture"])
    blocks = [b for r in recs if isinstance((r.get("message") or {}).get("content"), list) for b in r["message"]["content"]]
    uses = {b["id"] for b in blocks if b.get("type") == "tool_use"}
    results = {b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"}
    assert uses & results  # a call id still answers to its result
    fam = out / e["subagent_with_parent"]["fixture"]
    parent, child = fixture_records(fam / "parent.jsonl"), fixture_records(fam / "child.jsonl")
    assert {r.get("sessionId") for r in child} & {r.get("sessionId") for r in parent} - {None}


def test_scrubber_placeholders() -> None:
    assert [length_class(n) for n in (0, 1, 2, 3, 5, 30_001)] == [0, 1, 2, 4, 8, 32_768]
    sc = Scrubber(Classifier(get("cursor"), load_salt()))
    rec = {"role": "user", "message": {"content": [{"type": "text", "text": "private words"}]},
           "cnry0000aaaabbbbz": {"-x": "same", "y": "same"}}
    got = sc.record(rec)
    assert got["role"] == "user" and got["message"]["content"][0]["type"] == "text"
    text = got["message"]["content"][0]["text"]
    assert text != "private words" and len(text) == 16
    (k,) = [k for k in got if k not in ("role", "message")]
    assert k != "cnry0000aaaabbbbz"
    inner = got[k]
    assert len(set(inner.values())) == 1 and "same" not in inner.values()  # one string, one placeholder
    assert "-x" not in inner and len(inner) == 2
