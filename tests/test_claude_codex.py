"""Claude Code and Codex: round trip against the generators, the real samples, calibration.

- Round trip: each generated corpus (seed 7) is surveyed once; every census figure equals the
  figure the generator planted, exactly (files per surface, records and key sets per class,
  line statuses, versions, the uuid DAG, the meta join, call/result pairing, is_error,
  toolUseResult types, persisted targets, usage naive vs de-duplicated, thinking, sidechain;
  filename uuid, headers per file, subagent files, call joins, exit codes, the planted cap,
  token-counter resets). Claims carry those figures, and the pages render.
- Real samples (``../shared/corpora``; skipped with the reason when absent): each root
  surveys without a crash, and its files per surface, records per class and top-level key
  sets equal a plain count written here (``os.walk`` + ``json``, no survey import).
- Calibration: every (record class, path, key set) triple the census of a real sample shows
  is one the census of the generator's corpus shows too.
- Re-check and index: the independent re-check agrees; the index compares the runtimes.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from survey.evidence.claims import Claim
from survey.evidence.recheck import recheck
from survey.pipeline import run_survey
from survey.render.index import ROWS, render_index
from survey.runtimes import get
from survey.snapshot.store import load_json
from survey.synth import claude_code as cc_synth
from survey.synth import codex as cx_synth

from .conftest import corpora

TRANSCRIPTS = ("parent", "subagent", "workflow_agent")

# (record class, path, key set) triples a real sample shows that the generator's corpus does
# not, each with the reason it cannot be generated. Empty: the generators cover every shape.
CALIBRATION_ALLOW: dict[tuple[str, str, str], str] = {}


# -- helpers ------------------------------------------------------------------------------------
def rows(snap: Path, name: str) -> list[dict[str, Any]]:
    q = load_json(snap, "census")[name]
    return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]


def one(snap: Path, name: str) -> dict[str, Any]:
    r = rows(snap, name)
    return r[0] if r else {}


def claims(snap: Path) -> dict[str, Claim]:
    return {c["id"]: Claim.from_json(dict(c)) for c in load_json(snap, "claims")}


def nonzero(d: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in d.items() if v}


def survey(runtime: str, root: Path, base: Path, reports: bool = True) -> tuple[Any, Path]:
    res = run_survey(get(runtime), root, snapshots=base / "snapshots",
                     reports=(base / "reports") if reports else None)
    return res, Path(res.snapshot)


@pytest.fixture(scope="module")
def cc(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Any, Path, Path]:
    base = tmp_path_factory.mktemp("claude_code")
    root = base / "projects"
    planted = cc_synth.generate(root, seed=7)
    res, snap = survey("claude_code", root, base)
    return planted, res, snap, root


@pytest.fixture(scope="module")
def cx(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Any, Path, Path]:
    base = tmp_path_factory.mktemp("codex")
    root = base / "sessions"
    planted = cx_synth.generate(root, seed=7)
    res, snap = survey("codex", root, base)
    return planted, res, snap, root


def assert_records_and_keysets(snap: Path, query: str, planted: dict) -> None:
    """The records of each class, and of each key set within it, as ``query`` counts them, are
    the ones planted."""
    by_class: Counter[str] = Counter()
    keysets: dict[str, dict[str, int]] = {}
    for r in rows(snap, query):
        by_class[r["rclass"]] += r["records"]
        keysets.setdefault(r["rclass"], {})[r["keyset"]] = r["records"]
    assert dict(by_class) == planted["records"]
    assert keysets == planted["keysets"]


# -- Claude Code round trip ---------------------------------------------------------------------
def test_claude_files_records_keysets_and_lines(cc) -> None:
    planted, _res, snap, _root = cc
    got = {r["surface"]: r["files"] for r in rows(snap, "files_by_surface")}
    assert got == nonzero(planted["files"])
    assert_records_and_keysets(snap, "jsonl_classes", planted)
    fs = {r["frame_status"]: r["frames"] for r in rows(snap, "frame_status")}
    metas = planted["files"]["subagent_meta"] + planted["files"]["workflow_meta"]
    assert fs == nonzero({**planted["lines"], "ok": planted["lines"]["ok"] + metas})


def test_claude_versions(cc) -> None:
    planted, _res, snap, _root = cc
    assert {r["version"]: r["files"] for r in rows(snap, "versions")} == planted["versions"]
    assert set(claims(snap)["client_version"].value["versions"]) == set(planted["versions"])


def test_claude_uuid_dag_and_identity(cc) -> None:
    planted, _res, snap, _root = cc
    dag = rows(snap, "uuid_dag")
    assert sum(r["duplicate_uuids"] for r in dag) == len(planted["duplicate_uuids"])
    assert sum(r["dangling_parents"] for r in dag) == len(planted["dangling_parents"])
    assert sum(r["files_with_duplicates"] for r in dag) == len({d["file"] for d in planted["duplicate_uuids"]})
    si = {r["surface"]: r for r in rows(snap, "session_ids")}
    assert si["parent"]["equals_file_name_id"] == si["parent"]["files"] == planted["files"]["parent"]
    for s in ("subagent", "workflow_agent"):
        assert si[s]["equals_parent_folder_id"] == si[s]["files"] == planted["files"][s]
    assert sum(r["several_session_ids"] for r in si.values()) == 0


def test_claude_meta_join_and_sidechain(cc) -> None:
    planted, _res, snap, _root = cc
    mj = {r["surface"]: r for r in rows(snap, "meta_join")}
    assert (mj["subagent_meta"]["joined_parent_call"], mj["subagent_meta"]["metas"]) == (
        planted["meta_tooluse_joined"], planted["meta_total"])
    assert mj["workflow_meta"]["with_tool_use_id"] == 0
    side: dict[str, dict[str, int]] = {s: {"true": 0, "false": 0} for s in TRANSCRIPTS}
    for r in rows(snap, "sidechain"):
        if r["surface"] in side and r["is_sidechain"] in ("true", "false"):
            side[r["surface"]][r["is_sidechain"]] = r["records"]
    assert side == planted["sidechain_by_surface"]


def test_claude_tool_pairs_is_error_and_tool_use_result(cc) -> None:
    planted, _res, snap, _root = cc
    tp = rows(snap, "tool_pairs")
    got = {k: sum(r[k] for r in tp) for k in ("paired", "unpaired_calls", "orphan_results")}
    assert got == planted["tool_pairs"]
    ie = rows(snap, "is_error")
    assert {"true": sum(r["is_error_true"] for r in ie), "false": sum(r["is_error_false"] for r in ie),
            "absent": sum(r["is_error_absent"] for r in ie)} == planted["is_error"]
    types: Counter[str] = Counter()
    for r in rows(snap, "tool_use_result_types"):
        types[r["jtype"]] += r["records"]
    assert dict(types) == planted["tool_use_result_types"]


def test_claude_persisted_usage_and_thinking(cc) -> None:
    planted, _res, snap, _root = cc
    p = one(snap, "persisted")
    assert {"present": p["target_present"], "missing": p["target_missing"]} == planted["persisted"]
    assert p["tool_result_files"] == planted["files"]["tool_result_txt"]
    u = {r["name"]: r for r in rows(snap, "usage_dedup")}["output_tokens"]
    assert {"naive_output_tokens": u["naive_sum"], "dedup_output_tokens": u["dedup_sum"]} == planted["usage"]
    assert u["max_records_per_message"] > 1 and u["factor"] > 1
    th = one(snap, "thinking")
    assert {"signature_only": th["signature_only"], "with_text": th["with_text"]} == planted["thinking"]


def test_claude_child_lineage_matches_a_plain_search(cc) -> None:
    _planted, _res, snap, root = cc
    named: Counter[str] = Counter()
    for p in sorted(root.rglob("agent-*.jsonl")):
        rel = p.relative_to(root).parts
        parent = (root / rel[0] / f"{rel[1]}.jsonl").read_bytes()
        surface = "workflow_agent" if "workflows" in rel else "subagent"
        named[surface] += p.name[len("agent-"):-len(".jsonl")].encode() in parent
    got = {r["surface"]: r["named_in_parent"] for r in rows(snap, "child_lineage")}
    assert got == {s: named[s] for s in got}
    assert got["subagent"] > 0 and got["workflow_agent"] == 0


def test_claude_claims_carry_the_planted_figures(cc) -> None:
    planted, res, snap, _root = cc
    c = claims(snap)
    assert {k: c["native_call_id"].value[k] for k in planted["tool_pairs"]} == planted["tool_pairs"]
    assert c["failure_flag"].value == planted["is_error"]
    assert {k: c["usage"].value[k] for k in planted["usage"]} == planted["usage"]
    assert c["record_classes"].value["records"] == planted["records"]
    assert all(cl.evidence and all(e.command for e in cl.evidence) for cl in c.values())
    assert {cid for _label, ids in ROWS for cid in ids} & set(c) >= {
        "client_version", "timestamps", "file_identity", "native_call_id", "results_recorded", "exit_codes",
        "failure_flag", "subagent_files", "child_in_parent", "oversized_output", "usage", "skill_evidence"}
    page = Path(res.page).read_text()
    assert "## Not observed" in page and "## Evidence" in page and "## Metadata sought" in page
    assert f"| Parent transcripts | {planted['files']['parent']:,} |" in page
    assert "`$.userType` = `external`" in page  # a constant, labelled as one
    assert "No cap or cliff was observed" in page


def test_claude_agent_id_by_file_kind_matches_the_planted_files(cc) -> None:
    """agentId is counted by where it sits: at a record's top level in every child file and in
    the parents planted with one; nested (a Task result, an agent mirror) elsewhere."""
    planted, _res, snap, _root = cc
    want = planted["agent_id_by_surface"]
    got = {r["surface"]: r for r in rows(snap, "links_agent_id")}
    assert {s: got[s]["walked"] for s in got} == {s: w["files"] for s, w in want.items() if w["files"]}
    assert {s: got[s]["files_top_level"] for s in got} == {s: w["top_level"] for s, w in want.items() if w["files"]}
    assert {s: got[s]["files_nested"] for s in got} == {s: w["nested"] for s, w in want.items() if w["files"]}
    assert 0 < want["parent"]["top_level"] < want["parent"]["files"]  # the planted violation, not every parent
    kids = sum(want[s]["files"] for s in ("subagent", "workflow_agent"))
    assert want["subagent"]["top_level"] + want["workflow_agent"]["top_level"] == kids
    v = claims(snap)["link_agent_id"]
    assert (v.value["parent_top_level"], v.value["subagent_top_level"], v.value["subagent_files"]) == (
        want["parent"]["top_level"], kids, kids)
    assert f"{want['parent']['top_level']} of {want['parent']['files']} parent transcripts; so not only" in v.text


def test_claude_subagent_schema_matches_the_planted_shapes(cc) -> None:
    """Child files against their parents: the top-level paths only children hold are the
    planted ones (agentId everywhere; gitBranch as null in every RETYPE_EVERY-th subagent)."""
    planted, _res, snap, _root = cc
    want = planted["subagent_schema"]
    ss = one(snap, "links_subagent_schema")
    assert ss["subagent_files"] == ss["pairs"] == want["children"]
    assert want["retyped_children"] >= 1 and "$.gitBranch" in want["top_level_paths_alone"]
    top_level = [p for p in ss["paths_in_no_transcript"] if re.fullmatch(r"\$\.[A-Za-z_]+", p)]
    assert top_level == want["top_level_paths_alone"]
    # every child holds agentId at its top level, which no parent but the planted ones does per class
    assert ss["subagents_all_paths_in_transcripts"] <= want["children"] - want["children_with_top_level_shape_alone"]
    c = claims(snap)["link_subagent_schema"]
    assert c.value["subagent_files"] == want["children"] and "`$.gitBranch`" in c.text


# -- Codex round trip ----------------------------------------------------------------------------
def test_codex_files_records_keysets_and_versions(cx) -> None:
    planted, _res, snap, _root = cx
    assert {r["surface"]: r["files"] for r in rows(snap, "files_by_surface")} == nonzero(planted["files"])
    assert_records_and_keysets(snap, "record_classes", planted)
    fs = {r["frame_status"]: r["frames"] for r in rows(snap, "frame_status")}
    assert fs == nonzero(planted["lines"])
    assert {r["version"]: r["files"] for r in rows(snap, "versions")} == planted["versions"]


def test_codex_identity_headers_and_subagents(cx) -> None:
    planted, _res, snap, _root = cx
    fi = one(snap, "file_identity")
    assert fi["first_id_equals_filename"] == planted["filename_uuid_matches"]
    assert fi["files_with_session_meta"] == planted["files_with_meta"]
    hd = {str(r["headers"]): r["files"] for r in rows(snap, "session_meta_headers")}
    assert hd == planted["session_meta_per_file"]
    sa = one(snap, "subagents")
    assert sa["subagent_files"] == planted["subagent_files"] == sa["with_history_start_ordinal"]
    assert sa["parent_rollout_present"] == planted["subagent_files"]
    ex = {r["kind"]: r["headers"] for r in rows(snap, "extra_headers")}
    extra = sum(int(k) - 1 for k, n in planted["session_meta_per_file"].items() for _ in range(n))
    assert sum(ex.values()) == extra
    assert ex.get("the parent's header (child rollout)") == planted["subagent_files"]
    ih = one(snap, "inherited_history")
    assert ih["child_files"] == planted["subagent_files"] and ih["shared_turn_ids"] == 0
    assert ih["inherited_records"] > 0 and ih["own_records"] > 0


def test_codex_call_joins_exit_codes_caps_and_tokens(cx) -> None:
    planted, _res, snap, _root = cx
    cj = rows(snap, "call_joins")
    got = {"paired": sum(r["joined"] for r in cj if r["side"] == "output"),
           "unpaired_calls": sum(r["unpaired"] for r in cj if r["side"] == "call"),
           "unpaired_outputs": sum(r["unpaired"] for r in cj if r["side"] == "output")}
    assert got == planted["call_joins"]
    ec: Counter[str] = Counter()
    for r in rows(snap, "exit_codes"):
        key = "response_item/function_call_output(text)" if r["field"].endswith("(text)") else r["rclass"]
        ec[key] += r["records"]
    assert dict(ec) == planted["exit_codes"]
    caps = {str(r["max_len"]): r["files_at_max"] for r in rows(snap, "silent_caps") if r["path"] == "$.payload.output"}
    assert caps == planted["caps"]
    assert one(snap, "token_counter")["drops"] == one(snap, "token_counter")["drops_at_compaction"] == planted["token_resets"]
    assert one(snap, "item_ids")["item_ids_equal_to_a_call_id"] == 0


def test_codex_claims_and_page(cx) -> None:
    planted, res, snap, _root = cx
    c = claims(snap)
    assert c["file_identity"].value[:2] == [planted["filename_uuid_matches"], planted["files_with_meta"]]
    assert {k: c["native_call_id"].value[k] for k in planted["call_joins"]} == planted["call_joins"]
    assert c["subagent_files"].value == planted["subagent_files"]
    assert c["oversized_output"].value == [cx_synth.CAP, planted["caps"][str(cx_synth.CAP)]]
    assert c["oversized_output"].provenance == "inferred"
    assert c["record_classes"].value["records"] == planted["records"]
    assert all(cl.evidence and all(e.command for e in cl.evidence) for cl in c.values())
    page = Path(res.page).read_text()
    assert "## Not observed" in page and "## Evidence" in page
    assert f"probable silent cap at {cx_synth.CAP:,} bytes" in page
    assert "custom_tool_call.status is `completed`" in page and "a constant, not evidence of success" in page


def test_codex_subagent_schema_matches_the_planted_shapes(cx) -> None:
    """Child rollouts against their parents: the paths (top level and payload) only children
    hold are the planted ones (the child header's fields, the top-level ordinal)."""
    planted, _res, snap, _root = cx
    want = planted["subagent_schema"]
    assert want["children"] == planted["subagent_files"] > 0
    ss = one(snap, "links_subagent_schema")
    assert ss["subagent_files"] == ss["pairs"] == want["children"]
    shallow = [p for p in ss["paths_in_no_transcript"] if re.fullmatch(r"\$\.(payload\.)?[A-Za-z_]+", p)]
    assert shallow == want["paths_alone"]
    assert "$.ordinal" in shallow
    assert ss["pairs_all_paths_in_parent"] == want["children"] - want["children_with_shape_alone"] == 0
    c = claims(snap)["link_subagent_schema"]
    assert c.value["pairs"] == want["children"] and "`$.ordinal`" in c.text


# -- re-check and index ---------------------------------------------------------------------------
def test_independent_recheck_agrees(cc, cx) -> None:
    for _planted, _res, snap, root in (cc, cx):
        for n in (None, 5):
            r = recheck(snap, root, sample=n, seed=3)
            assert r["verdicts"] and not r["disagreements"], r["verdicts"]
            ids = {v["claim"] for v in r["verdicts"]}
            assert {"record_classes", "file_identity"} <= ids
            if n is None:
                assert ids & {"usage", "native_call_id"}


def test_index_compares_the_runtimes(cc, cx, tmp_path: Path) -> None:
    from survey.synth.cursor import generate

    root = tmp_path / "cursor"
    generate(root, seed=7)
    _res, cursor_snap = survey("cursor", root, tmp_path / "c", reports=False)
    out = render_index([cursor_snap, cc[2], cx[2]], tmp_path / "index.md")
    text = out.read_text()
    for label, _ids in ROWS:
        line = next(ln for ln in text.splitlines() if ln.startswith(f"| {label} |"))
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))[1:]]
        assert len(cells) == 3, line
        for cell, rt in zip(cells, ("cursor", "claude_code", "codex"), strict=True):
            assert cell == "not surveyed" or cell.endswith(f"[↗]({rt}.md)"), (label, cell)
    skill = next(ln for ln in text.splitlines() if ln.startswith("| Skill evidence |"))
    assert "inferred skill-load evidence" in skill  # the Cursor page's own skill claim, labelled inferred
    assert "[Claude Code session stores](claude_code.md)" in text and "[Codex rollouts](codex.md)" in text


