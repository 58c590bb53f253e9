"""The sentences of the Codex page, each stated with the query or probe behind it.

Every sentence about the format is worded from what the snapshot shows: where a shape may
be absent (call ids, outputs, a version on headers, a token counter, exit codes), the claim
says which way this snapshot went, with the figure.
"""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, pct
from survey.evidence.kit import Kit, key_absence
from survey.evidence.subagents import subagent_schema_claim

ROLLOUTS = ("rollout", "archived_rollout", "rollout_unnamed")
OUTPUT_PATH = "$.payload.output"
MASKS = ("<unreviewed-key>", "<dynamic-key>", "<rare-key>")
ENVELOPE = "payload,timestamp,type"


def claims(k: Kit) -> None:
    _basis(k)
    _identity(k)
    _subagents(k)
    _calls(k)
    _outcomes(k)
    _sizes(k)
    _absences(k)
    _model_and_fixtures(k)
    subagent_schema_claim(k)  # (links section: a child rollout's shapes against its parent's)


def _surfaces() -> dict[str, str]:
    from survey.runtimes.codex import PROFILE

    return {s.name: s.description for s in PROFILE.surfaces}


def _basis(k: Kit) -> None:
    n, total = k.surface_counts((*ROLLOUTS, "other"))
    k.state("basis_files", "census",
            f"The corpus holds {fmt(total)} files: {fmt(n['rollout'])} rollouts in the dated layout, "
            f"{fmt(n['archived_rollout'])} flat (archived) rollouts, {fmt(n['rollout_unnamed'])} rollouts without a uuid "
            f"in their name and {fmt(n['other'])} other files.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, **n})
    desc = _surfaces()
    seen = [(s, n[s]) for s in desc if n.get(s)]
    unseen = [s for s in desc if not n.get(s)]
    k.state("layout", "census",
            "Files by surface (the path pattern each was recognised by): "
            + ("; ".join(f"{s} ({desc[s]}) {fmt(c)}" for s, c in seen) or "none")
            + (f"; {fmt(n['other'])} other files" if n["other"] else "")
            + (f". No file matched: {', '.join(unseen)}." if unseen else "."),
            k.ev("files_by_surface", "; ".join(f"{s} {c}" for s, c in seen) or "none",
                 scope=f"{fmt(total)} files (whole corpus)"),
            value={s: c for s, c in seen})

    ok = k.basis_frames("records")
    fs = {r["frame_status"]: as_int(r["frames"]) for r in k.rows("frame_status")}
    read = sum(fs.values())
    k.state("record_totals", "census",
            f"Records: {fmt(read)} lines read, {fmt(ok)} parsed (the rest are counted under Problems). Every "
            "record figure below counts parsed records.",
            k.ev("frame_status", f"read {read}, ok {ok}"), value={"read": read, "ok": ok})

    rc = k.rows("record_classes")
    by_class: dict[str, int] = {}
    for r in rc:
        by_class[r["rclass"]] = by_class.get(r["rclass"], 0) + as_int(r["records"])
    masked = sum(1 for r in rc if any(m in (r["keyset"] or "") for m in MASKS))
    with_sub = sorted({c.split("/")[0] for c in by_class if "/" in c})
    naming = "named type" + (f", or type/payload.type where the payload has a type: {', '.join(with_sub)}" if with_sub
                             else "; no payload carries a type")
    _n, raw = k.keyset_counts(set(by_class))
    k.state("record_classes", "census",
            f"{len(by_class)} record classes ({naming}) over {fmt(sum(by_class.values()))} records, with {fmt(len(rc))} "
            f"distinct top-level key sets after masking unreviewed keys; {fmt(raw)} distinct before masking; "
            + (f"{fmt(masked)} of those sets hold a masked key, so masking may have merged sets that differ."
               if masked else "no set holds a masked key, so masking merged none.")
            + " A reader must accept classes it does not know.",
            k.ev("record_classes", f"{len(by_class)} classes, {len(rc)} key sets, {masked} with a masked key"),
            k.ev("raw_keysets", f"{raw} distinct top-level key sets before masking in those classes"),
            value={"records": dict(sorted(by_class.items())), "keysets": len(rc), "masked_keysets": masked,
                   "keysets_raw": raw,
                   "whole_corpus": k.manifest.get("sample", {}).get("n") is None})

    env = sum(as_int(r["records"]) for r in rc if r["keyset"] == ENVELOPE)
    recs = sum(by_class.values())
    other = sorted({r["keyset"] for r in rc if r["keyset"] != ENVELOPE})
    k.state("envelope", "census",
            f"{fmt(env)} of {fmt(recs)} records ({pct(env, recs)}) have exactly the top-level keys "
            "{timestamp, type, payload}"
            + (f"; {len(other)} other top-level key sets occur (table below)." if other else "."),
            k.ev("record_classes", f"{env}/{recs} with keys {{{ENVELOPE}}}"),
            value={"envelope": env, "records": recs, "other_keysets": len(other)})

    vs = k.rows("versions")
    hv = k.one("header_versions")
    names = [r["version"] for r in vs if not str(r["version"]).startswith("(")]
    span = f"{names[0]} to {names[-1]}" if names else "none"
    hdr, hdr_v = as_int(hv.get("headers")), as_int(hv.get("headers_with_version"))
    mixing = as_int(hv.get("files_mixing_versions"))
    if hdr_v:
        text = (f"`cli_version` is on {fmt(hdr_v)} of {fmt(hdr)} session_meta headers (in "
                f"{fmt(hv.get('files_with_version'))} of {fmt(hv.get('files_with_header'))} rollouts with a header): "
                f"{len(names)} versions ({span}) by each rollout's first header; {fmt(mixing)} rollouts hold headers of "
                "more than one version (each counted once). Shapes below can be stratified by it.")
    else:
        text = (f"No session_meta header carries `cli_version` ({fmt(hdr)} headers): shapes cannot be stratified by "
                "client version here.")
    k.state("client_version", "value_map", text,
            k.ev("header_versions", f"{hdr_v}/{hdr} headers, {mixing} rollouts with several versions"),
            k.ev("versions", "; ".join(f"{r['version']} {r['files']} files" for r in vs) or "none"),
            value={"versions": {r["version"]: as_int(r["files"]) for r in vs}, "headers_with_version": hdr_v,
                   "files_mixing": mixing},
            headline=True)

    mk = k.rows("model_key")
    k.state("model", "census",
            ("`payload.model` is on " + "; ".join(f"{r['rclass']} {fmt(r['with_model'])} of {fmt(r['payloads'])}"
                                                  for r in mk) + " records.") if mk else
            "No payload carries a `model` key.",
            k.ev("model_key", "; ".join(f"{r['rclass']} {r['with_model']}/{r['payloads']}" for r in mk) or "none"),
            value={r["rclass"]: [as_int(r["with_model"]), as_int(r["payloads"])] for r in mk})

    ts = k.rows("timestamps")
    recs_t = sum(as_int(r["records"]) for r in ts)
    with_ts = sum(as_int(r["with_timestamp"]) for r in ts)
    without = [r["rclass"] for r in ts if as_int(r["with_timestamp"]) < as_int(r["records"])]
    k.state("timestamps", "rate",
            f"{fmt(with_ts)} of {fmt(recs_t)} records ({pct(with_ts, recs_t)}) carry a top-level `timestamp`"
            + (f"; classes where some lack one: {', '.join(without)}." if without else "."),
            k.ev("timestamps", f"{with_ts}/{recs_t}"), value={"with": with_ts, "records": recs_t, "without": without})


def _identity(k: Kit) -> None:
    fi = k.one("file_identity")
    k.state("file_identity", "rate",
            f"The first session_meta `payload.id` equals the filename uuid in {fmt(fi.get('first_id_equals_filename'))} "
            f"of {fmt(fi.get('files_with_session_meta'))} rollouts with a header ({fmt(fi.get('first_id_differs'))} differ); "
            f"session_meta is the first record in {fmt(fi.get('session_meta_first_record'))} of {fmt(fi.get('files'))}.",
            k.ev("file_identity", f"{fi}"),
            value=[as_int(fi.get("first_id_equals_filename")), as_int(fi.get("files_with_session_meta")),
                   as_int(fi.get("session_meta_first_record")), as_int(fi.get("files"))],
            headline=True)

    hd = {str(r["headers"]): as_int(r["files"]) for r in k.rows("session_meta_headers")}
    ex = {r["kind"]: r for r in k.rows("extra_headers")}
    several = sum(n for h, n in hd.items() if int(h) > 1)
    k.state("headers", "census",
            f"{fmt(several)} of {fmt(sum(hd.values()))} rollouts hold more than one session_meta header"
            + ((": the later headers are " + "; ".join(f"{kind} {fmt(r['headers'])} (in {fmt(r['files'])} files)"
                                                        for kind, r in ex.items())
                + ". A reader must expect more than one header per file.") if several else "."),
            k.ev("session_meta_headers", "; ".join(f"{h} headers: {n} files" for h, n in hd.items()) or "none"),
            k.ev("extra_headers", f"{len(ex)} kinds"),
            value={"per_file": hd, "extra": {kind: as_int(r["headers"]) for kind, r in ex.items()}})


def _subagents(k: Kit) -> None:
    sa = k.one("subagents")
    kids = as_int(sa.get("subagent_files"))
    k.state("subagent_files", "census",
            f"{fmt(kids)} of {fmt(sa.get('files_with_header'))} rollouts are subagent children (first header id differs "
            f"from its session_id); {fmt(sa.get('with_history_start_ordinal'))} carry subagent_history_start_ordinal.",
            k.ev("subagents", f"{kids} children"), value=kids)
    k.state("child_in_parent", "rate",
            (f"Of {fmt(kids)} children (each naming a session_id in its first header), the parent's rollout is present "
             f"for {fmt(sa.get('parent_rollout_present'))}; a structured field of another record "
             f"(collab_agent_spawn_end.new_thread_id, sub_agent_activity.agent_thread_id) names the child for "
             f"{fmt(sa.get('named_by_a_structured_field'))}.") if kids else
            "No rollout is a subagent child (no first header's id differs from its session_id).",
            k.ev("subagents", f"parent present {sa.get('parent_rollout_present')}, named {sa.get('named_by_a_structured_field')}"),
            value=[as_int(sa.get("named_by_a_structured_field")), kids, as_int(sa.get("parent_rollout_present"))])

    ih = k.one("inherited_history")
    inh = as_int(ih.get("inherited_records"))
    k.state("inherited_history", "census",
            (f"{fmt(ih.get('child_files'))} child rollouts copy {fmt(inh)} records of their parent's history below "
             f"subagent_history_start_ordinal, before {fmt(ih.get('own_records'))} records of their own; turn ids shared "
             f"by both ranges: {fmt(ih.get('shared_turn_ids'))} (inherited {fmt(ih.get('inherited_turn_ids'))}, own "
             f"{fmt(ih.get('own_turn_ids'))}). Inherited history is context, not the child's turns.") if inh else
            f"No child rollout holds records below a subagent_history_start_ordinal ({fmt(ih.get('child_files'))} child "
            "rollouts): no inherited history was observed.",
            k.ev("inherited_history", f"{ih}"), value=ih)


def _calls(k: Kit) -> None:
    ci = k.rows("call_ids")
    n_calls = sum(as_int(r["records"]) for r in ci if r["side"] == "call")
    id_calls = sum(as_int(r["with_call_id"]) for r in ci if r["side"] == "call")
    n_outs_all = sum(as_int(r["records"]) for r in ci if r["side"] == "output")
    id_outs = sum(as_int(r["with_call_id"]) for r in ci if r["side"] == "output")
    cj = k.rows("call_joins")
    calls = [r for r in cj if r["side"] == "call"]
    outs = [r for r in cj if r["side"] == "output"]
    paired = sum(as_int(r["joined"]) for r in outs)
    unp_calls = sum(as_int(r["unpaired"]) for r in calls)
    unp_outs = sum(as_int(r["unpaired"]) for r in outs)
    if n_calls == 0:
        text = "No call record was observed."
    elif id_calls == 0:
        text = (f"Calls carry no native id: none of {fmt(n_calls)} call records has a `call_id`, so an output cannot "
                "be joined to its call by id.")
    else:
        text = (("Calls carry a native id" if id_calls == n_calls else "Only some calls carry a native id")
                + f": `call_id` on {fmt(id_calls)} of {fmt(n_calls)} call records and {fmt(id_outs)} "
                f"of {fmt(n_outs_all)} output records. Within a rollout, {fmt(paired)} outputs answer a call; "
                f"{fmt(unp_calls)} calls with an id have no output; {fmt(unp_outs)} outputs name no call of their file.")
    k.state("native_call_id", "rate", text,
            k.ev("call_ids", f"calls with call_id {id_calls}/{n_calls}; outputs {id_outs}/{n_outs_all}"),
            k.ev("call_joins", f"paired {paired}, unpaired calls {unp_calls}, unpaired outputs {unp_outs}"),
            value={"calls": n_calls, "calls_with_id": id_calls, "outputs": n_outs_all, "outputs_with_id": id_outs,
                   "paired": paired, "unpaired_calls": unp_calls, "unpaired_outputs": unp_outs}, headline=True)
    by_out = [(r["rclass"].split("/")[-1], as_int(r["records"])) for r in ci if r["side"] == "output"]
    k.state("results_recorded", "census",
            ("Outputs are recorded as their own records: " + ", ".join(f"{c} {fmt(n)}" for c, n in by_out) + ".")
            if n_outs_all else "No output record was observed.",
            k.ev("call_ids", f"{n_outs_all} outputs"), value=n_outs_all)

    ii = k.one("item_ids")
    eq, items = as_int(ii.get("item_ids_equal_to_a_call_id")), as_int(ii.get("item_ids"))
    k.state("item_ids", "rate",
            f"Response item ids (`payload.id`) equal a call_id in {fmt(eq)} of {fmt(items)} cases"
            + (": an item id is not a call id here." if items and eq < items else "."),
            k.ev("item_ids", f"{ii}"), value={"equal": eq, "items": items})

    ej = k.rows("event_joins")
    k.state("event_joins", "rate",
            "Events that carry a call_id and name a call of their rollout: "
            + ("; ".join(f"{r['rclass'].split('/')[-1]} {fmt(r['joined_call'])}/{fmt(r['records'])}" for r in ej) or "none")
            + ".",
            k.ev("event_joins", f"{len(ej)} event classes"), value={r["rclass"]: [r["joined_call"], r["records"]] for r in ej})

    tn = k.rows("tool_names")
    allow = bool(k.manifest.get("allow_mcp_names"))
    total = sum(as_int(r["calls"]) for r in tn)
    ns = sum(as_int(r["calls"]) for r in tn if r["kind"])
    w_ns = sum(as_int(r["calls"]) for r in tn if r["kind"] and r["name"] == "<withheld>")
    w_plain = sum(as_int(r["calls"]) for r in tn if not r["kind"] and r["name"] == "<withheld>")
    shown = {r["name"] for r in tn if r["name"] not in ("<withheld>", "(none)")}
    parts = []
    if w_ns:
        parts.append(f"{fmt(w_ns)} MCP calls (a namespace beside the name; withheld by policy)")
    if w_plain:
        parts.append(f"{fmt(w_plain)} calls with a name outside the reviewed vocabulary (withheld as unreviewed)")
    k.state("tool_names", "value_map",
            f"{len(shown)} tool names shown over {fmt(total)} calls; {fmt(ns)} calls carry a namespace"
            + (" (shown: --allow-mcp-names)" if allow and ns else "")
            + ("; withheld names: " + ", ".join(parts) if parts else "; no name was withheld")
            + ". Tool names are an open set.",
            k.ev("tool_names", f"{len(tn)} rows; namespace {ns}; withheld MCP {w_ns}, unreviewed {w_plain}"),
            value={"names": {f"{r['rclass']}:{r['name']}": r["calls"] for r in tn}, "withheld_mcp": w_ns,
                   "withheld_unreviewed": w_plain})

    ar = k.rows("arguments")
    s = sum(as_int(r["occurrences"]) for r in ar if r["rclass"] == "response_item/function_call"
            and r["path"] == "$.payload.arguments" and r["jtype"] == "string")
    other = sum(as_int(r["occurrences"]) for r in ar if r["rclass"] == "response_item/function_call"
                and r["path"] == "$.payload.arguments" and r["jtype"] != "string")
    obj = sum(as_int(r["occurrences"]) for r in ar if r["rclass"] == "response_item/function_call"
              and r["path"] == "$.payload.arguments.<json>" and r["jtype"] == "object")  # of those strings
    k.state("arguments", "rate",
            f"function_call arguments: a string in {fmt(s)} calls ({fmt(obj)} of which decode as JSON to an object whose "
            f"keys are counted, never described), another JSON type in {fmt(other)}.",
            k.ev("arguments", f"{s} strings, {obj} objects, {other} other"), value=[obj, s, other])


def _outcomes(k: Kit) -> None:
    ec = k.rows("exit_codes")
    text = sum(as_int(r["records"]) for r in ec if r["field"].endswith("(text)"))
    num = {r["rclass"]: as_int(r["records"]) for r in ec if not r["field"].endswith("(text)")}
    k.state("exit_codes", "census",
            f"Exit codes stated as text inside outputs (`Process exited with code N`, `Exit code: N`): {fmt(text)} records"
            + ("; as a number in " + ", ".join(f"{c.split('/')[-1]} {fmt(n)}" for c, n in num.items()) if num
               else "; no record carries one as a number")
            + ".",
            k.ev("exit_codes", "; ".join(f"{r['rclass']} {r['field']} {r['records']}" for r in ec) or "none"),
            value={"text": text, **num})

    ff = k.rows("failure_flags")
    flags = "; ".join(f"{r['path'].split('.')[-1]}={r['value']} {fmt(r['records'])}" for r in ff) or "none"
    key_absence(k, "no_is_error", ("no_is_error",), "A per-call is_error key")
    ie = next(c for c in k.claims if c.id == "no_is_error")
    k.state("failure_flag", "value_map",
            f"Outcome flags observed: {flags}. {ie.text}",
            *ie.evidence, k.ev("failure_flags", flags),
            value={"flags": {f"{r['path']}={r['value']}": as_int(r["records"]) for r in ff}, "is_error": ie.value})

    cc = k.rows("class_constants")
    ct = next((r for r in cc if r["rclass"] == "response_item/custom_tool_call" and r["field"] == "status"), None)
    k.state("constants", "census",
            (f"custom_tool_call.status is `{ct['value']}` in all {fmt(ct['records'])} records across {fmt(ct['files'])} files: "
             "a constant, not evidence of success. " if ct else "")
            + f"{fmt(len(cc))} (class, field) pairs hold one value everywhere (table below).",
            k.ev("class_constants", f"{len(cc)} rows"), value={f"{r['rclass']}.{r['field']}": r["value"] for r in cc})

    tc = k.one("token_counter")
    n_tc = as_int(tc.get("token_counts"))
    if n_tc:
        drops, at_comp = as_int(tc.get("drops")), as_int(tc.get("drops_at_compaction"))
        falls = (f"total falls {fmt(drops)} times ({fmt(at_comp)} at a compaction)" if drops else "total never falls")
        usage_text = (f"{fmt(n_tc)} token_count events in {fmt(tc.get('files'))} files carry total_token_usage; the "
                      f"{falls} and {fmt(tc.get('repeats'))} events repeat the previous total"
                      + (": a cumulative counter" + (", reset only at compaction" if drops else "")
                         + ". Use the last total per window, never a sum of events." if drops == at_comp else
                         f": {fmt(drops - at_comp)} falls are not at a compaction, so the total is not cumulative "
                         "throughout."))
    else:
        usage_text = "No token_count event carries total_token_usage: usage was not observed."
    k.state("usage", "census", usage_text, k.ev("token_counter", f"{tc}"), value=tc, headline=True)


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
                "outputs was observed.",
                k.ev("silent_caps", "no row for payload.output"), value=None)

    os_ = k.rows("output_sizes")
    a = next((r for r in os_ if r["tool"] == "(all tools)"), {})
    k.state("output_sizes", "percentile",
            f"Output records (bytes of the whole JSON line) over {fmt(a.get('outputs'))} outputs: p50 {fmt(a.get('p50'))}, "
            f"p90 {fmt(a.get('p90'))}, p99 {fmt(a.get('p99'))}, max {fmt(a.get('max'))}; per tool below.",
            k.ev("output_sizes", f"{a}"), value={r["tool"]: [r["p50"], r["p99"], r["max"]] for r in os_})

    k.absence("skill_evidence", "skill_md", "Skill evidence (the literal SKILL.md)")


