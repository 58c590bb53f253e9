"""The Cursor CLI chat-store page's sentences, each held to figures read back from the corpus.

Five corpora: the seeded chat-store generator's tree (every failure kind, a -wal with rows
only it holds, protobuf and broken rows, ids that are not sha256) with a client version in one
meta.json and one file of no surface; a tree of readable stores built here with ``sqlite3``
(tables outside the known two in three stores, one store without a meta table, a -wal that
deletes a row, a -shm and a rollback journal, a binary row that is not protobuf, two roles whose
rows carry createdAt on some only and two on none, string content alone, no content part); one store of tool
calls (a result without a toolCallId, isError on every result, an unreviewed tool name, rows
out of createdAt order, one table outside the known two); a tree where no store opens (two of
zero bytes, one not a database with a -wal beside it); and one store of unknown tables only.
Each expected figure is counted here from the files with ``sqlite3``, ``json`` and
``collections.Counter``, never taken from the census, and every sentence is compared whole.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import struct
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from survey.evidence.claims import fmt, pct
from survey.synth.cursor_chats import _normalize_wal

from .claims_util import surveyed_claims

SENTENCES = ("basis_files", "store_outcomes", "wal_rows", "blob_kinds", "blob_ids", "row_order",
             "created_at_roles", "roles", "content_types", "part_types", "tool_call_ids", "is_error",
             "call_result_joins", "tool_names", "models", "meta0_encoding", "meta0_keysets", "meta_json_keys",
             "schema_versions", "prompt_history", "data_keyed_maps", "strata_basis")
ABSENT = (("no_usage", "Token usage"), ("no_stop_reason", "A stop / finish reason"),
          ("no_version_meta", "A client version in meta.json"),
          ("is_error_text", 'The text "isError" in raw store pages'),
          ("tool_call_id_text", 'The text "toolCallId" in raw store pages'))
KNOWN_TABLES = ("blobs", "meta")
ROLES = ("system", "user", "assistant", "tool")
SIDECARS = ("-wal", "-shm", "-journal")
MAP_PATHS = {"tool-call": ("$.content[type=tool-call].args.env", ("args", "env")),
             "tool-result": ("$.content[type=tool-result].result", ("result",))}


def _vocab() -> dict[str, Any]:
    import survey.runtimes.cursor_chats as pkg

    return json.loads((Path(pkg.__file__).parent / "vocab.json").read_text())


REVIEWED_TOOLS = set(_vocab()["values"]["$.content[type=tool-call].toolName"])


# --------------------------------------------------------------------------- reading the files


def _surface(rel: str) -> str:
    parts = rel.split("/")
    if len(parts) == 3:
        name = parts[2]
        if name == "store.db":
            return "store"
        if name in {"store.db" + s for s in SIDECARS}:
            return "store_sidecar"
        if name == "meta.json":
            return "meta_json"
        if name == "prompt_history.json":
            return "prompt_history"
    return "other"


def _is_protobuf(data: bytes) -> bool:
    """Top-level protobuf fields end to end (tag varint; wire types 0, 1, 2, 5)."""
    i, n = 0, len(data)

    def varint(j: int) -> tuple[int, int] | None:
        v = s = 0
        while j < n and s < 64:
            v |= (data[j] & 0x7F) << s
            j += 1
            if not data[j - 1] & 0x80:
                return v, j
            s += 7
        return None

    if not n:
        return False
    while i < n:
        t = varint(i)
        if t is None or t[0] >> 3 == 0:
            return False
        wire, i = t[0] & 7, t[1]
        if wire == 0:
            t = varint(i)
            if t is None:
                return False
            i = t[1]
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
        elif wire == 2:
            t = varint(i)
            if t is None:
                return False
            i = t[1] + t[0]
        else:
            return False
        if i > n:
            return False
    return True


def _open(db: Path, wal: bool) -> tuple[sqlite3.Connection, Path]:
    """The store (with its -wal and -shm when ``wal``) copied into a temp folder and opened there."""
    tmp = Path(tempfile.mkdtemp())
    shutil.copyfile(db, tmp / "store.db")
    if wal:
        for s in ("-wal", "-shm"):
            if db.with_name(db.name + s).exists():
                shutil.copyfile(db.with_name(db.name + s), tmp / ("store.db" + s))
    return sqlite3.connect(tmp / "store.db"), tmp


def _store(db: Path) -> dict[str, Any]:
    """One store as sqlite3 reads it: its outcome, and for a readable one its tables and rows."""
    data = db.read_bytes()
    if not data:
        return {"outcome": "zero_byte"}
    if not data.startswith(b"SQLite format 3\x00"):
        return {"outcome": "not_a_database"}
    has_wal = db.with_name(db.name + "-wal").exists()
    con, tmp = _open(db, True)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        known = [t for t in names if t in KNOWN_TABLES]
        rows = {t: {r[0]: r[1:] for r in con.execute(f'SELECT rowid, * FROM "{t}" ORDER BY rowid')} for t in known}
    except sqlite3.DatabaseError:
        page, count = struct.unpack(">H", data[16:18])[0], struct.unpack(">I", data[28:32])[0]
        return {"outcome": "truncated" if len(data) < page * count else "corrupt"}
    finally:
        con.close()
        shutil.rmtree(tmp)
    wal_only = deleted = 0
    if has_wal:
        bare, tmp = _open(db, False)
        try:
            for t in known:
                old = {r[0] for r in bare.execute(f'SELECT rowid FROM "{t}"')}
                wal_only += len(set(rows[t]) - old)
                deleted += len(old - set(rows[t]))
        finally:
            bare.close()
            shutil.rmtree(tmp)
    return {"outcome": "ok", "wal": has_wal, "tables": sorted(known),
            "other_tables": sum(1 for t in names if t not in KNOWN_TABLES and not t.startswith("sqlite_")),
            "rows": rows, "rows_seen": sum(len(v) for v in rows.values()), "wal_only": wal_only, "deleted": deleted}


def _jtype(v: Any) -> str:
    return {str: "string", list: "array", dict: "object", bool: "boolean", int: "number", float: "number"}.get(
        type(v), "null")


def read(root: Path) -> dict[str, Any]:
    """Every figure the page states, counted from the files with sqlite3 and json."""
    files = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}
    surfaces = Counter(_surface(rel) for rel in files)
    stores = {rel: _store(p) for rel, p in files.items() if _surface(rel) == "store"}
    walked = [rel for rel, s in stores.items() if s["outcome"] != "zero_byte"]
    ok = {rel: s for rel, s in stores.items() if s["outcome"] == "ok"}
    outcomes = Counter("ok+wal" if s["outcome"] == "ok" and s["wal"] else s["outcome"] for s in stores.values())
    beside = {s: sum(1 for rel in walked if (files[rel].parent / ("store.db" + s)).exists()) for s in SIDECARS}

    blobs: Counter[str] = Counter()  # json, non_json, protobuf, corrupt
    sha = [0, 0]
    sha_stores = 0
    out_of_order = [0, 0]  # rows, stores
    created: dict[str, list[int]] = {}
    roles: Counter[str] = Counter()
    content: Counter[tuple[str, str]] = Counter()
    parts: Counter[str] = Counter()
    calls = calls_no_id = results = results_no_id = with_ie = 0
    ie: Counter[bool] = Counter()
    names: Counter[str] = Counter()
    models: Counter[str] = Counter()
    no_provider = 0
    last: Counter[str] = Counter()
    encodings: Counter[str] = Counter()
    meta0_keys: Counter[str] = Counter()
    maps: Counter[str] = Counter()
    joins = {"calls_with_id": 0, "results_with_id": 0, "results_joined": 0, "results_without_call": 0,
             "calls_without_result": 0}
    for s in ok.values():
        enc = "absent"
        for key, value in (v for _, v in sorted(s["rows"].get("meta", {}).items())):
            if key != "0":
                continue
            text = value if isinstance(value, str) else value.decode()
            try:
                obj, enc = json.loads(bytes.fromhex(text)), "hex"
            except ValueError:
                obj, enc = json.loads(text), "json"
            meta0_keys[",".join(sorted(obj))] += 1
            if "lastUsedModel" in obj:
                last[obj["lastUsedModel"]] += 1
        encodings[enc] += 1
        bad_ids = 0
        latest = None
        store_late = 0
        call_ids: set[str] = set()
        result_ids: list[str] = []
        for _, (bid, raw) in sorted(s["rows"].get("blobs", {}).items()):
            raw = raw.encode() if isinstance(raw, str) else bytes(raw)
            good = bid == hashlib.sha256(raw).hexdigest()
            sha[0 if good else 1] += 1
            bad_ids += not good
            try:
                o = json.loads(raw)
            except ValueError:
                o = None
                kind = "corrupt" if raw.lstrip()[:1] in (b"{", b"[") else "non_json"
                blobs["non_json"] += 1
                blobs["corrupt"] += kind == "corrupt"
                blobs["protobuf"] += kind == "non_json" and _is_protobuf(raw)
                continue
            assert isinstance(o, dict)
            blobs["json"] += 1
            ts = o.get("createdAt")
            if isinstance(ts, int):
                if latest is not None and ts < latest:
                    store_late += 1
                latest = ts if latest is None else max(latest, ts)
            role = o["role"] if o.get("role") in ROLES else ("<unknown-role>" if isinstance(o.get("role"), str)
                                                               else "<no-role>")
            roles[role] += 1
            created.setdefault(role, [0, 0])[0 if "createdAt" in o else 1] += 1
            if "content" in o:
                content[(role, _jtype(o["content"]))] += 1
            if role == "assistant":
                if "providerOptions" in o:
                    models[o["providerOptions"]["cursor"]["modelName"]] += 1
                else:
                    no_provider += 1
            for part in o["content"] if isinstance(o.get("content"), list) else []:
                parts[part["type"]] += 1
                if part["type"] == "tool-call":
                    calls += 1
                    names[part["toolName"] if part["toolName"] in REVIEWED_TOOLS else "<withheld>"] += 1
                    if "toolCallId" in part:
                        call_ids.add(part["toolCallId"])
                        joins["calls_with_id"] += 1
                    else:
                        calls_no_id += 1
                elif part["type"] == "tool-result":
                    results += 1
                    if "toolCallId" in part:
                        result_ids.append(part["toolCallId"])
                    else:
                        results_no_id += 1
                    if "isError" in part:
                        with_ie += 1
                        ie[part["isError"]] += 1
                if part["type"] in MAP_PATHS:
                    path, keys = MAP_PATHS[part["type"]]
                    v: Any = part
                    for k in keys:
                        v = v.get(k) if isinstance(v, dict) else None
                    if isinstance(v, dict) and v:
                        maps[path] += 1
        sha_stores += bad_ids > 0
        out_of_order[0] += store_late
        out_of_order[1] += store_late > 0
        joins["results_with_id"] += len(result_ids)
        joins["results_joined"] += sum(1 for r in result_ids if r in call_ids)
        joins["results_without_call"] += sum(1 for r in result_ids if r not in call_ids)
        joins["calls_without_result"] += len(call_ids - set(result_ids))

    meta_json: Counter[str] = Counter()
    versions: Counter[str] = Counter()
    history = {"files": 0, "array_files": 0, "empty_arrays": 0, "entries": 0, "string_entries": 0, "max": 0}
    for rel, p in files.items():
        if _surface(rel) == "meta_json":
            o = json.loads(p.read_bytes())
            meta_json[",".join(sorted(o))] += 1
            if "schemaVersion" in o:
                versions[str(o["schemaVersion"])] += 1
        elif _surface(rel) == "prompt_history":
            o = json.loads(p.read_bytes())
            history["files"] += 1
            if isinstance(o, list):
                history["array_files"] += 1
                history["empty_arrays"] += not o
                history["entries"] += len(o)
                history["string_entries"] += sum(1 for e in o if isinstance(e, str))
                history["max"] = max(history["max"], len(o))
    version_files = sum(1 for rel, p in files.items()
                        if rel.endswith(".json") and (b'"version"' in p.read_bytes() or b'"cliVersion"' in p.read_bytes()))
    return {
        "files": len(files), "surfaces": surfaces, "outcomes": outcomes,
        "tables": sorted({t for s in ok.values() for t in s["tables"]}),
        "other_tables": sum(s["other_tables"] for s in ok.values()),
        "stores_with_other_tables": sum(1 for s in ok.values() if s["other_tables"]),
        "walked": len(walked), "beside": beside,
        "rows_seen": sum(s["rows_seen"] for s in ok.values()), "wal_only": sum(s["wal_only"] for s in ok.values()),
        "deleted": sum(s["deleted"] for s in ok.values()),
        "blobs": blobs, "sha": sha, "sha_stores": sha_stores, "out_of_order": out_of_order, "read": len(ok),
        "created": created, "roles": roles, "content": content, "parts": parts,
        "calls": calls, "calls_no_id": calls_no_id, "results": results, "results_no_id": results_no_id,
        "with_ie": with_ie, "ie": ie, "joins": joins, "names": names, "models": models, "no_provider": no_provider,
        "last": last, "encodings": encodings, "meta0_keys": meta0_keys, "meta_json": meta_json,
        "versions": versions, "history": history, "maps": maps, "version_files": version_files,
    }


def _by_count(c: Counter[str]) -> list[tuple[str, int]]:
    return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))


def expected_text(t: dict[str, Any]) -> dict[str, str]:
    """The sentence each claim must print, built from the figures ``read`` counted."""
    sf, oc = t["surfaces"], t["outcomes"]
    n_ok = oc["ok"] + oc["ok+wal"]
    bad = sorted((o, n) for o, n in oc.items() if o not in ("ok", "ok+wal"))
    ot, os_ = t["other_tables"], t["stores_with_other_tables"]
    b = t["blobs"]
    every = b["json"] + b["non_json"]
    sha_t, sha_f = t["sha"]
    late, late_stores = t["out_of_order"]
    cr = t["created"]
    always = [r for r in sorted(cr) if not cr[r][1]]
    never = [r for r in sorted(cr) if not cr[r][0]]
    some = [r for r in sorted(cr) if cr[r][0] and cr[r][1]]
    content = sorted(t["content"].items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))
    j = t["joins"]
    names = _by_count(t["names"])
    h = t["history"]
    encodings = _by_count(t["encodings"])
    return {
        "basis_files": f"The corpus holds {fmt(t['files'])} files: {fmt(sf['store'])} store.db, "
                       f"{fmt(sf['store_sidecar'])} store sidecars (-wal/-shm/-journal), {fmt(sf['meta_json'])} meta.json, "
                       f"{fmt(sf['prompt_history'])} prompt_history.json and {fmt(sf['other'])} other files.",
        "store_outcomes": f"{fmt(n_ok)} of {fmt(sum(oc.values()))} store.db files open and read "
                          f"({fmt(oc['ok+wal'])} of them through a -wal); "
                          + ("failures, each counted, none skipped: " + ", ".join(f"{o} {fmt(n)}" for o, n in bad)
                             if bad else "none failed")
                          + f". Tables present: {', '.join(t['tables']) or 'none of the known ones'}"
                          + (f" (+{fmt(ot)} other table{'' if ot == 1 else 's'} in {fmt(os_)} "
                             f"store{'' if os_ == 1 else 's'}, not named)" if ot else "") + ".",
        "wal_rows": f"{fmt(t['beside']['-wal'])} of {fmt(t['walked'])} walked stores had a -wal beside them "
                    f"({fmt(t['beside']['-shm'])} a -shm, {fmt(t['beside']['-journal'])} a rollback journal); "
                    f"{fmt(t['wal_only'])} of {fmt(t['rows_seen'])} rows exist only through the WAL "
                    f"(and {fmt(t['deleted'])} rows of the bare file are gone once it applies)"
                    + (": a reader that ignores the WAL, or opens the store immutable, misses them."
                       if t["wal_only"] + t["deleted"] else "."),
        "blob_kinds": f"Blobs: {fmt(b['json'])} JSON objects and {fmt(b['non_json'])} non-JSON rows "
                      f"({pct(b['non_json'], every)} of {fmt(every)}): {fmt(b['protobuf'])} parse as protobuf fields, "
                      f"{fmt(b['corrupt'])} look like JSON but do not parse, "
                      f"{fmt(b['non_json'] - b['protobuf'] - b['corrupt'])} other.",
        "blob_ids": f"A blob's id is sha256(data) in {fmt(sha_t)} of {fmt(sha_t + sha_f)} rows ({pct(sha_t, sha_t + sha_f)})"
                    + (f"; {fmt(sha_f)} rows in {fmt(t['sha_stores'])} stores break content addressing." if sha_f else "."),
        "row_order": f"createdAt falls below an earlier row's in {fmt(late)} rows of {fmt(late_stores)} of "
                     f"{fmt(t['read'])} stores read" + (": createdAt does not follow rowid order." if late else "."),
        "created_at_roles": "createdAt is on every blob of " + (", ".join(always) or "no role")
                            + "; on none of " + (", ".join(never) or "no role")
                            + (f"; on some blobs of {', '.join(some)}" if some else "") + ".",
        "roles": "JSON blobs by role: " + (", ".join(f"{r} {fmt(n)}" for r, n in _by_count(t["roles"])) or "none")
                 + ". Roles outside system/user/assistant/tool are <unknown-role>; JSON without a role is <no-role>.",
        "content_types": "content is " + ("; ".join(f"{jt} in {fmt(n)} {r} blobs" for (r, jt), n in content)
                                          or "never present")
                         + (": a parser must accept a string or an array of parts."
                            if {"string", "array"} <= {jt for (_, jt) in t["content"]} else "."),
        "part_types": f"Content arrays hold {len(t['parts'])} part types: "
                      + ", ".join(f"{p} {fmt(n)}" for p, n in _by_count(t["parts"])) + ".",
        "tool_call_ids": f"{fmt(t['calls'] - t['calls_no_id'])} of {fmt(t['calls'])} tool-call parts carry a toolCallId "
                         f"({fmt(t['calls_no_id'])} do not); {fmt(t['results'] - t['results_no_id'])} of "
                         f"{fmt(t['results'])} tool-result parts do.",
        "is_error": f"isError is present on {fmt(t['with_ie'])} of {fmt(t['results'])} tool results "
                    f"({pct(t['with_ie'], t['results'])}): true {fmt(t['ie'][True]) if t['results'] else 'n/a'}, "
                    f"false {fmt(t['ie'][False]) if t['results'] else 'n/a'}"
                    + ("; where it is absent, a result's failure is not recorded." if t["with_ie"] < t["results"] else "."),
        "call_result_joins": f"{fmt(j['results_joined'])} of {fmt(j['results_with_id'])} results name a tool-call of the "
                             f"same store by toolCallId; {fmt(j['results_without_call'])} name no call there (the call "
                             f"had no id, or is absent), and {fmt(j['calls_without_result'])} call(s) with an id get no result.",
        "tool_names": f"{sum(1 for n, _ in names if n != '<withheld>')} reviewed tool names over {fmt(t['calls'])} calls"
                      + (": " + ", ".join(f"{n} {fmt(c)}" for n, c in names) if names else "") + ".",
        "models": "Model per assistant message (providerOptions.cursor.modelName): "
                  + (", ".join(f"{m} {fmt(n)}" for m, n in _by_count(t["models"])) or "none")
                  + f"; {fmt(t['no_provider'])} assistant blobs carry no providerOptions. meta \"0\" lastUsedModel: "
                  + (", ".join(f"{m} in {fmt(n)} stores" for m, n in _by_count(t["last"])) or "none") + ".",
        "meta0_encoding": 'meta key "0" is ' + (", ".join(f"{e} in {fmt(n)} stores" for e, n in encodings) or "never read")
                          + (": a reader must accept both hex-of-JSON and plain JSON."
                             if {"hex", "json"} <= set(t["encodings"]) else "."),
        "meta0_keysets": f'The decoded meta "0" agent record has {len(t["meta0_keys"])} '
                         f'key set{"" if len(t["meta0_keys"]) == 1 else "s"}: '
                         + "; ".join(f"{{{k}}} ×{fmt(n)}" for k, n in _by_count(t["meta0_keys"])) + ".",
        "meta_json_keys": f"meta.json has {len(t['meta_json'])} key set{'' if len(t['meta_json']) == 1 else 's'}: "
                          + "; ".join(f"{{{k}}} ×{fmt(n)}" for k, n in _by_count(t["meta_json"])) + ".",
        "schema_versions": "meta.json schemaVersion: "
                           + (", ".join(f"{v} in {fmt(n)} files" for v, n in _by_count(t["versions"])) or "never present")
                           + ".",
        "prompt_history": f"prompt_history.json is a top-level array in {fmt(h['array_files'])} of {fmt(h['files'])} files "
                          f"({fmt(h['empty_arrays'])} empty), {fmt(h['entries'])} entries in all "
                          f"({fmt(h['string_entries'])} strings, at most {fmt(h['max'])} in one file): counted, never read out.",
        "data_keyed_maps": f"{fmt(sum(t['maps'].values()))} data-keyed maps were counted, never described"
                           + (": " + "; ".join(f"{p} ×{fmt(n)}" for p, n in _by_count(t["maps"])) if t["maps"] else "")
                           + ".",
        "strata_basis": ("No client version was observed in meta.json (see Not observed), so samples and drift are "
                         "stratified by file mtime:" if not t["version_files"] else
                         f"A version occurs in {fmt(t['version_files'])} meta.json files, but samples are stratified "
                         "by file mtime only:"),
    }


def expected_result(t: dict[str, Any]) -> dict[str, str]:
    """Each claim's evidence result, from the same counts."""
    oc, b, j = t["outcomes"], t["blobs"], t["joins"]
    cr = t["created"]
    sha_t, sha_f = t["sha"]
    return {
        "basis_files": f"{fmt(t['files'])} files",
        "store_outcomes": "; ".join(f"{o} {n}" for o, n in sorted(oc.items()))
                          + f"; tables [{','.join(t['tables'])}] +{t['other_tables']}",
        "wal_rows": f"wal {t['beside']['-wal']}, wal-only rows {t['wal_only']}/{t['rows_seen']}",
        "blob_kinds": f"json {b['json']}; non-json {b['non_json']} (protobuf {b['protobuf']}, broken JSON {b['corrupt']})",
        "blob_ids": f"{sha_t}/{sha_t + sha_f}",
        "row_order": f"{t['out_of_order'][0]} rows",
        "created_at_roles": f"always {sum(1 for v in cr.values() if not v[1])}, "
                            f"never {sum(1 for v in cr.values() if not v[0])}, "
                            f"some {sum(1 for v in cr.values() if v[0] and v[1])} roles",
        "roles": f"{len(t['roles'])} classes",
        "content_types": "; ".join(f"{r} {jt} {n}" for (r, jt), n in
                                   sorted(t["content"].items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))),
        "part_types": f"{sum(t['parts'].values())} parts",
        "tool_call_ids": f"calls {t['calls'] - t['calls_no_id']}/{t['calls']}; results {t['results']}",
        "is_error": f"isError {t['with_ie']}/{t['results']}",
        "call_result_joins": f"joined {j['results_joined']}/{j['results_with_id']}",
        "tool_names": f"{len(t['names'])} names",
        "models": f"{len(t['models'])} per-message values, {len(t['last'])} lastUsedModel values",
        "meta0_encoding": "; ".join(f"{e} {n}" for e, n in _by_count(t["encodings"])),
        "meta0_keysets": f"{len(t['meta0_keys'])} key sets",
        "meta_json_keys": f"{len(t['meta_json'])} key sets",
        "schema_versions": f"{len(t['versions'])} values",
        "prompt_history": f"{t['history']['entries']} entries in {t['history']['files']} files",
        "data_keyed_maps": f"{len(t['maps'])} paths",
    }


