"""Declared links: each evaluated as a join with a rate, against the truth planted by the
generators and recomputed here in plain Python over the generated files (never from the
generators' own tallies alone), under the privacy gate (no id leaves the census)."""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from pathlib import Path

import orjson
import pytest

from survey.corpus.stores import facts_template
from survey.evidence.links import main as write_links
from survey.evidence.links import query_path, reader_fact_names, render_sql
from survey.pipeline import run_survey
from survey.runtimes import all_profiles, get
from survey.runtimes.base import Link


def _census(res, name: str) -> dict[str, dict]:
    q = orjson.loads((Path(res.snapshot) / "census.json").read_bytes())[name]
    key = q["columns"][0]
    return {r[key]: r for r in (dict(zip(q["columns"], row, strict=True)) for row in q["rows"])}


def _claims(res) -> dict[str, dict]:
    return _claims_at(Path(res.snapshot))


def _claims_at(snap: Path) -> dict[str, dict]:
    return {c["id"]: c for c in orjson.loads((snap / "claims.json").read_bytes())}


def _jsonl(path: Path) -> list[dict]:
    out = []
    for line in path.read_bytes().split(b"\n"):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


# -- the query files ------------------------------------------------------------------------

def test_each_runtime_links_query_is_the_template_with_its_declarations() -> None:
    assert write_links(["--check"]) == 0, "run: python -m survey.evidence.links"
    for p in all_profiles():
        if p.declared_links:
            assert query_path(p).read_text() == render_sql(p)
            for ln in p.declared_links:
                if ln.compared_by == "sql":
                    assert ln.source[1] in p.links, (p.name, ln.name)
                    assert ln.target is None or ln.target[0] == "<path>" or ln.target[1] in p.links
        else:
            assert not query_path(p).exists()
        if reader_fact_names(p.declared_links):  # the reader counts what the query sums
            assert set(reader_fact_names(p.declared_links)) <= set(facts_template(p.store_reader)), p.name


@pytest.mark.parametrize("bad", [dict(scope="folder"), dict(expect="most"), dict(target=None),
                                 dict(name="Bad-Name")])
def test_a_link_declared_wrong_is_refused(bad: dict) -> None:
    args = dict(name="x", source=("*", "a"), target=("*", "b"), scope="file", expect="all") | bad
    with pytest.raises(ValueError):
        Link(**args)


# -- cursor_stream --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory):
    from survey.synth.cursor_stream import generate

    base = tmp_path_factory.mktemp("stream")
    root = base / "captures"
    root.mkdir()
    planted = generate(root, seed=5, sessions=40, canaries=True)
    res = run_survey(get("cursor_stream"), root, snapshots=base / "s", reports=base / "r", date="2026-01-01")
    return planted, root, res


def _stream_truth(root: Path) -> dict:
    """Pairing and constancy recomputed from the captures: per capture, the call_ids of the
    started and of the completed events; the session ids of every event."""
    pairs = Counter()
    files_with_sid = files_one_sid = 0
    for f in sorted(root.glob("*.jsonl")):
        evs = _jsonl(f)
        started = Counter(e["call_id"] for e in evs if e.get("type") == "tool_call" and e.get("subtype") == "started")
        done = Counter(e["call_id"] for e in evs if e.get("type") == "tool_call" and e.get("subtype") == "completed")
        for cid, n in done.items():
            if started.get(cid, 0) == 1 and n == 1:
                pairs["paired"] += 1
            elif cid in started:
                pairs["several"] += n
            else:
                pairs["none"] += n
        pairs["completed"] += sum(done.values())
        pairs["started"] += sum(started.values())
        pairs["unnamed"] += sum(n for cid, n in started.items() if cid not in done)
        sids = {e["session_id"] for e in evs if "session_id" in e}
        files_with_sid += bool(sids)
        files_one_sid += len(sids) == 1
    return {**dict.fromkeys(("paired", "several", "none", "completed", "started", "unnamed"), 0), **pairs,
            "files_with_sid": files_with_sid, "files_one_sid": files_one_sid}