def _absences(k: Kit) -> None:
    for cid, what in (("no_tool_use_id", "A tool_use_id key"),
                      ("no_uuid_chain", "A per-record parentUuid chain"),
                      ("no_usage_object", "A usage object"),
                      ("no_record_version", "A version key")):
        key_absence(k, cid, (cid,), what)
    key_absence(k, "exit_code_key", ("exit_code_key",), 'The key "exit_code"')
    k.absence("exit_code_text", "exit_code_text", "The text Process exited with code")


def _model_and_fixtures(k: Kit) -> None:
    """The "model field" rows and the fixture checklist, each worded from the claims above."""
    c = {x.id: x for x in k.claims}
    nc = c["native_call_id"].value
    k.state("model_call_id", "census",
            (f"`payload.call_id` (on {fmt(nc['calls_with_id'])} of {fmt(nc['calls'])} call records and "
             f"{fmt(nc['outputs_with_id'])} of {fmt(nc['outputs'])} output records)")
            if nc["calls_with_id"] else f"none observed ({fmt(nc['calls'])} calls, none with a `call_id`)",
            *c["native_call_id"].evidence, value=nc["calls_with_id"])
    k.state("model_result", "census",
            (f"recorded: {fmt(nc['outputs'])} output records" if nc["outputs"] else "not observed"),
            *c["results_recorded"].evidence, value=nc["outputs"])
    ec, ie, ie_seen = c["exit_codes"].value, c["no_is_error"].value, c["no_is_error"].extra["seen"]
    num = sum(v for kk, v in ec.items() if kk != "text")
    flag = ("an is_error key at " + ", ".join(f"`{p}`" for v in ie_seen.values() for p in v["paths"]) if ie_seen else
            "no is_error key" if ie else "is_error not determined")
    k.state("model_outcome", "census",
            f"exit code as text in {fmt(ec['text'])} outputs, as a number in {fmt(num)} records; {flag}",
            *c["exit_codes"].evidence, *c["no_is_error"].evidence, value={"exit": ec, "is_error": ie})

    cv, rc = c["client_version"].value, c["record_classes"].value["records"]
    hd, sa, ih = c["headers"].value, c["subagent_files"].value, c["inherited_history"].value
    tc = c["usage"].value
    items = []
    named = [v for v in cv["versions"] if not v.startswith("(")]  # "(none)" counts rollouts without a version
    if named:
        items.append(f"one rollout per cli_version ({len(named)} seen)")
    several = sum(n for h, n in hd["per_file"].items() if int(h) > 1)
    if several:
        items.append(f"a rollout with a repeated session_meta ({fmt(several)} seen)")
    if sa:
        items.append(f"a subagent child with its parent ({fmt(sa)} seen)")
    if as_int(ih.get("inherited_records")):
        items.append(f"a child with inherited history ({fmt(ih.get('child_files'))} seen)")
    if "compacted" in rc:
        items.append(f"a compaction ({fmt(rc['compacted'])} compacted records seen)")
    if as_int(tc.get("drops")):
        items.append(f"the token counter dropping ({fmt(tc.get('drops'))} seen)")
    if nc["unpaired_calls"]:
        items.append(f"a call without an output ({fmt(nc['unpaired_calls'])} seen)")
    if nc["unpaired_outputs"]:
        items.append(f"an output without its call ({fmt(nc['unpaired_outputs'])} seen)")
    if num:
        items.append(f"a record with a numeric exit_code ({fmt(num)} seen)")
    if c["oversized_output"].value:
        items.append(f"an output at an exact byte cap ({fmt(c['oversized_output'].value[1])} files seen)")
    for cls in ("response_item/custom_tool_call", "response_item/tool_search_call", "response_item/local_shell_call"):
        if cls in rc:
            items.append(f"a `{cls.split('/')[-1]}` ({fmt(rc[cls])} seen)")
    k.state("fixtures", "census",
            "Shapes this snapshot shows, each worth one fixture: " + ("; ".join(items) or "none") + ".",
            *c["client_version"].evidence, *c["native_call_id"].evidence, value=items)
