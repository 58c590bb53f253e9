"""The sentences of the Cursor desktop-store page, each stated with the query or probe behind it.

A sentence about the format is printed only under the condition the census shows; what only
the app's loader or the reference page can say is a reference note (``notes.py``).
"""

from __future__ import annotations

from typing import Any

from survey.evidence.claims import as_int, fmt, human_bytes, pct
from survey.evidence.kit import Kit


def _layout(k: Kit, profile_name: str) -> None:
    """Files per surface of the profile, each with the path pattern the crawl matched."""
    from survey.runtimes import get

    descr = {s.name: s.description for s in get(profile_name).surfaces}
    counts = {r["surface"]: as_int(r["files"]) for r in k.rows("files_by_surface")}
    rows: list[dict[str, Any]] = [{"surface": s, "description": d, "files": counts.get(s, 0)} for s, d in descr.items()]
    seen = [r for r in rows if r["files"]]
    k.state("layout", "census",
            "Files by surface: " + ("; ".join(f"{r['description']}: {fmt(r['files'])}" for r in seen) or "none")
            + (f"; no file of: {', '.join(r['surface'] for r in rows if not r['files'])}" if len(seen) < len(rows) else "")
            + ".",
            k.ev("files_by_surface", "; ".join(f"{r['surface']} {r['files']}" for r in rows),
                 scope="every file of the corpus"),
            value=rows)