def test_stream_call_pairing_and_session_constancy_equal_the_captures(stream) -> None:
    planted, root, res = stream
    want = _stream_truth(root)
    assert want["none"] == planted["orphan_completed"] > 0, "the generator must plant orphan completions"
    assert want["files_with_sid"] - want["files_one_sid"] == planted["second_session_captures"] > 0
    rows = _census(res, "links")
    p = rows["tool_call_pairing"]
    assert (p["total"], p["holds"], p["several"], p["unmatched"], p["targets"], p["targets_unnamed"]) == (
        want["completed"], want["paired"], want["several"], want["none"], want["started"], want["unnamed"])
    s = rows["session_id_constant"]
    assert (s["unit"], s["total"], s["holds"], s["several"]) == (
        "files", want["files_with_sid"], want["files_one_sid"], want["files_with_sid"] - want["files_one_sid"])
    c = _claims(res)
    assert c["link_tool_call_pairing"]["value"]["unmatched"] == want["none"]
    assert f"{want['paired']:,} of {want['completed']:,} records pair one to one" in c["link_tool_call_pairing"]["text"]
    assert "tool_call_pairing" in c["links"]["text"] and "session_id_constant" in c["links"]["text"]
    assert c["links"]["value"][:2] == ["link_tool_call_pairing", "link_session_id_constant"]


def test_no_id_or_canary_leaves_through_the_links(stream) -> None:
    planted, root, res = stream
    q = orjson.loads((Path(res.snapshot) / "census.json").read_bytes())["links"]
    text = json.dumps(q) + json.dumps([c for c in _claims(res).values() if c["id"].startswith("link")])
    assert not [c for c in planted["canaries"] if c in text]
    ids = {e["call_id"] for f in root.glob("*.jsonl") for e in _jsonl(f) if "call_id" in e}
    ids |= {e["session_id"] for f in root.glob("*.jsonl") for e in _jsonl(f) if "session_id" in e}
    assert ids and not [i for i in ids if i in text or i.split("\n")[0] in text]


# -- claude_code and codex: calls and results, parents and children ---------------------------

def _pairing(files: list[list[dict]], sources, targets) -> tuple[int, int, int, int, int]:
    """(sources, paired one to one, several, none, targets named by no source), per file."""
    tot = paired = several = none = unnamed = 0
    for recs in files:
        src = Counter(i for r in recs for i in sources(r))
        dst = Counter(i for r in recs for i in targets(r))
        for i, n in src.items():
            tot += n
            if i not in dst:
                none += n
            elif n == 1 and dst[i] == 1:
                paired += 1
            else:
                several += n
        unnamed += sum(n for i, n in dst.items() if i not in src)
    return tot, paired, several, none, unnamed


def _blocks(r: dict, rtype: str, btype: str, key: str) -> list[str]:
    if r.get("type") != rtype or not isinstance(r.get("message"), dict):
        return []
    content = r["message"].get("content")
    return [b[key] for b in content if isinstance(b, dict) and b.get("type") == btype and isinstance(b.get(key), str)] \
        if isinstance(content, list) else []


@pytest.fixture(scope="module")
def claude(tmp_path_factory: pytest.TempPathFactory):
    from survey.synth.claude_code import generate

    base = tmp_path_factory.mktemp("claude")
    root = base / "projects"
    root.mkdir()
    generate(root, seed=3)
    return root, run_survey(get("claude_code"), root, snapshots=base / "s", reports=base / "r", date="2026-01-01")


