"""The sentences of the Cursor stream-json page, each stated with the query or probe behind it.

Every sentence about the format is computed here with the condition that makes it true: a
consequence ("ids must be sanitised") is printed only when its figure is non-zero, a list
("families without a subtype") is what the census counted, and a heading that names a fact
takes its words from the claim (``extra["heading"]``).
"""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, human_bytes
from survey.evidence.kit import Kit
from survey.runtimes.cursor_stream.relations import relation_claims


def _plural(n: int, one: str, many: str | None = None) -> str:
    return one if n == 1 else (many or one + "s")


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
            f"{len(fam)} event {_plural(len(fam), 'family', 'families')} (type/subtype): "
            + (", ".join(f"{r['family']} {fmt(r['events'])}" for r in fam) or "none") + ".",
            k.ev("families", f"{len(fam)} families"), value={r["family"]: r["events"] for r in fam}, headline=True)
    bare = [r["family"] for r in fam if "/" not in r["family"]]
    k.state("family_subtypes", "census",
            f"{fmt(len(fam) - len(bare))} of {fmt(len(fam))} families carry a subtype"
            + (f"; {', '.join(bare)} {'carries' if len(bare) == 1 else 'carry'} none: the record class is the type alone."
               if bare else ": the record class is always type/subtype."),
            k.ev("families", f"without subtype: {', '.join(bare) or 'none'}"),
            value=sorted(bare))
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
            + (": events of the families without it cannot be timed from the stream alone." if never or mixed else "."),
            k.ev("timestamps", f"always {len(always)}, never {len(never)}, mixed {len(mixed)} families"),
            value={r["family"]: {"present": as_int(r["present"]), "absent": as_int(r["absent"])} for r in ts}, headline=True)

    _tool_calls(k)

    nj = k.rows("non_json_lines")
    k.state("non_json_lines", "census",
            "Lines that are not JSON events: " + (", ".join(f"{r['class']} {fmt(r['lines'])} (in {fmt(r['captures'])} captures)" for r in nj) or "none")
            + ".",
            k.ev("non_json_lines", "; ".join(f"{r['frame_status']} {r['lines']}" for r in nj) or "0 lines"),
            value={r["frame_status"]: r["lines"] for r in nj})
    ce = k.rows("capture_endings")
    k.state("capture_endings", "census",
            "Captures end with: " + (", ".join(f"{r['last_event']}{' (cut off)' if r['cut_off'] else ''} {fmt(r['captures'])}" for r in ce) or "none")
            + ".",
            k.ev("capture_endings", f"{len(ce)} rows"),
            value={f"{r['last_event']}{'|cut' if r['cut_off'] else ''}": r["captures"] for r in ce})
    iv = k.rows("init_values")
    k.state("init_values", "value_map",
            "system/init and result values: " + ("; ".join(f"{r['path']} {r['value']} ×{fmt(r['events'])}" for r in iv) or "none") + ".",
            k.ev("init_values", f"{len(iv)} values"), value={f"{r['path']}:{r['value']}": r["events"] for r in iv})
    dm = k.rows("data_keyed_maps")
    k.state("data_keyed_maps", "census",
            f"{fmt(sum(as_int(r['maps']) for r in dm))} data-keyed maps were counted, never described"
            + (": " + ", ".join(f"{r['path']} ×{fmt(r['maps'])}" for r in dm) if dm else "") + ".",
            k.ev("data_keyed_maps", f"{len(dm)} paths"), value={r["path"]: r["maps"] for r in dm})

    relation_claims(k)  # (links section: relations between the figures above)

    for cid, what in (("no_usage", "Token usage"), ("no_timestamp_iso", "A timestamp other than timestamp_ms"),
                      ("no_version", "A client version"), ("no_parent_call", "A parent / subagent link on an event"),
                      ("is_error_true", 'The text "is_error":true')):
        k.absence(cid, cid, what)


def _tool_calls(k: Kit) -> None:
    tv = k.rows("tool_call_variants")
    started = {r["variant"]: as_int(r["events"]) for r in tv if r["family"] == "tool_call/started"}
    objects = sum(as_int(r["events"]) for r in tv)
    not_one = sum(as_int(r["events"]) for r in tv if "," in (r["variant"] or "") or not r["variant"])
    k.state("tool_call_variants", "value_map",
            f"tool_call variants (the key of $.tool_call) over {fmt(sum(started.values()))} started calls: "
            + (", ".join(f"{v or '{}'} {fmt(c)}" for v, c in started.items()) or "none")
            + ". Variants outside the reviewed vocabulary show as <unreviewed-key>.",
            k.ev("tool_call_variants", f"{len(started)} variants"), value=started)
    k.state("tool_call_single_key", "rate",
            (f"$.tool_call has exactly one key (the variant) in {fmt(objects - not_one)} of {fmt(objects)} tool_call events"
             + (f"; {fmt(not_one)} carry none or several: the variant is not always the single key."
                if not_one else ".")) if objects else "No tool_call event was observed, so the shape of $.tool_call is not determined.",
            k.ev("tool_call_variants", f"one key {objects - not_one}/{objects}"),
            value=[objects - not_one, objects], provenance="observed" if objects else "not determined")

    ro = k.rows("result_outcomes")
    outcomes: dict[str, int] = {}
    for r in ro:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + as_int(r["events"])
    ks = k.rows("keyset_census")
    started_with_result = sum(as_int(r["occurrences"]) for r in ks
                              if r["rclass"] == "tool_call/started" and r["jtype"] == "object"
                              and r["path"].count(".") == 2 and r["path"].startswith("$.tool_call.")
                              and "result" in (r["keyset"] or "").split(","))
    where = ("a call's outcome is recorded only in its tool_call/completed event (no started event carries a result)"
             if not started_with_result else
             f"{fmt(started_with_result)} tool_call/started events carry a result too")
    k.state("result_outcomes", "value_map",
            "Completed calls by outcome: " + (", ".join(f"{o} {fmt(c)}" for o, c in sorted(outcomes.items())) or "none")
            + (f"; {where}." if outcomes or started_with_result else "."),
            k.ev("result_outcomes", f"{len(ro)} rows"), k.ev("keyset_census", f"started with result {started_with_result}"),
            value={"outcomes": outcomes, "started_with_result": started_with_result})
    ci = k.rows("call_id_newlines")
    n_nl = sum(as_int(r["call_id_with_newline"]) for r in ci)
    n_ev = sum(as_int(r["with_call_id"]) for r in ci)
    k.state("call_id_newlines", "rate",
            f"{fmt(n_nl)} of {fmt(n_ev)} tool_call events carry a call_id containing a newline (counted, never printed)"
            + (": ids must be sanitised before use as keys or file names." if n_nl else "."),
            k.ev("call_id_newlines", f"{n_nl}/{n_ev}"), value=[n_nl, n_ev], headline=True)
