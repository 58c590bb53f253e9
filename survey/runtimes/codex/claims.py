"""The sentences of the Codex page, each stated with the query or probe behind it."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, pct
from survey.evidence.kit import Kit

ROLLOUTS = ("rollout", "archived_rollout", "rollout_unnamed")
OUTPUT_PATH = "$.payload.output"




def claims(k: Kit) -> None:
    _basis(k)
    _identity(k)
    _subagents(k)
    _calls(k)
    _outcomes(k)
    _sizes(k)
    _absences(k)


def _basis(k: Kit) -> None:
    n, total = k.surface_counts((*ROLLOUTS, "other"))
    k.state("basis_files", "census",
            f"The corpus holds {fmt(total)} files: {fmt(n['rollout'])} rollouts in the dated layout, "
            f"{fmt(n['archived_rollout'])} flat (archived) rollouts, {fmt(n['rollout_unnamed'])} rollouts without a uuid "
            f"in their name and {fmt(n['other'])} other files.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, **n})

    k.basis_frames("records")

    rc = k.rows("record_classes")
    by_class: dict[str, int] = {}
    for r in rc:
        by_class[r["rclass"]] = by_class.get(r["rclass"], 0) + as_int(r["records"])
    k.state("record_classes", "census",
            f"{len(by_class)} record classes (type, or type/payload.type) over {fmt(sum(by_class.values()))} records, "
            f"with {fmt(len(rc))} distinct top-level key sets. A reader must accept classes it does not know.",
            k.ev("record_classes", f"{len(by_class)} classes, {len(rc)} key sets"),
            value={"records": dict(sorted(by_class.items())), "keysets": len(rc),
                   "whole_corpus": k.manifest.get("sample", {}).get("n") is None})

    vs = k.rows("versions")
    names = [r["version"] for r in vs if not str(r["version"]).startswith("(")]
    span = f"{names[0]} to {names[-1]}" if names else "none"
    k.state("client_version", "value_map",
            f"The client version is recorded once per header, not per record: `session_meta.payload.cli_version`, "
            f"{len(names)} versions ({span}) over {fmt(sum(as_int(r['files']) for r in vs))} rollouts (by each file's first "
            "header). Shapes below are stratified by it.",
            k.ev("versions", "; ".join(f"{r['version']} {r['files']} files" for r in vs) or "none"),
            value={r["version"]: as_int(r["files"]) for r in vs}, headline=True)

    ts = k.rows("timestamps")
    recs = sum(as_int(r["records"]) for r in ts)
    with_ts = sum(as_int(r["with_timestamp"]) for r in ts)
    without = [r["rclass"] for r in ts if as_int(r["with_timestamp"]) < as_int(r["records"])]
    k.state("timestamps", "rate",
            f"{fmt(with_ts)} of {fmt(recs)} records ({pct(with_ts, recs)}) carry a top-level ISO `timestamp`"
            + (f"; classes where some lack one: {', '.join(without)}." if without else "."),
            k.ev("timestamps", f"{with_ts}/{recs}"), value=[with_ts, recs])


def _identity(k: Kit) -> None:
    fi = k.one("file_identity")
    k.state("file_identity", "rate",
            f"The first session_meta `payload.id` equals the filename uuid in {fmt(fi.get('first_id_equals_filename'))} "
            f"of {fmt(fi.get('files_with_session_meta'))} rollouts with a header ({fmt(fi.get('first_id_differs'))} differ); "
            f"session_meta is the first record in {fmt(fi.get('session_meta_first_record'))} of {fmt(fi.get('files'))}.",
            k.ev("file_identity", f"{fi}"),
            value=[as_int(fi.get("first_id_equals_filename")), as_int(fi.get("files_with_session_meta")), as_int(fi.get("files"))],
            headline=True)

    hd = {str(r["headers"]): as_int(r["files"]) for r in k.rows("session_meta_headers")}
    ex = {r["kind"]: r for r in k.rows("extra_headers")}
    several = sum(n for h, n in hd.items() if int(h) > 1)
    k.state("headers", "census",
            f"{fmt(several)} of {fmt(sum(hd.values()))} rollouts hold more than one session_meta header. The later headers are: "
            + ("; ".join(f"{kind} {fmt(r['headers'])} (in {fmt(r['files'])} files)" for kind, r in ex.items()) or "none")
            + ". Expect more than one header per file.",
            k.ev("session_meta_headers", "; ".join(f"{h} headers: {n} files" for h, n in hd.items())),
            k.ev("extra_headers", f"{len(ex)} kinds"),
            value={"per_file": hd, "extra": {kind: as_int(r["headers"]) for kind, r in ex.items()}})


def _subagents(k: Kit) -> None:
    sa = k.one("subagents")
    kids = as_int(sa.get("subagent_files"))
    k.state("subagent_files", "census",
            f"{fmt(kids)} of {fmt(sa.get('files_with_header'))} rollouts are subagent children (first header id differs "
            f"from its session_id); {fmt(sa.get('with_history_start_ordinal'))} carry subagent_history_start_ordinal. "
            "A child is a rollout of its own, in the same dated layout.",
            k.ev("subagents", f"{kids} children"), value=kids)
    k.state("child_in_parent", "rate",
            f"The child names its parent in its first header (session_id); the parent's rollout is present for "
            f"{fmt(sa.get('parent_rollout_present'))} of {fmt(kids)} children. A structured field of another record "
            f"(collab_agent_spawn_end.new_thread_id, sub_agent_activity.agent_thread_id) names the child for "
            f"{fmt(sa.get('named_by_a_structured_field'))} of {fmt(kids)}.",
            k.ev("subagents", f"parent present {sa.get('parent_rollout_present')}, named {sa.get('named_by_a_structured_field')}"),
            value=[as_int(sa.get("named_by_a_structured_field")), kids, as_int(sa.get("parent_rollout_present"))])

    ih = k.one("inherited_history")
    k.state("inherited_history", "census",
            f"{fmt(ih.get('child_files'))} child rollouts copy {fmt(ih.get('inherited_records'))} records of their parent's "
            f"history below subagent_history_start_ordinal, before {fmt(ih.get('own_records'))} records of their own; "
            f"turn ids shared by both ranges: {fmt(ih.get('shared_turn_ids'))} (inherited {fmt(ih.get('inherited_turn_ids'))}, "
            f"own {fmt(ih.get('own_turn_ids'))}). Treat inherited history as context, not as the child's turns.",
            k.ev("inherited_history", f"{ih}"), value=ih)


def _calls(k: Kit) -> None:
    cj = k.rows("call_joins")
    calls = [r for r in cj if r["side"] == "call"]
    outs = [r for r in cj if r["side"] == "output"]
    paired = sum(as_int(r["joined"]) for r in outs)
    unp_calls = sum(as_int(r["unpaired"]) for r in calls)
    unp_outs = sum(as_int(r["unpaired"]) for r in outs)
    n_calls = sum(as_int(r["records"]) for r in calls)
    n_outs = sum(as_int(r["records"]) for r in outs)
    k.state("native_call_id", "rate",
            f"Calls carry a native id: `call_id` joins a call to its output within a rollout. {fmt(paired)} of "
            f"{fmt(n_outs)} outputs answer a call of their file; {fmt(unp_calls)} of {fmt(n_calls)} calls have no output; "
            f"{fmt(unp_outs)} outputs name no call of their file (the call may sit in compacted history).",
            k.ev("call_joins", f"paired {paired}, unpaired calls {unp_calls}, unpaired outputs {unp_outs}"),
            value={"paired": paired, "unpaired_calls": unp_calls, "unpaired_outputs": unp_outs}, headline=True)
    k.state("results_recorded", "census",
            "Outputs are recorded as their own records: "
            + ", ".join(f"{r['rclass'].split('/')[-1]} {fmt(r['records'])}" for r in outs) + ".",
            k.ev("call_joins", f"{n_outs} outputs"), value=n_outs)

    ii = k.one("item_ids")
    k.state("item_ids", "rate",
            f"Response item ids (`payload.id`) equal a call_id in {fmt(ii.get('item_ids_equal_to_a_call_id'))} of "
            f"{fmt(ii.get('item_ids'))} cases: never use an item id as a call id.",
            k.ev("item_ids", f"{ii}"), value=as_int(ii.get("item_ids_equal_to_a_call_id")))

    ej = k.rows("event_joins")
    k.state("event_joins", "rate",
            "Events that carry a call_id and name a call of their rollout: "
            + ("; ".join(f"{r['rclass'].split('/')[-1]} {fmt(r['joined_call'])}/{fmt(r['records'])}" for r in ej) or "none")
            + ".",
            k.ev("event_joins", f"{len(ej)} event classes"), value={r["rclass"]: [r["joined_call"], r["records"]] for r in ej})

    tn = k.rows("tool_names")
    mcp = sum(as_int(r["calls"]) for r in tn if r["kind"])
    k.state("tool_names", "value_map",
            f"{len({r['name'] for r in tn if not r['kind'] and r['name'] != '<withheld>'})} reviewed tool names over "
            f"{fmt(sum(as_int(r['calls']) for r in tn))} calls; {fmt(mcp)} MCP calls (a namespace beside the name; both withheld). "
            "Tool names are an open set.",
            k.ev("tool_names", f"{len(tn)} rows"), value={f"{r['rclass']}:{r['name']}": r["calls"] for r in tn})

    ar = k.rows("arguments")
    s = sum(as_int(r["occurrences"]) for r in ar if r["rclass"] == "response_item/function_call"
            and r["path"] == "$.payload.arguments" and r["jtype"] == "string")
    obj = sum(as_int(r["occurrences"]) for r in ar if r["path"] == "$.payload.arguments.<json>" and r["jtype"] == "object")
    k.state("arguments", "rate",
            f"function_call arguments are a JSON document inside a string ({fmt(s)} calls); {fmt(obj)} decode to an object "
            "(keys are tool parameters, or MCP argument names: counted, never described).",
            k.ev("arguments", f"{s} strings, {obj} objects"), value=[obj, s])


def _outcomes(k: Kit) -> None:
    ec = k.rows("exit_codes")
    text = sum(as_int(r["records"]) for r in ec if r["field"].endswith("(text)"))
    num = {r["rclass"]: as_int(r["records"]) for r in ec if not r["field"].endswith("(text)")}
    k.state("exit_codes", "census",
            f"Exit codes live as text inside outputs in {fmt(text)} records (`Process exited with code N`, `Exit code: N`)"
            + ("; as a number in " + ", ".join(f"{c.split('/')[-1]} {fmt(n)}" for c, n in num.items()) if num
               else "; no record carries one as a number")
            + ".",
            k.ev("exit_codes", "; ".join(f"{r['rclass']} {r['field']} {r['records']}" for r in ec) or "none"),
            value={"text": text, **num})

    ff = k.rows("failure_flags")
    flags = "; ".join(f"{r['path'].split('.')[-1]}={r['value']} {fmt(r['records'])}" for r in ff) or "none"
    p = k.probe("no_is_error")
    k.state("failure_flag", "value_map",
            f"No per-call is_error ({fmt(p['duckdb']['files_matched'])} of {fmt(p['files_scanned'])} files contain the "
            f"literal); outcome flags that do exist: {flags}; and the exit codes above.",
            k.ev_probe("no_is_error"), k.ev("failure_flags", flags),
            value={f"{r['path']}={r['value']}": as_int(r["records"]) for r in ff})

    cc = k.rows("class_constants")
    ct = next((r for r in cc if r["rclass"] == "response_item/custom_tool_call" and r["field"] == "status"), None)
    k.state("constants", "census",
            (f"custom_tool_call.status is `{ct['value']}` in all {fmt(ct['records'])} records across {fmt(ct['files'])} files: "
             "a constant, not evidence of success. " if ct else "")
            + f"{fmt(len(cc))} (class, field) pairs hold one value everywhere (table below).",
            k.ev("class_constants", f"{len(cc)} rows"), value={f"{r['rclass']}.{r['field']}": r["value"] for r in cc})

    tc = k.one("token_counter")
    k.state("usage", "census",
            f"Usage is a cumulative counter: {fmt(tc.get('token_counts'))} token_count events in {fmt(tc.get('files'))} files "
            f"carry total_token_usage. It drops {fmt(tc.get('drops'))} times, {fmt(tc.get('drops_at_compaction'))} of them "
            f"at a compaction; {fmt(tc.get('repeats'))} events repeat the previous total. Use the last total per window, "
            "never a sum of events.",
            k.ev("token_counter", f"{tc}"), value=tc, headline=True)


def _sizes(k: Kit) -> None:
    caps = [r for r in k.rows("silent_caps") if r["path"] == OUTPUT_PATH]
    if caps:
        c = caps[0]
        k.state("oversized_output", "census",
                f"Outputs reach the same exact maximum of {fmt(c['max_len'])} bytes in {fmt(c['files_at_max'])} files: "
                f"a probable silent cap at {fmt(c['max_len'])} bytes (nothing in the record says it was cut).",
                k.ev("silent_caps", f"{OUTPUT_PATH} {c['max_len']} bytes × {c['files_at_max']} files"),
                provenance="inferred", value=[c["max_len"], c["files_at_max"]])
    else:
        k.state("oversized_output", "census",
                "No output (payload.output) length repeats as an exact maximum across files: no silent cap on "
                "outputs was observed, and no output is moved off the rollout.",
                k.ev("silent_caps", "no row for payload.output"), value=None)

    os_ = k.rows("output_sizes")
    a = next((r for r in os_ if r["tool"] == "(all tools)"), {})
    k.state("output_sizes", "percentile",
            f"Output records (bytes of the whole JSON line) over {fmt(a.get('outputs'))} outputs: p50 {fmt(a.get('p50'))}, "
            f"p90 {fmt(a.get('p90'))}, p99 {fmt(a.get('p99'))}, max {fmt(a.get('max'))}; per tool below.",
            k.ev("output_sizes", f"{a}"), value={r["tool"]: [r["p50"], r["p99"], r["max"]] for r in os_})

    k.absence("skill_evidence", "skill_md", "Skill evidence (the literal SKILL.md; skills have no call type of their own)")


def _absences(k: Kit) -> None:
    for cid, pid, what in (("no_tool_use_id", "no_tool_use_id", "tool_use_id"),
                           ("no_uuid_chain", "no_uuid_chain", "A per-record uuid / parentUuid chain"),
                           ("no_usage_object", "no_usage_object", "A per-message usage object"),
                           ("no_record_version", "no_record_version", "A per-record version key"),
                           ("exit_code_key", "exit_code_key", 'The key "exit_code"'),
                           ("exit_code_text", "exit_code_text", "The text Process exited with code")):
        k.absence(cid, pid, what)
