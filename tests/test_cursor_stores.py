"""Cursor's other stores: the CLI chat store, the desktop state.vscdb and stream-json captures.

Round trips: each generated corpus is surveyed end to end (``run_survey``) and every census
figure the page rests on must equal the generator's planted truth exactly. The real samples in
``../shared/corpora`` are surveyed too: their headline figures must equal a plain recount
written here (``sqlite3`` on a temp copy, ``json``; no survey code), and the corpus must stay
byte-identical with no ``-wal``/``-shm``/``-journal`` left beside any store. Privacy: with the
generators' canaries planted, no token (raw or JSON-escaped) and no ``cursorDiskKV`` key id may
appear in any snapshot file (Parquet decoded cell by cell) or page.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import shutil
import signal
import sqlite3
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from survey.corpus import stores
from survey.pipeline import RunResult, run_survey
from survey.runtimes import NAMES, get
from survey.runtimes.base import load_vocab
from survey.snapshot.store import load_json
from survey.synth import cursor_chats, cursor_desktop, cursor_stream
from tests.conftest import CORPORA

REAL_DESKTOP = CORPORA / "cursor-desktop" / "User"
REAL_STREAM = CORPORA / "cursor-stream-json"
HANDMADE_CHATS = CORPORA / "handmade" / "cursor" / "chats"
KNOWN_ROLES = {"system", "user", "assistant", "tool"}
SIDECARS = ("-wal", "-shm", "-journal")


# --------------------------------------------------------------------------- helpers


def rows(snap: Path, name: str) -> list[dict[str, Any]]:
    q = load_json(snap, "census")[name]
    return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]


def one(snap: Path, name: str) -> dict[str, Any]:
    r = rows(snap, name)
    return r[0] if r else {}


def claims(snap: Path) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in load_json(snap, "claims")}


def nonzero(d: dict[str, Any]) -> dict[str, Any]:
    return {str(k): v for k, v in d.items() if v}


def tree(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under ``root``: sha256, size and mtime (ns)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[p.relative_to(root).as_posix()] = (hashlib.sha256(p.read_bytes()).hexdigest(),
                                                   st.st_size, st.st_mtime_ns)
    return out


def no_sidecars(root: Path, suffix: str, allowed: set[str] = frozenset()) -> None:
    for db in root.rglob(f"*{suffix}"):
        for s in SIDECARS:
            side = db.with_name(db.name + s)
            if side.exists():
                assert side.relative_to(root).as_posix() in allowed, side


def survey(name: str, root: Path, base: Path) -> tuple[RunResult, Path]:
    res = run_survey(get(name), root, snapshots=base / "snapshots", reports=base / "reports")
    return res, Path(res.snapshot)


def output_texts(snap: Path, page: Path) -> Iterator[tuple[str, str]]:
    """Every string a survey wrote: JSON files raw, Parquet decoded cell by cell, the page."""
    for p in sorted(snap.rglob("*")):
        if not p.is_file():
            continue
        if p.suffix == ".parquet":
            df = pl.read_parquet(p)
            yield str(p), " ".join(df.columns)
            for col in df.columns:
                for v in df[col].cast(pl.String, strict=False).drop_nulls().to_list():
                    yield str(p), v
        else:
            yield str(p), p.read_bytes().decode("utf-8", "replace")
    yield str(page), page.read_text()


def copy_con(db: Path, scratch: Path, with_wal: bool = True) -> sqlite3.Connection:
    """A plain sqlite3 connection on a fresh copy (the independent recount's own path)."""
    d = Path(tempfile.mkdtemp(dir=scratch))
    shutil.copyfile(db, d / db.name)
    if with_wal and db.with_name(db.name + "-wal").exists():
        shutil.copyfile(db.with_name(db.name + "-wal"), d / (db.name + "-wal"))
    return sqlite3.connect(f"file:{d / db.name}?mode=ro", uri=True)


# --------------------------------------------------------------------------- fixtures


def _run(tmp_path_factory: pytest.TempPathFactory, name: str, gen: Any, **kw: Any) -> dict[str, Any]:
    base = tmp_path_factory.mktemp(name)
    root = base / "root"
    planted = gen(root, **kw)
    before = tree(root)
    res, snap = survey(name, root, base)
    return {"planted": planted, "res": res, "snap": snap, "root": root, "before": before,
            "page": Path(res.page or "")}


@pytest.fixture(scope="module", params=[{}, {"seed": 8, "sessions": 8}], ids=["seed7", "seed8x8"])
def chats(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run(tmp_path_factory, "cursor_chats", cursor_chats.generate, **request.param)


@pytest.fixture(scope="module", params=["modern", "real_like"])
def desktop(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run(tmp_path_factory, "cursor_desktop", cursor_desktop.generate, variant=request.param)


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run(tmp_path_factory, "cursor_stream", cursor_stream.generate)


def test_registered_after_cursor() -> None:
    assert NAMES[0] == "cursor"
    assert {"cursor_chats", "cursor_desktop", "cursor_stream"} <= set(NAMES)
    for n in ("cursor_chats", "cursor_desktop", "cursor_stream"):
        p = get(n)
        assert p.synth == f"survey.synth.{n}" and p.claims is not None and p.template == f"{n}.md.j2"
    assert get("cursor_stream").default_roots == ()
    assert get("cursor_chats").store_reader.endswith("read_chat_store")


# --------------------------------------------------------------------------- chats round trip


def test_chats_store_outcomes_and_wal(chats: dict[str, Any]) -> None:
    p, snap = chats["planted"], chats["snap"]
    got: Counter[str] = Counter()
    for r in rows(snap, "store_outcomes"):
        got["wal" if r["outcome"] == "ok" and r["wal_present"] else r["outcome"]] += r["stores"]
    assert dict(got) == nonzero(p["stores"])
    w = one(snap, "wal_rows")
    assert w["rows_wal_only"] == p["wal_only_rows"] > 0
    assert w["with_wal"] == p["stores"]["wal"] and w["rows_wal_deleted"] == 0
    # the broken stores are counted problems, never silently dropped
    problems = chats["res"].problems
    assert problems["file:not_a_database"] == p["stores"]["not_a_database"]
    assert problems["file:truncated"] == p["stores"]["truncated"]
    assert problems["file:empty"] == p["stores"]["zero_byte"]


def test_chats_blobs_ids_and_order(chats: dict[str, Any]) -> None:
    p, snap = chats["planted"], chats["snap"]
    bc = rows(snap, "blob_classes")
    assert sum(r["blobs"] for r in bc if r["json"]) == p["blobs"]["json"]
    assert sum(r["blobs"] for r in bc if not r["json"]) == p["blobs"]["non_json"]
    assert sum(r["blobs"] for r in bc if r["status"] == "corrupt") == p["corrupt_rows"]
    bi = one(snap, "blob_ids")
    assert (bi["id_is_sha256"], bi["id_not_sha256"]) == (p["id_is_sha256"]["true"], p["id_is_sha256"]["false"])
    assert one(snap, "row_order")["rows_created_out_of_order"] == p["out_of_order_rows"]


def test_chats_roles_keysets_and_content(chats: dict[str, Any]) -> None:
    p, snap = chats["planted"], chats["snap"]
    got = {r["role"]: r["blobs"] for r in rows(snap, "roles")}
    want: Counter[str] = Counter()
    for role, n in p["roles"].items():
        want[role if role in KNOWN_ROLES else "<unknown-role>"] += n
    want["<no-role>"] += p["unknown_kinds"] - sum(n for r, n in p["roles"].items() if r not in KNOWN_ROLES)
    assert got == nonzero(dict(want))
    mk: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows(snap, "message_keysets"):
        if r["role"] in KNOWN_ROLES:
            mk[r["role"]][r["keyset"]] = r["blobs"]
    assert dict(mk) == p["message_keysets"]
    strings = {r["role"]: r["blobs"] for r in rows(snap, "content_types")
               if r["jtype"] == "string" and r["role"] in KNOWN_ROLES}
    assert strings == p["string_content"]


def test_chats_parts_tool_calls_and_joins(chats: dict[str, Any]) -> None:
    p, snap = chats["planted"], chats["snap"]
    types: Counter[str] = Counter()
    keysets: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows(snap, "part_keysets"):
        if r["role"] in KNOWN_ROLES:
            types[r["part_type"]] += r["parts"]
            keysets[r["part_type"]][r["keyset"]] += r["parts"]
    assert dict(types) == p["content_part_types"]
    assert {k: dict(v) for k, v in keysets.items()} == p["part_keysets"]
    tc = one(snap, "tool_call_ids")
    assert tc["calls"] == p["tool_calls"] and tc["calls_without_id"] == p["tool_calls_without_id"]
    assert tc["results"] == p["tool_results"] and tc["results_without_id"] == 0
    assert tc["results_with_is_error"] == p["is_error_present"] and tc["is_error_true"] == p["is_error_true"]
    j = one(snap, "call_result_joins")
    assert j["results_joined"] == p["joined_results"]
    assert j["results_with_id"] == p["tool_results"]
    assert j["calls_with_id"] == p["tool_calls"] - p["tool_calls_without_id"]
    assert {r["name"]: r["calls"] for r in rows(snap, "tool_names")} == p["tool_names"]


def test_chats_models_meta_and_side_files(chats: dict[str, Any]) -> None:
    p, snap = chats["planted"], chats["snap"]
    md = rows(snap, "models")
    per = {r["value"]: r["occurrences"] for r in md
           if r["path"] == "$.providerOptions.cursor.modelName" and r["value"] != "<absent>"}
    assert per == p["models"]
    assert next(r["occurrences"] for r in md if r["value"] == "<absent>") == p["assistant_without_model"]
    assert {r["encoding"]: r["stores"] for r in rows(snap, "meta0_encoding")} == nonzero(p["meta0_encoding"])
    assert {r["keyset"]: r["stores"] for r in rows(snap, "meta0_keysets")} == p["meta0_keysets"]
    assert {r["keyset"]: r["files"] for r in rows(snap, "meta_json_keys")} == p["meta_json_keys"]
    assert {r["schema_version"]: r["files"] for r in rows(snap, "schema_versions")} == p["schema_versions"]
    ph = one(snap, "prompt_history")
    assert ph["entries"] == p["prompt_history_entries"] and ph["files"] == p["prompt_history_files"]
    assert ph["array_files"] == ph["files"]
    assert sum(r["maps"] for r in rows(snap, "data_keyed_maps")) == p["data_keyed_maps"]


def test_chats_page_and_headline_claims(chats: dict[str, Any]) -> None:
    p, page = chats["planted"], chats["page"].read_text()
    for section in ("## Observation basis", "## Stores", "## Blobs", "## Messages", "## Content parts",
                    "## Tool calls and results", "## Models", '## Meta "0"', "## meta.json and prompt_history.json",
                    "## Not observed", "## Problems met while reading", "## Privacy gate", "## Evidence"):
        assert section in page, section
    c = claims(chats["snap"])
    assert c["blob_kinds"]["value"]["json"] == p["blobs"]["json"]
    assert c["wal_rows"]["value"]["rows_wal_only"] == p["wal_only_rows"]
    assert all(c[x]["evidence"] for x in c)
    assert tree(chats["root"]) == chats["before"]  # the corpus is untouched
    no_sidecars(chats["root"], "store.db", allowed={
        d for d in chats["before"] if d.endswith("-wal")})  # only the planted -wal


# --------------------------------------------------------------------------- desktop round trip


def test_desktop_tables_kinds_and_keysets(desktop: dict[str, Any]) -> None:
    p, snap = desktop["planted"], desktop["snap"]
    (so,) = rows(snap, "store_outcomes")
    assert so["outcome"] == "ok" and sorted(so["tables"].split(",")) == p["tables"]
    st = one(snap, "store_tables")
    assert st["composer_headers_rows"] == p["composer_headers_rows"]
    assert st["item_table_rows"] == len(p["item_table_keys"])
    assert bool(st["with_agent_projects_key"]) == ("glass.localAgentProjects.v1" in p["item_table_keys"])
    kinds: Counter[str] = Counter()
    for r in rows(snap, "key_kinds"):
        if r["kind"] != "composerHeaders":
            kinds[r["kind"]] += r["cells"]
    want = {("<unknown-kind>" if k == p["unknown_kind"] else k): n for k, n in p["key_kinds"].items()}
    assert dict(kinds) == want
    corrupt = sum(r["cells"] for r in rows(snap, "key_kinds") if r["status"] == "corrupt")
    assert corrupt == p["corrupt_cells"] == 1
    ks: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows(snap, "kind_keysets"):
        if r["kind"] not in ("<unknown-kind>", "composerHeaders"):
            ks[r["kind"]][r["keyset"]] = r["records"]
    assert dict(ks) == {k: v for k, v in p["keysets"].items() if k != p["unknown_kind"]}


def test_desktop_versions_bubbles_and_tools(desktop: dict[str, Any]) -> None:
    p, snap = desktop["planted"], desktop["snap"]
    v: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows(snap, "versions"):
        v[r["kind"]][r["v"]] = r["records"]
    assert v["composerData"] == p["composer_v"] and v["bubbleId"] == p["bubble_v"]
    assert {r["type"]: r["bubbles"] for r in rows(snap, "bubble_types")} == p["bubble_types"]
    assert {r["capability_type"]: r["bubbles"] for r in rows(snap, "capability_types")} == p["capability_types"]
    names: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for r in rows(snap, "tool_former"):
        names[r["tool_name"]] += r["bubbles"]
        statuses[r["tool_status"]] += r["bubbles"]
    assert dict(names) == p["tool_names"] and dict(statuses) == p["tool_statuses"]
    pairs = {(str(p["tool_numbers"][name]), name): n for name, n in p["tool_names"].items()}
    assert {(r["tool"], r["tool_name"]): r["bubbles"] for r in rows(snap, "tool_numbers")} == pairs
    assert {r["keyset"]: r["bubbles"] for r in rows(snap, "tool_former_keysets")} == p["tool_former_keysets"]
    ids = one(snap, "tool_call_ids")
    assert ids["with_newline"] == p["tool_call_id_with_newline"] and ids["call_ids"] == sum(p["tool_names"].values())


def test_desktop_thinking_tokens_and_ordering(desktop: dict[str, Any]) -> None:
    p, snap = desktop["planted"], desktop["snap"]
    th = one(snap, "thinking")
    assert {"with_text": th["with_text"], "signature_only": th["signature_only"], "blank": th["blank"]} == p["thinking"]
    tc = one(snap, "token_counts")
    assert tc["bubbles"] == p["bubbles"] and tc["all_zero"] == p["token_count_all_zero"]
    o = one(snap, "ordering")
    assert (o["ordered_by_header_list"], o["ordered_by_rowid"]) == (p["ordering"]["headers"], p["ordering"]["rowid"])
    assert o["rowid_order_differs"] == p["rowid_order_differs"] and o["header_set_differs"] == 0
    assert o["composers"] == p["composers"]


def test_desktop_page_says_when_composer_headers_is_absent(desktop: dict[str, Any]) -> None:
    p, page = desktop["planted"], desktop["page"].read_text()
    for section in ("## Observation basis", "## Tables", "## Key kinds", "## Versions", "## Bubbles",
                    "## Tool calls", "## Ordering", "## Not observed", "## Problems met while reading",
                    "## Privacy gate", "## Evidence"):
        assert section in page, section
    c = claims(desktop["snap"])["composer_headers"]
    if p["variant"] == "real_like":
        assert c["value"]["present"] == 0
        assert "| composerHeaders table | absent |" in page and "fullConversationHeadersOnly" in page
        assert "composerHeaders is ABSENT" in c["text"]
    else:
        assert c["value"] == {"present": 1, "stores": 1, "rows": p["composer_headers_rows"]}
        assert f"| composerHeaders table | present ({p['composer_headers_rows']} rows) |" in page
        assert "ABSENT" not in page
    ev = {x["id"]: x for x in load_json(desktop["snap"], "evidence")["probes"]}
    assert (ev["composer_headers_table"]["duckdb"]["files_matched"] > 0) == (p["variant"] == "modern")
    assert all(x["agree"] for x in ev.values())
    assert tree(desktop["root"]) == desktop["before"]
    no_sidecars(desktop["root"], ".vscdb")


# --------------------------------------------------------------------------- stream round trip


def test_stream_families_keysets_and_timestamps(stream: dict[str, Any]) -> None:
    p, snap = stream["planted"], stream["snap"]
    assert {r["family"]: r["events"] for r in rows(snap, "families")} == p["families"]
    ks: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows(snap, "family_keysets"):
        ks[r["family"]][r["keyset"]] = r["events"]
    assert dict(ks) == p["keysets"]
    assert {r["family"]: {"present": r["present"], "absent": r["absent"]} for r in rows(snap, "timestamps")} == p["timestamps"]
    assert sum(r["events"] for r in rows(snap, "families")) == p["json_lines"]


def test_stream_variants_outcomes_and_call_ids(stream: dict[str, Any]) -> None:
    p, snap = stream["planted"], stream["snap"]
    tv = rows(snap, "tool_call_variants")
    assert {r["variant"]: r["events"] for r in tv if r["family"] == "tool_call/started"} == p["tool_call_variants"]
    outcomes: Counter[str] = Counter()
    for r in rows(snap, "result_outcomes"):
        outcomes[r["outcome"]] += r["events"]
    assert dict(outcomes) == p["result_outcomes"]
    assert sum(r["call_id_with_newline"] for r in rows(snap, "call_id_newlines")) == p["call_id_with_newline"]
    assert sum(r["maps"] for r in rows(snap, "data_keyed_maps")) == p["data_keyed_maps"]


def test_stream_non_json_lines_and_page(stream: dict[str, Any]) -> None:
    p, snap = stream["planted"], stream["snap"]
    cls = {"malformed": "plain_text", "partial": "truncated_json", "blank": "blank"}
    assert {cls[r["frame_status"]]: r["lines"] for r in rows(snap, "non_json_lines")} == p["non_json_lines"]
    ends = {r["last_event"]: r["captures"] for r in rows(snap, "capture_endings")}
    assert ends["<no JSON event>"] == 1  # the start-up failure capture
    page = stream["page"].read_text()
    for section in ("## Observation basis", "## Event families", "## Timestamps", "## Tool calls",
                    "## Non-JSON lines and capture endings", "## Not observed", "## Problems met while reading",
                    "## Privacy gate", "## Evidence"):
        assert section in page, section
    assert tree(stream["root"]) == stream["before"]


# --------------------------------------------------------------------------- the reader itself


@pytest.fixture()
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point tempfile at a private folder so leftover copies can be counted exactly."""
    d = tmp_path / "tmpdir"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def _db(path: Path, rows_: list[tuple[str, bytes]], wal_rows: list[tuple[str, bytes]] | None = None) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    if wal_rows is not None:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    con.executemany("INSERT INTO blobs VALUES (?, ?)", rows_)
    con.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps({"agentId": "a"}).encode().hex(),))
    if wal_rows is None:
        con.close()
        return
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.executemany("INSERT INTO blobs VALUES (?, ?)", wal_rows)
    # copy the live files aside before close() checkpoints the WAL away
    for s in ("", "-wal", "-shm"):
        if path.with_name(path.name + s).exists():
            shutil.copyfile(path.with_name(path.name + s), path.with_name("keep" + s))
    con.close()
    for s in ("", "-wal", "-shm"):
        if path.with_name("keep" + s).exists():
            os.replace(path.with_name("keep" + s), path.with_name(path.name + s))


def _blob(obj: Any) -> tuple[str, bytes]:
    data = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
    return hashlib.sha256(data).hexdigest(), data


def test_reader_outcomes_and_cleanup(tmp_path: Path, private_tmp: Path) -> None:
    (tmp_path / "zero.db").write_bytes(b"")
    (tmp_path / "junk.db").write_bytes(os.urandom(3000))
    good = tmp_path / "good.db"
    _db(good, [_blob({"role": "user", "content": "x", "createdAt": 2}), _blob(b"\x0a\x02hi"),
               _blob({"role": "assistant", "content": [], "createdAt": 1}), ("not-a-hash", b"{\"role\":")])
    cut = tmp_path / "cut.db"
    cut.write_bytes(good.read_bytes()[: 4096 + 100])
    bad = tmp_path / "bad.db"
    raw = bytearray(good.read_bytes())
    raw[4096:8192] = os.urandom(4096)  # a b-tree page overwritten: SQLite says "malformed"
    bad.write_bytes(bytes(raw))
    seen = {}
    for name in ("zero", "junk", "cut", "bad", "good"):
        facts, recs = stores.read_chat_store(tmp_path / f"{name}.db")
        seen[name] = (facts, list(recs))
    assert seen["zero"][0]["status"] == "zero_byte" and seen["zero"][1] == []
    assert seen["junk"][0]["status"] == "not_a_database" and seen["junk"][1] == []
    assert seen["cut"][0]["status"] == "truncated" and seen["cut"][1] == []
    assert seen["bad"][0]["status"] in ("corrupt", "not_a_database")
    facts, recs = seen["good"]
    assert facts["status"] == "ok" and facts["tables"] == "blobs,meta"
    assert facts["meta0_encoding"] == "hex" and facts["id_is_sha256_false"] == 1 and facts["id_is_sha256_true"] == 3
    assert facts["created_out_of_order"] == 1
    assert [(r[0], r[1]) for r in recs] == [("meta:0", "ok"), ("user", "ok"), ("blob:protobuf", "non_json"),
                                            ("assistant", "ok"), ("blob:json", "corrupt")]
    assert list(private_tmp.iterdir()) == []  # every private copy removed
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "bad.db", "cut.db", "good.db", "junk.db", "zero.db"]


def test_reader_counts_wal_only_rows_and_never_writes_beside(tmp_path: Path, private_tmp: Path) -> None:
    db = tmp_path / "store.db"
    _db(db, [_blob({"role": "user", "content": "a"})],
        wal_rows=[_blob({"role": "assistant", "content": [], "n": i}) for i in range(3)])
    assert db.with_name("store.db-wal").exists()
    before = tree(tmp_path)
    facts, recs = stores.read_chat_store(db)
    got = list(recs)
    assert facts["wal_present"] and facts["rows_wal_only"] == 3 and facts["rows_seen"] == 5
    assert len([r for r in got if r[0] == "assistant"]) == 3  # the WAL rows are read, not missed
    assert tree(tmp_path) == before
    assert list(private_tmp.iterdir()) == []
    # an unconsumed iterator still releases its copy
    facts, recs = stores.read_chat_store(db)
    del recs
    import gc

    gc.collect()
    assert list(private_tmp.iterdir()) == []


def test_reader_never_names_ids(tmp_path: Path) -> None:
    assert stores.key_kind("bubbleId:1234:5678") == "bubbleId"
    assert stores.key_kind("someNewThing:abc") == "<unknown-kind>"
    assert stores.key_kind("plainkey") == "<unknown-kind>"
    assert stores.chat_role_class({"role": "developer"}) == "<unknown-role>"
    assert stores.chat_role_class({"kind": "x"}) == "<no-role>"
    assert stores.decode_meta0(json.dumps({"a": 1}).encode().hex()) == ("hex", {"a": 1})
    assert stores.decode_meta0('{"a": 1}') == ("json", {"a": 1})
    t = stores.empty_facts_table(get("cursor_desktop").store_reader)
    assert t.height == 0 and {"file_id", "status", "thinking_blank", "has_composer_headers"} <= set(t.columns)


# --------------------------------------------------------------------------- real samples


needs_desktop = pytest.mark.skipif(not REAL_DESKTOP.is_dir(),
                                   reason=f"real Cursor desktop sample absent at {REAL_DESKTOP}")
needs_stream = pytest.mark.skipif(not REAL_STREAM.is_dir(),
                                  reason=f"real stream-json captures absent at {REAL_STREAM}")


@needs_desktop
def test_real_desktop_sample_matches_a_plain_recount(tmp_path: Path) -> None:
    before = tree(REAL_DESKTOP)
    res, snap = survey("cursor_desktop", REAL_DESKTOP, tmp_path)
    # independent recount: sqlite3 on a temp copy, json, nothing from the survey
    con = copy_con(REAL_DESKTOP / "globalStorage" / "state.vscdb", tmp_path)
    tables = sorted(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    kinds: Counter[str] = Counter()
    keysets: dict[str, Counter[str]] = defaultdict(Counter)
    versions: dict[str, Counter[str]] = defaultdict(Counter)
    zero = bubbles = 0
    for key, value in con.execute("SELECT key, value FROM cursorDiskKV"):
        kind = key.split(":", 1)[0]
        kinds[kind] += 1
        obj = json.loads(value)
        keysets[kind][",".join(sorted(obj))] += 1
        if "_v" in obj:
            versions[kind][str(obj["_v"])] += 1
        if kind == "bubbleId":
            bubbles += 1
            zero += not any(obj["tokenCount"].values())
    con.close()
    assert tree(REAL_DESKTOP) == before
    no_sidecars(REAL_DESKTOP, ".vscdb")
    (so,) = rows(snap, "store_outcomes")
    assert sorted(so["tables"].split(",")) == tables and "composerHeaders" not in tables
    assert {r["kind"]: r["cells"] for r in rows(snap, "key_kinds")} == dict(kinds)
    got: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows(snap, "kind_keysets"):
        got[r["kind"]][r["keyset"]] = r["records"]
    assert dict(got) == {k: dict(v) for k, v in keysets.items()}
    vs: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows(snap, "versions"):
        vs[r["kind"]][r["v"]] = r["records"]
    assert dict(vs) == {k: dict(v) for k, v in versions.items()}
    tc = one(snap, "token_counts")
    assert (tc["bubbles"], tc["all_zero"]) == (bubbles, zero)
    assert res.problems == {}
    page = Path(res.page or "").read_text()
    assert "| composerHeaders table | absent |" in page
    assert claims(snap)["composer_headers"]["value"]["present"] == 0


@needs_stream
def test_real_stream_captures_match_a_plain_recount(tmp_path: Path) -> None:
    before = tree(REAL_STREAM)
    res, snap = survey("cursor_stream", REAL_STREAM, tmp_path)
    fam: Counter[str] = Counter()
    ks: dict[str, Counter[str]] = defaultdict(Counter)
    newline = 0
    for f in sorted(REAL_STREAM.glob("*.jsonl")):
        for line in f.read_bytes().split(b"\n"):
            if not line.strip():
                continue
            obj = json.loads(line)
            name = obj["type"] + ("/" + obj["subtype"] if isinstance(obj.get("subtype"), str) else "")
            fam[name] += 1
            ks[name][",".join(sorted(obj))] += 1
            newline += "\n" in obj.get("call_id", "")
    assert tree(REAL_STREAM) == before
    assert {r["family"]: r["events"] for r in rows(snap, "families")} == dict(fam)
    got: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows(snap, "family_keysets"):
        got[r["family"]][r["keyset"]] = r["events"]
    assert dict(got) == {k: dict(v) for k, v in ks.items()}
    assert sum(r["call_id_with_newline"] for r in rows(snap, "call_id_newlines")) == newline
    assert res.problems == {}
    assert "## Not observed" in Path(res.page or "").read_text()


@pytest.mark.skipif(not HANDMADE_CHATS.is_dir(), reason=f"handmade chat-store fixture absent at {HANDMADE_CHATS}")
def test_handmade_chat_store_surveys(tmp_path: Path) -> None:
    before = tree(HANDMADE_CHATS)
    res, snap = survey("cursor_chats", HANDMADE_CHATS, tmp_path)
    assert res.fixture  # under handmade/: the page says so
    assert {r["encoding"]: r["stores"] for r in rows(snap, "meta0_encoding")} == {"hex": 1}
    assert one(snap, "blob_ids")["blob_rows"] == 0
    assert tree(HANDMADE_CHATS) == before
    no_sidecars(HANDMADE_CHATS, "store.db")
    assert "Fixture corpus" in Path(res.page or "").read_text()


# --------------------------------------------------------------------------- privacy


@pytest.mark.parametrize("name,gen", [("cursor_chats", cursor_chats.generate),
                                      ("cursor_desktop", cursor_desktop.generate),
                                      ("cursor_stream", cursor_stream.generate)])
def test_no_canary_and_no_key_id_leaves(name: str, gen: Any, tmp_path: Path) -> None:
    root = tmp_path / "root"
    planted = gen(root, canaries=True)
    tokens = set(planted["canaries"])
    assert tokens
    forbidden = set(tokens) | {json.dumps(t)[1:-1] for t in tokens} | {json.dumps(t) for t in tokens}
    if name == "cursor_desktop":
        con = copy_con(root / "globalStorage" / "state.vscdb", tmp_path)
        for (key,) in con.execute("SELECT key FROM cursorDiskKV"):
            forbidden.update(part for part in key.split(":")[1:] if len(part) >= 16)
        con.close()
    _res, snap = survey(name, root, tmp_path)
    page = tmp_path / "reports" / f"{name}.md"
    hits = [(where, tok) for where, text in output_texts(snap, page) for tok in forbidden if tok in text]
    assert hits == []
    # the gate did withhold or mask something: the corpus really had private material
    kg = {r["item"]: r["n"] for r in rows(snap, "key_gate")}
    assert kg["withheld values (distinct)"] + kg["data-keyed maps (paths)"] > 0


def test_vocab_files_load_and_cover_the_reviewed_paths() -> None:
    for n in ("cursor_chats", "cursor_desktop", "cursor_stream"):
        keys, values = load_vocab(n)
        prof = get(n)
        assert keys and set(values) <= set(prof.vocab_paths), n


def _read_all(reader: Any, path: Path) -> tuple[dict, list]:
    facts, recs = reader(path)
    got = list(recs)
    return facts, got


def test_stores_read_in_memory_in_place_or_copied_alike(tmp_path: Path, private_tmp: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A small store without a ``-wal`` is read into memory (``deserialize``), a larger one
    where it lies (``immutable=1``), a store with a ``-wal`` from a private copy: every store
    of both synthetic corpora, the failure outcomes, a WAL-mode store whose WAL was
    checkpointed away and a store whose name holds URI characters give the same facts and
    records all three ways; only a store with a ``-wal`` makes a folder, and none is left."""
    chats_root, desk_root = tmp_path / "chats", tmp_path / "desk"
    cursor_chats.generate(chats_root, seed=3, sessions=5)
    cursor_desktop.generate(desk_root, variant="real_like")
    hand = tmp_path / "hand"
    hand.mkdir()
    (hand / "zero.db").write_bytes(b"")
    (hand / "junk.db").write_bytes(os.urandom(3000))
    good = hand / "good.db"
    _db(good, [_blob({"role": "user", "content": "x", "createdAt": 2}), _blob(b"\x0a\x02hi")])
    (hand / "cut.db").write_bytes(good.read_bytes()[: 4096 + 100])
    raw = bytearray(good.read_bytes())
    raw[4096:8192] = os.urandom(4096)
    (hand / "bad.db").write_bytes(bytes(raw))
    (hand / "a?b#c%41 d.db").write_bytes(good.read_bytes())  # '?', '#' and '%' end or change a URI
    walmode = hand / "walmode.db"
    con = sqlite3.connect(walmode, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    con.executemany("INSERT INTO blobs VALUES (?, ?)", [_blob({"role": "user", "content": str(i)}) for i in range(5)])
    con.close()  # the last connection checkpoints and removes the -wal; the header stays WAL
    assert not walmode.with_name("walmode.db-wal").exists() and walmode.read_bytes()[18:20] == b"\x02\x02"

    cases = [(stores.read_chat_store, p) for p in sorted([*chats_root.rglob("*.db"), *hand.glob("*.db")])]
    cases += [(stores.read_desktop_store, p) for p in sorted(desk_root.rglob("*.vscdb"))]
    # the real stores too, where the public samples are here (read in place: nothing is made beside them)
    cases += [(stores.read_desktop_store, p) for p in sorted(REAL_DESKTOP.rglob("*.vscdb"))]
    cases += [(stores.read_chat_store, p) for p in sorted(HANDMADE_CHATS.rglob("*.db"))]
    assert len(cases) > 10
    with_wal = [p for _, p in cases if p.with_name(p.name + "-wal").exists()]
    assert 0 < len(with_wal) < len(cases)
    made: list[str] = []
    real_mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append("x") or real_mkdtemp(*a, **k))
    ways = {}
    for way, memory_max, in_place, folders in (("memory", stores.MEMORY_MAX, True, len(with_wal)),
                                               ("in place", -1, True, len(with_wal)),
                                               ("copied", -1, False, len(cases))):
        monkeypatch.setattr(stores, "MEMORY_MAX", memory_max)
        monkeypatch.setattr(stores, "IN_PLACE", in_place)
        made.clear()
        ways[way] = [_read_all(r, p) for r, p in cases]
        assert len(made) == folders, way  # only a store with a -wal (or every store, copied) made a folder
    for i, (_, p) in enumerate(cases):
        assert ways["memory"][i] == ways["in place"][i] == ways["copied"][i], f"{p.name}: the three ways disagree"
    outcomes = {p.stem: a[0]["status"] for (_, p), a in zip(cases, ways["in place"], strict=True) if p.parent == hand}
    assert outcomes["zero"] == "zero_byte" and outcomes["junk"] == "not_a_database" and outcomes["cut"] == "truncated"
    assert outcomes["good"] == outcomes["walmode"] == outcomes["a?b#c%41 d"] == "ok"
    assert dict(zip([p.stem for _, p in cases], ways["in place"], strict=False))["walmode"][0]["journal_mode_wal"] is True
    assert not any(f[0]["changed_during_read"] for w in ways.values() for f in w)
    assert list(private_tmp.iterdir()) == []


def test_a_store_read_in_place_is_never_written_locked_or_waited_on(tmp_path: Path, private_tmp: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """In place, a store in a read-only folder (WAL-mode header, no ``-wal``) is read whole
    and nothing beside it appears or changes, while another connection holds a write lock on
    it; a store that moves while read says so; a fifo or a link in a store's place is
    ``unreadable`` at once."""
    monkeypatch.setattr(stores, "MEMORY_MAX", -1)
    d = tmp_path / "ro"
    d.mkdir()
    db = d / "state.vscdb"
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)",
                    [(f"bubbleId:c:{i}", json.dumps({"_v": 2, "type": 1, "text": "x"})) for i in range(50)])
    con.close()
    assert db.read_bytes()[18:20] == b"\x02\x02" and not db.with_name(db.name + "-wal").exists()
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("PRAGMA journal_mode=DELETE")
    writer.execute("BEGIN EXCLUSIVE")  # a writer holding its lock: an in-place read must not wait
    try:
        before = tree(d)
        d.chmod(0o555)
        try:
            facts, got = _read_all(stores.read_desktop_store, db)
        finally:
            d.chmod(0o755)
        assert facts["status"] == "ok" and facts["kv_rows"] == 50 and len(got) == 50
        assert facts["journal_mode_wal"] is False  # the writer's journal_mode=DELETE rewrote the header
        assert tree(d) == before
    finally:
        writer.rollback()
        writer.close()

    facts, recs = stores.read_desktop_store(db)
    next(iter(recs))
    os.utime(db, ns=(1, 1))  # the store moves while its records are read
    list(recs)
    assert facts["status"] == "ok" and facts["changed_during_read"] is True

    os.mkfifo(d / "fifo.vscdb")
    (d / "link.vscdb").symlink_to(db)
    class Waited(BaseException):  # not an OSError: the reader would count that as an outcome
        pass

    def waited(*_: Any) -> None:
        raise Waited("the reader waited on a fifo")

    old = signal.signal(signal.SIGALRM, waited)
    signal.alarm(10)  # an open() that waits on the fifo is interrupted, and the test fails
    try:
        for name in ("fifo.vscdb", "link.vscdb"):
            facts, got = _read_all(stores.read_desktop_store, d / name)
            assert facts["status"] == "unreadable" and got == [], name
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert list(private_tmp.iterdir()) == []


@pytest.mark.parametrize("engine", ["native", "python"])
def test_thinking_blocks_are_tallied_however_their_key_is_spelled(engine: str, tmp_path: Path) -> None:
    """A bubble's top-level ``thinking`` object is tallied (text, a signature alone, blank)
    wherever it stands among the keys and however JSON spells its key (any letter a \\u
    escape, in either case); a ``thinking`` that is not an object, or one nested deeper, is
    not. The C core hands the object over from its tape (the walk's own pass), the Python
    walker from the parsed record: both tally what a parse of every bubble would."""
    from survey.census import walk as W

    rnd = random.Random(7)
    values = [{"text": "some thought"}, {"text": " \u2003\n", "signature": "sig"}, {"text": "", "signature": ""},
              {"signature": "s"}, {}, {"text": 3, "signature": None}, "not an object", None, [1]]
    want = {"thinking_with_text": 0, "thinking_signature_only": 0, "thinking_blank": 0}
    rows = []
    for i in range(400):
        key = "".join(f"\\u{ord(ch):04{rnd.choice('xX')}}" if rnd.random() < 0.3 else ch for ch in "thinking")
        items = [f'"k{j}":{json.dumps(rnd.choice(["x", 1, {"thinking": {"text": "deep"}}]))}'
                 for j in range(rnd.randrange(4))]
        if i % 5:
            th = rnd.choice(values)
            items.insert(rnd.randrange(len(items) + 1), f'"{key}":{json.dumps(th)}')
            if isinstance(th, dict):
                text, sig = th.get("text"), th.get("signature")
                want["thinking_with_text" if isinstance(text, str) and text.strip() else
                     "thinking_signature_only" if sig else "thinking_blank"] += 1
        rows.append((f"bubbleId:c:{i}", "{" + ",".join(items) + "}"))
    assert sum(want.values()) > 100 and all(want.values())
    db = tmp_path / "state.vscdb"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
    con.commit()
    con.close()
    walker = W.make_walker("cursor_desktop", "reviewed", False, b"s" * 32)
    if engine == "python":
        walker._core = None
    elif walker._core is None:
        pytest.skip("the C core is not built here")
    res = W.walk_file(walker, str(db), "f-1", "sqlite", db.stat().st_size)
    assert res.status == "ok" and res.store["kv_rows"] == 400
    assert {k: res.store[k] for k in want} == want


def test_one_memory_connection_serves_store_after_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small stores are read in memory through one kept connection, not one each: store
    after store gives the records and facts a fresh connection gives, including after a
    store abandoned half read (its cursor closed before the next store's bytes go in: a
    deserialize under an open statement crashes the process), two stores read interleaved
    (the second gets a connection of its own) and a store that failed (never kept). Its
    prepared statements serve only a store whose schema is the same to the byte."""
    import gc

    cursor_chats.generate(tmp_path, seed=5, sessions=6)
    dbs = sorted(str(p) for p in tmp_path.rglob("store.db"))
    assert len(dbs) >= 4

    def read(path: str) -> tuple[dict, list]:
        facts, recs = stores.read_chat_store(path)
        got = list(recs)
        return facts, got

    stores._SPARE.clear()
    want = [read(p) for p in dbs]  # the first made the connection the rest reused
    made = []
    real = stores._memory_connection
    monkeypatch.setattr(stores, "_memory_connection", lambda: made.append(1) or real())
    stores._SPARE.clear()
    assert [read(p) for p in dbs] == want and len(made) == 1
    _, half = stores.read_chat_store(dbs[0])
    next(half)  # abandoned half read
    del half
    gc.collect()
    assert [read(p) for p in dbs[1:]] == want[1:] and len(made) == 1
    (fa, ra), (fb, rb) = stores.read_chat_store(dbs[0]), stores.read_chat_store(dbs[1])
    got_a, got_b = [], []
    for a, b in itertools.zip_longest(ra, rb):  # interleaved; neither side loses a record
        if a is not None:
            got_a.append(a)
        if b is not None:
            got_b.append(b)
    assert ((fa, got_a), (fb, got_b)) == (want[0], want[1]) and len(made) == 2
    # two stores whose schemas carry the same cookie, their tables at other root pages: a
    # statement prepared for the first may not run on the second's bytes
    swapped = []
    for order in (("meta", "blobs"), ("blobs", "meta")):
        db = tmp_path / "swap" / "-".join(order) / "store.db"
        db.parent.mkdir(parents=True)
        con = sqlite3.connect(db)
        for t in order:
            con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)" if t == "blobs" else
                        "CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB)")
        con.execute("INSERT INTO meta VALUES ('0', ?)", [json.dumps({"agentId": "a"}).encode().hex()])
        con.executemany("INSERT INTO blobs VALUES (?, ?)",
                        [(hashlib.sha256(b).hexdigest(), b) for b in
                         (json.dumps({"role": r, "content": "x" * 40}).encode() for r in ("user", "assistant"))])
        con.commit()
        con.close()
        swapped.append(str(db))
    stores._SPARE.clear()
    fresh = []
    for p in swapped:
        fresh.append(read(p))
        stores._SPARE.clear()
    assert [read(p) for p in swapped] == fresh
    assert [f["status"] for f, _ in fresh] == ["ok", "ok"] and [len(r) for _, r in fresh] == [3, 3]
    # a schema past page 1 (a record spilling to an overflow page, or a schema table of two
    # levels) gives no signature: its connection's statements serve no other store
    for name, tables in (("long", ["CREATE TABLE blobs (id TEXT, data BLOB, " +
                                   ", ".join(f"c{i} INT" for i in range(900)) + ")"]),
                         ("many", [f"CREATE TABLE t{i} (a, b, c, d, e, f)" for i in range(200)])):
        db = tmp_path / "schema" / name / "store.db"
        db.parent.mkdir(parents=True)
        con = sqlite3.connect(db)
        for sql in tables:
            con.execute(sql)
        con.commit()
        con.close()
        data = db.read_bytes()
        assert stores._schema_bytes(data) is None, name
        assert read(str(db))[0]["status"] == "ok" and not stores._SPARE
    first = Path(dbs[0]).read_bytes()
    assert stores._schema_bytes(first) is not None
    assert stores._schema_bytes(first[:103] + b"\xff\xff" + first[105:]) is None  # pointers past the page
    bad = tmp_path / "bad" / "store.db"
    bad.parent.mkdir()
    good = Path(dbs[0]).read_bytes()
    bad.write_bytes(good[:4096] + b"\xff" * (len(good) - 4096))  # its size, pages past the first garbage
    assert read(dbs[0]) == want[0] and stores._SPARE  # a connection waits; the bad store takes it
    facts, _ = read(str(bad))
    assert facts["status"] != "ok" and not stores._SPARE  # and closes it
    assert [read(p) for p in dbs] == want


def test_a_desktop_value_that_is_not_utf8_is_one_records_outcome(tmp_path: Path) -> None:
    """A ``cursorDiskKV`` TEXT value that is not UTF-8 is read as its bytes: that record is
    counted as not parsed, the records around it are walked, and the store is ``ok``
    (decoded as a str, it had ended the store at its batch: no record at all)."""
    from survey.census import walk as W

    db = tmp_path / "state.vscdb"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    good = json.dumps({"_v": 2, "type": 1, "text": "x"})
    con.execute("INSERT INTO cursorDiskKV VALUES ('bubbleId:c:1', ?)", [good])
    con.execute("INSERT INTO cursorDiskKV VALUES ('bubbleId:c:2', CAST(X'7B2274657874223A22FF227D' AS TEXT))")
    con.execute("INSERT INTO cursorDiskKV VALUES ('bubbleId:c:3', ?)", [good])
    con.commit()
    con.close()
    walker = W.make_walker("cursor_desktop", "reviewed", False, b"s" * 32)
    res = W.walk_file(walker, str(db), "f-1", "sqlite", db.stat().st_size)
    assert res.status == "ok" and res.store["status"] == "ok" and res.store["kv_rows"] == 3
    assert [(f[0], f[1]) for f in res.frames] == [(0, "ok"), (1, "corrupt"), (2, "ok")]


@settings(max_examples=500, deadline=None)
@given(data=st.one_of(st.binary(max_size=12),
                      st.builds(lambda ws, body: ws + body, st.sampled_from([b"", b" ", b"\n", b"\x0b", b"\x0c \t"]),
                                st.sampled_from([b"{}", b'{"a":1}', b"[1]", b"1", b'"x"', b"true", b"nul", b"{",
                                                 b"\x0a\x02hi", b"-", b"\x00{}"]))))
def test_a_blob_is_classified_as_a_parse_would(data: bytes) -> None:
    """A blob that cannot begin a JSON text is ``non_json`` without a parse: the outcome is
    always the one the parse and its error give."""
    try:
        obj = orjson.loads(data)
        want = ("ok", obj) if isinstance(obj, dict) else ("not_object", None)
    except orjson.JSONDecodeError:
        want = ("corrupt" if data.lstrip()[:1] in (b"{", b"[") else "non_json"), None
    assert stores._classify_bytes(data) == want