# -- real samples ---------------------------------------------------------------------------------
def _jsonl_records(path: str) -> list[dict]:
    out = []
    with open(path, "rb") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
    return out


def plain_claude(root: Path) -> tuple[Counter, Counter, Counter]:
    """Files per surface, records per class, top-level key sets: plain Python, no survey code."""
    files: Counter = Counter()
    classes: Counter = Counter()
    keysets: Counter = Counter()
    for d, _dirs, names in os.walk(root):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), root).split(os.sep)
            wf = len(rel) == 6 and rel[2] == "subagents" and rel[3] == "workflows" and rel[4].startswith("wf_")
            if len(rel) == 2 and n.endswith(".jsonl"):
                kind = "parent"
            elif len(rel) == 4 and rel[2] == "subagents" and n.startswith("agent-"):
                kind = "subagent" if n.endswith(".jsonl") else ("subagent_meta" if n.endswith(".meta.json") else "other")
            elif wf and n.startswith("agent-"):
                kind = "workflow_agent" if n.endswith(".jsonl") else ("workflow_meta" if n.endswith(".meta.json") else "other")
            elif wf and n == "journal.jsonl":
                kind = "journal"
            elif len(rel) == 4 and rel[2] == "tool-results" and n.endswith(".txt"):
                kind = "tool_result_txt"
            else:
                kind = "other"
            files[kind] += 1
            if n.endswith(".jsonl") and kind != "other":
                for rec in _jsonl_records(os.path.join(d, n)):
                    st = rec.get("subtype")
                    classes[f"{rec.get('type')}/{st}" if isinstance(st, str) else str(rec.get("type"))] += 1
                    keysets[",".join(sorted(rec))] += 1
    return files, classes, keysets


