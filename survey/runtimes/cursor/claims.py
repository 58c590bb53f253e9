"""The sentences of the Cursor page, each stated with the query or probe behind it."""

from __future__ import annotations

from survey.evidence.claims import fmt, human_bytes, pct
from survey.evidence.kit import Kit


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
    k.state("top_keysets", "census",
            f"Top-level key sets are closed and small: {len(tax)} of them across {fmt(frames_ok)} frames.",
            k.ev("frame_taxonomy", ", ".join(f"{{{r['keyset']}}} {fmt(r['frames'])}" for r in tax)),
            value={r["keyset"]: r["frames"] for r in tax})

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
    k.state("tool_use_keyset", "rate",
            f"tool_use key sets are exactly {{input, name, type}} in {fmt(tu_exact)}/{fmt(tu_total)} blocks: "
            + ("no call id of any kind." if tu_exact == tu_total else "other key sets occur (see the block table)."),
            k.ev("block_keysets", f"{fmt(tu_exact)}/{fmt(tu_total)}"), value=[tu_exact, tu_total], headline=True)

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

    it = k.rows("input_type_by_tool")
    ap = next((r for r in it if r["name"] == "ApplyPatch"), None)
    others_string = sum(int(r["string"]) for r in it if r["name"] != "ApplyPatch")
    others_total = sum(int(r["calls"]) for r in it if r["name"] != "ApplyPatch")
    if ap:
        k.state("applypatch_string", "rate",
                f"ApplyPatch input is a raw string in {fmt(ap['string'])}/{fmt(ap['calls'])} calls; "
                f"other tools pass an object in {fmt(others_total - others_string)}/{fmt(others_total)} calls.",
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
            f"{fmt(pc.get('frames_over_3'))} frames carry more than 3. All id-less: pairing by name within a frame is unsafe.",
            k.ev("parallel_calls", f"max {pc.get('max_calls_in_frame')}, >3 in {pc.get('frames_over_3')} frames"),
            value=pc.get("max_calls_in_frame"))

    mcp = k.rows("mcp_wrapper_keysets")
    k.state("mcp_wrappers", "census",
            "MCP calls are wrapped, not namespaced: "
            + ("; ".join(f"{r['name']} input {{{r['input_keyset']}}} ×{fmt(r['calls'])}" for r in mcp) if mcp
               else "no CallMcpTool/CallDynamicTool call was observed") + ".",
            k.ev("mcp_wrapper_keysets", f"{len(mcp)} key sets"), value={f"{r['name']}:{r['input_keyset']}": r["calls"] for r in mcp})

    k.tool_names("$.message.content[type=tool_use].name", "unreviewed names")

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
    k.state("readback_refs", "census",
            f"Sidecars are referenced only indirectly, as a later call's input.path "
            f"({fmt(rb.get('agent_tools_path', {}).get('calls', 0))} calls) or inside input.command "
            f"({fmt(rb.get('agent_tools_command', {}).get('calls', 0))} calls).",
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
            f"({pct(int(te.get('files_without_turn_ended') or 0), int(te.get('files') or 0))}) contain no turn_ended at all: "
            "absence of the frame is the only unterminated-turn signal, and it is common, not an error.",
            k.ev("turn_ended", f"{te.get('files_without_turn_ended')}/{te.get('files')}"),
            value=[te.get("files_without_turn_ended"), te.get("files")])
    ts = k.rows("turn_status")
    k.state("turn_status", "value_map",
            "turn_ended status values: " + (" / ".join(f"{r['status']} {fmt(r['frames'])}" for r in ts) or "none") + ".",
            k.ev("turn_status", "; ".join(f"{r['status']} {r['frames']}" for r in ts)),
            value={r["status"]: r["frames"] for r in ts})
    k.absence("no_cancelled", "no_cancelled", 'status "cancelled"')

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
            f"{fmt(ln.get('pairs'))} parent/child pairs: lineage is directory containment, not a recorded field.",
            k.ev("lineage", f"{ln.get('child_id_in_parent')}/{ln.get('pairs')}", scope=f"{fmt(total)} files (whole corpus)"),
            value=[ln.get("child_id_in_parent"), ln.get("pairs")])
    k.state("dir_equals_file", "rate",
            f"The directory id equals the file id in {fmt(ln.get('dir_id_equals_file_id'))}/{fmt(ln.get('nested_transcripts'))} "
            "nested transcripts: identity is the path.",
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

    pl_ = k.one("payload_lengths")
    k.state("payload_percentiles", "percentile",
            f"Block payload length (code points) in assistant frames: p50 {fmt(pl_.get('p50'))}, p90 {fmt(pl_.get('p90'))}, "
            f"p99 {fmt(pl_.get('p99'))}, max {fmt(pl_.get('max'))}; max including user text {fmt(pl_.get('max_including_user'))}.",
            k.ev("payload_lengths", f"{pl_}"), value=pl_)
    for cid, pid, what in (("marker_ellipsis", "marker_ellipsis", "The literal [...]"),
                           ("marker_truncated", "marker_truncated", "The literal [truncated]")):
        k.absence(cid, pid, what)

    lh = k.rows("legacy_headings")
    k.state("legacy_headings", "value_map",
            f"Legacy plain-text transcripts name {len(lh)} tool names in {fmt(sum(int(r['headings']) for r in lh))} "
            "[Tool call] headings (a separate value map: not JSON, not comparable one-to-one).",
            k.ev("legacy_headings", f"{len(lh)} names", scope=f"{fmt(legacy)} legacy .txt files"),
            value={r["name"]: r["headings"] for r in lh})