def expected_value(t: dict[str, Any]) -> dict[str, Any]:
    oc, b, h = t["outcomes"], t["blobs"], t["history"]
    sf = t["surfaces"]
    return {
        "basis_files": {"total": t["files"], **{s: sf[s] for s in
                                                ("store", "store_sidecar", "meta_json", "prompt_history", "other")}},
        "store_outcomes": {**oc, "tables": t["tables"], "other_tables": t["other_tables"],
                           "stores_with_other_tables": t["stores_with_other_tables"]},
        "wal_rows": {"with_wal": t["beside"]["-wal"], "rows_wal_only": t["wal_only"], "rows_seen": t["rows_seen"],
                     "rows_wal_deleted": t["deleted"]},
        "blob_kinds": {"json": b["json"], "non_json": b["non_json"], "protobuf": b["protobuf"], "corrupt": b["corrupt"]},
        "blob_ids": {"true": t["sha"][0], "false": t["sha"][1]},
        "row_order": t["out_of_order"][0],
        "created_at_roles": {r: {"present": p, "absent": a} for r, (p, a) in t["created"].items()},
        "roles": dict(t["roles"]),
        "content_types": {f"{r}:{jt}": n for (r, jt), n in t["content"].items()},
        "part_types": dict(t["parts"]),
        "tool_call_ids": {"calls": t["calls"], "calls_without_id": t["calls_no_id"], "results": t["results"]},
        "is_error": {"present": t["with_ie"], "true": t["ie"][True], "false": t["ie"][False]},
        "call_result_joins": t["joins"],
        "tool_names": dict(t["names"]),
        "models": {**t["models"], **{f"lastUsedModel:{m}": n for m, n in t["last"].items()}},
        "meta0_encoding": dict(t["encodings"]),
        "meta0_keysets": dict(t["meta0_keys"]),
        "meta_json_keys": dict(t["meta_json"]),
        "schema_versions": dict(t["versions"]),
        "prompt_history": {k: h[k] for k in ("files", "array_files", "empty_arrays", "entries", "string_entries")},
        "data_keyed_maps": dict(t["maps"]),
        "strata_basis": not t["version_files"],
    }