def test_claude_code_links_equal_the_transcripts(claude) -> None:
    root, res = claude
    files = [_jsonl(f) for f in sorted(root.rglob("*.jsonl"))]
    rows = _census(res, "links")
    got = rows["tool_result_pairing"]
    want = _pairing(files, lambda r: _blocks(r, "user", "tool_result", "tool_use_id"),
                    lambda r: _blocks(r, "assistant", "tool_use", "id"))
    assert (got["total"], got["holds"], got["several"], got["unmatched"], got["targets_unnamed"]) == want
    assert want[0] > 0 and want[3] > 0, "the generator must plant a result without its call"
    parents = [(sum(isinstance(r.get("parentUuid"), str) for r in recs),
                sum(r.get("parentUuid") in {x.get("uuid") for x in recs} for r in recs if isinstance(r.get("parentUuid"), str)))
               for recs in files]
    got = rows["parent_uuid_in_file"]
    assert (got["total"], got["holds"]) == (sum(a for a, _ in parents), sum(b for _, b in parents))
    sids = [{r["sessionId"] for r in recs if isinstance(r.get("sessionId"), str)} for recs in files]
    got = rows["session_id_constant"]
    assert (got["total"], got["holds"]) == (sum(bool(s) for s in sids), sum(len(s) == 1 for s in sids))
    calls = {i for recs in files for r in recs for i in _blocks(r, "assistant", "tool_use", "id")}
    metas = [json.loads(f.read_bytes()) for f in root.rglob("*.meta.json")]
    named = [m["toolUseId"] for m in metas if isinstance(m, dict) and isinstance(m.get("toolUseId"), str)]
    got = rows["meta_names_parent_call"]
    assert (got["total"], got["holds"]) == (len(named), sum(n in calls for n in named)) and named


@pytest.fixture(scope="module")
def codex(tmp_path_factory: pytest.TempPathFactory):
    from survey.synth.codex import generate

    base = tmp_path_factory.mktemp("codex")
    root = base / "sessions"
    root.mkdir()
    generate(root, seed=3)
    return root, run_survey(get("codex"), root, snapshots=base / "s", reports=base / "r", date="2026-01-01")


def _payload(r: dict, ptype: str, key: str) -> list[str]:
    p = r.get("payload")
    if r.get("type") != "response_item" or not isinstance(p, dict) or p.get("type") != ptype:
        return []
    return [p[key]] if isinstance(p.get(key), str) else []


def test_codex_links_equal_the_rollouts(codex) -> None:
    root, res = codex
    files = [_jsonl(f) for f in sorted(root.rglob("*.jsonl"))]
    rows = _census(res, "links")
    for link, out, call in (("function_output_pairing", "function_call_output", "function_call"),
                            ("custom_output_pairing", "custom_tool_call_output", "custom_tool_call")):
        got = rows[link]
        want = _pairing(files, lambda r, o=out: _payload(r, o, "call_id"), lambda r, c=call: _payload(r, c, "call_id"))
        assert (got["total"], got["holds"], got["several"], got["unmatched"], got["targets_unnamed"]) == want, link
    metas = [r["payload"] for recs in files for r in recs
             if r.get("type") == "session_meta" and isinstance(r.get("payload"), dict)]
    ids = {m.get("id") for m in metas}
    parents = [m["parent_thread_id"] for m in metas if isinstance(m.get("parent_thread_id"), str)]
    got = rows["child_names_parent"]
    assert (got["total"], got["holds"]) == (len(parents), sum(p in ids for p in parents))


# -- shape drift across strata ------------------------------------------------------------------

def _drift_truth(root: Path, rclass) -> dict[tuple[str, str, str], tuple[int, int, int]]:
    """Per (class, earlier, later) of adjacent mtime months where the class occurs: key sets
    that came, went and were kept, from the files themselves."""
    import datetime as dt

    seen: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for f in root.rglob("*.jsonl"):
        month = dt.datetime.fromtimestamp(f.stat().st_mtime, dt.UTC).strftime("%Y-%m")
        for r in _jsonl(f):
            seen[rclass(r)][month][",".join(sorted(r))] += 1
    out = {}
    for cls, by_month in seen.items():
        months = sorted(by_month)
        for a, b in itertools.pairwise(months):
            ka, kb = set(by_month[a]), set(by_month[b])
            out[(cls, a, b)] = (len(kb - ka), len(ka - kb), len(ka & kb))
    return out