ROLLOUT = re.compile(r"^\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-"
                     r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$")


def plain_codex(root: Path) -> tuple[Counter, Counter, Counter]:
    files: Counter = Counter()
    classes: Counter = Counter()
    keysets: Counter = Counter()
    for d, _dirs, names in os.walk(root):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/")
            kind = "rollout" if ROLLOUT.match(rel) else "other"
            files[kind] += 1
            if kind == "rollout":
                for rec in _jsonl_records(os.path.join(d, n)):
                    p = rec.get("payload")
                    pt = p.get("type") if isinstance(p, dict) else None
                    classes[f"{rec.get('type')}/{pt}" if isinstance(pt, str) else str(rec.get("type"))] += 1
                    keysets[",".join(sorted(rec))] += 1
    return files, classes, keysets


REAL = (("claude_code", "claude/projects", plain_claude, "jsonl_classes"),
        ("claude_code", "handmade/claude/projects", plain_claude, "jsonl_classes"),
        ("codex", "codex/sessions", plain_codex, "record_classes"),
        ("codex", "handmade/codex/sessions", plain_codex, "record_classes"))


@pytest.mark.parametrize(("runtime", "sub", "plain", "query"), REAL, ids=[r[1] for r in REAL])
def test_real_root_surveys_and_agrees_with_a_plain_count(runtime: str, sub: str, plain, query: str,
                                                         tmp_path: Path) -> None:
    root = corpora() / sub
    if not root.is_dir():
        pytest.skip(f"real sample root {root} is absent")
    res, snap = survey(runtime, root, tmp_path)
    files, classes, keysets = plain(root)
    assert {r["surface"]: r["files"] for r in rows(snap, "files_by_surface")} == dict(files)
    got_classes: Counter = Counter()
    got_keysets: Counter = Counter()
    for r in rows(snap, query):
        got_classes[r["rclass"]] += r["records"]
        got_keysets[r["keyset"]] += r["records"]
    assert got_classes == classes
    assert got_keysets == keysets
    assert res.fixture == sub.startswith("handmade")
    page = Path(res.page).read_text()
    assert ("Fixture corpus" in page) == sub.startswith("handmade")
    assert not res.disagreements


def _triples(snap: Path) -> set[tuple[str, str, str]]:
    return {(r["rclass"], r["path"], r["keyset"]) for r in rows(snap, "keyset_census")}


@pytest.mark.parametrize(("runtime", "sub"), [("claude_code", "claude/projects"), ("codex", "codex/sessions")])
def test_generator_makes_every_shape_the_real_samples_show(runtime: str, sub: str, cc, cx, tmp_path: Path) -> None:
    root = corpora() / sub
    if not root.is_dir():
        pytest.skip(f"real sample root {root} is absent")
    _res, snap = survey(runtime, root, tmp_path, reports=False)
    made = _triples((cc if runtime == "claude_code" else cx)[2])
    missing = sorted(t for t in _triples(snap) - made if t not in CALIBRATION_ALLOW)
    assert not missing, "real shapes the generator never makes:\n" + "\n".join(map(str, missing))
