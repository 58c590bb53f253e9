"""The sentences of the Claude Code page, each stated with the query or probe behind it."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, human_bytes, pct
from survey.evidence.kit import Kit

TRANSCRIPTS = ("parent", "subagent", "workflow_agent")




def claims(k: Kit) -> None:
    _basis(k)
    _classes(k)
    _identity(k)
    _calls(k)
    _subagents(k)
    _output(k)
    _usage(k)
    _absences(k)


def _basis(k: Kit) -> None:
    n, total = k.surface_counts((*TRANSCRIPTS, "subagent_meta", "workflow_meta", "journal",
                                 "tool_result_txt", "other"))
    transcripts = sum(n[s] for s in TRANSCRIPTS)
    k.state("basis_files", "census",
            f"The corpus holds {fmt(total)} files: {fmt(n['parent'])} parent transcripts, {fmt(n['subagent'])} "
            f"subagent transcripts with {fmt(n['subagent_meta'])} .meta.json files, {fmt(n['workflow_agent'])} workflow "
            f"agents with {fmt(n['workflow_meta'])} metas and {fmt(n['journal'])} journals, {fmt(n['tool_result_txt'])} "
            f"persisted tool-result files and {fmt(n['other'])} other files. Parents are "
            f"{pct(n['parent'], transcripts)} of the {fmt(transcripts)} transcripts.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, **n})

    k.basis_frames("records")


def _classes(k: Kit) -> None:
    jc = k.rows("jsonl_classes")
    by_class: dict[str, int] = {}
    keysets: dict[str, int] = {}
    for r in jc:
        by_class[r["rclass"]] = by_class.get(r["rclass"], 0) + as_int(r["records"])
        keysets[r["rclass"]] = keysets.get(r["rclass"], 0) + 1
    records = sum(by_class.values())
    widest = max(keysets.items(), key=lambda kv: (kv[1], kv[0]), default=("none", 0))
    k.state("record_classes", "census",
            f"{len(by_class)} record classes (type, or type/subtype for system records) over {fmt(records)} JSONL "
            f"records, with {fmt(len(jc))} distinct top-level key sets (up to {widest[1]} for {widest[0]}). "
            "A reader must accept classes it does not know.",
            k.ev("jsonl_classes", f"{len(by_class)} classes, {len(jc)} key sets"),
            value={"records": dict(sorted(by_class.items())), "keysets": len(jc),
                   "whole_corpus": k.manifest.get("sample", {}).get("n") is None})

    vs = k.rows("versions")
    sc = k.rows("surface_classes")
    t_records = sum(as_int(r["records"]) for r in sc if r["surface"] in TRANSCRIPTS)
    with_v = sum(as_int(r["records"]) for r in vs)
    mixing = max((as_int(r["files_mixing_versions"]) for r in vs), default=0)
    names = [r["version"] for r in vs]
    span = f"{names[0]} to {names[-1]}" if names else "none"
    k.state("client_version", "value_map",
            f"The client version is on records: {fmt(with_v)} of {fmt(t_records)} transcript records carry `version`, "
            f"{len(vs)} versions ({span}); {fmt(mixing)} files mix versions. Shapes below are stratified by it.",
            k.ev("versions", "; ".join(f"{r['version']} {r['files']} files" for r in vs) or "none"),
            k.ev("surface_classes", f"{fmt(t_records)} transcript records"),
            value={r["version"]: as_int(r["files"]) for r in vs}, headline=True)

    ts = k.rows("timestamps")
    recs = sum(as_int(r["records"]) for r in ts)
    with_ts = sum(as_int(r["with_timestamp"]) for r in ts)
    without = [r["rclass"] for r in ts if as_int(r["with_timestamp"]) == 0]
    k.state("timestamps", "rate",
            f"{fmt(with_ts)} of {fmt(recs)} records ({pct(with_ts, recs)}) carry a top-level ISO `timestamp`; "
            + (f"classes without one: {', '.join(without)}." if without else "every class carries one."),
            k.ev("timestamps", f"{with_ts}/{recs}; without: {', '.join(without) or 'none'}"),
            value=[with_ts, recs])

    bk = k.rows("block_keysets")
    types = sorted({r["btype"] for r in bk})
    k.state("block_types", "census",
            f"message.content holds {len(types)} block types in transcripts: {', '.join(types) or 'none'}.",
            k.ev("block_keysets", "; ".join(f"{r['btype']} {{{r['keyset']}}} {r['blocks']}" for r in bk[:12])),
            value={r["btype"] + ":" + (r["keyset"] or ""): r["blocks"] for r in bk})


def _identity(k: Kit) -> None:
    si = {r["surface"]: r for r in k.rows("session_ids")}
    p = si.get("parent", {})
    kids = [si[s] for s in ("subagent", "workflow_agent") if s in si]
    kid_files = sum(as_int(r["files"]) for r in kids)
    kid_eq = sum(as_int(r["equals_parent_folder_id"]) for r in kids)
    several = sum(as_int(r["several_session_ids"]) for r in si.values())
    k.state("file_identity", "rate",
            f"One sessionId per file ({fmt(several)} files carry several). A parent's sessionId equals its file name in "
            f"{fmt(as_int(p.get('equals_file_name_id')))} of {fmt(as_int(p.get('files')))} parent files; a subagent or workflow file "
            f"carries its parent session's id (the folder name) in {fmt(kid_eq)} of {fmt(kid_files)}.",
            k.ev("session_ids", "; ".join(f"{s}: {r['equals_file_name_id']}/{r['equals_parent_folder_id']}/{r['files']}"
                                          for s, r in si.items())),
            value=[as_int(p.get("equals_file_name_id")), as_int(p.get("files")), kid_eq, kid_files, several],
            headline=True)

    dag = k.rows("uuid_dag")
    tot = {c: sum(as_int(r[c]) for r in dag) for c in ("files", "uuids", "duplicate_uuids", "files_with_duplicates",
                                                     "parent_refs", "dangling_parents", "files_with_dangling",
                                                     "dangling_found_in_another_file")}
    k.state("uuid_dag", "census",
            f"uuid / parentUuid chain the records of a file: over {fmt(tot['uuids'])} uuids in {fmt(tot['files'])} "
            f"transcripts, {fmt(tot['duplicate_uuids'])} duplicate uuids (in {fmt(tot['files_with_duplicates'])} files) "
            f"and {fmt(tot['dangling_parents'])} parentUuid values naming no record of their file (in "
            f"{fmt(tot['files_with_dangling'])} files; {fmt(tot['dangling_found_in_another_file'])} found in another file). "
            "A reader must tolerate both.",
            k.ev("uuid_dag", f"dup {tot['duplicate_uuids']}, dangling {tot['dangling_parents']}"),
            value={"duplicate_uuids": tot["duplicate_uuids"], "dangling_parents": tot["dangling_parents"]})


def _calls(k: Kit) -> None:
    tp = k.rows("tool_pairs")
    s = {c: sum(as_int(r[c]) for r in tp) for c in ("calls", "results", "paired", "unpaired_calls", "orphan_results",
                                                  "orphans_paired_in_another_file", "calls_answered_twice")}
    k.state("native_call_id", "rate",
            f"Calls carry a native id: tool_use.id pairs with tool_result.tool_use_id within a file. {fmt(s['paired'])} of "
            f"{fmt(s['results'])} results answer a call of their file; {fmt(s['unpaired_calls'])} of {fmt(s['calls'])} "
            f"calls have no result (interrupted turns); {fmt(s['orphan_results'])} results name no call of their file.",
            k.ev("tool_pairs", f"paired {s['paired']}, unpaired calls {s['unpaired_calls']}, orphans {s['orphan_results']}"),
            value={"paired": s["paired"], "unpaired_calls": s["unpaired_calls"], "orphan_results": s["orphan_results"]},
            headline=True)

    tt = k.rows("tool_use_result_types")
    by_type: dict[str, int] = {}
    for r in tt:
        by_type[r["jtype"]] = by_type.get(r["jtype"], 0) + as_int(r["records"])
    tur = sum(by_type.values())
    k.state("results_recorded", "census",
            f"Results are recorded: {fmt(s['results'])} tool_result blocks in user records, and {fmt(tur)} user records "
            f"also carry a client-side `toolUseResult`.",
            k.ev("tool_pairs", f"{s['results']} results"), k.ev("tool_use_result_types", f"{tur} records"),
            value=s["results"])
    k.state("tool_use_result_types", "value_map",
            "toolUseResult is polymorphic: " + (", ".join(f"{t} in {fmt(n)}" for t, n in
                                                      sorted(by_type.items(), key=lambda kv: -kv[1])) or "absent")
            + " records; the same tool may write more than one type (table below).",
            k.ev("tool_use_result_types", f"{len(tt)} rows"), value=by_type)

    ie = k.rows("is_error")
    f = {c: sum(as_int(r[c]) for r in ie) for c in ("results", "is_error_true", "is_error_false", "is_error_absent",
                                                  "is_error_other")}
    never = [r["version"] for r in ie if as_int(r["is_error_true"]) + as_int(r["is_error_false"]) == 0]
    k.state("failure_flag", "value_map",
            f"is_error is true on {fmt(f['is_error_true'])}, false on {fmt(f['is_error_false'])} and absent on "
            f"{fmt(f['is_error_absent'])} of {fmt(f['results'])} tool_result blocks: absent means unknown, not success"
            + (f" (files of {', '.join(never)} never write it)." if never else "."),
            k.ev("is_error", f"true {f['is_error_true']}, false {f['is_error_false']}, absent {f['is_error_absent']}"),
            value={"true": f["is_error_true"], "false": f["is_error_false"], "absent": f["is_error_absent"]},
            headline=True)

    k.tool_names("$.message.content[type=tool_use].name", "unreviewed (MCP) names", "Tool names are an open set.")

    k.absence("exit_codes", "no_exit_code", "An exit code on a tool result (toolUseResult.exitCode)")


def _subagents(k: Kit) -> None:
    basis = {r["surface"]: as_int(r["files"]) for r in k.rows("files_by_surface")}
    lin = {r["surface"]: r for r in k.rows("child_lineage")}
    sessions = max((as_int(r["sessions_with_children"]) for r in lin.values()), default=0)
    k.state("subagent_files", "census",
            f"{fmt(basis.get('subagent', 0))} subagent transcripts (subagents/agent-<id>.jsonl, each with a .meta.json) and "
            f"{fmt(basis.get('workflow_agent', 0))} workflow agents (subagents/workflows/wf_<id>/), in {fmt(sessions)} sessions.",
            k.ev("files_by_surface", f"subagent {basis.get('subagent', 0)}, workflow_agent {basis.get('workflow_agent', 0)}",
                 scope=f"{fmt(sum(basis.values()))} files (whole corpus)"),
            k.ev("child_lineage", f"{sessions} sessions with children"),
            value={"subagent": basis.get("subagent", 0), "workflow_agent": basis.get("workflow_agent", 0),
                   "sessions": sessions})

    sa, wf = lin.get("subagent", {}), lin.get("workflow_agent", {})
    k.state("child_in_parent", "rate",
            f"The parent transcript names the child's agent id for {fmt(as_int(sa.get('named_in_parent')))} of "
            f"{fmt(as_int(sa.get('parent_walked')))} subagent files and {fmt(as_int(wf.get('named_in_parent')))} of "
            f"{fmt(as_int(wf.get('parent_walked')))} workflow agents whose parent was walked "
            "(the agent id found anywhere in the parent file's bytes). Lineage is the folder, plus the meta's "
            "toolUseId.",
            k.ev("child_lineage", "; ".join(f"{s} {r['named_in_parent']}/{r['files']}" for s, r in lin.items()) or "none",
                 scope=f"{fmt(k.total)} files (whole corpus)"),
            value=[as_int(sa.get("named_in_parent")), as_int(sa.get("parent_walked")), as_int(wf.get("named_in_parent")),
                   as_int(wf.get("parent_walked"))])

    mj = {r["surface"]: r for r in k.rows("meta_join")}
    m = mj.get("subagent_meta", {})
    w = mj.get("workflow_meta", {})
    k.state("meta_join", "rate",
            f"A subagent .meta.json toolUseId names a tool_use call in its session's parent file for "
            f"{fmt(as_int(m.get('joined_parent_call')))} of {fmt(as_int(m.get('metas')))} metas ({fmt(as_int(m.get('metas')) - as_int(m.get('with_tool_use_id')))} "
            f"carry no toolUseId; {fmt(as_int(m.get('joined_any_call')) - as_int(m.get('joined_parent_call')))} name a call of another "
            f"transcript, as a child spawned by a subagent would). Workflow metas carrying one: "
            f"{fmt(as_int(w.get('with_tool_use_id')))} of {fmt(as_int(w.get('metas')))}.",
            k.ev("meta_join", "; ".join(f"{s} {r['joined_parent_call']}/{r['metas']}" for s, r in mj.items()) or "none"),
            value=[as_int(m.get("joined_parent_call")), as_int(m.get("metas"))])

    sc = k.rows("sidechain")
    by: dict[str, dict[str, int]] = {}
    for r in sc:
        by.setdefault(r["surface"], {})[r["is_sidechain"]] = as_int(r["records"])
    parts = [f"{s}: " + ", ".join(f"{v} {fmt(n)}" for v, n in sorted(d.items())) for s, d in sorted(by.items())
             if s in TRANSCRIPTS]
    k.state("sidechain", "value_map",
            "isSidechain by surface (records): " + ("; ".join(parts) or "none") + ".",
            k.ev("sidechain", f"{len(sc)} rows"), value=by)


def _output(k: Kit) -> None:
    p = k.one("persisted")
    pres, miss = as_int(p.get("target_present")), as_int(p.get("target_missing"))
    k.state("oversized_output", "census",
            f"Oversized output moves to <sid>/tool-results/: {fmt(pres + miss)} tool results name a persisted file "
            f"(toolUseResult.persistedOutputPath): {fmt(pres)} present, {fmt(miss)} missing on disk; "
            f"{fmt(as_int(p.get('results_with_marker')))} results carry the <persisted-output> marker; tool-results/ holds "
            f"{fmt(as_int(p.get('tool_result_files')))} files (largest {human_bytes(as_int(p.get('max_tool_result_file_bytes')))}).",
            k.ev("persisted", f"present {pres}, missing {miss}"),
            value={"present": pres, "missing": miss, "marker": as_int(p.get("results_with_marker")),
                   "files": as_int(p.get("tool_result_files"))})

    rl = k.rows("result_lengths")
    a = next((r for r in rl if r["tool"] == "(all tools)"), {})
    k.state("result_lengths", "percentile",
            f"tool_result payload length (code points; JSON text for block lists) over {fmt(a.get('results'))} results: "
            f"p50 {fmt(a.get('p50'))}, p90 {fmt(a.get('p90'))}, p99 {fmt(a.get('p99'))}, max {fmt(a.get('max'))}; per tool below.",
            k.ev("result_lengths", f"{a}"), value={r["tool"]: [r["p50"], r["p99"], r["max"]] for r in rl})

    th = k.one("thinking")
    tb, so = as_int(th.get("thinking_blocks")), as_int(th.get("signature_only"))
    k.state("thinking", "rate",
            f"{fmt(so)} of {fmt(tb)} thinking blocks ({pct(so, tb)}) are signature-only (empty thinking text); "
            f"{fmt(th.get('with_text'))} carry text; {fmt(th.get('redacted'))} redacted_thinking blocks.",
            k.ev("thinking", f"{so}/{tb}"), value={"signature_only": so, "with_text": as_int(th.get("with_text"))})

    se = k.one("skill_evidence")
    k.state("skill_evidence", "census",
            f"Skills leave a Skill tool call ({fmt(se.get('skill_calls'))} in {fmt(se.get('files_with_skill_calls'))} files), "
            f"a user record injected after it that names the call (sourceToolUseID: {fmt(se.get('injected_records'))}) and "
            f"skill attachments ({fmt(se.get('skill_attachments'))}).",
            k.ev("skill_evidence", f"{se}"), value=se)


def _usage(k: Kit) -> None:
    us = {r["name"]: r for r in k.rows("usage_dedup")}
    o = us.get("output_tokens", {})
    k.state("usage", "rate",
            f"Usage is recorded per assistant record, and one message spans several records: {fmt(o.get('records'))} "
            f"records hold {fmt(o.get('messages'))} message ids ({fmt(o.get('messages_repeated'))} repeat, up to "
            f"{fmt(o.get('max_records_per_message'))} records each). A naive sum of output_tokens "
            f"({fmt(o.get('naive_sum'))}) over-counts the sum de-duplicated on sessionId + message.id "
            f"({fmt(o.get('dedup_sum'))}) by a factor of {o.get('factor') or 'n/a'}.",
            k.ev("usage_dedup", "; ".join(f"{n} ×{r['factor']}" for n, r in us.items()) or "no usage"),
            value={"naive_output_tokens": as_int(o.get("naive_sum")), "dedup_output_tokens": as_int(o.get("dedup_sum")),
                   "factor": o.get("factor")},
            headline=True)


def _absences(k: Kit) -> None:
    for cid, pid, what in (("no_cost", "no_cost", "A cost figure (costUSD)"),
                           ("no_call_id", "no_call_id", "A call_id / tool_call_id key"),
                           ("no_session_end", "no_session_end", "A session-end record or hook"),
                           ("persisted_marker", "persisted_marker", "The literal <persisted-output>"),
                           ("is_error_true", "is_error_true", 'The literal "is_error":true'),
                           ("skill_text", "skill_text", 'The literal "Skill"')):
        k.absence(cid, pid, what)