def test_strata_drift_equals_the_key_sets_month_by_month(codex) -> None:
    root, res = codex

    def rclass(r: dict) -> str:
        p = r.get("payload")
        sub = p.get("type") if isinstance(p, dict) else None
        return f"{r['type']}/{sub}" if isinstance(sub, str) else r["type"]

    want = _drift_truth(root, rclass)
    q = orjson.loads((Path(res.snapshot) / "census.json").read_bytes())["strata_drift"]
    got = {(r["rclass"], r["earlier"], r["later"]): (r["keysets_came"], r["keysets_went"], r["keysets_kept"])
           for r in (dict(zip(q["columns"], row, strict=True)) for row in q["rows"])}
    assert got == want
    assert any(c or w for c, w, _k in want.values()), "the generator must plant a shape that drifts"
    c = _claims(res)["strata_drift"]
    assert c["value"]["drifted"] == sum(1 for v in want.values() if v[0] or v[1])
    assert c["value"]["came"] == sum(v[0] for v in want.values())


# -- cursor_chats: meta "0" names its blob, its folder and its workspace ----------------------

@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory):
    from survey.synth.cursor_chats import generate

    base = tmp_path_factory.mktemp("chats")
    root = base / "chats"
    root.mkdir()
    planted = generate(root, seed=4, sessions=12)
    res = run_survey(get("cursor_chats"), root, snapshots=base / "s", reports=base / "r", date="2026-01-01")
    return planted, root, base, res


def _chat_truth(root: Path, scratch: Path) -> Counter:
    """Each store that opens and reads (a private copy, its WAL beside it): meta "0" decoded
    (hex or plain JSON), its links checked against the store's blob ids and its folders."""
    import hashlib
    import shutil
    import sqlite3

    out: Counter = Counter()
    for i, db in enumerate(sorted(root.glob("*/*/store.db"))):
        dest = scratch / f"copy{i}"
        dest.mkdir()
        for f in db.parent.glob("store.db*"):
            shutil.copyfile(f, dest / f.name)
        try:
            con = sqlite3.connect(f"file:{dest / 'store.db'}?mode=ro", uri=True)
            cell = con.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]
            ids = {(b.hex() if isinstance(b, bytes) and len(b) == 32 else
                    (b.decode() if isinstance(b, bytes) else str(b))).lower()
                   for (b,) in con.execute("SELECT id FROM blobs")}
            con.close()
        except sqlite3.DatabaseError:
            continue
        raw = cell if isinstance(cell, bytes) else cell.encode()
        try:
            meta = json.loads(bytes.fromhex(raw.decode()))
        except ValueError:
            meta = json.loads(raw)
        out["agent"] += 1
        out["agent_ok"] += meta["agentId"] == db.parent.name
        out["root"] += 1
        out["root_ok"] += meta["latestRootBlobId"].lower() in ids
        if "workspacePath" in meta:
            out["ws"] += 1
            out["ws_ok"] += hashlib.md5(meta["workspacePath"].encode()).hexdigest() == db.parent.parent.name
    return out


def test_chat_store_links_equal_the_stores(chats, tmp_path: Path) -> None:
    planted, root, _base, res = chats
    want = _chat_truth(root, tmp_path)
    assert planted["link_breaks"] == {"root_blob": want["root"] - want["root_ok"],
                                      "workspace_md5": want["ws"] - want["ws_ok"],
                                      "agent_id": want["agent"] - want["agent_ok"]}
    assert all(planted["link_breaks"].values()), "the generator must break each link somewhere"
    rows = _census(res, "links")
    for link, n, ok in (("agent_id_is_folder", "agent", "agent_ok"), ("root_blob", "root", "root_ok"),
                        ("workspace_md5", "ws", "ws_ok")):
        r = rows[link]
        assert (r["total"], r["holds"], r["unmatched"]) == (want[n], want[ok], want[n] - want[ok]), link
    assert rows["root_blob"]["unit"] == "stores"
    c = _claims(res)
    assert c["link_workspace_md5"]["value"]["unmatched"] == planted["link_breaks"]["workspace_md5"]


