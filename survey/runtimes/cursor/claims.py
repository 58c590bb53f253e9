"""The sentences of the Cursor page, each stated with the query or probe behind it."""

from __future__ import annotations

from survey.evidence.claims import fmt, human_bytes, pct
from survey.evidence.kit import Kit
from survey.runtimes.cursor.relations import relation_claims


def claims(k: Kit) -> None:
    n, total = k.surface_counts(("transcript", "transcript_flat", "subagent", "legacy_txt", "agent_tools", "other"))
    nested, flat, subs = n["transcript"], n["transcript_flat"], n["subagent"]
    legacy, tools, other = n["legacy_txt"], n["agent_tools"], n["other"]
    k.state("basis_files", "census",
            f"The corpus holds {fmt(total)} files: {fmt(nested + flat)} top-level transcripts "
            f"({fmt(nested)} nested <id>/<id>.jsonl, {fmt(flat)} flat <id>.jsonl), {fmt(subs)} subagent files, "
            f"{fmt(legacy)} legacy plain-text transcripts, {fmt(tools)} agent-tools sidecars and {fmt(other)} other files.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, "transcript": nested + flat, "transcript_nested": nested,
                   "transcript_flat": flat, "subagent": subs, "legacy_txt": legacy,
                   "agent_tools": tools, "other": other})

    frames_ok = k.basis_frames("frames")

    tax = k.rows("frame_taxonomy")
    _n, raw = k.keyset_counts(across=True)
    k.state("top_keysets", "census",
            f"{len(tax)} top-level key set{'s' if len(tax) != 1 else ''} across {fmt(frames_ok)} frames after masking "
            f"unreviewed keys; {fmt(raw)} distinct before masking.",
            k.ev("frame_taxonomy", ", ".join(f"{{{r['keyset']}}} {fmt(r['frames'])}" for r in tax)),
            k.ev("raw_keysets", f"{raw} distinct top-level key sets before masking"),
            value={r["keyset"]: r["frames"] for r in tax})

    top = [r for r in k.rows("keyset_census") if r["path"] == "$" and r["jtype"] == "object"]
    id_rows = [r for r in top if any(_id_key(x) for x in (r["keyset"] or "").split(","))]
    id_keys = sorted({x for r in id_rows for x in (r["keyset"] or "").split(",") if _id_key(x)})
    n_id = sum(int(r["occurrences"]) for r in id_rows)
    n_top = sum(int(r["occurrences"]) for r in top)
    k.state("in_file_identity", "census",
            (f"No top-level key set holds an id-shaped key (id, *_id, *Id) across {fmt(n_top)} records: "
             "a transcript carries no in-file identity field." if not id_rows else
             f"{fmt(n_id)} of {fmt(n_top)} records carry an id-shaped top-level key ({', '.join(id_keys)})."),
            k.ev("keyset_census", f"{fmt(n_id)}/{fmt(n_top)} records with {', '.join(id_keys) or 'no id key'}"),
            value=id_keys)

    iff = k.rows("error_iff_status")
    ok_rows = [r for r in iff if (r["status"] == "success") != bool(r["has_error_key"])]
    bad_rows = [r for r in iff if r not in ok_rows]
    n_iff = sum(int(r["frames"]) for r in iff)
    if not iff:
        k.state("error_iff_status", "iff", "No frame carries a status, so the error-iff-status relation is not determined.",
                k.ev("error_iff_status", "0 frames with status"), provenance="not determined", value=None)
    elif not bad_rows:
        k.state("error_iff_status", "iff",
                f"The error key is present iff status is not success ({fmt(n_iff)} of {fmt(n_iff)} status frames).",
                k.ev("error_iff_status", f"{fmt(n_iff)} frames, 0 exceptions"), value=True)
    else:
        exc = sum(int(r["frames"]) for r in bad_rows)
        k.state("error_iff_status", "iff",
                f"The error key is NOT present iff status is not success: {fmt(exc)} of {fmt(n_iff)} status frames break it.",
                k.ev("error_iff_status", f"{fmt(exc)} exceptions"), value=False)

    ct = k.rows("content_types")
    k.state("content_types", "census",
            "message.content is " + (" / ".join(f"{r['jtype']} in {fmt(r['frames'])} frames" for r in ct) or "never present") + ".",
            k.ev("content_types", "; ".join(f"{r['jtype']} {r['frames']}" for r in ct)),
            value={r["jtype"]: r["frames"] for r in ct})

    bk = k.rows("block_keysets")
    types = sorted({r["btype"] for r in bk})
    k.state("block_types", "census",
            f"message.content holds {len(types)} block type{'s' if len(types) != 1 else ''}: {', '.join(types) or 'none'}.",
            k.ev("block_keysets", "; ".join(f"{r['btype']} {{{r['keyset']}}} {r['blocks']}" for r in bk)),
            value={r["btype"] + ":" + (r["keyset"] or ""): r["blocks"] for r in bk})

    tu = [r for r in bk if r["btype"] == "tool_use"]
    tu_total = sum(int(r["blocks"]) for r in tu)
    tu_exact = sum(int(r["blocks"]) for r in tu if r["keyset"] == "input,name,type")
    tu_id = sum(int(r["blocks"]) for r in tu if any(_id_key(x) for x in (r["keyset"] or "").split(",")))
    tu_id_keys = sorted({x for r in tu for x in (r["keyset"] or "").split(",") if _id_key(x)})
    if not tu_total:
        tail = "no tool_use block was observed."
    elif tu_id:
        tail = f"{fmt(tu_id)} blocks carry a call id key ({', '.join(tu_id_keys)})."
    elif tu_exact == tu_total:
        tail = "no call id of any kind; a call's identity is positional: (file, frame index, block index)."
    else:
        tail = "no call id of any kind, and other key sets occur (see the block table)."
    k.state("tool_use_keyset", "rate",
            f"tool_use key sets are exactly {{input, name, type}} in {fmt(tu_exact)}/{fmt(tu_total)} blocks; " + tail,
            k.ev("block_keysets", f"{fmt(tu_exact)}/{fmt(tu_total)}; with an id key {fmt(tu_id)}"),
            value=[tu_exact, tu_total, tu_id], headline=True)

    probes = [k.probe(p) for p in ("no_tool_result", "no_tool_use_id", "no_is_error")]
    n_scope = probes[0]["files_scanned"]
    hits = [p["duckdb"]["files_matched"] for p in probes]
    keyhits = [(p.get("structural") or {}).get("files_with_key", 0) for p in probes]
    tr_blocks = sum(int(r["blocks"]) for r in bk if r["btype"] == "tool_result")
    agree = all(p["agree"] for p in probes)
    if not agree:
        text = "No tool results corpus-wide: NOT DETERMINED, DuckDB and rg disagree (see Not observed)."
        prov = "not determined"
    elif sum(hits) == 0:
        text = f"No tool results corpus-wide: 0 of {fmt(n_scope)} files contain tool_result, tool_use_id, or is_error."
        prov = "observed"
    else:
        text = (f"Tool results observed: tool_result / tool_use_id / is_error occur in {hits[0]} / {hits[1]} / {hits[2]} "
                f"of {fmt(n_scope)} files by text ({tr_blocks} tool_result blocks; "
                f"as keys in {keyhits[1]} / {keyhits[2]} walked files).")
        prov = "observed"
    k.state("no_tool_results", "absence", text, *(k.ev_probe(p["id"]) for p in probes),
            value=sum(hits) == 0 and agree, provenance=prov, headline=True)

    ie = k.probe("no_is_error")
    ie_files = (ie.get("structural") or {}).get("files_with_key", 0)
    tr_keys = sorted({x for r in bk if r["btype"] == "tool_result" for x in (r["keyset"] or "").split(",")})
    k.state("per_call_outcome", "census",
            (f"A per-call failure flag (is_error) is a key in {fmt(ie_files)} of {fmt(k.walked)} walked files."
             if ie_files else
             f"No per-call outcome was observed: is_error is not a key in any of {fmt(k.walked)} walked files"
             + (f", and tool_result blocks carry only {{{', '.join(tr_keys)}}}." if tr_keys else
                ", and no tool_result block was observed.")),
            k.ev_probe("no_is_error"), k.ev("block_keysets", f"tool_result keys: {', '.join(tr_keys) or 'none'}"),
            value=[ie_files, tr_keys])

    it = k.rows("input_type_by_tool")
    ap = next((r for r in it if r["name"] == "ApplyPatch"), None)
    others_string = sum(int(r["string"]) for r in it if r["name"] != "ApplyPatch")
    others_total = sum(int(r["calls"]) for r in it if r["name"] != "ApplyPatch")
    if ap:
        mixed = int(ap["string"]) + others_string > 0 and (others_total - others_string) + int(ap["calls"]) - int(ap["string"]) > 0
        k.state("applypatch_string", "rate",
                f"ApplyPatch input is a raw string in {fmt(ap['string'])}/{fmt(ap['calls'])} calls; "
                f"other tools pass an object in {fmt(others_total - others_string)}/{fmt(others_total)} calls"
                + (": a parser must branch on the input's JSON type." if mixed else "."),
                k.ev("input_type_by_tool", f"ApplyPatch {ap['string']}/{ap['calls']}; others string {others_string}"),
                value=[ap["string"], ap["calls"], others_string, others_total])
    else:
        k.state("applypatch_string", "rate",
                f"No ApplyPatch call was observed; other tools pass an object in "
                f"{fmt(others_total - others_string)}/{fmt(others_total)} calls.",
                k.ev("input_type_by_tool", f"others string {others_string}/{others_total}"),
                value=[0, 0, others_string, others_total])

    pc = k.one("parallel_calls")
    k.state("max_parallel", "census",
            f"Parallel calls in one frame: up to {fmt(pc.get('max_calls_in_frame'))} tool_use blocks in a single frame; "
            f"{fmt(pc.get('frames_over_3'))} frames carry more than 3."
            + (" None carries a call id: pairing calls by name within a frame is unsafe."
               if tu_total and not tu_id and int(pc.get("max_calls_in_frame") or 0) > 1 else ""),
            k.ev("parallel_calls", f"max {pc.get('max_calls_in_frame')}, >3 in {pc.get('frames_over_3')} frames"),
            value=pc.get("max_calls_in_frame"))

    mcp = k.rows("mcp_wrapper_keysets")
    k.state("mcp_wrappers", "census",
            "MCP wrapper calls (CallMcpTool, CallDynamicTool): "
            + ("; ".join(f"{r['name']} input {_input_shape(r)} ×{fmt(r['calls'])}" for r in mcp) if mcp
               else "no CallMcpTool/CallDynamicTool call was observed") + ".",
            k.ev("mcp_wrapper_keysets", f"{len(mcp)} key sets"),
            value={f"{r['name']}:{_input_shape(r)}": r["calls"] for r in mcp})

    k.tool_names("$.message.content[type=tool_use].name", "unreviewed names")

    ik = k.rows("input_keys_by_tool")
    tool_calls = {r["name"]: int(r["calls"]) for r in ik}
    always = sum(1 for r in ik if int(r["calls_with_key"]) == int(r["calls"]))
    k.state("input_keys", "census",
            f"Tool input objects carry {len(ik)} (tool, key) pairs over {len(tool_calls)} tool names; "
            f"{always} of them are present in every call of their tool, the rest only in some.",
            k.ev("input_keys_by_tool", f"{len(ik)} rows"), value={f"{r['name']}.{r['key']}": [r["calls_with_key"], r["calls"]] for r in ik})
    ks = k.rows("keyset_census")
    model_paths = sorted({r["path"] for r in ks if r["path"].endswith(".model")})
    model_tools = {r["name"]: int(r["calls_with_key"]) for r in ik if r["key"] == "model"}
    k.state("model_where", "census",
            ("model is not observed as a key at any path." if not model_paths else
             f"model occurs as a key at {len(model_paths)} path{'s' if len(model_paths) != 1 else ''} "
             f"({', '.join(model_paths)})"
             + (": as a tool argument, in " + ", ".join(f"{t} {fmt(n)} calls" for t, n in sorted(model_tools.items()))
                if model_tools else "") + "."),
            k.ev("keyset_census", f"{len(model_paths)} paths"), k.ev("input_keys_by_tool", f"{model_tools}"),
            value={"paths": model_paths, "tools": model_tools})
    bg = {r["name"]: [int(r["calls_with_key"]), int(r["calls"])] for r in ik if r["key"] == "run_in_background"}
    k.state("background_shell", "census",
            ("No tool input carries run_in_background." if not bg else
             "run_in_background is set in " + ", ".join(f"{fmt(a)} of {fmt(b)} {t} calls" for t, (a, b) in sorted(bg.items()))
             + (f"; AwaitShell is called {fmt(tool_calls['AwaitShell'])} times" if "AwaitShell" in tool_calls else "") + "."),
            k.ev("input_keys_by_tool", f"{bg}"), value=bg)
    sk = k.one("skill_reads")
    k.state("skill_evidence", "census",
            f"{fmt(sk.get('calls'))} tool calls in {fmt(sk.get('files'))} files name a path containing SKILL.md in "
            "input.path: inferred skill-load evidence, the only kind the census looks for.",
            k.ev("skill_reads", f"{sk.get('calls')} calls, {sk.get('files')} files"),
            provenance="inferred", value=[sk.get("calls"), sk.get("files")])
    qk = {r["path"].rsplit("input.", 1)[1]: r["keyset"] for r in ks
          if r["jtype"] == "object" and r["path"].endswith(("input.questions[]", "input.questions[].options[]"))}
    k.state("ask_question_shape", "census",
            ("No tool input carries a questions[] array." if not qk else
             "Structured questions: " + "; ".join(f"{p} {{{v}}}" for p, v in sorted(qk.items()))
             + (f" (AskQuestion {fmt(tool_calls['AskQuestion'])} calls)" if "AskQuestion" in tool_calls else "") + "."),
            k.ev("keyset_census", f"{qk}"), value=qk)

    at = k.one("agent_tools")
    k.state("agent_tools_count", "census", f"agent-tools/ file count: {fmt(at.get('files'))}.",
            k.ev("agent_tools", f"{at.get('files')} files", scope=f"{fmt(total)} files (whole corpus)"),
            value=at.get("files"), headline=True)
    if at.get("files"):
        k.state("agent_tools_sizes", "percentile",
                f"Sidecar sizes: min {human_bytes(at['min_bytes'])}, p50 {human_bytes(at['p50_bytes'])}, max {human_bytes(at['max_bytes'])}.",
                k.ev("agent_tools", f"{at['min_bytes']}/{at['p50_bytes']}/{at['max_bytes']} bytes",
                     scope=f"{fmt(at['files'])} sidecar files"),
                value=[at["min_bytes"], at["p50_bytes"], at["max_bytes"]])
        k.state("spill_threshold", "census",
                f"The smallest sidecar is {human_bytes(at['min_bytes'])}: a spill threshold near that size fits, "
                "but nothing in the files states one.",
                k.ev("agent_tools", f"min {at['min_bytes']} bytes", scope=f"{fmt(at['files'])} sidecar files"),
                provenance="inferred", value=at["min_bytes"])
    rb = {r["via"]: r for r in k.rows("readback_refs")}
    by_path = int(rb.get("agent_tools_path", {}).get("calls", 0))
    by_command = int(rb.get("agent_tools_command", {}).get("calls", 0))
    k.state("readback_refs", "census",
            (f"Sidecars are referenced only indirectly, as a later call's input.path ({_calls(by_path)}) "
             f"or inside input.command ({_calls(by_command)})." if by_path or by_command else
             "No call's input.path or input.command names an agent-tools/ file: the transcripts hold no "
             "reference to a sidecar."),
            k.ev("readback_refs", "; ".join(f"{v} {r['calls']}" for v, r in rb.items()) or "0"),
            value={v: r["calls"] for v, r in rb.items()})

    te = k.one("turn_ended")
    k.state("turn_ended_last", "rate",
            f"turn_ended is the final frame in {fmt(te.get('turn_ended_last'))} of the {fmt(te.get('files_with_turn_ended'))} "
            "walked files that contain one.",
            k.ev("turn_ended", f"{te.get('turn_ended_last')}/{te.get('files_with_turn_ended')}"),
            value=[te.get("turn_ended_last"), te.get("files_with_turn_ended")])
    k.state("files_without_turn_ended", "rate",
            f"{fmt(te.get('files_without_turn_ended'))} of {fmt(te.get('files'))} walked files "
            f"({pct(int(te.get('files_without_turn_ended') or 0), int(te.get('files') or 0))}) contain no turn_ended at all.",
            k.ev("turn_ended", f"{te.get('files_without_turn_ended')}/{te.get('files')}"),
            value=[te.get("files_without_turn_ended"), te.get("files")])
    et = k.rows("error_types")
    n_err = sum(int(r["occurrences"]) for r in et)
    types = sorted({r["jtype"] for r in et})
    k.state("error_type", "census",
            ("No record carries an error key." if not et else
             f"The error key is {' / '.join(types)} in the {fmt(n_err)} records that carry it "
             f"({', '.join(sorted({r['rclass'] for r in et}))})."),
            k.ev("error_types", "; ".join(f"{r['rclass']} {r['jtype']} {r['occurrences']}" for r in et) or "0 rows"),
            value={f"{r['rclass']}:{r['jtype']}": r["occurrences"] for r in et})

    ts = k.rows("turn_status")
    n_all = sum(int(r["frames"]) for r in ts)
    n_te = sum(int(r["frames"]) for r in ts if r["status"] is not None)
    k.state("turn_outcome", "census",
            (f"A turn's outcome is recorded as turn_ended.status in {fmt(n_te)} of {fmt(n_all)} turn_ended frames."
             if n_te else
             f"No turn_ended frame carries a status ({fmt(n_all)} turn_ended frames): no turn outcome is recorded."),
            k.ev("turn_status", f"{fmt(n_te)}/{fmt(n_all)} frames with a status"), value=[n_te, n_all])
    k.state("turn_status", "value_map",
            "turn_ended status values: " + (" / ".join(f"{r['status']} {fmt(r['frames'])}" for r in ts) or "none") + ".",
            k.ev("turn_status", "; ".join(f"{r['status']} {r['frames']}" for r in ts)),
            value={r["status"]: r["frames"] for r in ts})
    k.absence("no_cancelled", "no_cancelled", 'status "cancelled"')
    relation_claims(k)  # (links section: sidecar writes, subagent shapes)

    ap2 = k.one("assistant_pairs")
    pairs = int(ap2.get("pairs") or 0)
    k.state("assistant_pairs", "rate",
            f"Across {fmt(pairs)} adjacent assistant frame pairs (block types and lengths only): "
            f"unrelated {pct(int(ap2.get('unrelated') or 0), pairs)}, exact duplicate {pct(int(ap2.get('duplicate') or 0), pairs)}, "
            f"{fmt(ap2.get('prefix_extension'))} prefix extensions, {fmt(ap2.get('reverse_prefix'))} reverse prefixes.",
            k.ev("assistant_pairs", f"{ap2}"), value=ap2)

    ln = k.one("lineage")
    k.state("child_in_parent", "rate",
            f"The child id appears inside the parent transcript in {fmt(ln.get('child_id_in_parent'))} of "
            f"{fmt(ln.get('pairs'))} parent/child pairs"
            + (": lineage is directory containment, not a recorded field." if ln.get("pairs") and not ln.get("child_id_in_parent")
               else "."),
            k.ev("lineage", f"{ln.get('child_id_in_parent')}/{ln.get('pairs')}", scope=f"{fmt(total)} files (whole corpus)"),
            value=[ln.get("child_id_in_parent"), ln.get("pairs")])
    k.state("dir_equals_file", "rate",
            f"The directory id equals the file id in {fmt(ln.get('dir_id_equals_file_id'))}/{fmt(ln.get('nested_transcripts'))} "
            "nested transcripts"
            + (": identity is the path." if ln.get("nested_transcripts") and ln.get("dir_id_equals_file_id") == ln.get("nested_transcripts")
               else "."),
            k.ev("lineage", f"{ln.get('dir_id_equals_file_id')}/{ln.get('nested_transcripts')}",
                 scope=f"{fmt(total)} files (whole corpus)"),
            value=[ln.get("dir_id_equals_file_id"), ln.get("nested_transcripts")])
    uf = k.one("user_frames_per_file")
    k.state("one_user_frame", "rate",
            f"Whether one file is one conversation or one turn is undetermined: {fmt(uf.get('one_user_frame'))} of "
            f"{fmt(uf.get('files'))} walked files have exactly one user frame, consistent with either reading.",
            k.ev("user_frames_per_file", f"{uf.get('one_user_frame')}/{uf.get('files')}"),
            provenance="not determined", value=[uf.get("one_user_frame"), uf.get("files")])

    for cid, pid, what in (("no_timestamp", "no_timestamp", "Timestamps of any kind"),
                           ("no_usage", "no_usage", "Usage / token counts"),
                           ("no_model_meta", "no_model_meta", "Model as metadata (at the frame or message level)"),
                           ("no_version", "no_version", "Client version"),
                           ("no_tool_use_id", "no_tool_use_id", "tool_use_id"),
                           ("no_is_error", "no_is_error", "is_error")):
        k.absence(cid, pid, what)

    meta = [(w, (k.probe(p).get("structural") or {}).get("files_with_key", 0))
            for w, p in (("client version", "no_version"), ("timestamp", "no_timestamp"), ("model field", "no_model_meta"))]
    seen = [(w, n) for w, n in meta if n]
    k.state("stratify_basis", "census",
            ("No client version, timestamp or model field was observed as a key, so drift can be stratified "
             "by file mtime only." if not seen else
             "Observed as keys: " + "; ".join(f"{w} in {fmt(n)} of {fmt(k.walked)} walked files" for w, n in seen)
             + ": drift can be stratified by them as well as by file mtime."),
            *(k.ev_probe(p) for p in ("no_version", "no_timestamp", "no_model_meta")),
            value=dict(meta))

    pl_ = k.one("payload_lengths")
    k.state("payload_percentiles", "percentile",
            f"Block payload length (code points) in assistant frames: p50 {fmt(pl_.get('p50'))}, p90 {fmt(pl_.get('p90'))}, "
            f"p99 {fmt(pl_.get('p99'))}, max {fmt(pl_.get('max'))}; max including user text {fmt(pl_.get('max_including_user'))}.",
            k.ev("payload_lengths", f"{pl_}"), value=pl_)
    for cid, pid, what in (("marker_user_query", "marker_user_query", "The text marker <user_query>"),
                           ("marker_user_info", "marker_user_info", "The text marker <user_info>"),
                           ("marker_ellipsis", "marker_ellipsis", "The literal [...]"),
                           ("marker_truncated", "marker_truncated", "The literal [truncated]")):
        k.absence(cid, pid, what)

    lh = k.rows("legacy_headings")
    reviewed = [r for r in lh if not str(r["name"]).startswith("<")]
    withheld = sum(int(r["headings"]) for r in lh if str(r["name"]).startswith("<"))
    k.state("legacy_headings", "value_map",
            f"Legacy plain-text transcripts name {len(reviewed)} reviewed tool names in "
            f"{fmt(sum(int(r['headings']) for r in reviewed))} [Tool call] headings"
            + (f"; {fmt(withheld)} headings name tools outside the reviewed vocabulary, withheld "
               "(how many distinct names they hold is not recorded)" if withheld else "")
            + " (a separate value map: not JSON, not comparable one-to-one).",
            k.ev("legacy_headings", f"{len(lh)} names", scope=f"{fmt(legacy)} legacy .txt files"),
            value={r["name"]: r["headings"] for r in lh})


def _id_key(key: str) -> bool:
    """An id-shaped key (``id``, ``*_id``, ``*Id``, ``uuid``): masked keys are not."""
    return key in ("id", "uuid") or key.endswith("_id") or (key.endswith("Id") and key[:1].islower())


def _input_shape(r: dict) -> str:
    """A tool input as the page names it: its key set for an object, else its JSON type."""
    if r.get("input_keyset") is not None:
        return "{" + str(r["input_keyset"]) + "}"
    return f"as {r.get('input_type') or 'no input'}"


def _calls(n: int) -> str:
    return f"{fmt(n)} call{'' if n == 1 else 's'}"
