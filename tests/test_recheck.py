"""The independent re-check: like with like, reproducible, and private.

Each test surveys a corpus made by ``survey/synth`` (in ``tmp_path``) and computes what the
re-check must find with its own plain reading of the files (``json`` per line, classes
named against the runtime's ``vocab.json`` read here), never with the survey's code.

- Like with like: by default every file the snapshot walked is re-read and totals compare
  exactly; a sample compares records per class with the snapshot's per-file rows of the
  same files and other figures as bounds. A correct claim never disagrees under any sample;
  a claim edited to a wrong figure (in a copy of the snapshot) always disagrees on the
  whole scope, and for records per class under every sample.
- A disagreement prints the command that reproduces it, and that command does.
- Exactness of each check: an exact key set is not a superset, keys are found at any depth,
  another root is named as such, a sampled snapshot is never compared with whole totals.
- Privacy: tokens planted as record types, subtypes, keys, values and path segments reach
  neither ``recheck.json``, nor the terminal (human or ``--json``), nor the page.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from survey.corpus.privacy import load_salt, pseudonym
from survey.evidence.recheck import NoRecheck, NotComparable, _has_key, recheck
from survey.runtimes import get
from survey.synth import claude_code as cc_synth
from survey.synth import codex as cx_synth
from survey.synth import cursor as cu_synth
from tests.kept_util import built_once

VOCAB_DIR = Path(__file__).resolve().parents[1] / "survey" / "runtimes"
CLASS_PATHS = {"claude_code": (("type",), ("subtype",)), "codex": (("type",), ("payload", "type")),
               "cursor": (("type",), ("role",))}
DATE = "2026-01-01"


# -- the test's own reading of a corpus ---------------------------------------------------------
def lines(path: Path) -> list[Any]:
    out = []
    with open(path, "rb") as fh:
        for raw in fh:
            with contextlib.suppress(ValueError):
                out.append(json.loads(raw))
    return out


def vocab_values(runtime: str) -> dict[str, set[str]]:
    data = json.loads((VOCAB_DIR / runtime / "vocab.json").read_text())
    return {p: set(v) for p, v in data.get("values", {}).items()}


def class_of(runtime: str, rec: dict) -> str:
    """A record's class: the values at the runtime's class paths, each as written when the
    reviewed vocabulary holds it at that path, else ``<withheld>``."""
    vocab = vocab_values(runtime)
    parts = []
    for path in CLASS_PATHS[runtime]:
        v: Any = rec
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        if v is not None:
            name = "$." + ".".join(path)
            parts.append(v if isinstance(v, str) and v in vocab.get(name, set()) else "<withheld>")
    return "/".join(parts) or "<none>"


def jsonl_files(runtime: str, root: Path) -> list[Path]:
    files = sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    if runtime == "codex":
        return [p for p in files if p.name.startswith("rollout-")]
    if runtime == "cursor":
        return [p for p in files if "agent-transcripts" in p.relative_to(root).parts]
    return files


def classes(runtime: str, files: list[Path]) -> dict[str, int]:
    out: Counter[str] = Counter()
    for f in files:
        for rec in lines(f):
            if isinstance(rec, dict):
                out[class_of(runtime, rec)] += 1
    return dict(sorted(out.items()))


def by_pseudonym(root: Path) -> dict[str, Path]:
    salt = load_salt()
    return {pseudonym(salt, p.relative_to(root).as_posix(), "f"): p for p in root.rglob("*") if p.is_file()}


def invoke(args: list[str]) -> Any:
    """``survey`` run in-process (the CLI is imported here, not when the module is: the
    mutation runner collects this file once per mutant)."""
    from typer.testing import CliRunner

    from survey.cli import app

    return CliRunner().invoke(app, args)


def survey(runtime: str, root: Path, base: Path, **kw: Any) -> Path:
    from survey.pipeline import run_survey

    res = run_survey(get(runtime), root, snapshots=base / "snapshots", reports=base / "reports", date=DATE,
                     cache=False, **kw)
    return Path(res.snapshot)


def copy_snapshot(snap: Path, base: Path) -> Path:
    """A copy of a snapshot in another snapshots folder (the original stays immutable)."""
    dst = base / "snapshots" / snap.parent.name / snap.name
    shutil.copytree(snap, dst)
    return dst


def edit_claim(snap: Path, cid: str, edit) -> None:  # type: ignore[no-untyped-def]
    p = snap / "claims.json"
    claims = json.loads(p.read_text())
    for c in claims:
        if c["id"] == cid:
            c["value"] = edit(c["value"])
    p.write_text(json.dumps(claims))


def verdicts(r: dict) -> dict[str, dict]:
    return {v["claim"]: v for v in r["verdicts"]}


# -- corpora ---------------------------------------------------------------------------------------
def surveyed_once(tag: str, factory: pytest.TempPathFactory, runtime: str, folder: str, generate,  # type: ignore[no-untyped-def]
                  sessions: int) -> tuple[Path, Path]:
    """A generated corpus (seed 11) and its snapshot, made once per mutation pass (tests/kept_util.py)."""
    def build(base: Path) -> tuple[Path, ...]:
        root = base / folder
        root.mkdir()
        generate(root, seed=11, sessions=sessions)
        return root, survey(runtime, root, base)

    root, snap = built_once(f"recheck-{tag}", factory, build)
    return root, snap


def planted_once(tag: str, factory: pytest.TempPathFactory, runtime: str, generate, seed: int,  # type: ignore[no-untyped-def]
                 sessions: int, plant=None, **kw: Any) -> tuple[Path, Path]:
    """A generated corpus, ``plant(root)`` written into it, and its snapshot, made once per
    mutation pass (tests/kept_util.py); a test changes only a copy of the root."""
    def build(base: Path) -> tuple[Path, ...]:
        root = base / "projects"
        root.mkdir()
        generate(root, seed=seed, sessions=sessions)
        if plant is not None:
            plant(root)
        return root, survey(runtime, root, base, **kw)

    root, snap = built_once(f"recheck-{tag}", factory, build)
    return root, snap


def copy_root(root: Path, base: Path) -> Path:
    """A copy of a corpus, each file's size and mtime kept: its files keep their pseudonyms
    (named by their path under the root) and stay "unchanged since the snapshot"."""
    dst = base / "copy" / root.name
    shutil.copytree(root, dst)
    return dst


@pytest.fixture(scope="module")
def cc(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return surveyed_once("cc", tmp_path_factory, "claude_code", "projects", cc_synth.generate, 8)


@pytest.fixture(scope="module")
def cx(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return surveyed_once("cx", tmp_path_factory, "codex", "sessions", cx_synth.generate, 10)


@pytest.fixture(scope="module")
def cu(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return surveyed_once("cu", tmp_path_factory, "cursor", "projects", cu_synth.generate, 10)


# -- like with like ----------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["cc", "cx"])
def test_the_whole_scope_is_the_default_and_compares_totals_exactly(which: str, request: pytest.FixtureRequest) -> None:
    root, snap = request.getfixturevalue(which)
    runtime = "claude_code" if which == "cc" else "codex"
    r = recheck(snap, root, salt=load_salt())
    v = verdicts(r)
    assert not r["disagreements"], r["verdicts"]
    assert r["sample"]["n"] is None and "files" not in r["sample"]
    assert v["record_classes"]["recheck_value"] == classes(runtime, jsonl_files(runtime, root))
    assert all(x["comparison"].startswith("exact: the same files") for x in r["verdicts"])
    n = len(jsonl_files(runtime, root))
    assert v["file_identity"]["scope"].startswith(f"{n} of the {n} ")
    assert r["matched_to_snapshot"] is True and r["root_matches_snapshot"] is True


@pytest.mark.parametrize("which", ["cc", "cx", "cu"])
def test_a_correct_claim_never_disagrees_under_sampling(which: str, request: pytest.FixtureRequest) -> None:
    root, snap = request.getfixturevalue(which)
    runtime = {"cc": "claude_code", "cx": "codex", "cu": "cursor"}[which]
    named = by_pseudonym(root)
    for n in (1, 2, 5):
        for seed in range(1, 5):
            r = recheck(snap, root, sample=n, seed=seed, salt=load_salt())
            assert not r["disagreements"], (n, seed, r["verdicts"])
            files = [named[f] for f in r["sample"]["files"]]
            assert len(files) == n
            v = verdicts(r)
            if "record_classes" in v:  # the same files' records, counted here
                assert v["record_classes"]["recheck_value"] == classes(runtime, files), (n, seed)
                assert v["record_classes"]["comparison"] == "exact: the snapshot's per-file rows of the same files"


def test_a_sample_of_one_sees_only_that_file(cc: tuple[Path, Path]) -> None:
    root, snap = cc
    named = by_pseudonym(root)
    kinds = set()
    for seed in range(1, 13):
        r = recheck(snap, root, sample=1, seed=seed, salt=load_salt())
        (f,) = [named[x] for x in r["sample"]["files"]]
        rel = f.relative_to(root).parts
        recs = [rec for rec in lines(f) if isinstance(rec, dict)]
        ids = {rec["sessionId"] for rec in recs if isinstance(rec.get("sessionId"), str)}
        parent = len(rel) == 2
        kid = len(rel) >= 4 and rel[2] == "subagents" and f.name.startswith("agent-")
        kinds.add("parent" if parent else "child" if kid else "other")
        want = [int(parent and ids == {f.stem}), int(parent), int(kid and ids == {rel[1]}), int(kid),
                int((parent or kid) and len(ids) > 1)]
        v = verdicts(r)
        assert v["file_identity"]["recheck_value"] == want, seed
        naive: float = 0
        last: dict[tuple, float] = {}
        for rec in recs if parent or kid else []:
            msg = rec.get("message")
            ot = (msg.get("usage") or {}).get("output_tokens") if isinstance(msg, dict) else None
            if isinstance(msg, dict) and isinstance(msg.get("id"), str) and type(ot) in (int, float):
                naive += ot
                k = (rec.get("sessionId"), msg["id"])
                last[k] = max(last.get(k, ot), ot)
        assert v["usage"]["recheck_value"] == {"naive_output_tokens": int(naive),
                                               "dedup_output_tokens": int(sum(last.values()))}, seed
    assert {"parent", "child"} <= kinds


@pytest.mark.parametrize("which,cid,edit", [
    ("cc", "record_classes", lambda v: {**v, "records": {**v["records"], "user": v["records"]["user"] + 1}}),
    ("cc", "record_classes", lambda v: {**v, "records": {k: n for k, n in v["records"].items() if k != "assistant"}}),
    ("cx", "record_classes", lambda v: {**v, "records": {**v["records"], "session_meta": v["records"]["session_meta"] - 1}}),
])
def test_a_wrong_count_per_class_always_disagrees(which: str, cid: str, edit, request: pytest.FixtureRequest,  # type: ignore[no-untyped-def]
                                                  tmp_path: Path) -> None:
    root, snap = request.getfixturevalue(which)
    bad = copy_snapshot(snap, tmp_path)
    edit_claim(bad, cid, edit)
    salt = load_salt()
    assert cid in recheck(bad, root, salt=salt)["disagreements"]
    for n in (1, 3):
        for seed in range(1, 5):
            assert cid in recheck(bad, root, sample=n, seed=seed, salt=salt)["disagreements"], (n, seed)


@pytest.mark.parametrize("which,cid,edit", [
    ("cc", "file_identity", lambda v: [v[0], v[1] + 1, *v[2:]]),
    ("cc", "file_identity", lambda v: [*v[:4], v[4] + 1]),
    ("cc", "usage", lambda v: {**v, "naive_output_tokens": v["naive_output_tokens"] + 1}),
    ("cc", "usage", lambda v: {**v, "dedup_output_tokens": v["dedup_output_tokens"] - 1}),
    ("cx", "file_identity", lambda v: [v[0] - 1, *v[1:]]),
    ("cx", "native_call_id", lambda v: {**v, "unpaired_calls": v["unpaired_calls"] + 1}),
    ("cu", "tool_use_keyset", lambda v: [v[0], v[1] + 1]),
    ("cu", "agent_tools_count", lambda v: v - 1),
])
def test_a_wrong_total_disagrees_on_the_whole_scope(which: str, cid: str, edit, request: pytest.FixtureRequest,  # type: ignore[no-untyped-def]
                                                    tmp_path: Path) -> None:
    root, snap = request.getfixturevalue(which)
    bad = copy_snapshot(snap, tmp_path)
    edit_claim(bad, cid, edit)
    r = recheck(bad, root, salt=load_salt())
    assert r["disagreements"] == [cid], r["verdicts"]


@pytest.mark.parametrize("cid,zero", [("usage", lambda v: {**v, "naive_output_tokens": 0, "dedup_output_tokens": 0}),
                                      ("file_identity", lambda v: [0, 0, 0, 0, 0])])
def test_a_sample_holding_more_than_the_claim_disagrees(cc: tuple[Path, Path], tmp_path: Path, cid: str, zero) -> None:  # type: ignore[no-untyped-def]
    """A bound: any sample that finds something a claim of none denies disagrees; a sample
    that finds nothing cannot."""
    root, snap = cc
    bad = copy_snapshot(snap, tmp_path)
    edit_claim(bad, cid, zero)
    for seed in range(1, 6):
        r = recheck(bad, root, sample=2, seed=seed, salt=load_salt())
        found = verdicts(r)[cid]["recheck_value"]
        some = any(found.values()) if isinstance(found, dict) else any(found)
        assert (cid in r["disagreements"]) == some, (seed, found)


def test_a_sampled_snapshot_is_never_compared_with_whole_totals(tmp_path: Path,
                                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    root, snap = planted_once("sampled", tmp_path_factory, "claude_code", cc_synth.generate, 5, 8, sample_n=20)
    walked = [p for p in jsonl_files("claude_code", root)]
    # matched to the snapshot's files: the files it walked, exactly
    r = recheck(snap, root, salt=load_salt())
    v = verdicts(r)
    assert not r["disagreements"], r["verdicts"]
    assert v["record_classes"]["comparison"].startswith("exact: the same files")
    said = v["record_classes"]["snapshot_value"]
    assert sum(said.values()) < sum(classes("claude_code", walked).values())  # the snapshot saw a part
    assert "not walked by the snapshot" in v["record_classes"]["scope"]
    # not matched (another root, or no salt): no figure would be about the same files
    side = snap.parent / f"{snap.name}.recheck.json"
    side.unlink()
    with pytest.raises(NotComparable):
        recheck(snap, root)
    other = tmp_path / "copy"
    shutil.copytree(root, other / "projects")
    r = invoke(["recheck", str(snap), "--root", str(other), "--reports", str(tmp_path / "r")])
    assert r.exit_code == 2 and "cannot be matched" in " ".join(r.output.split()), r.output
    assert r.output.startswith("error: ") and r.output.count("error:") == 1
    assert not side.exists()


def test_a_runtime_without_a_recheck_is_a_usage_error(cu: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cu
    other = copy_snapshot(snap, tmp_path)
    m = json.loads((other / "manifest.json").read_text())
    (other / "manifest.json").write_text(json.dumps({**m, "runtime": "cursor_chats"}))
    with pytest.raises(NoRecheck):
        recheck(other, root, salt=load_salt())
    r = invoke(["recheck", str(other), "--root", str(root), "--reports", str(tmp_path / "r")])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and said.startswith("error: ") and "no independent re-check" in said, r.output
    assert "cursor_chats" in said
    assert not (other.parent / f"{other.name}.recheck.json").exists()


def test_a_whole_snapshot_unmatched_still_compares_totals(cc: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cc
    r = recheck(snap, root)  # no salt: the files cannot be named, but the snapshot read them all
    assert r["matched_to_snapshot"] is False and not r["disagreements"]
    assert all(x["comparison"].startswith("exact") for x in r["verdicts"])
    assert "not matched to the snapshot's files" in r["verdicts"][0]["scope"]
    # a sample of them: no per-file rows can be picked, so every figure is a bound
    for seed in range(1, 4):
        r = recheck(snap, root, sample=3, seed=seed)
        assert not r["disagreements"] and "files" not in r["sample"]
        assert all(x["comparison"].startswith("bound") for x in r["verdicts"])
    bad = copy_snapshot(snap, tmp_path)
    edit_claim(bad, "record_classes", lambda v: {**v, "records": {"user": 0}})
    for seed in range(1, 4):
        r = recheck(bad, root, sample=3, seed=seed)
        assert r["disagreements"] == ["record_classes"]
        assert verdicts(r)["record_classes"]["detail"].endswith(
            f"classes the snapshot does not name: {len(verdicts(r)['record_classes']['recheck_value']) - 1}")


def test_without_per_file_rows_a_sample_checks_bounds(cc: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cc
    bare = copy_snapshot(snap, tmp_path)
    fc = bare / "walk" / "frame_counts.parquet"
    shutil.rmtree(fc) if fc.is_dir() else fc.unlink()
    r = recheck(bare, root, sample=4, seed=2, salt=load_salt())
    assert not r["disagreements"]
    assert verdicts(r)["record_classes"]["comparison"].startswith("bound")
    assert recheck(bare, root, salt=load_salt())["verdicts"][0]["comparison"].startswith("exact: the same files")


def test_a_walked_file_gone_since_is_counted(cc: tuple[Path, Path], tmp_path: Path) -> None:
    root = copy_root(cc[0], tmp_path)
    snap = copy_snapshot(cc[1], tmp_path)
    gone = jsonl_files("claude_code", root)[2]
    gone.unlink()
    r = recheck(snap, root, salt=load_salt())
    v = verdicts(r)
    assert "(left out: 1 walked files gone since the snapshot)" in v["record_classes"]["scope"]
    assert v["record_classes"]["comparison"] == "exact: the snapshot's per-file rows of the same files"
    assert v["usage"]["comparison"].startswith("bound")
    assert not r["disagreements"], r["verdicts"]


def test_files_new_or_changed_since_are_left_out_and_counted(cc: tuple[Path, Path], tmp_path: Path) -> None:
    root = copy_root(cc[0], tmp_path)
    snap = copy_snapshot(cc[1], tmp_path)
    files = jsonl_files("claude_code", root)
    new = files[0].parent / "0123abcd-0000-4000-8000-000000000000.jsonl"
    new.write_text(json.dumps({"type": "user", "sessionId": "x"}) + "\n")
    with open(files[1], "a") as fh:
        fh.write(json.dumps({"type": "user", "sessionId": "x"}) + "\n")
    r = recheck(snap, root, salt=load_salt())
    v = verdicts(r)
    assert "1 new since the snapshot" in v["record_classes"]["scope"]
    assert "1 changed since the snapshot" in v["record_classes"]["scope"]
    # a changed file: the rest is a subset, compared through the per-file rows
    assert v["record_classes"]["comparison"] == "exact: the snapshot's per-file rows of the same files"
    assert v["record_classes"]["recheck_value"] == classes("claude_code", [f for f in files if f != files[1]])
    assert not r["disagreements"], r["verdicts"]


def test_since_reads_a_subset(cc: tuple[Path, Path]) -> None:
    root, snap = cc
    r = recheck(snap, root, since="1990-01-01", salt=load_salt())
    assert not r["disagreements"]
    assert len(r["sample"]["files"]) == len(jsonl_files("claude_code", root))
    assert verdicts(r)["usage"]["comparison"].startswith("bound")
    assert r["command"] == f'survey recheck {snap} --root "$ROOT" --since 1990-01-01'
    r = recheck(snap, root, since="2999-01-01", salt=load_salt())
    assert not r["disagreements"] and "files" not in r["sample"]
    assert verdicts(r)["record_classes"]["recheck_value"] == {}


# -- exactness of each check ---------------------------------------------------------------
def transcript(root: Path, sid: str, recs: list[dict]) -> Path:
    d = root / "proj-x" / "agent-transcripts" / sid
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{sid}.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return p


def tool_use_counts(root: Path) -> tuple[int, int, int]:
    """(blocks exactly {input,name,type}, tool_use blocks, result blocks or keys at any depth)."""
    def has(o: Any, key: str) -> bool:
        if isinstance(o, dict):
            return key in o or any(has(x, key) for x in o.values())
        if isinstance(o, list):
            return any(has(x, key) for x in o)
        return False

    exact = blocks = results = 0
    for f in jsonl_files("cursor", root):
        for rec in lines(f):
            if not isinstance(rec, dict):
                continue
            content = (rec.get("message") or {}).get("content") if isinstance(rec.get("message"), dict) else None
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    blocks += 1
                    exact += sorted(b) == ["input", "name", "type"]
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    results += 1
            results += has(rec, "tool_use_id") or has(rec, "is_error")
    return exact, blocks, results


def _extra_transcript(root: Path) -> None:
    transcript(root, "extra", [
        {"role": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "Shell", "input": {"command": "x"}, "id": "c1"},
            {"type": "tool_use", "name": "Shell", "input": {"command": "y"}}]}},
        {"role": "user", "message": {"content": [{"type": "text", "text": "x", "meta": {"deep": [{"tool_use_id": 1}]}}]}},
    ])


def test_an_exact_key_set_is_not_a_superset_and_keys_are_found_at_depth(tmp_path: Path,
                                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    root, snap = planted_once("superset", tmp_path_factory, "cursor", cu_synth.generate, 3, 6, _extra_transcript)
    exact, blocks, results = tool_use_counts(root)
    assert exact < blocks and results >= 1
    r = recheck(snap, root, salt=load_salt())
    v = verdicts(r)
    assert v["tool_use_keyset"]["recheck_value"] == [exact, blocks]
    assert v["tool_use_keyset"]["verdict"] == "agrees"
    assert v["no_tool_results"]["recheck_value"] == results
    # a claim of "no result anywhere" is contradicted by the key four levels down
    bad = copy_snapshot(snap, tmp_path / "bad")
    edit_claim(bad, "no_tool_results", lambda v: True)
    assert "no_tool_results" in recheck(bad, root, salt=load_salt())["disagreements"]
    # and the superset is no exact key set: a claim that all blocks are exact disagrees
    edit_claim(bad, "tool_use_keyset", lambda v: [v[1], v[1]])
    assert "tool_use_keyset" in recheck(bad, root, salt=load_salt())["disagreements"]
    for seed in range(1, 4):  # a sample holding the block with the extra key disagrees too
        r = recheck(bad, root, sample=len(jsonl_files("cursor", root)) - 1, seed=seed, salt=load_salt())
        assert "tool_use_keyset" in r["disagreements"]


def test_a_sidecar_added_since_disagrees_and_is_named_new(cu: tuple[Path, Path], tmp_path: Path) -> None:
    root = copy_root(cu[0], tmp_path)
    snap = copy_snapshot(cu[1], tmp_path)
    sidecars = [p for p in root.rglob("*.txt") if p.parent.name == "agent-tools"]
    r = recheck(snap, root, salt=load_salt())
    assert verdicts(r)["agent_tools_count"]["detail"] == f"{len(sidecars)} files, 0 of them new since the snapshot"
    (sidecars[0].parent / "later.txt").write_text("x" * 100)
    r = recheck(snap, root, salt=load_salt())
    v = verdicts(r)["agent_tools_count"]
    assert r["disagreements"] == ["agent_tools_count"]
    assert (v["snapshot_value"], v["recheck_value"]) == (len(sidecars), len(sidecars) + 1)
    assert v["detail"] == f"{len(sidecars) + 1} files, 1 of them new since the snapshot"


def test_has_key_descends_objects_and_lists() -> None:
    assert _has_key({"a": [{"b": {"c": [[{"k": 1}]]}}]}, "k")
    assert _has_key([{"x": 1}, [{"k": None}]], "k")
    assert not _has_key({"a": "k", "b": ["k"], "c": {"d": "k"}}, "k")
    assert not _has_key("k", "k")


def test_another_root_is_named_as_such(cc: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cc
    other = tmp_path / "elsewhere"
    shutil.copytree(root, other)
    salt = load_salt()
    assert recheck(snap, root, salt=salt)["root_matches_snapshot"] is True
    r = recheck(snap, other, salt=salt)
    assert r["root_matches_snapshot"] is False
    res = invoke(["recheck", str(snap), "--root", str(other), "--reports", str(tmp_path / "r")])
    assert "this root is not the one the snapshot was taken from" in res.output


# -- reproducible ------------------------------------------------------------------------------
def test_a_disagreement_prints_the_command_that_reproduces_it(cx: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cx
    bad = copy_snapshot(snap, tmp_path)
    edit_claim(bad, "record_classes", lambda v: {**v, "records": {**v["records"], "session_meta": 0}})
    reports = str(tmp_path / "reports")
    r = invoke(["recheck", str(bad), "--root", str(root), "--sample", "3", "--seed", "4",
                                 "--reports", reports])
    assert r.exit_code == 3, r.output
    line = next(ln for ln in r.output.splitlines() if ln.startswith("reproduce: "))
    argv = shlex.split(line.removeprefix("reproduce: ").replace("$ROOT", str(root)))
    assert argv[:2] == ["survey", "recheck"] and "--sample" in argv and "--seed" in argv
    kept = json.loads((bad.parent / f"{bad.name}.recheck.json").read_text())
    (bad.parent / f"{bad.name}.recheck.json").unlink()
    again = invoke([*argv[1:], "--reports", reports, "--json"])
    assert again.exit_code == 3, again.output
    out = json.loads(again.output)
    assert out["disagreements"] == kept["disagreements"] == ["record_classes"]
    assert out["sample"] == kept["sample"]
    assert "RE-CHECK DISAGREES" in (tmp_path / "reports" / "codex.md").read_text()


# -- privacy -----------------------------------------------------------------------------------
TOKENS = {k: f"cnry{k}q9" for k in ("Type", "Sub", "Key", "Val", "Path", "Role", "Pay", "Block", "File")}


def plant_claude(root: Path) -> int:
    """Records whose type, subtype, keys and values are canaries, in a file under a canary
    folder and a canary name; returns how many records have a withheld class."""
    d = root / f"-home-{TOKENS['Path']}"
    d.mkdir(parents=True)
    sid = "0badc0de-0000-4000-8000-000000000001"
    recs = [{"type": TOKENS["Type"], "sessionId": sid, TOKENS["Key"]: TOKENS["Val"]},
            {"type": TOKENS["Type"], "subtype": TOKENS["Sub"], "sessionId": sid},
            {"type": "system", "subtype": TOKENS["Sub"], "sessionId": sid, "level": TOKENS["Val"]},
            {"type": "system", "subtype": 7, "sessionId": sid}]
    (d / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (d / f"{TOKENS['File']}.jsonl").write_text(json.dumps(recs[0]) + "\n")
    return 2


def plant_codex(root: Path) -> None:
    d = root / "2026" / "01" / "02" / TOKENS["Path"]
    d.mkdir(parents=True)
    recs = [{"type": "session_meta", "payload": {"id": TOKENS["Val"], TOKENS["Key"]: 1}},
            {"type": TOKENS["Type"], "payload": {"type": TOKENS["Pay"]}},
            {"type": "response_item", "payload": {"type": TOKENS["Pay"], "call_id": TOKENS["Val"]}}]
    name = f"rollout-2026-01-02T00-00-00-0badc0de-0000-4000-8000-{TOKENS['File']}.jsonl"
    (d / name).write_text("".join(json.dumps(r) + "\n" for r in recs))
    (root / "2026" / "01" / "02" / "rollout-2026-01-02T00-00-01-0badc0de-0000-4000-8000-000000000002.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in recs))


def plant_cursor(root: Path) -> None:
    recs = [{"type": TOKENS["Type"], "role": TOKENS["Role"], "message": {"content": [
        {"type": TOKENS["Block"], TOKENS["Key"]: TOKENS["Val"]},
        {"type": "tool_use", "name": TOKENS["Val"], "input": {TOKENS["Key"]: 1}, TOKENS["Key"]: 2}]}}]
    d = root / f"proj-{TOKENS['Path']}" / "agent-transcripts" / TOKENS["File"]
    d.mkdir(parents=True)
    (d / f"{TOKENS['File']}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    transcript(root, "plain-canary", recs)


def leaked(text: str, planted: list[str]) -> list[str]:
    return [t for t in (*TOKENS.values(), *planted) if t in text] + (["cnry"] if "cnry" in text else [])


@pytest.mark.parametrize("runtime", ["claude_code", "codex", "cursor"])
def test_no_planted_token_reaches_the_verdicts_the_terminal_or_the_page(runtime: str, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    gen = {"claude_code": cc_synth, "codex": cx_synth, "cursor": cu_synth}[runtime]
    root.mkdir()
    planted = gen.generate(root, seed=4, sessions=10, canaries=True)
    withheld = {"claude_code": plant_claude, "codex": plant_codex, "cursor": plant_cursor}[runtime](root)
    snap = survey(runtime, root, tmp_path)
    reports = tmp_path / "reports"
    side = snap.parent / f"{snap.name}.recheck.json"
    page = reports / f"{runtime}.md"
    tokens = list(planted.get("canaries", []))
    runs = [[], ["--json"], *(["--sample", "2", "--seed", str(s)] for s in range(1, 4)),
            ["--sample", "2", "--json"], ["--since", "2000-01-01"]]
    for extra in runs:
        r = invoke(["recheck", str(snap), "--root", str(root), "--reports", str(reports), *extra])
        assert r.exit_code in (0, 3), r.output
        for where, text in (("terminal", r.output), ("recheck.json", side.read_text()), ("page", page.read_text())):
            assert not leaked(text, tokens), (where, extra, leaked(text, tokens))
    # the withheld classes are counted, as the census counts them, not dropped
    r = recheck(snap, root, salt=load_salt())
    got = verdicts(r)["record_classes" if runtime != "cursor" else "tool_use_keyset"]["recheck_value"]
    if runtime == "claude_code":
        assert got.get("<withheld>") == withheld and got.get("system/<withheld>") == 2
        assert got == classes(runtime, jsonl_files(runtime, root))
    elif runtime == "codex":
        # the rollout in a folder no rollout sits in is on no surface the crawl walks: left out
        walked = [f for f in jsonl_files(runtime, root) if TOKENS["Path"] not in f.parent.name]
        assert got == classes(runtime, walked)
        assert got["<withheld>/<withheld>"] == 1 and got["response_item/<withheld>"] == 1
        assert "(left out: 1 not walked by the snapshot)" in verdicts(r)["record_classes"]["scope"]
    else:
        assert got == list(tool_use_counts(root)[:2])
    assert not r["disagreements"], r["verdicts"]


def test_an_unreadable_file_is_counted_not_a_crash(cc: tuple[Path, Path], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root, snap = cc
    victim = jsonl_files("claude_code", root)[0]

    def deny(path, *a, **k):  # type: ignore[no-untyped-def]
        if Path(path) == victim:
            raise PermissionError(13, "Permission denied", str(path))
        return open(path, *a, **k)

    monkeypatch.setattr("survey.evidence.recheck.open", deny, raising=False)
    r = recheck(copy_snapshot(snap, tmp_path), root, salt=load_salt())
    assert r["unreadable"] == {"PermissionError": 1}
    assert all(v["scope"].endswith("; 1 files could not be read (PermissionError)") for v in r["verdicts"])
    assert str(victim) not in json.dumps(r) and victim.name not in json.dumps(r)
    assert "record_classes" in r["disagreements"]  # its records are missing from an exact comparison


def _odd_parent(root: Path) -> None:
    parent = next(p for p in jsonl_files("claude_code", root) if len(p.relative_to(root).parts) == 2)
    (parent.parent / "0badc0de-0000-4000-8000-0000000000aa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (
        {"type": "user", "sessionId": "0badc0de-0000-4000-8000-0000000000bb"}, [1, 2], 7, "text")))


def test_a_parent_naming_another_session_and_lines_that_are_not_objects(tmp_path: Path,
                                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A parent file whose records carry another sessionId than its name, and JSON lines that
    are arrays or numbers: the claim counts the mismatch, every sample holding that file
    agrees with it, and a claim edited to "every parent matches" disagrees in each of them."""
    root, snap = planted_once("odd-parent", tmp_path_factory, "claude_code", cc_synth.generate, 8, 8, _odd_parent)
    odd = next(p for p in root.rglob("0badc0de-0000-4000-8000-0000000000aa.jsonl"))
    r = recheck(snap, root, salt=load_salt())
    assert not r["disagreements"], r["verdicts"]
    s = verdicts(r)["file_identity"]["recheck_value"]
    assert s[1] - s[0] == 1  # the one parent whose id is not its name
    bad = copy_snapshot(snap, tmp_path / "bad")
    edit_claim(bad, "file_identity", lambda v: [v[1], *v[1:]])
    named = by_pseudonym(root)
    held = 0
    for seed in range(1, 9):
        good = recheck(snap, root, sample=6, seed=seed, salt=load_salt())
        assert not good["disagreements"], (seed, good["verdicts"])
        wrong = recheck(bad, root, sample=6, seed=seed, salt=load_salt())
        has_odd = odd in [named[f] for f in wrong["sample"]["files"]]
        held += has_odd
        assert ("file_identity" in wrong["disagreements"]) == has_odd, seed
    assert held