def test_chat_store_links_leak_no_digest_or_path(chats) -> None:
    import hashlib

    _planted, root, base, _res = chats
    folders = {p.name for p in root.iterdir()} | {p.name for p in root.glob("*/*")}
    text = "\n".join(p.read_text(errors="replace") for p in (base / "s").rglob("*.json"))
    text += "\n".join(p.read_text() for p in (base / "r").rglob("*.md"))
    assert folders and not [f for f in folders if f in text or hashlib.md5(f.encode()).hexdigest() in text]


def test_stream_relations_equal_the_captures(stream) -> None:
    _planted, root, res = stream
    want = Counter()
    chunk_sets: Counter = Counter()
    lasts: list[tuple[int, str]] = []
    for f in sorted(root.glob("*.jsonl")):
        evs = _jsonl(f)
        outs = [next(k for k in e["tool_call"][v]["result"] if k != "isBackground")
                for e in evs if e.get("type") == "tool_call" and e.get("subtype") == "completed"
                for v in e["tool_call"]]
        if "failure" in outs or "rejected" in outs:
            want["captures"] += 1
            want["failed"] += outs.count("failure")
            want["rejected"] += outs.count("rejected")
            want["success"] += any(e.get("type") == "result" and e.get("subtype") == "success" for e in evs)
            want["no_result"] += not any(e.get("type") == "result" for e in evs)
            want["is_error"] += any(e.get("is_error") is True for e in evs)
        asst = [",".join(sorted(e)) for e in evs if e.get("type") == "assistant"]
        if asst:
            chunk_sets.update(asst[:-1])
            lasts.append((len(asst) - 1, asst[-1]))
    c = _claims(res)
    v = c["link_failed_turns_result"]["value"]
    assert (v["captures_with_failed_calls"], v["failed_calls"], v["rejected_calls"], v["ending_result_success"],
            v["without_result_event"], v["with_is_error_true"]) == (
        want["captures"], want["failed"], want["rejected"], want["success"], want["no_result"], want["is_error"])
    assert want["captures"] and want["success"]
    a = c["link_assistant_chunks"]["value"]
    assert a["chunk_keysets"] == dict(chunk_sets)
    assert a["captures_with_chunks"] == sum(1 for n, _ in lasts if n)
    assert a["followed_by_final"] == sum(1 for n, ks in lasts if n and ks not in chunk_sets) > 0
    assert set(a["final_keysets"]) == {ks for _n, ks in lasts if ks not in chunk_sets}
    assert {"link_failed_turns_result", "link_assistant_chunks"} <= set(c["links"]["value"])


# -- cursor: sidecars and write calls, subagent shapes ----------------------------------------

def _names_sidecar(b: dict) -> bool:
    inp = b.get("input")
    if isinstance(inp, str):
        return "/agent-tools/" in inp
    return isinstance(inp, dict) and any(isinstance(inp.get(k), str) and "/agent-tools/" in inp[k]
                                         for k in ("path", "command"))


