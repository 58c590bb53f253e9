"""The sentences of the Cursor stream-json page, each stated with the query or probe behind it."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, human_bytes
from survey.evidence.kit import Kit


def claims(k: Kit) -> None:
    n, total = k.surface_counts(("capture", "other"))
    caps, other = n["capture"], n["other"]
    k.state("basis_files", "census",
            f"The folder holds {fmt(total)} files: {fmt(caps)} stream-json captures and {fmt(other)} other files.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, "capture": caps, "other": other})

    fs = {r["frame_status"]: as_int(r["frames"]) for r in k.rows("frame_status")}
    k.state("basis_lines", "census",
            f"{fmt(k.walked)} captures were walked ({human_bytes(k.walked_bytes)}): {fmt(fs.get('ok', 0))} JSON events and "
            f"{fmt(sum(v for s, v in fs.items() if s != 'ok'))} other lines.",
            k.ev("frame_status", "; ".join(f"{s} {v}" for s, v in fs.items())), value=fs)

    fam = k.rows("families")
    k.state("families", "value_map",
            f"{len(fam)} event families (type/subtype): "
            + ", ".join(f"{r['family']} {fmt(r['events'])}" for r in fam) + ".",
            k.ev("families", f"{len(fam)} families"), value={r["family"]: r["events"] for r in fam}, headline=True)
    fk = k.rows("family_keysets")
    multi = sorted({r["family"] for r in fk if sum(1 for x in fk if x["family"] == r["family"]) > 1})
    k.state("family_keysets", "census",
            f"{len(fk)} (family, key set) pairs; "
            + (f"families with more than one key set: {', '.join(multi)}." if multi else "every family has one key set."),
            k.ev("family_keysets", f"{len(fk)} pairs"),
            value={f"{r['family']}|{r['keyset']}": r["events"] for r in fk})

    ts = k.rows("timestamps")
    never = [r["family"] for r in ts if not as_int(r["present"])]
    always = [r["family"] for r in ts if not as_int(r["absent"])]
    mixed = [r["family"] for r in ts if as_int(r["present"]) and as_int(r["absent"])]
    k.state("timestamps", "census",
            "timestamp_ms is on every event of " + (", ".join(always) or "no family")
            + "; on none of " + (", ".join(never) or "no family")
            + ("; on some events of " + ", ".join(mixed) if mixed else "")
            + (": events of the families without it cannot be timed from the stream alone." if never else "."),
            k.ev("timestamps", f"always {len(always)}, never {len(never)}, mixed {len(mixed)} families"),
            value={r["family"]: {"present": as_int(r["present"]), "absent": as_int(r["absent"])} for r in ts}, headline=True)

    tv = k.rows("tool_call_variants")
    started = {r["variant"]: as_int(r["events"]) for r in tv if r["family"] == "tool_call/started"}
    k.state("tool_call_variants", "value_map",
            f"tool_call variants (the single key of $.tool_call) over {fmt(sum(started.values()))} started calls: "
            + (", ".join(f"{v} {fmt(c)}" for v, c in started.items()) or "none")
            + ". Variants outside the reviewed vocabulary show as <unreviewed-key>.",
            k.ev("tool_call_variants", f"{len(started)} variants"), value=started)
    ro = k.rows("result_outcomes")
    outcomes: dict[str, int] = {}
    for r in ro:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + as_int(r["events"])
    k.state("result_outcomes", "value_map",
            "Completed calls by outcome: " + (", ".join(f"{o} {fmt(c)}" for o, c in sorted(outcomes.items())) or "none")
            + ": a call's outcome is recorded only in its own tool_call/completed event.",
            k.ev("result_outcomes", f"{len(ro)} rows"), value=outcomes)
    ci = k.rows("call_id_newlines")
    n_nl = sum(as_int(r["call_id_with_newline"]) for r in ci)
    n_ev = sum(as_int(r["with_call_id"]) for r in ci)
    k.state("call_id_newlines", "rate",
            f"{fmt(n_nl)} of {fmt(n_ev)} tool_call events carry a call_id containing a newline (counted, never printed): "
            "ids must be sanitised before use as keys or file names.",
            k.ev("call_id_newlines", f"{n_nl}/{n_ev}"), value=[n_nl, n_ev], headline=True)

    nj = k.rows("non_json_lines")
    k.state("non_json_lines", "census",
            "Lines that are not JSON events: " + (", ".join(f"{r['class']} {fmt(r['lines'])} (in {fmt(r['captures'])} captures)" for r in nj) or "none")
            + ".",
            k.ev("non_json_lines", "; ".join(f"{r['frame_status']} {r['lines']}" for r in nj)),
            value={r["frame_status"]: r["lines"] for r in nj})
    ce = k.rows("capture_endings")
    k.state("capture_endings", "census",
            "Captures end with: " + ", ".join(f"{r['last_event']}{' (cut off)' if r['cut_off'] else ''} {fmt(r['captures'])}" for r in ce) + ".",
            k.ev("capture_endings", f"{len(ce)} rows"),
            value={f"{r['last_event']}{'|cut' if r['cut_off'] else ''}": r["captures"] for r in ce})
    iv = k.rows("init_values")
    k.state("init_values", "value_map",
            "system/init and result values: " + ("; ".join(f"{r['path']} {r['value']} ×{fmt(r['events'])}" for r in iv) or "none") + ".",
            k.ev("init_values", f"{len(iv)} values"), value={f"{r['path']}:{r['value']}": r["events"] for r in iv})
    dm = k.rows("data_keyed_maps")
    k.state("data_keyed_maps", "census",
            f"{fmt(sum(as_int(r['maps']) for r in dm))} data-keyed maps (grep workspaceResults, keyed by folder path) were counted, never described.",
            k.ev("data_keyed_maps", f"{len(dm)} paths"), value={r["path"]: r["maps"] for r in dm})

    for cid, what in (("no_usage", "Token usage"), ("no_timestamp_iso", "A timestamp other than timestamp_ms"),
                      ("no_version", "A client version"), ("no_parent_call", "A parent / subagent link on an event"),
                      ("is_error_true", 'The text "is_error":true')):
        k.absence(cid, cid, what)