KINDS = {"basis_files": "census", "store_outcomes": "census", "wal_rows": "census", "blob_kinds": "census",
         "blob_ids": "rate", "row_order": "census", "created_at_roles": "census", "roles": "value_map",
         "content_types": "census", "part_types": "value_map", "tool_call_ids": "rate", "is_error": "rate",
         "call_result_joins": "rate", "tool_names": "value_map", "models": "value_map", "meta0_encoding": "census",
         "meta0_keysets": "census", "meta_json_keys": "census", "schema_versions": "value_map",
         "prompt_history": "census", "data_keyed_maps": "census", "strata_basis": "census"}
HEADLINES = {"store_outcomes", "wal_rows", "blob_kinds", "tool_call_ids"}
QUERIES = {"basis_files": "files_by_surface", "store_outcomes": "store_outcomes", "wal_rows": "wal_rows",
           "blob_kinds": "blob_classes", "blob_ids": "blob_ids", "row_order": "row_order",
           "created_at_roles": "message_keysets", "roles": "roles", "content_types": "content_types",
           "part_types": "part_keysets", "tool_call_ids": "tool_call_ids", "is_error": "tool_call_ids",
           "call_result_joins": "call_result_joins", "tool_names": "tool_names", "models": "models",
           "meta0_encoding": "meta0_encoding", "meta0_keysets": "meta0_keysets", "meta_json_keys": "meta_json_keys",
           "schema_versions": "schema_versions", "prompt_history": "prompt_history",
           "data_keyed_maps": "data_keyed_maps"}