def test_cursor_sidecar_writes_equal_the_transcripts(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    root = snap.parents[2] / "projects"  # (the fixture's layout: <base>/projects, <base>/snapshots/<date>/cursor)
    assert root.is_dir()
    want = Counter()
    writes = {"Write", "ApplyPatch"}
    for f in root.rglob("*.jsonl"):
        for r in _jsonl(f):
            content = (r.get("message") or {}).get("content") if isinstance(r.get("message"), dict) else None
            if not isinstance(content, list):
                continue
            uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
            if not any(_names_sidecar(b) for b in uses):
                continue
            want["records"] += 1
            w = sum(b.get("name") in writes for b in uses)
            want["only" if w and w == len(uses) else "beside" if w else "none"] += 1
    c = _claims_at(snap)["link_sidecar_writes"]["value"]
    assert (c["records_naming_sidecars"], c["only_write_calls"], c["write_beside_other_calls"], c["no_write_call"]) == (
        want["records"], want["only"], want["beside"], want["none"])
    assert planted["sidecar_writes"] == want["only"] + want["beside"] > 0


def test_cursor_subagent_shapes_against_the_nodes(cursor_survey) -> None:
    """The subagent relation recomputed with polars from the walk's nodes and the inventory
    (another code path over the same tables)."""
    import polars as pl

    _planted, _res, snap = cursor_survey
    inv = pl.read_parquet(snap / "inventory" / "*" / "*.parquet", hive_partitioning=True).filter(pl.col("sampled"))
    nodes = pl.read_parquet(snap / "walk" / "nodes.parquet")
    shapes: dict[str, set] = defaultdict(set)
    for fid, rc, path, jt, ks in nodes.select("file_id", "rclass", "path", "jtype", "keyset").iter_rows():
        shapes[fid].add((rc, path, jt, ks or ""))
    rows = inv.select("file_id", "surface", "session_id", "parent_id", "kind").to_dicts()
    top = set().union(*(shapes[r["file_id"]] for r in rows if r["surface"] in ("transcript", "transcript_flat")))
    subs = [r for r in rows if r["surface"] == "subagent" and shapes.get(r["file_id"])]
    parents = {r["session_id"]: r["file_id"] for r in rows if r["parent_id"] is None and r["kind"] == "jsonl"}
    pairs = [(r["file_id"], parents[r["parent_id"]]) for r in rows if r["surface"] == "subagent" and r["parent_id"] in parents]
    v = _claims_at(snap)["link_subagent_schema"]["value"]
    assert v["subagent_files"] == len(subs) > 0
    assert v["subagents_all_shapes_in_transcripts"] == sum(shapes[r["file_id"]] <= top for r in subs)
    assert v["pairs"] == len(pairs)
    assert v["pairs_all_shapes_in_parent"] == sum(shapes[c] <= shapes[p] for c, p in pairs)
    assert v["child_shapes_not_in_parent"] == sum(len(shapes[c] - shapes[p]) for c, p in pairs)


def test_each_id_carries_its_records_class(claude) -> None:
    """links.sql takes a link's record class from the id's row: it must be the class of the
    frame the id came from, for every id (the join with frames the row spares)."""
    import duckdb

    _, res = claude
    walk = Path(res.snapshot) / "walk"
    con = duckdb.connect()
    n, classed, differ = con.execute(
        f"SELECT count(*), count(l.rclass), count(*) FILTER (WHERE f.rclass IS DISTINCT FROM l.rclass) "
        f"FROM read_parquet('{walk / 'links.parquet'}') AS l "
        f"LEFT JOIN read_parquet('{walk / 'frames.parquet'}') AS f USING (file_key, line_no)").fetchone()
    assert n > 0 and classed == n and differ == 0
    want = sum(len(_blocks(r, "assistant", "tool_use", "id")) for f in sorted(claude[0].rglob("*.jsonl")) for r in _jsonl(f))
    got = con.execute(f"SELECT count(*) FROM read_parquet('{walk / 'links.parquet'}') "
                      f"WHERE kind = 'tool_use' AND rclass = 'assistant'").fetchone()[0]
    assert got == want > 0


def test_a_store_scoped_link_looks_its_store_up(claude) -> None:
    """Only a profile with a link scoped to a store joins the ids with the inventory; a file's
    ids are in its store, so a store finds at least what its file finds."""
    import dataclasses

    import duckdb

    _, res = claude
    p = get("claude_code")
    assert "LEFT JOIN inv AS i" not in render_sql(p)
    wide = Link(name="parent_uuid_in_store", source=("*", "parent_uuid"), target=("*", "uuid"), scope="store",
                expect="all")
    sql = render_sql(dataclasses.replace(p, declared_links=(*p.declared_links, wide)))
    assert "LEFT JOIN inv AS i" in sql
    con = duckdb.connect()
    con.execute("SET VARIABLE snap = ?", [str(res.snapshot)])
    cols = [d[0] for d in con.execute(sql).description]
    rows = {r[0]: dict(zip(cols, r, strict=True)) for r in con.execute(sql).fetchall()}
    f, s = rows["parent_uuid_in_file"], rows["parent_uuid_in_store"]
    assert s["total"] == f["total"] > 0 and f["holds"] <= s["holds"] <= s["total"]
