"""The sentences of the Cursor CLI chat-store page, each stated with the query or probe behind it."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, pct
from survey.evidence.kit import Kit
from survey.runtimes.cursor_desktop.claims import _layout


def claims(k: Kit) -> None:
    n, total = k.surface_counts(("store", "store_sidecar", "meta_json", "prompt_history", "other"))
    k.state("basis_files", "census",
            f"The corpus holds {fmt(total)} files: {fmt(n['store'])} store.db, {fmt(n['store_sidecar'])} store sidecars "
            f"(-wal/-shm/-journal), {fmt(n['meta_json'])} meta.json, {fmt(n['prompt_history'])} prompt_history.json "
            f"and {fmt(n['other'])} other files.",
            k.ev("files_by_surface", f"{fmt(total)} files", scope=f"{fmt(total)} files (whole corpus)"),
            value={"total": total, **n})
    _layout(k, "cursor_chats")

    # -- stores ---------------------------------------------------------------------------
    so = k.rows("store_outcomes")
    outcomes: dict[str, int] = {}
    for r in so:
        key = "ok+wal" if r["outcome"] == "ok" and r["wal_present"] else r["outcome"]
        outcomes[key] = outcomes.get(key, 0) + as_int(r["stores"])
    n_stores = sum(outcomes.values())
    ok = outcomes.get("ok", 0) + outcomes.get("ok+wal", 0)
    bad = {o: c for o, c in outcomes.items() if o not in ("ok", "ok+wal")}
    read = [r for r in so if r["outcome"] == "ok"]
    tables = sorted({t for r in read for t in str(r["tables"] or "").split(",") if t})
    other_tables = sum(as_int(r["other_tables"]) * as_int(r["stores"]) for r in read)
    other_stores = sum(as_int(r["stores"]) for r in read if as_int(r["other_tables"]))
    k.state("store_outcomes", "census",
            f"{fmt(ok)} of {fmt(n_stores)} store.db files open and read ({fmt(outcomes.get('ok+wal', 0))} of them through a -wal); "
            + ("failures, each counted, none skipped: " + ", ".join(f"{o} {fmt(c)}" for o, c in sorted(bad.items()))
               if bad else "none failed") + ". "
            + f"Tables present: {', '.join(tables) or 'none of the known ones'}"
            + (f" (+{fmt(other_tables)} other table{'s' if other_tables != 1 else ''} in {fmt(other_stores)} "
               f"store{'s' if other_stores != 1 else ''}, not named)" if other_tables else "") + ".",
            k.ev("store_outcomes", "; ".join(f"{o} {c}" for o, c in sorted(outcomes.items()))
                 + f"; tables [{','.join(tables)}] +{other_tables}",
                 scope=f"{fmt(n_stores)} store.db files (every store)"),
            value={**outcomes, "tables": tables, "other_tables": other_tables,
                   "stores_with_other_tables": other_stores}, headline=True)

    w = k.one("wal_rows")
    k.state("wal_rows", "census",
            f"{fmt(w.get('with_wal'))} of {fmt(w.get('stores_walked'))} walked stores had a -wal beside them "
            f"({fmt(w.get('with_shm'))} a -shm, {fmt(w.get('with_journal'))} a rollback journal); "
            f"{fmt(w.get('rows_wal_only'))} of {fmt(w.get('rows_seen'))} rows exist only through the WAL "
            f"(and {fmt(w.get('rows_wal_deleted'))} rows of the bare file are gone once it applies)"
            + (": a reader that ignores the WAL, or opens the store immutable, misses them."
               if as_int(w.get("rows_wal_only")) or as_int(w.get("rows_wal_deleted")) else "."),
            k.ev("wal_rows", f"wal {w.get('with_wal')}, wal-only rows {w.get('rows_wal_only')}/{w.get('rows_seen')}"),
            value={"with_wal": as_int(w.get("with_wal")), "rows_wal_only": as_int(w.get("rows_wal_only")),
                   "rows_seen": as_int(w.get("rows_seen")), "rows_wal_deleted": as_int(w.get("rows_wal_deleted"))},
            headline=True)

    # -- blobs ----------------------------------------------------------------------------
    bc = k.rows("blob_classes")
    json_n = sum(as_int(r["blobs"]) for r in bc if r["json"])
    non = sum(as_int(r["blobs"]) for r in bc if not r["json"])
    proto = sum(as_int(r["blobs"]) for r in bc if r["rclass"] == "blob:protobuf")
    broken = sum(as_int(r["blobs"]) for r in bc if r["status"] == "corrupt")
    k.state("blob_kinds", "census",
            f"Blobs: {fmt(json_n)} JSON objects and {fmt(non)} non-JSON rows ({pct(non, json_n + non)} of "
            f"{fmt(json_n + non)}): {fmt(proto)} parse as protobuf fields, {fmt(broken)} look like JSON but do not parse, "
            f"{fmt(non - proto - broken)} other.",
            k.ev("blob_classes", f"json {json_n}; non-json {non} (protobuf {proto}, broken JSON {broken})"),
            value={"json": json_n, "non_json": non, "protobuf": proto, "corrupt": broken}, headline=True)

    bi = k.one("blob_ids")
    rows_, sha = as_int(bi.get("blob_rows")), as_int(bi.get("id_is_sha256"))
    k.state("blob_ids", "rate",
            f"A blob's id is sha256(data) in {fmt(sha)} of {fmt(rows_)} rows ({pct(sha, rows_)})"
            + (f"; {fmt(bi.get('id_not_sha256'))} rows in {fmt(bi.get('stores_with_exceptions'))} stores break content addressing."
               if as_int(bi.get("id_not_sha256")) else "."),
            k.ev("blob_ids", f"{sha}/{rows_}"), value={"true": sha, "false": as_int(bi.get("id_not_sha256"))})

    ro = k.one("row_order")
    k.state("row_order", "census",
            f"createdAt falls below an earlier row's in "
            f"{fmt(ro.get('rows_created_out_of_order'))} rows of {fmt(ro.get('stores_affected'))} of "
            f"{fmt(ro.get('stores_read'))} stores read"
            + (": createdAt does not follow rowid order." if as_int(ro.get("rows_created_out_of_order")) else "."),
            k.ev("row_order", f"{ro.get('rows_created_out_of_order')} rows"),
            value=as_int(ro.get("rows_created_out_of_order")))

    mk_ = k.rows("message_keysets")
    ca: dict[str, list[int]] = {}
    for r in mk_:
        has = "createdAt" in (r["keyset"] or "").split(",")
        ca.setdefault(r["role"], [0, 0])[0 if has else 1] += as_int(r["blobs"])
    always = [x for x, (p, a) in sorted(ca.items()) if not a]
    never = [x for x, (p, a) in sorted(ca.items()) if not p]
    some = [x for x, (p, a) in sorted(ca.items()) if p and a]
    k.state("created_at_roles", "census",
            "createdAt is on every blob of " + (", ".join(always) or "no role")
            + "; on none of " + (", ".join(never) or "no role")
            + (f"; on some blobs of {', '.join(some)}" if some else "") + ".",
            k.ev("message_keysets", f"always {len(always)}, never {len(never)}, some {len(some)} roles"),
            value={x: {"present": p, "absent": a} for x, (p, a) in ca.items()})

    # -- messages -------------------------------------------------------------------------
    roles = k.rows("roles")
    k.state("roles", "value_map",
            "JSON blobs by role: " + (", ".join(f"{r['role']} {fmt(r['blobs'])}" for r in roles) or "none")
            + ". Roles outside system/user/assistant/tool are <unknown-role>; JSON without a role is <no-role>.",
            k.ev("roles", f"{len(roles)} classes"), value={r["role"]: r["blobs"] for r in roles})

    ct = k.rows("content_types")
    k.state("content_types", "census",
            "content is " + ("; ".join(f"{r['jtype']} in {fmt(r['blobs'])} {r['role']} blobs" for r in ct) or "never present")
            + (": a parser must accept a string or an array of parts." if {"string", "array"} <= {r["jtype"] for r in ct} else "."),
            k.ev("content_types", "; ".join(f"{r['role']} {r['jtype']} {r['blobs']}" for r in ct)),
            value={f"{r['role']}:{r['jtype']}": r["blobs"] for r in ct})

    pk = k.rows("part_keysets")
    types: dict[str, int] = {}
    for r in pk:
        types[r["part_type"]] = types.get(r["part_type"], 0) + as_int(r["parts"])
    k.state("part_types", "value_map",
            f"Content arrays hold {len(types)} part types: "
            + ", ".join(f"{t} {fmt(c)}" for t, c in sorted(types.items(), key=lambda x: (-x[1], x[0]))) + ".",
            k.ev("part_keysets", f"{sum(types.values())} parts"), value=types)

    # -- tool calls -----------------------------------------------------------------------
    tc = k.one("tool_call_ids")
    calls, no_id = as_int(tc.get("calls")), as_int(tc.get("calls_without_id"))
    results, with_ie = as_int(tc.get("results")), as_int(tc.get("results_with_is_error"))
    k.state("tool_call_ids", "rate",
            f"{fmt(calls - no_id)} of {fmt(calls)} tool-call parts carry a toolCallId ({fmt(no_id)} do not); "
            f"{fmt(results - as_int(tc.get('results_without_id')))} of {fmt(results)} tool-result parts do.",
            k.ev("tool_call_ids", f"calls {calls - no_id}/{calls}; results {results}"),
            value={"calls": calls, "calls_without_id": no_id, "results": results}, headline=True)
    k.state("is_error", "rate",
            f"isError is present on {fmt(with_ie)} of {fmt(results)} tool results ({pct(with_ie, results)}): "
            f"true {fmt(tc.get('is_error_true'))}, false {fmt(tc.get('is_error_false'))}"
            + ("; where it is absent, a result's failure is not recorded." if with_ie < results else "."),
            k.ev("tool_call_ids", f"isError {with_ie}/{results}"),
            value={"present": with_ie, "true": as_int(tc.get("is_error_true")), "false": as_int(tc.get("is_error_false"))})
    j = k.one("call_result_joins")
    k.state("call_result_joins", "rate",
            f"{fmt(j.get('results_joined'))} of {fmt(j.get('results_with_id'))} results name a tool-call of the same store "
            f"by toolCallId; {fmt(j.get('results_without_call'))} name no call there (the call had no id, or is absent), "
            f"and {fmt(j.get('calls_without_result'))} call(s) with an id get no result.",
            k.ev("call_result_joins", f"joined {j.get('results_joined')}/{j.get('results_with_id')}"),
            value={x: as_int(j.get(x)) for x in ("calls_with_id", "results_with_id", "results_joined",
                                              "results_without_call", "calls_without_result")})
    tn = k.rows("tool_names")
    k.state("tool_names", "value_map",
            f"{len([r for r in tn if r['name'] != '<withheld>'])} reviewed tool names over {fmt(sum(as_int(r['calls']) for r in tn))} calls"
            + (": " + ", ".join(f"{r['name']} {fmt(r['calls'])}" for r in tn) if tn else "") + ".",
            k.ev("tool_names", f"{len(tn)} names"), value={r["name"]: r["calls"] for r in tn})

    md = k.rows("models")
    per = [r for r in md if r["path"] == "$.providerOptions.cursor.modelName" and r["value"] != "<absent>"]
    absent = next((as_int(r["occurrences"]) for r in md if r["value"] == "<absent>"), 0)
    last = [r for r in md if r["path"] == "$.lastUsedModel"]
    k.state("models", "value_map",
            "Model per assistant message (providerOptions.cursor.modelName): "
            + (", ".join(f"{r['value']} {fmt(r['occurrences'])}" for r in per) or "none")
            + f"; {fmt(absent)} assistant blobs carry no providerOptions. meta \"0\" lastUsedModel: "
            + (", ".join(f"{r['value']} in {fmt(r['stores'])} stores" for r in last) or "none") + ".",
            k.ev("models", f"{len(per)} per-message values, {len(last)} lastUsedModel values"),
            value={**{r["value"]: r["occurrences"] for r in per}, **{f"lastUsedModel:{r['value']}": r["stores"] for r in last}})

    # -- meta "0", meta.json, prompt_history ------------------------------------------------
    me = k.rows("meta0_encoding")
    k.state("meta0_encoding", "census",
            'meta key "0" is ' + (", ".join(f"{r['encoding']} in {fmt(r['stores'])} stores" for r in me) or "never read")
            + (": a reader must accept both hex-of-JSON and plain JSON." if len({r["encoding"] for r in me} & {"hex", "json"}) == 2
               else "."),
            k.ev("meta0_encoding", "; ".join(f"{r['encoding']} {r['stores']}" for r in me)),
            value={r["encoding"]: r["stores"] for r in me})
    mk = k.rows("meta0_keysets")
    k.state("meta0_keysets", "census",
            f'The decoded meta "0" agent record has {len(mk)} key set{"s" if len(mk) != 1 else ""}: '
            + "; ".join(f"{{{r['keyset']}}} ×{fmt(r['stores'])}" for r in mk) + ".",
            k.ev("meta0_keysets", f"{len(mk)} key sets"), value={r["keyset"]: r["stores"] for r in mk})
    mj = k.rows("meta_json_keys")
    k.state("meta_json_keys", "census",
            f"meta.json has {len(mj)} key set{'s' if len(mj) != 1 else ''}: "
            + "; ".join(f"{{{r['keyset']}}} ×{fmt(r['files'])}" for r in mj) + ".",
            k.ev("meta_json_keys", f"{len(mj)} key sets"), value={r["keyset"]: r["files"] for r in mj})
    sv = k.rows("schema_versions")
    k.state("schema_versions", "value_map",
            "meta.json schemaVersion: " + (", ".join(f"{r['schema_version']} in {fmt(r['files'])} files" for r in sv) or "never present") + ".",
            k.ev("schema_versions", f"{len(sv)} values"), value={r["schema_version"]: r["files"] for r in sv})
    ph = k.one("prompt_history")
    k.state("prompt_history", "census",
            f"prompt_history.json is a top-level array in {fmt(ph.get('array_files'))} of {fmt(ph.get('files'))} files "
            f"({fmt(ph.get('empty_arrays'))} empty), {fmt(ph.get('entries'))} entries in all "
            f"({fmt(ph.get('string_entries'))} strings, at most {fmt(ph.get('max_entries_in_file'))} in one file): counted, never read out.",
            k.ev("prompt_history", f"{ph.get('entries')} entries in {ph.get('files')} files"),
            value={x: as_int(ph.get(x)) for x in ("files", "array_files", "empty_arrays", "entries", "string_entries")})

    dm = k.rows("data_keyed_maps")
    k.state("data_keyed_maps", "census",
            f"{fmt(sum(as_int(r['maps']) for r in dm))} data-keyed maps were counted, never described"
            + (": " + "; ".join(f"{r['path']} ×{fmt(r['maps'])}" for r in dm) if dm else "") + ".",
            k.ev("data_keyed_maps", f"{len(dm)} paths"), value={r["path"]: r["maps"] for r in dm})

    # -- not observed ---------------------------------------------------------------------
    for cid, what in (("no_usage", "Token usage"), ("no_stop_reason", "A stop / finish reason"),
                      ("no_version_meta", "A client version in meta.json"),
                      ("is_error_text", "The text \"isError\" in raw store pages"),
                      ("tool_call_id_text", "The text \"toolCallId\" in raw store pages")):
        k.absence(cid, cid, what)

    pv = k.probe("no_version_meta")
    hits = pv["duckdb"]["files_matched"]
    k.state("strata_basis", "census",
            ("No client version was observed in meta.json (see Not observed), so samples and drift are stratified "
             "by file mtime:" if not hits else
             f"A version occurs in {fmt(hits)} meta.json files, but samples are stratified by file mtime only:"),
            k.ev_probe("no_version_meta"), value=not hits)