# --------------------------------------------------------------------------- building corpora


def _j(o: Any) -> bytes:
    return json.dumps(o, separators=(",", ":")).encode()


def _db(path: Path, blobs: list[bytes], meta: str | None, *, extra: int = 0, with_meta: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.execute("PRAGMA synchronous=OFF")  # no fsync: the bytes are the same
    con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    if with_meta:
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        if meta is not None:
            con.execute("INSERT INTO meta VALUES ('0', ?)", (meta,))
    for i in range(extra):
        con.execute(f"CREATE TABLE extra_{i} (x)")
    con.executemany("INSERT INTO blobs VALUES (?, ?)", [(hashlib.sha256(b).hexdigest(), b) for b in blobs])
    con.commit()
    con.close()


def _wal_db(path: Path, blobs: list[bytes], meta: str, *, extra: int) -> None:
    """A store whose -wal deletes its first blob (the -wal and -shm kept as a live writer leaves them)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA synchronous=OFF")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    for i in range(extra):
        con.execute(f"CREATE TABLE extra_{i} (x)")
    con.execute("INSERT INTO meta VALUES ('0', ?)", (meta,))
    con.executemany("INSERT INTO blobs VALUES (?, ?)", [(hashlib.sha256(b).hexdigest(), b) for b in blobs])
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("DELETE FROM blobs WHERE rowid = 1")
    db, wal = path.read_bytes(), path.with_name(path.name + "-wal").read_bytes()
    con.close()
    path.write_bytes(db)
    # fixed salts (SQLite draws them at random) keep the corpus the same bytes on every build; an
    # empty -shm makes a reader rebuild the WAL index
    path.with_name(path.name + "-wal").write_bytes(_normalize_wal(wal, 1, 2))
    path.with_name(path.name + "-shm").write_bytes(b"")


def _meta0(**extra: Any) -> dict[str, Any]:
    return {"agentId": "a", "name": "n", "createdAt": 1, "mode": "default", **extra}


def _odd(root: Path) -> None:
    bucket = root / hashlib.md5(b"/w/one").hexdigest()
    _db(bucket / "s1" / "store.db", [
        _j({"role": "system", "content": "s"}),
        _j({"role": "user", "content": "q", "createdAt": 10}),
        _j({"role": "user", "content": "r"}),
        _j({"role": "assistant", "content": "a", "createdAt": 20}),
        b"\x07\x07\x07",  # wire type 7: no protobuf field, and no JSON
    ], _j(_meta0()).decode(), extra=1)
    (bucket / "s1" / "store.db-journal").write_bytes(b"")
    _wal_db(bucket / "s2" / "store.db", [_j({"role": "user", "content": "q", "createdAt": 1}),
                                         _j({"role": "user", "content": "q", "createdAt": 2})],
            _j(_meta0(lastUsedModel="gpt-5")).hex(), extra=1)
    _db(bucket / "s3" / "store.db", [_j({"role": "user", "content": "q", "createdAt": 3}),
                                     _j({"role": "system", "content": "s", "createdAt": 4})],
        _j(_meta0()).decode(), extra=1)
    _db(bucket / "s4" / "store.db", [_j({"role": "system", "content": "s"}), _j({"role": "developer", "content": "d"}),
                                     _j({"title": "t"})], None, with_meta=False)
    (bucket / "s1" / "meta.json").write_bytes(_j({"title": "t", "createdAtMs": 1}))
    (bucket / "s3" / "meta.json").write_bytes(_j({"title": "t", "createdAtMs": 2}))
    (bucket / "s1" / "prompt_history.json").write_bytes(_j({"entries": 1}))


def _calls(root: Path) -> None:
    d = root / hashlib.md5(b"/w/two").hexdigest() / "s1"
    _db(d / "store.db", [
        _j({"role": "user", "content": [{"type": "text", "text": "x"}], "createdAt": 2}),
        _j({"role": "assistant", "createdAt": 1, "providerOptions": {"cursor": {"modelName": "gpt-5"}}, "content": [
            {"type": "text", "text": "y"},
            {"type": "tool-call", "toolCallId": "c1", "toolName": "Read", "args": {"path": "p"}},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "Zzlocaltool", "args": {"env": {"K": "v"}}},
            {"type": "tool-call", "toolName": "Shell", "args": {}}]}),
        _j({"role": "tool", "createdAt": 3, "content": [
            {"type": "tool-result", "toolCallId": "c1", "toolName": "Read", "result": {"k": "v"}, "isError": False},
            {"type": "tool-result", "toolName": "Shell", "result": "r", "isError": True}]}),
    ], _j(_meta0(lastUsedModel="gpt-5")).decode(), extra=1)
    (d / "meta.json").write_bytes(_j({"schemaVersion": 2, "createdAtMs": 1, "hasConversation": True}))
    (d / "prompt_history.json").write_bytes(_j(["a", "b", 3]))


def _broken(root: Path) -> None:
    bucket = root / hashlib.md5(b"/w/three").hexdigest()
    (bucket / "s1").mkdir(parents=True)
    (bucket / "s2").mkdir()
    (bucket / "s1" / "store.db").write_bytes(b"")
    (bucket / "s2" / "store.db").write_bytes(bytes(range(256)) * 8)
    (bucket / "s2" / "store.db-wal").write_bytes(b"not a wal")  # beside a store that does not open
    (bucket / "s3").mkdir()
    (bucket / "s3" / "store.db").write_bytes(b"")
    (bucket / "s1" / "meta.json").write_bytes(_j({"schemaVersion": 1, "createdAtMs": 1}))
    (root / "readme.txt").write_bytes(b"no store opens here\n")


def _unknown_tables(root: Path) -> None:
    d = root / hashlib.md5(b"/w/four").hexdigest() / "s1"
    d.mkdir(parents=True)
    con = sqlite3.connect(d / "store.db")
    con.execute("CREATE TABLE extra_0 (x)")
    con.execute("CREATE TABLE extra_1 (x)")
    con.close()


def _survey(factory: pytest.TempPathFactory, name: str, build) -> tuple[dict[str, Any], dict[str, dict]]:
    base = factory.mktemp(name)
    root = base / "corpus"
    root.mkdir()
    build(root)
    return read(root), surveyed_claims("cursor_chats", root, base)


def _generated(root: Path) -> None:
    from survey.synth.cursor_chats import generate

    generate(root, seed=7)
    first = sorted(root.rglob("meta.json"))[0]
    first.write_bytes(_j({**json.loads(first.read_bytes()), "cliVersion": "1.2.3"}))
    (root / "notes.txt").write_bytes(b"no surface\n")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    return _survey(tmp_path_factory, "chats", _generated)


@pytest.fixture(scope="module")
def odd(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    return _survey(tmp_path_factory, "chats-odd", _odd)


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    return _survey(tmp_path_factory, "chats-calls", _calls)


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    return _survey(tmp_path_factory, "chats-broken", _broken)


@pytest.fixture(scope="module")
def unknown_tables(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    return _survey(tmp_path_factory, "chats-unknown", _unknown_tables)


@pytest.fixture
def corpora(generated, odd, calls, broken, unknown_tables) -> list[tuple[dict[str, Any], dict[str, dict]]]:
    return [generated, odd, calls, broken, unknown_tables]


# --------------------------------------------------------------------------- tests


def test_the_planted_corpora_show_every_case(generated, odd, calls, broken, unknown_tables) -> None:
    """The figures the sentences turn on cross zero, and each verdict goes both ways, somewhere."""
    g, o, c, b, u = generated[0], odd[0], calls[0], broken[0], unknown_tables[0]
    assert {"zero_byte", "not_a_database", "truncated", "ok", "ok+wal"} <= set(g["outcomes"])
    assert g["wal_only"] and not g["deleted"] and g["sha"][1] and g["out_of_order"][0] and g["version_files"]
    assert g["blobs"]["protobuf"] and g["blobs"]["corrupt"] and g["maps"] and g["surfaces"]["other"]
    assert {"hex", "json"} <= set(g["encodings"]) and len(g["meta0_keys"]) > 1 and g["with_ie"] < g["results"]
    assert (o["other_tables"], o["stores_with_other_tables"]) == (3, 3) and o["deleted"] and not o["wal_only"]
    assert o["beside"] == {"-wal": 1, "-shm": 1, "-journal": 1} and o["tables"] == ["blobs", "meta"]
    assert o["blobs"]["non_json"] > o["blobs"]["protobuf"] + o["blobs"]["corrupt"] and not o["sha"][1]
    assert all(o["created"][r][0] and o["created"][r][1] for r in ("system", "user"))
    assert not o["parts"] and not o["out_of_order"][0]
    assert [r for r, (p, _) in o["created"].items() if not p] == ["<unknown-role>", "<no-role>"]
    assert set(o["encodings"]) == {"json", "hex", "absent"} and len(o["meta_json"]) == 1 and not o["versions"]
    assert (c["other_tables"], c["stores_with_other_tables"]) == (1, 1) and c["results_no_id"]
    assert c["with_ie"] == c["results"] and "<withheld>" in c["names"] and len(c["maps"]) == 2
    assert c["parts"]["text"] == c["parts"]["tool-result"] and set(c["encodings"]) == {"json"}
    assert not b["read"] and not b["roles"] and b["walked"] == 1 and not b["history"]["files"]
    assert b["outcomes"] == {"zero_byte": 2, "not_a_database": 1} and b["beside"]["-wal"] == 1
    assert u["read"] == 1 and not u["tables"] and u["other_tables"] == 2 and u["encodings"] == {"absent": 1}


@pytest.mark.parametrize("cid", SENTENCES)
def test_each_sentence_states_the_counted_figures(cid: str, corpora) -> None:
    for t, claims in corpora:
        assert claims[cid]["value"] == expected_value(t)[cid], cid
        assert claims[cid]["text"] == expected_text(t)[cid], cid
        assert claims[cid]["kind"] == KINDS[cid]
        assert claims[cid]["headline"] == (cid in HEADLINES)
        if cid in QUERIES:
            assert [e["result"] for e in claims[cid]["evidence"]] == [expected_result(t)[cid]], cid


def test_each_claim_cites_its_query_and_scope(corpora) -> None:
    for t, claims in corpora:
        for cid, query in QUERIES.items():
            assert f"{query}.sql" in json.dumps(claims[cid]["evidence"]), cid
        assert claims["basis_files"]["evidence"][0]["scope"] == f"{fmt(t['files'])} files (whole corpus)"
        n = sum(t["outcomes"].values())
        assert claims["store_outcomes"]["evidence"][0]["scope"] == f"{fmt(n)} store.db files (every store)"
        assert "no_version_meta" in json.dumps(claims["strata_basis"]["evidence"])


def test_absences_name_what_was_looked_for(corpora) -> None:
    for _, claims in corpora:
        for cid, what in ABSENT:
            assert claims[cid]["kind"] == "absence"
            assert claims[cid]["text"].startswith(f"{what}: "), cid
            assert cid in json.dumps(claims[cid]["evidence"]) or what in claims[cid]["text"]


def test_layout_counts_each_surface(corpora) -> None:
    for t, claims in corpora:
        files = {r["surface"]: r["files"] for r in claims["layout"]["value"]}
        assert files == {s: t["surfaces"][s] for s in ("store", "store_sidecar", "meta_json", "prompt_history")}
