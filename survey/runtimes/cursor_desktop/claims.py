"""The sentences of the Cursor desktop-store page, each stated with the query or probe behind it."""

from __future__ import annotations

from typing import Any

from survey.evidence.claims import as_int, fmt, human_bytes, pct
from survey.evidence.kit import Kit


def claims(k: Kit) -> None:
    n, total = k.surface_counts(("state", "state_sidecar", "state_backup", "workspace_json",
                                 "workspace_state", "other"))
    k.state("basis_files", "census",
            f"The User folder holds {fmt(total)} files: {fmt(n['state'])} global state.vscdb, {fmt(n['state_sidecar'])} "
            f"sidecars beside it, {fmt(n['state_backup'])} backups, {fmt(n['workspace_json'])} workspace.json, "
            f"{fmt(n['workspace_state'])} per-workspace state.vscdb files (counted, not read) and {fmt(n['other'])} other files.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, **n})

    so = k.rows("store_outcomes")
    ok = [r for r in so if r["outcome"] == "ok"]
    n_ok = sum(as_int(r["stores"]) for r in ok)
    n_all = sum(as_int(r["stores"]) for r in so)
    tables = sorted({t for r in ok for t in (r["tables"] or "").split(",") if t})
    k.state("store_outcomes", "census",
            f"{fmt(n_ok)} of {fmt(n_all)} global stores open and read"
            + ("; failures: " + ", ".join(f"{r['outcome']} {fmt(r['stores'])}" for r in so if r["outcome"] != "ok")
               if n_ok < n_all else "")
            + f". Tables present: {', '.join(tables) or 'none'}"
            + (f" (+{fmt(sum(as_int(r['other_tables']) for r in ok))} other tables, not named)"
               if any(as_int(r["other_tables"]) for r in ok) else "") + ".",
            k.ev("store_outcomes", "; ".join(f"{r['outcome']} {r['stores']} [{r['tables']}]" for r in so),
                 scope=f"{fmt(n_all)} state.vscdb files"),
            value={"ok": n_ok, "stores": n_all, "tables": tables})

    st = k.one("store_tables")
    has_headers = as_int(st.get("with_composer_headers"))
    if not as_int(st.get("stores")):
        k.state("composer_headers", "census",
                "No global store was read, so whether composerHeaders exists is not determined.",
                k.ev("store_tables", "0 stores"), value=None, provenance="not determined", headline=True)
    else:
        _headers_claim(k, st, has_headers)
    _rest(k)


def _headers_claim(k: Kit, st: dict[str, Any], has_headers: int) -> None:
    k.state("composer_headers", "census",
            (f"composerHeaders is present in {fmt(has_headers)} of {fmt(st.get('stores'))} stores "
             f"({fmt(st.get('composer_headers_rows'))} rows)." if has_headers else
             f"composerHeaders is ABSENT from all {fmt(st.get('stores'))} stores read: sessions must be discovered by "
             "scanning composerData: keys, and bubble order falls back to each composerData's "
             "fullConversationHeadersOnly list, or to rowid when that list is missing.")
            + f" ItemTable: {fmt(st.get('item_table_rows'))} rows; the Agents-sidebar keys "
            f"glass.localAgentProjects.v1 / glass.localAgentProjectMembership.v1 are present in "
            f"{fmt(st.get('with_agent_projects_key'))} / {fmt(st.get('with_agent_membership_key'))} stores.",
            k.ev("store_tables", f"composerHeaders in {has_headers}/{st.get('stores')}"),
            value={"present": has_headers, "stores": as_int(st.get("stores")),
                   "rows": as_int(st.get("composer_headers_rows"))}, headline=True)


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
            + ", ".join(f"{kd} {fmt(c)}" for kd, c in sorted(kinds.items(), key=lambda x: (-x[1], x[0])))
            + ". " + ("Cells that do not parse as a JSON object: "
                      + ", ".join(f"{x} {fmt(c)}" for x, c in sorted(bad.items())) + "." if bad
                      else "Every decoded cell is a JSON object.")
            + " Kinds outside the reviewed list are `<unknown-kind>`; key ids never leave the reader.",
            k.ev("key_kinds", "; ".join(f"{r['kind']}/{r['status']} {r['cells']}" for r in kk)),
            value=kinds, headline=True)
    kv = next((r for r in kk if r["kind"] == "agentKv"), None)
    k.state("agent_kv", "census",
            (f"agentKv cells: {fmt(kv['cells'])}, {human_bytes(kv['bytes'])} in all (largest {human_bytes(kv['max_bytes'])}): "
             "counted and sized, never decoded." if kv else "No agentKv cell was observed."),
            k.ev("key_kinds", f"agentKv {kv['cells'] if kv else 0}"), value=as_int(kv["cells"]) if kv else 0)

    ks = k.rows("kind_keyset_summary")
    k.state("kind_keysets", "census",
            "Top-level key sets per kind: " + "; ".join(
                f"{r['kind']} {fmt(r['keysets'])} key set{'s' if r['keysets'] != 1 else ''} over {fmt(r['records'])} records "
                f"({fmt(r['keys_always'])} keys always present, {fmt(r['keys_sometimes'])} sometimes)" for r in ks) + ".",
            k.ev("kind_keyset_summary", f"{len(ks)} kinds"),
            value={r["kind"]: {"records": r["records"], "keysets": r["keysets"]} for r in ks})

    vs = k.rows("versions")
    vmap: dict[str, dict[str, int]] = {}
    for r in vs:
        vmap.setdefault(r["kind"], {})[r["v"]] = as_int(r["records"])
    k.state("versions", "value_map",
            "Document versions (_v): " + ("; ".join(
                f"{kd} " + ", ".join(f"{v} ×{fmt(c)}" for v, c in m.items()) for kd, m in vmap.items()) or "none")
            + (". Several versions of one kind coexist: a reader must not assume one."
               if any(len(m) > 1 for m in vmap.values()) else ". One version per kind in this corpus."),
            k.ev("versions", f"{len(vs)} rows"), value=vmap)

    bt = {r["type"]: as_int(r["bubbles"]) for r in k.rows("bubble_types")}
    k.state("bubble_types", "value_map",
            f"Bubble type: 1 (user) in {fmt(bt.get('1', 0))}, 2 (assistant) in {fmt(bt.get('2', 0))} bubbles"
            + (f", other values in {fmt(sum(v for t, v in bt.items() if t not in ('1', '2')))}" if set(bt) - {"1", "2"} else "")
            + ".",
            k.ev("bubble_types", "; ".join(f"{t} {v}" for t, v in bt.items())), value=bt)
    ct = {r["capability_type"]: as_int(r["bubbles"]) for r in k.rows("capability_types")}
    k.state("capability_types", "value_map",
            "capabilityType: " + ", ".join(f"{t} in {fmt(v)}" for t, v in ct.items())
            + " bubbles (15 carries toolFormerData, 30 thinking).",
            k.ev("capability_types", "; ".join(f"{t} {v}" for t, v in ct.items())), value=ct)

    th = k.one("thinking")
    n_th = sum(as_int(th.get(x)) for x in ("with_text", "signature_only", "blank"))
    k.state("thinking", "census",
            f"Of {fmt(n_th)} thinking blocks, {fmt(th.get('with_text'))} have text, {fmt(th.get('signature_only'))} "
            f"only a signature (text blank) and {fmt(th.get('blank'))} neither: a thinking-free rendering is not evidence "
            "that no reasoning happened.",
            k.ev("thinking", f"{th.get('with_text')}/{th.get('signature_only')}/{th.get('blank')}"),
            value={x: as_int(th.get(x)) for x in ("with_text", "signature_only", "blank")})
    tc = k.one("token_counts")
    k.state("token_counts", "rate",
            f"tokenCount is all zero in {fmt(tc.get('all_zero'))} of {fmt(tc.get('with_token_count'))} bubbles "
            f"({pct(as_int(tc.get('all_zero')), as_int(tc.get('with_token_count')))}): zero is the serializer default, not a measurement.",
            k.ev("token_counts", f"{tc.get('all_zero')}/{tc.get('with_token_count')}"),
            value=[as_int(tc.get("all_zero")), as_int(tc.get("with_token_count"))])

    tf = k.rows("tool_former")
    names: dict[str, int] = {}
    statuses: dict[str, int] = {}
    for r in tf:
        names[r["tool_name"]] = names.get(r["tool_name"], 0) + as_int(r["bubbles"])
        statuses[r["tool_status"] or "–"] = statuses.get(r["tool_status"] or "–", 0) + as_int(r["bubbles"])
    k.state("tool_names", "value_map",
            f"toolFormerData names ({fmt(sum(names.values()))} calls): "
            + (", ".join(f"{x} {fmt(c)}" for x, c in sorted(names.items(), key=lambda x: (-x[1], x[0]))) or "none")
            + "; statuses: " + (", ".join(f"{x} {fmt(c)}" for x, c in sorted(statuses.items())) or "none") + ".",
            k.ev("tool_former", f"{len(names)} names, {len(statuses)} statuses"),
            value={"names": names, "statuses": statuses})
    tr = k.rows("tool_numbers")
    tn: dict[str, int] = {}
    for r in tr:
        tn[r["tool"]] = tn.get(r["tool"], 0) + as_int(r["bubbles"])
    shared = sorted({r["tool"] for r in tr if sum(1 for x in tr if x["tool"] == r["tool"]) > 1})
    k.state("tool_numbers", "value_map",
            "Numeric tool ids (toolFormerData.tool) with their names: "
            + (", ".join(f"{r['tool']} {r['tool_name']} ×{fmt(r['bubbles'])}" for r in tr) or "none")
            + (f". Ids shared by several names: {', '.join(shared)} (a number alone does not name the tool)." if shared else "."),
            k.ev("tool_numbers", f"{len(tn)} ids"), value={f"{r['tool']}:{r['tool_name']}": r["bubbles"] for r in tr})
    ids = k.one("tool_call_ids")
    k.state("tool_call_id_newline", "rate",
            f"{fmt(ids.get('with_newline'))} of {fmt(ids.get('call_ids'))} toolCallId values contain a newline "
            "(two ids joined; counted, never printed): a consumer must not treat a call id as one line or one token.",
            k.ev("tool_call_ids", f"{ids.get('with_newline')}/{ids.get('call_ids')}"),
            value=[as_int(ids.get("with_newline")), as_int(ids.get("call_ids"))])

    o = k.one("ordering")
    k.state("ordering", "census",
            f"Bubble order: {fmt(o.get('ordered_by_header_list'))} of {fmt(o.get('composers'))} composers list their bubbles "
            f"in fullConversationHeadersOnly; {fmt(o.get('ordered_by_rowid'))} do not and fall back to rowid order. "
            f"Where a list exists, rowid order disagrees with it in {fmt(o.get('rowid_order_differs'))} composers "
            f"(the list names other bubbles than the store holds in {fmt(o.get('header_set_differs'))}).",
            k.ev("ordering", f"list {o.get('ordered_by_header_list')}, rowid {o.get('ordered_by_rowid')}, "
                             f"differs {o.get('rowid_order_differs')}"),
            value={x: as_int(o.get(x)) for x in ("composers", "ordered_by_header_list", "ordered_by_rowid",
                                              "rowid_order_differs", "header_set_differs")}, headline=True)

    md = k.rows("models")
    k.state("models", "value_map",
            "Models: " + ("; ".join(f"{r['path']} {r['value']} ×{fmt(r['occurrences'])}" for r in md) or "none")
            + ". \"default\" is the picker placeholder, not a model.",
            k.ev("models", f"{len(md)} values"), value={f"{r['path']}:{r['value']}": r["occurrences"] for r in md})

    dm = k.rows("data_keyed_maps")
    paths = {r["path"] for r in dm}
    k.state("data_keyed_maps", "census",
            f"{fmt(sum(as_int(r['maps']) for r in dm))} data-keyed maps at {len(paths)} paths were counted, never described "
            "(codeBlockData and originalFileStates are keyed by file URI, conversationMap by bubble id).",
            k.ev("data_keyed_maps", f"{len(dm)} rows"), value={f"{r['kind']}:{r['path']}": r["maps"] for r in dm})

    for cid, what in (("no_stop_reason", "A stop reason"), ("no_git_branch", "A git branch"),
                      ("no_cli_version", "A client version"),
                      ("composer_headers_table", "The composerHeaders schema text in raw pages"),
                      ("tool_former_text", "The text \"toolFormerData\" in raw pages")):
        k.absence(cid, cid, what)
