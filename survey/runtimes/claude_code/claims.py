"""The sentences of the Claude Code page, each stated with the query or probe behind it.

Every sentence about the format is worded from what the snapshot shows: where a shape may
be absent (ids on calls, result blocks, a version or timestamp key, a persisted-output
folder), the claim says which way this snapshot went, with the figure.
"""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, human_bytes, pct
from survey.evidence.kit import Kit, key_absence
from survey.runtimes.claude_code.relations import relation_claims

TRANSCRIPTS = ("parent", "subagent", "workflow_agent")
MASKS = ("<unreviewed-key>", "<dynamic-key>", "<rare-key>")


def claims(k: Kit) -> None:
    _basis(k)
    _classes(k)
    _identity(k)
    _calls(k)
    _subagents(k)
    _output(k)
    _usage(k)
    _absences(k)
    _model_and_fixtures(k)
    relation_claims(k)  # (links section: agentId by file kind, subagent shapes)


def _surfaces() -> dict[str, str]:
    from survey.runtimes.claude_code import PROFILE

    return {s.name: s.description for s in PROFILE.surfaces}


def _basis(k: Kit) -> None:
    n, total = k.surface_counts((*TRANSCRIPTS, "subagent_meta", "workflow_meta", "journal",
                                 "tool_result_txt", "other"))
    transcripts = sum(n[s] for s in TRANSCRIPTS)
    k.state("basis_files", "census",
            f"The corpus holds {fmt(total)} files: {fmt(n['parent'])} parent transcripts, {fmt(n['subagent'])} "
            f"subagent transcripts, {fmt(n['subagent_meta'])} subagent .meta.json files, {fmt(n['workflow_agent'])} workflow "
            f"agents, {fmt(n['workflow_meta'])} workflow metas, {fmt(n['journal'])} journals, {fmt(n['tool_result_txt'])} "
            f"persisted tool-result files and {fmt(n['other'])} other files. Parents are "
            f"{pct(n['parent'], transcripts)} of the {fmt(transcripts)} transcripts.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, **n})

    desc = _surfaces()
    seen = [(s, n[s]) for s in desc if n.get(s)]
    unseen = [s for s in desc if not n.get(s)]
    k.state("layout", "census",
            "Files by surface (the path pattern each was recognised by): "
            + ("; ".join(f"{s} ({desc[s].split(':')[0]}) {fmt(c)}" for s, c in seen) or "none")
            + (f"; {fmt(n['other'])} other files" if n["other"] else "")
            + (f". No file matched: {', '.join(unseen)}." if unseen else "."),
            k.ev("files_by_surface", "; ".join(f"{s} {c}" for s, c in seen) or "none",
                 scope=f"{fmt(total)} files (whole corpus)"),
            value={s: c for s, c in seen})

    ok = k.basis_frames("records")
    sc = k.rows("surface_classes")
    per_surface: dict[str, int] = {}
    for r in sc:
        per_surface[r["surface"]] = per_surface.get(r["surface"], 0) + as_int(r["records"])
    jsonl = sum(v for s, v in per_surface.items() if s in (*TRANSCRIPTS, "journal"))
    docs = sum(v for s, v in per_surface.items() if s in ("subagent_meta", "workflow_meta"))
    t_records = sum(v for s, v in per_surface.items() if s in TRANSCRIPTS)
    fs = {r["frame_status"]: as_int(r["frames"]) for r in k.rows("frame_status")}
    read = sum(fs.values())
    k.state("record_totals", "census",
            f"Records: {fmt(read)} read, {fmt(ok)} parsed (the rest are counted under Problems); of the parsed, "
            f"{fmt(jsonl)} are JSONL lines ({fmt(t_records)} in transcripts, {fmt(jsonl - t_records)} in journals) and "
            f"{fmt(docs)} are .meta.json documents. Figures below say which of these they count.",
            k.ev("frame_status", f"read {read}, ok {ok}"),
            k.ev("surface_classes", "; ".join(f"{s} {v}" for s, v in sorted(per_surface.items()))),
            value={"read": read, "ok": ok, "jsonl": jsonl, "transcripts": t_records, "meta_docs": docs})


def _masked(keyset: str | None) -> bool:
    return any(m in (keyset or "") for m in MASKS)


def _classes(k: Kit) -> None:
    jc = k.rows("jsonl_classes")
    by_class: dict[str, int] = {}
    keysets: dict[str, int] = {}
    for r in jc:
        by_class[r["rclass"]] = by_class.get(r["rclass"], 0) + as_int(r["records"])
        keysets[r["rclass"]] = keysets.get(r["rclass"], 0) + 1
    records = sum(by_class.values())
    widest = max(keysets.items(), key=lambda kv: (kv[1], kv[0]), default=("none", 0))
    masked = sum(1 for r in jc if _masked(r["keyset"]))
    with_sub = sorted({c.split("/")[0] for c in by_class if "/" in c})
    naming = "named type" + (f", or type/subtype where a subtype is recorded: {', '.join(with_sub)}" if with_sub else
                             "; no record carries a subtype")
    _n, raw = k.keyset_counts(set(by_class))
    k.state("record_classes", "census",
            f"{len(by_class)} record classes ({naming}) over {fmt(records)} JSONL records, with {fmt(len(jc))} "
            f"distinct top-level key sets after masking unreviewed keys (up to {widest[1]} for {widest[0]}); "
            f"{fmt(raw)} distinct before masking; "
            + (f"{fmt(masked)} of those sets hold a masked key, so masking may have merged sets that differ."
               if masked else "no set holds a masked key, so masking merged none.")
            + " A reader must accept classes it does not know.",
            k.ev("jsonl_classes", f"{len(by_class)} classes, {len(jc)} key sets, {masked} with a masked key"),
            k.ev("raw_keysets", f"{raw} distinct top-level key sets before masking in those classes"),
            value={"records": dict(sorted(by_class.items())), "keysets": len(jc), "masked_keysets": masked,
                   "keysets_raw": raw,
                   "whole_corpus": k.manifest.get("sample", {}).get("n") is None})

    vf = {r["surface"]: r for r in k.rows("version_files")}
    vs = k.rows("versions")
    with_v = sum(as_int(r["records_with_version"]) for r in vf.values())
    recs = sum(as_int(r["records"]) for r in vf.values())
    mixing = sum(as_int(r["files_mixing_versions"]) for r in vf.values())
    names = [r["version"] for r in vs]
    span = f"{names[0]} to {names[-1]}" if names else "none"
    carrying = [f"{s} {fmt(as_int(r['records_with_version']))} of {fmt(as_int(r['records']))}"
                for s, r in sorted(vf.items()) if as_int(r["records_with_version"])]
    lacking = [s for s, r in sorted(vf.items()) if not as_int(r["records_with_version"])]
    if with_v:
        text = (f"The client version is on records: {fmt(with_v)} of {fmt(recs)} parsed records carry `version` "
                f"({'; '.join(carrying)}"
                + (f"; none in {', '.join(lacking)}" if lacking else "") + f"), {len(vs)} versions ({span}); "
                f"{fmt(mixing)} files hold records of more than one version (each file counted once). "
                "Shapes below can be stratified by it.")
    else:
        text = (f"No parsed record carries a `version` key ({fmt(recs)} records): shapes cannot be stratified "
                "by client version here.")
    k.state("client_version", "value_map", text,
            k.ev("version_files", f"{with_v}/{recs} records, {mixing} files with several versions"),
            k.ev("versions", "; ".join(f"{r['version']} {r['records']} records" for r in vs) or "none"),
            value={"versions": {r["version"]: as_int(r["records"]) for r in vs}, "files_mixing": mixing,
                   "records_with_version": with_v},
            headline=True)

    ts = k.rows("timestamps")
    recs_t = sum(as_int(r["records"]) for r in ts)
    with_ts = sum(as_int(r["with_timestamp"]) for r in ts)
    without = [r["rclass"] for r in ts if as_int(r["with_timestamp"]) == 0]
    partial = [r["rclass"] for r in ts if 0 < as_int(r["with_timestamp"]) < as_int(r["records"])]
    k.state("timestamps", "rate",
            f"{fmt(with_ts)} of {fmt(recs_t)} JSONL records ({pct(with_ts, recs_t)}) carry a top-level `timestamp`; "
            + (f"classes without one: {', '.join(without)}" if without else "no class is without one")
            + (f"; classes where only some carry one: {', '.join(partial)}." if partial else "."),
            k.ev("timestamps", f"{with_ts}/{recs_t}; without: {', '.join(without) or 'none'}"),
            value={"with": with_ts, "records": recs_t, "without": without, "partial": partial})

    mk = k.rows("model_key")
    with_m = [(r["rclass"], as_int(r["with_model"]), as_int(r["messages"])) for r in mk if as_int(r["with_model"])]
    msgs = sum(as_int(r["messages"]) for r in mk)
    k.state("model", "census",
            ("`message.model` is on " + "; ".join(f"{c} {fmt(w)} of {fmt(n)}" for c, w, n in with_m)
             + f" message objects ({fmt(sum(w for _c, w, _n in with_m))} of {fmt(msgs)} in all).") if with_m else
            f"No `message` object carries a `model` key ({fmt(msgs)} message objects).",
            k.ev("model_key", "; ".join(f"{r['rclass']} {r['with_model']}/{r['messages']}" for r in mk) or "none"),
            value={c: [w, n] for c, w, n in with_m})

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
    none = sum(as_int(r["no_session_id"]) for r in si.values())
    files = sum(as_int(r["files"]) for r in si.values())
    k.state("file_identity", "rate",
            f"sessionId: {fmt(files - several - none)} of {fmt(files)} transcripts carry exactly one, {fmt(several)} several, "
            f"{fmt(none)} none. A parent's sessionId equals its file name in "
            f"{fmt(as_int(p.get('equals_file_name_id')))} of {fmt(as_int(p.get('files')))} parent files; a subagent or "
            f"workflow file carries its parent session's id (the folder name) in {fmt(kid_eq)} of {fmt(kid_files)}.",
            k.ev("session_ids", "; ".join(f"{s}: {r['equals_file_name_id']}/{r['equals_parent_folder_id']}/{r['files']}"
                                          for s, r in si.items())),
            value=[as_int(p.get("equals_file_name_id")), as_int(p.get("files")), kid_eq, kid_files, several],
            without_session_id=none,
            headline=True)

    dag = k.rows("uuid_dag")
    tot = {c: sum(as_int(r[c]) for r in dag) for c in ("files", "uuids", "duplicate_uuids", "files_with_duplicates",
                                                     "parent_refs", "dangling_parents", "files_with_dangling",
                                                     "dangling_found_in_another_file")}
    if tot["uuids"]:
        text = (f"Records carry `uuid` ({fmt(tot['uuids'])} in {fmt(tot['files'])} transcripts) and "
                f"{fmt(tot['parent_refs'])} carry a `parentUuid`: {fmt(tot['duplicate_uuids'])} duplicate uuids (in "
                f"{fmt(tot['files_with_duplicates'])} files) and {fmt(tot['dangling_parents'])} parentUuid values naming no "
                f"record of their file (in {fmt(tot['files_with_dangling'])} files; "
                f"{fmt(tot['dangling_found_in_another_file'])} found in another file).")
    else:
        text = f"No transcript record carries a `uuid` ({fmt(tot['files'])} transcripts): records are not chained by id."
    k.state("uuid_dag", "census", text,
            k.ev("uuid_dag", f"uuids {tot['uuids']}, refs {tot['parent_refs']}, dup {tot['duplicate_uuids']}, "
                             f"dangling {tot['dangling_parents']}"),
            value={"uuids": tot["uuids"], "parent_refs": tot["parent_refs"], "duplicate_uuids": tot["duplicate_uuids"],
                   "dangling_parents": tot["dangling_parents"]})


def _block_key_share(bk: list[dict], btype: str, key: str) -> tuple[int, int]:
    """Blocks of a type, and how many of them carry ``key`` (from the gated block key sets)."""
    rows = [r for r in bk if r["btype"] == btype]
    return (sum(as_int(r["blocks"]) for r in rows if key in (r["keyset"] or "").split(",")),
            sum(as_int(r["blocks"]) for r in rows))


def _calls(k: Kit) -> None:
    bk = k.rows("block_keysets")
    id_calls, n_calls = _block_key_share(bk, "tool_use", "id")
    id_results, n_results = _block_key_share(bk, "tool_result", "tool_use_id")
    tp = k.rows("tool_pairs")
    s = {c: sum(as_int(r[c]) for r in tp) for c in ("calls", "results", "paired", "unpaired_calls", "orphan_results",
                                                  "orphans_paired_in_another_file", "calls_answered_twice")}
    if n_calls == 0:
        text = "No tool_use block was observed in transcripts."
    elif id_calls == 0:
        text = (f"Calls carry no native id: none of {fmt(n_calls)} tool_use blocks has an `id`, so a result cannot be "
                "joined to its call by id.")
    else:
        text = (("Calls carry a native id" if id_calls == n_calls else "Only some calls carry a native id")
                + f": `id` on {fmt(id_calls)} of {fmt(n_calls)} tool_use blocks, `tool_use_id` on "
                f"{fmt(id_results)} of {fmt(n_results)} tool_result blocks. Within a file, {fmt(s['paired'])} of "
                f"{fmt(s['results'])} results with an id answer a call; {fmt(s['unpaired_calls'])} of {fmt(s['calls'])} "
                f"calls with an id have no result; {fmt(s['orphan_results'])} results name no call of their file.")
    k.state("native_call_id", "rate", text,
            k.ev("block_keysets", f"tool_use with id {id_calls}/{n_calls}; tool_result with tool_use_id "
                                  f"{id_results}/{n_results}"),
            k.ev("tool_pairs", f"paired {s['paired']}, unpaired calls {s['unpaired_calls']}, orphans {s['orphan_results']}"),
            value={"calls": n_calls, "calls_with_id": id_calls, "results": n_results, "results_with_id": id_results,
                   "paired": s["paired"], "unpaired_calls": s["unpaired_calls"], "orphan_results": s["orphan_results"]},
            headline=True)

    tt = k.rows("tool_use_result_types")
    by_type: dict[str, int] = {}
    for r in tt:
        by_type[r["jtype"]] = by_type.get(r["jtype"], 0) + as_int(r["records"])
    tur = sum(by_type.values())
    if n_results or tur:
        text = (f"Results are recorded: {fmt(n_results)} tool_result blocks in transcripts, and {fmt(tur)} records "
                "carry a client-side `toolUseResult`.")
    else:
        text = "No tool result was observed: no tool_result block and no `toolUseResult` in any transcript."
    k.state("results_recorded", "census", text,
            k.ev("block_keysets", f"{n_results} tool_result blocks"), k.ev("tool_use_result_types", f"{tur} records"),
            value={"blocks": n_results, "tool_use_result": tur})
    types = sorted(by_type.items(), key=lambda kv: -kv[1])
    k.state("tool_use_result_types", "value_map",
            ("toolUseResult JSON types: " + ", ".join(f"{t} in {fmt(n)}" for t, n in types) + " records"
             + ("; the table below shows which tools write which." if len(types) > 1 else ".")) if types
            else "No record carries a toolUseResult.",
            k.ev("tool_use_result_types", f"{len(tt)} rows"), value=by_type)

    ie = k.rows("is_error")
    f = {c: sum(as_int(r[c]) for r in ie) for c in ("results", "is_error_true", "is_error_false", "is_error_absent",
                                                  "is_error_other")}
    never = [r["version"] for r in ie if as_int(r["is_error_true"]) + as_int(r["is_error_false"]) == 0]
    k.state("failure_flag", "value_map",
            f"is_error is true on {fmt(f['is_error_true'])}, false on {fmt(f['is_error_false'])} and absent on "
            f"{fmt(f['is_error_absent'])} of {fmt(f['results'])} tool_result blocks"
            + (f"; files whose first version is {', '.join(never)} never write it." if never and f["results"] else "."),
            k.ev("is_error", f"true {f['is_error_true']}, false {f['is_error_false']}, absent {f['is_error_absent']}"),
            value={"true": f["is_error_true"], "false": f["is_error_false"], "absent": f["is_error_absent"]},
            headline=True)

    _tool_names(k)
    key_absence(k, "exit_codes", ("no_exit_code", "no_exit_code_snake"), "An exit code (exitCode / exit_code)")


def _tool_names(k: Kit) -> None:
    names = k.rows("tool_names")
    reasons = k.one("tool_name_reasons")
    withheld = as_int(reasons.get("withheld_calls"))
    mcp = as_int(reasons.get("mcp_calls"))
    allow = bool(k.manifest.get("allow_mcp_names"))
    mcp_withheld = 0 if allow else min(mcp, withheld)
    unreviewed = withheld - mcp_withheld
    distinct_w = next((r["distinct_withheld"] for r in k.rows("value_maps")
                       if r["path"] == "$.message.content[type=tool_use].name" and r["value"] == "<withheld>"), 0)
    reviewed = [r for r in names if r["name"] != "<withheld>"]
    # --allow-mcp-names lets an MCP name through the gate, yet a strict gate still withholds it as unreviewed
    shown_mcp = sum(as_int(r["calls"]) for r in reviewed if str(r["name"]).startswith("mcp__"))
    parts = []
    if mcp_withheld:
        parts.append(f"{fmt(mcp_withheld)} calls an MCP name (mcp__<server>__<tool>, withheld by policy)")
    if unreviewed:
        parts.append(f"{fmt(unreviewed)} calls a name outside the reviewed vocabulary (withheld as unreviewed)")
    k.state("tool_names", "value_map",
            f"{len(reviewed)} tool names shown over {fmt(sum(as_int(r['calls']) for r in names))} calls"
            + (f"; {fmt(withheld)} calls carry {fmt(distinct_w)} withheld names: " + ", ".join(parts) if withheld else
               "; no name was withheld")
            + (f"; {fmt(shown_mcp)} calls carry an MCP name, shown (--allow-mcp-names)" if shown_mcp else "")
            + ". Tool names are an open set.",
            k.ev("tool_names", f"{len(names)} rows"),
            k.ev("tool_name_reasons", f"withheld {withheld}: MCP {mcp_withheld}, unreviewed {unreviewed}"),
            value={"names": {r["name"]: r["calls"] for r in names}, "withheld_mcp": mcp_withheld,
                   "withheld_unreviewed": unreviewed})


def _subagents(k: Kit) -> None:
    basis = {r["surface"]: as_int(r["files"]) for r in k.rows("files_by_surface")}
    lin = {r["surface"]: r for r in k.rows("child_lineage")}
    sessions = max((as_int(r["sessions_with_children"]) for r in lin.values()), default=0)
    sub, meta = basis.get("subagent", 0), basis.get("subagent_meta", 0)
    wf, wmeta = basis.get("workflow_agent", 0), basis.get("workflow_meta", 0)
    k.state("subagent_files", "census",
            f"{fmt(sub)} subagent transcripts (subagents/agent-<id>.jsonl) beside {fmt(meta)} .meta.json files, and "
            f"{fmt(wf)} workflow agents (subagents/workflows/wf_<id>/) beside {fmt(wmeta)} metas, in {fmt(sessions)} sessions.",
            k.ev("files_by_surface", f"subagent {sub}, subagent_meta {meta}, workflow_agent {wf}, workflow_meta {wmeta}",
                 scope=f"{fmt(sum(basis.values()))} files (whole corpus)"),
            k.ev("child_lineage", f"{sessions} sessions with children"),
            value={"subagent": sub, "subagent_meta": meta, "workflow_agent": wf, "workflow_meta": wmeta,
                   "sessions": sessions})

    sa, wfl = lin.get("subagent", {}), lin.get("workflow_agent", {})
    k.state("child_in_parent", "rate",
            f"The parent transcript names the child's agent id for {fmt(as_int(sa.get('named_in_parent')))} of "
            f"{fmt(as_int(sa.get('parent_walked')))} subagent files and {fmt(as_int(wfl.get('named_in_parent')))} of "
            f"{fmt(as_int(wfl.get('parent_walked')))} workflow agents whose parent was walked "
            "(the agent id found anywhere in the parent file's bytes).",
            k.ev("child_lineage", "; ".join(f"{s} {r['named_in_parent']}/{r['files']}" for s, r in lin.items()) or "none",
                 scope=f"{fmt(k.total)} files (whole corpus)"),
            value=[as_int(sa.get("named_in_parent")), as_int(sa.get("parent_walked")), as_int(wfl.get("named_in_parent")),
                   as_int(wfl.get("parent_walked"))])

    mj = {r["surface"]: r for r in k.rows("meta_join")}
    m = mj.get("subagent_meta", {})
    w = mj.get("workflow_meta", {})
    k.state("meta_join", "rate",
            f"A subagent .meta.json toolUseId names a tool_use call in its session's parent file for "
            f"{fmt(as_int(m.get('joined_parent_call')))} of {fmt(as_int(m.get('metas')))} metas "
            f"({fmt(as_int(m.get('metas')) - as_int(m.get('with_tool_use_id')))} carry no toolUseId; "
            f"{fmt(as_int(m.get('joined_any_call')) - as_int(m.get('joined_parent_call')))} name a call of another "
            f"transcript). Workflow metas carrying one: {fmt(as_int(w.get('with_tool_use_id')))} of {fmt(as_int(w.get('metas')))}.",
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
    marker, files = as_int(p.get("results_with_marker")), as_int(p.get("tool_result_files"))
    if pres + miss + marker + files:
        text = (f"Persisted output: {fmt(pres + miss)} tool results name a persisted file "
                f"(toolUseResult.persistedOutputPath): {fmt(pres)} present, {fmt(miss)} missing on disk; "
                f"{fmt(marker)} results carry the <persisted-output> marker; tool-results/ holds {fmt(files)} files "
                f"(largest {human_bytes(as_int(p.get('max_tool_result_file_bytes')))}).")
    else:
        text = ("No output was observed moved out of a transcript: no persistedOutputPath, no <persisted-output> "
                "marker and no tool-results/ file.")
    k.state("oversized_output", "census", text,
            k.ev("persisted", f"present {pres}, missing {miss}, marker {marker}, files {files}"),
            value={"present": pres, "missing": miss, "marker": marker, "files": files})

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
            f"Skill evidence: {fmt(se.get('skill_calls'))} Skill tool calls (in {fmt(se.get('files_with_skill_calls'))} "
            f"files), {fmt(se.get('injected_records'))} records carrying sourceToolUseID, and "
            f"{fmt(se.get('skill_attachments'))} skill attachments.",
            k.ev("skill_evidence", f"{se}"), value=se)


def _usage(k: Kit) -> None:
    us = {r["name"]: r for r in k.rows("usage_dedup")}
    o = us.get("output_tokens", {})
    recs, msgs, rep = as_int(o.get("records")), as_int(o.get("messages")), as_int(o.get("messages_repeated"))
    naive, dedup = as_int(o.get("naive_sum")), as_int(o.get("dedup_sum"))
    if not recs:
        text = "No record carries message.usage with a message.id: usage was not observed."
    else:
        text = (f"Usage is recorded per record: {fmt(recs)} records carry message.usage with a message.id, holding "
                f"{fmt(msgs)} message ids "
                f"({fmt(rep)} on more than one record, up to {fmt(o.get('max_records_per_message'))} records each). "
                f"A naive sum of output_tokens ({fmt(naive)}) "
                + (f"over-counts the sum de-duplicated on sessionId + message.id ({fmt(dedup)}) by a factor of "
                   f"{o.get('factor')}: token sums must de-duplicate on (sessionId, message.id)."
                   if naive > dedup else f"equals the sum de-duplicated on sessionId + message.id ({fmt(dedup)})."))
    k.state("usage", "rate", text,
            k.ev("usage_dedup", "; ".join(f"{n} ×{r['factor']}" for n, r in us.items()) or "no usage"),
            value={"records": recs, "messages_repeated": rep, "naive_output_tokens": naive, "dedup_output_tokens": dedup,
                   "factor": o.get("factor")},
            headline=True)
    k.state("message_spans_records", "census",
            (f"One message.id spans several records in {fmt(rep)} of {fmt(msgs)} messages: message.id is not a call id "
             "and not a record id." if rep else
             f"Each of {fmt(msgs)} message ids with usage sits on one record in this snapshot."),
            k.ev("usage_dedup", f"messages {msgs}, repeated {rep}"), value=rep)


def _absences(k: Kit) -> None:
    key_absence(k, "no_cost", ("no_cost", "no_cost_snake"), "A cost figure (costUSD / cost_usd)")
    key_absence(k, "no_call_id", ("no_call_id", "no_tool_call_id"), "A call_id / tool_call_id key")
    for cid, pid, what in (("no_session_end", "no_session_end", "A session-end record or hook"),
                           ("persisted_marker", "persisted_marker", "The literal <persisted-output>"),
                           ("is_error_true", "is_error_true", 'The literal "is_error":true'),
                           ("skill_text", "skill_text", 'The literal "Skill"')):
        k.absence(cid, pid, what)


def _model_and_fixtures(k: Kit) -> None:
    """The "model field" rows and the fixture checklist, each worded from the claims above."""
    c = {x.id: x for x in k.claims}
    nc = c["native_call_id"].value
    ev_calls = c["native_call_id"].evidence
    k.state("model_call_id", "census",
            (f"`tool_use.id` (on {fmt(nc['calls_with_id'])} of {fmt(nc['calls'])} calls), answered by "
             f"`tool_result.tool_use_id` (on {fmt(nc['results_with_id'])} of {fmt(nc['results'])} results)")
            if nc["calls_with_id"] else f"none observed ({fmt(nc['calls'])} calls, none with an `id`)",
            *ev_calls, value=nc["calls_with_id"])
    rr = c["results_recorded"].value
    k.state("model_result", "census",
            (f"recorded: {fmt(rr['blocks'])} tool_result blocks, {fmt(rr['tool_use_result'])} `toolUseResult` values"
             if rr["blocks"] or rr["tool_use_result"] else "not observed"),
            *c["results_recorded"].evidence, value=rr)
    ff = c["failure_flag"].value
    ex, ex_seen = c["exit_codes"].value, c["exit_codes"].extra["seen"]
    exit_txt = ("an exit code key at " + ", ".join(f"`{p}`" for v in ex_seen.values() for p in v["paths"])
                if ex_seen else "no exit code key observed" if ex else "exit code not determined")
    k.state("model_outcome", "census",
            f"`is_error` on {fmt(ff['true'] + ff['false'])} of {fmt(ff['true'] + ff['false'] + ff['absent'])} results "
            f"(absent on {fmt(ff['absent'])}); {exit_txt}",
            *c["failure_flag"].evidence, *c["exit_codes"].evidence, value={"is_error": ff, "exit": ex, "exit_seen": ex_seen})

    cv, rc = c["client_version"].value, c["record_classes"].value["records"]
    us, ov, sa = c["usage"].value, c["oversized_output"].value, c["subagent_files"].value
    items = []
    if cv["versions"]:
        items.append(f"one file per client version ({len(cv['versions'])} seen)")
    if cv["files_mixing"]:
        items.append(f"a file holding several versions ({fmt(cv['files_mixing'])} seen)")
    for cls in sorted(x for x in rc if x.startswith("system/")):
        items.append(f"a `{cls}` record ({fmt(rc[cls])} seen)")
    if us["messages_repeated"]:
        items.append(f"a message spread over several records ({fmt(us['messages_repeated'])} seen)")
    for key, label in (("true", "true"), ("false", "false"), ("absent", "absent")):
        if ff[key]:
            items.append(f"a tool_result with is_error {label} ({fmt(ff[key])} seen)")
    if "string" in (c["tool_use_result_types"].value or {}):
        items.append(f"a string toolUseResult ({fmt(c['tool_use_result_types'].value['string'])} seen)")
    if sa["subagent"]:
        items.append(f"a subagent transcript with its .meta.json ({fmt(sa['subagent'])} seen)")
    if sa["workflow_agent"]:
        items.append(f"a workflow folder ({fmt(sa['workflow_agent'])} agents seen)")
    if ov["present"]:
        items.append(f"a persisted-output result with its tool-results file ({fmt(ov['present'])} seen)")
    if ov["missing"]:
        items.append(f"a persisted-output result whose target is gone ({fmt(ov['missing'])} seen)")
    if nc["unpaired_calls"]:
        items.append(f"a call without a result ({fmt(nc['unpaired_calls'])} seen)")
    dag = c["uuid_dag"].value
    if dag["duplicate_uuids"]:
        items.append(f"a duplicated record ({fmt(dag['duplicate_uuids'])} seen)")
    if dag["dangling_parents"]:
        items.append(f"a dangling parentUuid ({fmt(dag['dangling_parents'])} seen)")
    k.state("fixtures", "census",
            "Shapes this snapshot shows, each worth one fixture: " + ("; ".join(items) or "none") + ".",
            *c["client_version"].evidence, *c["native_call_id"].evidence, *c["failure_flag"].evidence,
            value=items)