def claims(k: Kit) -> None:
    n, total = k.surface_counts(("state", "state_sidecar", "state_backup", "workspace_json",
                                 "workspace_state", "other"))
    k.state("basis_files", "census",
            f"The User folder holds {fmt(total)} files: {fmt(n['state'])} global state.vscdb, {fmt(n['state_sidecar'])} "
            f"sidecars beside it, {fmt(n['state_backup'])} backups, {fmt(n['workspace_json'])} workspace.json, "
            f"{fmt(n['workspace_state'])} per-workspace state.vscdb files (counted, not read) and {fmt(n['other'])} other files.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, **n})
    _layout(k, "cursor_desktop")

    so = k.rows("store_outcomes")
    ok = [r for r in so if r["outcome"] == "ok"]
    n_ok = sum(as_int(r["stores"]) for r in ok)
    n_all = sum(as_int(r["stores"]) for r in so)
    tables = sorted({t for r in ok for t in (r["tables"] or "").split(",") if t})
    # a row groups the stores that share (outcome, tables, other-table count): its count of
    # other tables is per store, so the stores holding some are summed by the row's stores
    other_stores = sum(as_int(r["stores"]) for r in ok if as_int(r["other_tables"]))
    other_tables = sum(as_int(r["other_tables"]) * as_int(r["stores"]) for r in ok)
    k.state("store_outcomes", "census",
            f"{fmt(n_ok)} of {fmt(n_all)} global stores open and read"
            + ("; failures: " + ", ".join(f"{r['outcome']} {fmt(r['stores'])}" for r in so if r["outcome"] != "ok")
               if n_ok < n_all else "")
            + f". Tables present: {', '.join(tables) or 'none'}"
            + (f" (+{fmt(other_tables)} other table{'s' if other_tables != 1 else ''} in {fmt(other_stores)} "
               f"store{'s' if other_stores != 1 else ''}, not named)" if other_tables else "") + ".",
            k.ev("store_outcomes", "; ".join(f"{r['outcome']} {r['stores']} [{r['tables']}] +{r['other_tables']}" for r in so),
                 scope=f"{fmt(n_all)} state.vscdb files"),
            value={"ok": n_ok, "stores": n_all, "tables": tables, "other_tables": other_tables,
                   "stores_with_other_tables": other_stores})

    st = k.one("store_tables")
    has_headers = as_int(st.get("with_composer_headers"))
    stores = as_int(st.get("stores"))
    if not stores:
        k.state("composer_headers", "census",
                "No global store was read, so whether composerHeaders exists is not determined.",
                k.ev("store_tables", "0 stores"), value=None, provenance="not determined", headline=True,
                short="not determined")
    else:
        _headers_claim(k, st, has_headers, stores)
    _rest(k)


def _headers_claim(k: Kit, st: dict[str, Any], has_headers: int, stores: int) -> None:
    if has_headers == stores:
        head = f"composerHeaders is present in {fmt(has_headers)} of {fmt(stores)} stores ({fmt(st.get('composer_headers_rows'))} rows)."
        short = f"present ({fmt(st.get('composer_headers_rows'))} rows)"
    elif has_headers:
        head = (f"composerHeaders is present in {fmt(has_headers)} of {fmt(stores)} stores "
                f"({fmt(st.get('composer_headers_rows'))} rows) and ABSENT from {fmt(stores - has_headers)}.")
        short = f"present in {fmt(has_headers)} of {fmt(stores)} stores"
    else:
        head = f"composerHeaders is ABSENT from all {fmt(stores)} stores read: no table lists the sessions."
        short = "absent"
    k.state("composer_headers", "census",
            head + f" ItemTable: {fmt(st.get('item_table_rows'))} rows; the Agents-sidebar keys "
            f"glass.localAgentProjects.v1 / glass.localAgentProjectMembership.v1 are present in "
            f"{fmt(st.get('with_agent_projects_key'))} / {fmt(st.get('with_agent_membership_key'))} stores"
            f", the header-migration key in {fmt(st.get('with_headers_migrated_key'))}.",
            k.ev("store_tables", f"composerHeaders in {has_headers}/{stores}"),
            value={"present": has_headers, "stores": stores,
                   "rows": as_int(st.get("composer_headers_rows"))}, headline=True, short=short)


def _rest(k: Kit) -> None:
    w = k.one("wal_rows")
    k.state("wal_rows", "census",
            f"{fmt(w.get('with_wal'))} of {fmt(w.get('stores_walked'))} stores had a -wal beside them "
            f"({fmt(w.get('with_journal'))} a rollback journal); {fmt(w.get('rows_wal_only'))} of {fmt(w.get('rows_seen'))} rows "
            "exist only through the WAL.",
            k.ev("wal_rows", f"wal {w.get('with_wal')}; wal-only rows {w.get('rows_wal_only')}"),
            value={"with_wal": as_int(w.get("with_wal")), "rows_wal_only": as_int(w.get("rows_wal_only")),
                   "rows_seen": as_int(w.get("rows_seen"))})

    kk = k.rows("key_kinds")
    kinds: dict[str, int] = {}
    for r in kk:
        if r["kind"] != "composerHeaders":
            kinds[r["kind"]] = kinds.get(r["kind"], 0) + as_int(r["cells"])
    bad = {f"{r['kind']}:{r['status']}": as_int(r["cells"]) for r in kk
           if r["status"] not in ("ok", "opaque")}
    k.state("key_kinds", "value_map",
            f"cursorDiskKV holds {fmt(sum(kinds.values()))} cells of {len(kinds)} kinds: "
            + (", ".join(f"{kd} {fmt(c)}" for kd, c in sorted(kinds.items(), key=lambda x: (-x[1], x[0]))) or "none")
            + ". " + ("Cells that do not parse as a JSON object: "
                      + ", ".join(f"{x} {fmt(c)}" for x, c in sorted(bad.items())) + "." if bad
                      else "Every decoded cell is a JSON object.")
            + (f" {fmt(kinds['<unknown-kind>'])} cells are of kinds outside the reviewed list." if kinds.get("<unknown-kind>") else ""),
            k.ev("key_kinds", "; ".join(f"{r['kind']}/{r['status']} {r['cells']}" for r in kk) or "0 cells"),
            value=kinds, headline=True)
    kv = next((r for r in kk if r["kind"] == "agentKv"), None)
    k.state("agent_kv", "census",
            (f"agentKv cells: {fmt(kv['cells'])}, {human_bytes(kv['bytes'])} in all (largest {human_bytes(kv['max_bytes'])}): "
             "counted and sized, never decoded." if kv else "No agentKv cell was observed."),
            k.ev("key_kinds", f"agentKv {kv['cells'] if kv else 0}"), value=as_int(kv["cells"]) if kv else 0)

    ks = k.rows("kind_keyset_summary")
    k.state("kind_keysets", "census",
            "Top-level key sets per kind: " + ("; ".join(
                f"{r['kind']} {fmt(r['keysets'])} key set{'s' if r['keysets'] != 1 else ''} over {fmt(r['records'])} records "
                f"({fmt(r['keys_always'])} keys always present, {fmt(r['keys_sometimes'])} sometimes)" for r in ks) or "none") + ".",
            k.ev("kind_keyset_summary", f"{len(ks)} kinds"),
            value={r["kind"]: {"records": r["records"], "keysets": r["keysets"], "always": r["keys_always"],
                               "sometimes": r["sometimes"]} for r in ks})

    vs = k.rows("versions")
    vmap: dict[str, dict[str, int]] = {}
    for r in vs:
        vmap.setdefault(r["kind"], {})[r["v"]] = as_int(r["records"])
    k.state("versions", "value_map",
            "Document versions (_v): " + ("; ".join(
                f"{kd} " + ", ".join(f"{v} ×{fmt(c)}" for v, c in m.items()) for kd, m in vmap.items()) or "none")
            + (". Several versions of one kind coexist: a reader must not assume one."
               if any(len(m) > 1 for m in vmap.values()) else ". One version per kind in this corpus." if vmap else "."),
            k.ev("versions", f"{len(vs)} rows"), value=vmap)

    bt = {r["type"]: as_int(r["bubbles"]) for r in k.rows("bubble_types")}
    k.state("bubble_types", "value_map",
            "Bubble type values: " + (", ".join(f"{t} in {fmt(v)}" for t, v in bt.items()) or "none") + " bubbles.",
            k.ev("bubble_types", "; ".join(f"{t} {v}" for t, v in bt.items()) or "0 bubbles"), value=bt)
    ct = {r["capability_type"]: as_int(r["bubbles"]) for r in k.rows("capability_types")}
    k.state("capability_types", "value_map",
            "capabilityType: " + (", ".join(f"{t} in {fmt(v)}" for t, v in ct.items()) or "none") + " bubbles.",
            k.ev("capability_types", "; ".join(f"{t} {v}" for t, v in ct.items()) or "0 bubbles"), value=ct)
    ck = k.rows("capability_keys")
    k.state("capability_keys", "census",
            "What each capabilityType goes with: " + ("; ".join(
                f"{r['capability_type']}: toolFormerData in {fmt(r['with_tool_former'])}, thinking in "
                f"{fmt(r['with_thinking'])} of {fmt(r['bubbles'])} bubbles" for r in ck) or "no bubble") + ".",
            k.ev("capability_keys", "; ".join(f"{r['capability_type']} {r['with_tool_former']}/{r['with_thinking']}/{r['bubbles']}"
                                              for r in ck) or "0 bubbles"),
            value={r["capability_type"]: {"bubbles": as_int(r["bubbles"]), "tool_former": as_int(r["with_tool_former"]),
                                          "thinking": as_int(r["with_thinking"])} for r in ck})

    th = k.one("thinking")
    n_th = sum(as_int(th.get(x)) for x in ("with_text", "signature_only", "blank"))
    sig = as_int(th.get("signature_only")) + as_int(th.get("blank"))
    k.state("thinking", "census",
            f"Of {fmt(n_th)} thinking blocks, {fmt(th.get('with_text'))} have text, {fmt(th.get('signature_only'))} "
            f"only a signature (text blank) and {fmt(th.get('blank'))} neither"
            + (": a thinking-free rendering is not evidence that no reasoning happened." if sig else "."),
            k.ev("thinking", f"{th.get('with_text')}/{th.get('signature_only')}/{th.get('blank')}"),
            value={x: as_int(th.get(x)) for x in ("with_text", "signature_only", "blank")})
    tc = k.one("token_counts")
    k.state("token_counts", "rate",
            f"tokenCount is all zero in {fmt(tc.get('all_zero'))} of {fmt(tc.get('with_token_count'))} bubbles that carry one "
            f"({pct(as_int(tc.get('all_zero')), as_int(tc.get('with_token_count')))}); "
            f"{fmt(as_int(tc.get('bubbles')) - as_int(tc.get('with_token_count')))} of {fmt(tc.get('bubbles'))} bubbles carry none.",
            k.ev("token_counts", f"{tc.get('all_zero')}/{tc.get('with_token_count')}/{tc.get('bubbles')}"),
            value=[as_int(tc.get("all_zero")), as_int(tc.get("with_token_count")), as_int(tc.get("bubbles"))])
    _tools(k)

    o = k.one("ordering")
    k.state("ordering", "census",
            f"Bubble order: {fmt(o.get('ordered_by_header_list'))} of {fmt(o.get('composers'))} composers list their bubbles "
            f"in fullConversationHeadersOnly; {fmt(o.get('ordered_by_rowid'))} do not, and only rowid orders theirs. "
            f"Where a list exists, rowid order disagrees with it in {fmt(o.get('rowid_order_differs'))} composers "
            f"(the list names other bubbles than the store holds in {fmt(o.get('header_set_differs'))}).",
            k.ev("ordering", f"list {o.get('ordered_by_header_list')}, rowid {o.get('ordered_by_rowid')}, "
                             f"differs {o.get('rowid_order_differs')}"),
            value={x: as_int(o.get(x)) for x in ("composers", "ordered_by_header_list", "ordered_by_rowid",
                                              "rowid_order_differs", "header_set_differs")}, headline=True)

    md = k.rows("models")
    k.state("models", "value_map",
            "Models: " + ("; ".join(f"{r['path']} {r['value']} ×{fmt(r['occurrences'])}" for r in md) or "none") + ".",
            k.ev("models", f"{len(md)} values"), value={f"{r['path']}:{r['value']}": r["occurrences"] for r in md})

    dm = k.rows("data_keyed_maps")
    per_path: dict[str, int] = {}
    for r in dm:
        per_path[r["path"]] = per_path.get(r["path"], 0) + as_int(r["maps"])
    top = sorted(per_path.items(), key=lambda x: (-x[1], x[0]))
    k.state("data_keyed_maps", "census",
            f"{fmt(sum(per_path.values()))} data-keyed maps at {len(per_path)} paths were counted, never described"
            + (": " + ", ".join(f"{p} ×{fmt(c)}" for p, c in top[:6]) + (f" and {len(top) - 6} more paths" if len(top) > 6 else "")
               if top else "") + ".",
            k.ev("data_keyed_maps", f"{len(dm)} rows"), value={f"{r['kind']}:{r['path']}": r["maps"] for r in dm})

    _composer_bubbles(k)
    _result_status(k)

    for cid, what in (("no_stop_reason", "A stop reason"), ("no_git_branch", "A git branch"),
                      ("no_cli_version", "A client version"),
                      ("composer_headers_table", "The composerHeaders schema text in raw pages"),
                      ("tool_former_text", "The text \"toolFormerData\" in raw pages")):
        k.absence(cid, cid, what)


def _tools(k: Kit) -> None:
    tf = k.rows("tool_former")
    names: dict[str, int] = {}
    statuses: dict[str, int] = {}
    for r in tf:
        names[r["tool_name"]] = names.get(r["tool_name"], 0) + as_int(r["bubbles"])
        statuses[r["tool_status"] or "<no status>"] = statuses.get(r["tool_status"] or "<no status>", 0) + as_int(r["bubbles"])
    k.state("tool_names", "value_map",
            f"toolFormerData names ({fmt(sum(names.values()))} calls): "
            + (", ".join(f"{x} {fmt(c)}" for x, c in sorted(names.items(), key=lambda x: (-x[1], x[0]))) or "none")
            + "; statuses: " + (", ".join(f"{x} {fmt(c)}" for x, c in sorted(statuses.items())) or "none") + ".",
            k.ev("tool_former", f"{len(names)} names, {len(statuses)} statuses"),
            value={"names": names, "statuses": statuses})
    tr = k.rows("tool_numbers")
    shared = sorted({r["tool"] for r in tr if sum(1 for x in tr if x["tool"] == r["tool"]) > 1})
    k.state("tool_numbers", "value_map",
            "Numeric tool ids (toolFormerData.tool) with their names: "
            + (", ".join(f"{r['tool']} {r['tool_name']} ×{fmt(r['bubbles'])}" for r in tr) or "none")
            + (f". Ids shared by several names: {', '.join(shared)} (a number alone does not name the tool)." if shared else "."),
            k.ev("tool_numbers", f"{len(tr)} pairs"), value={f"{r['tool']}:{r['tool_name']}": r["bubbles"] for r in tr})
    ks = [r for r in k.rows("keyset_census") if r["rclass"] == "bubbleId"
          and r["path"] in ("$.toolFormerData.params", "$.toolFormerData.rawArgs", "$.toolFormerData.result")]
    by: dict[str, dict[str, int]] = {}
    for r in ks:
        by.setdefault(r["path"].rsplit(".", 1)[1], {})[r["jtype"]] = \
            by.get(r["path"].rsplit(".", 1)[1], {}).get(r["jtype"], 0) + as_int(r["occurrences"])
    k.state("tool_payload_types", "census",
            "toolFormerData payload types: " + ("; ".join(
                f"{f} " + ", ".join(f"{t} ×{fmt(c)}" for t, c in sorted(m.items())) for f, m in sorted(by.items())) or "none observed")
            + (" (this census does not walk a string's contents; params key sets per tool name are counted from the parsed string)." if any("string" in m for m in by.values()) else "."),
            k.ev("keyset_census", "; ".join(f"{f} {m}" for f, m in sorted(by.items())) or "0"),
            value=by)
    _tool_params(k)
    ids = k.one("tool_call_ids")
    nl = as_int(ids.get("with_newline"))
    k.state("tool_call_id_newline", "rate",
            f"{fmt(nl)} of {fmt(ids.get('call_ids'))} toolCallId values contain a newline (counted, never printed)"
            + (": a consumer must not treat a call id as one line or one token." if nl else "."),
            k.ev("tool_call_ids", f"{ids.get('with_newline')}/{ids.get('call_ids')}"),
            value=[nl, as_int(ids.get("call_ids"))])


def _tool_params(k: Kit) -> None:
    """params, a JSON object carried in a string, as the walk parsed it per call: an object
    (its key sets per tool name are the declared ``nested_tool_input``), absent, not JSON."""
    rows = k.rows("tool_params")
    tot = {c: sum(as_int(r[c]) for r in rows) for c in ("calls", "object_params", "no_params", "not_json", "other_type")}

    def by_tool(col: str) -> str:
        return ", ".join(f"{r['tool_name']} {fmt(r[col])}" for r in rows if as_int(r[col]))

    if not tot["calls"]:
        text = "toolFormerData params (JSON carried in a string): not determined, no toolFormerData was observed."
    else:
        text = (f"toolFormerData params (a JSON object carried in a string, parsed by the walk; its key sets per tool "
                f"name below): {fmt(tot['object_params'])} of {fmt(tot['calls'])} calls hold a JSON object"
                + (f"; {fmt(tot['no_params'])} carry no params, absent or null ({by_tool('no_params')})" if tot["no_params"] else
                   "; every call carries params")
                + (f"; {fmt(tot['not_json'])} hold text that is not JSON, counted and never read ({by_tool('not_json')})"
                   if tot["not_json"] else "; none holds text that is not JSON")
                + (f"; {fmt(tot['other_type'])} hold JSON of another type ({by_tool('other_type')})"
                   if tot["other_type"] else "") + ".")
    k.state("tool_params", "census", text,
            k.ev("tool_params", "; ".join(f"{r['tool_name']} {r['object_params']}/{r['no_params']}/{r['not_json']}/"
                                          f"{r['other_type']} of {r['calls']}" for r in rows) or "0 calls"),
            value={r["tool_name"]: {c: as_int(r[c]) for c in ("calls", "object_params", "no_params", "not_json",
                                                               "other_type")} for r in rows},
            provenance="observed" if tot["calls"] else "not determined")


def _composer_bubbles(k: Kit) -> None:
    """Composers with no bubbleId row of their id (empty or draft composers: nothing was said)."""
    cb = k.one("composer_bubbles")
    with_b, without = as_int(cb.get("with_bubbles")), as_int(cb.get("without_bubbles"))
    drafts, drafts_empty = as_int(cb.get("drafts")), as_int(cb.get("drafts_without_bubbles"))
    total = with_b + without
    if not total:
        text = "Composers with and without bubbleId rows: not determined, no composerData cell was read."
    else:
        text = (f"{fmt(with_b)} of {fmt(total)} composers (composerData cells) have bubbleId rows of their id in the "
                f"same store ({pct(with_b, total)})"
                + (f"; {fmt(without)} have none (empty composers: no message to read)" if without else "; none is empty")
                + ((f". 1 composer is marked isDraft, and it has {'no' if drafts_empty else 'some'} bubbleId rows"
                    if drafts == 1 else
                    f". {fmt(drafts)} composers are marked isDraft, {fmt(drafts_empty)} of them without bubbleId rows"
                    + (f" ({fmt(drafts - drafts_empty)} with some)" if drafts_empty < drafts else ""))
                   if drafts else ". No composer is marked isDraft")
                + (f"; {fmt(without - drafts_empty)} of the empty composers {'is' if without - drafts_empty == 1 else 'are'} "
                   "not marked as a draft." if without else "."))
    k.state("link_composer_bubbles", "rate", text,
            k.ev("composer_bubbles", f"with {with_b}, without {without}; drafts {drafts} ({drafts_empty} without)"),
            value={"with_bubbles": with_b, "without_bubbles": without, "drafts": drafts,
                   "drafts_without_bubbles": drafts_empty},
            provenance="observed" if total else "not determined")


DONE = ("completed", "error")


def _result_status(k: Kit) -> None:
    """A tool bubble carries a result string iff its status is completed or error."""
    rs = k.rows("tool_result_status")
    by = {r["tool_status"]: (as_int(r["calls"]), as_int(r["with_result"])) for r in rs}
    done = sum(c for s, (c, _) in by.items() if s in DONE)
    done_res = sum(w for s, (_, w) in by.items() if s in DONE)
    rest = sum(c for s, (c, _) in by.items() if s not in DONE)
    rest_res = sum(w for s, (_, w) in by.items() if s not in DONE)
    other_type = as_int(rs[0]["other_type_results"]) if rs else 0
    broken = (done - done_res) + rest_res
    if not by:
        text = "A tool result against its status: not determined, no toolFormerData was observed."
    else:
        text = (f"A toolFormerData result string is present in {fmt(done_res)} of {fmt(done)} calls whose status is "
                f"completed or error, "
                + (f"and in {fmt(rest_res)} of {fmt(rest)} calls of any other status" if rest else "and no call has another status")
                + (" (" + ", ".join(f"{s} {fmt(w)} of {fmt(c)}" for s, (c, w) in sorted(by.items()) if s not in DONE) + ")"
                   if rest else "")
                + (": a result is present exactly when the status is completed or error, in every call."
                   if not broken else f": {fmt(broken)} call{'s do' if broken != 1 else ' does'} not (a result with another status, "
                   "or none with completed or error).")
                + (f" {fmt(other_type)} results are not strings." if other_type else ""))
    k.state("link_tool_result_status", "rate", text,
            k.ev("tool_result_status", "; ".join(f"{s} {w}/{c}" for s, (c, w) in sorted(by.items())) or "0 calls"),
            value={"by_status": {s: {"calls": c, "with_result": w} for s, (c, w) in by.items()},
                   "breaks": broken, "other_type": other_type},
            provenance="observed" if by else "not determined")
