"""The Cursor page's figures equal what the generator planted (seed 7, whole corpus)."""

from __future__ import annotations

import math
from pathlib import Path

from survey.evidence.claims import Claim
from survey.runtimes.base import load_vocab
from survey.snapshot.store import load_json


def rows(snap: Path, name: str) -> list[dict]:
    q = load_json(snap, "census")[name]
    return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]


def claims(snap: Path) -> dict[str, Claim]:
    return {c["id"]: Claim.from_json(dict(c)) for c in load_json(snap, "claims")}


def quantile_disc(xs: list[int], q: float) -> int:
    # nearest rank, as DuckDB's quantile_disc: the value at rank ceil(q * n)
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def test_files_per_surface_match_planted(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    got = {r["surface"]: r["files"] for r in rows(snap, "files_by_surface")}
    f = planted["files"]
    assert got.get("transcript", 0) == f["transcript_nested"]
    assert got.get("transcript_flat", 0) == f["transcript_flat"]
    assert got.get("subagent", 0) == f["subagent"]
    assert got.get("legacy_txt", 0) == f["legacy_txt"]
    assert got.get("agent_tools", 0) == f["agent_tools"]
    assert got.get("other", 0) == f["other"]
    other = {r["ext"] if r["ext"] != "(none)" else "": r["files"] for r in rows(snap, "other_files")}
    assert sum(other.values()) == f["other"]


def test_frame_statuses_match_planted(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    got = {r["frame_status"]: r["frames"] for r in rows(snap, "frame_status")}
    for status, n in planted["frames"].items():
        assert got.get(status, 0) == n, status


def test_top_level_keysets_roles_and_statuses(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    tax = {r["keyset"]: r for r in rows(snap, "frame_taxonomy")}
    assert {k: r["frames"] for k, r in tax.items()} == planted["top_keysets"]
    assert sum(r["assistant"] for r in tax.values()) == planted["roles"]["assistant"]
    assert sum(r["user"] for r in tax.values()) == planted["roles"]["user"]
    ts = {r["status"]: r["frames"] for r in rows(snap, "turn_status")}
    assert ts == planted["turn_status"]


def test_blocks_tool_names_and_input_types(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    bk = rows(snap, "block_keysets")
    by_type: dict[str, dict[str, int]] = {}
    for r in bk:
        by_type.setdefault(r["btype"], {})[r["keyset"]] = r["blocks"]
    assert by_type == planted["block_keysets"]
    names = {r["name"]: r["calls"] for r in rows(snap, "tool_names")}
    assert names == planted["tool_names"]
    it = {r["name"]: {"object": r["object"], "string": r["string"]} for r in rows(snap, "input_type_by_tool")}
    assert it == planted["input_types"]


def test_parallel_calls_and_mcp_wrappers(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    pc = rows(snap, "parallel_calls")[0]
    assert pc["max_calls_in_frame"] == planted["max_parallel"] == 39
    assert pc["frames_over_3"] == planted["parallel_frames_over_3"]
    mcp: dict[str, dict[str, int]] = {}
    for r in rows(snap, "mcp_wrapper_keysets"):
        mcp.setdefault(r["name"], {})[r["input_keyset"]] = r["calls"]
    assert mcp == planted["mcp_wrapper_keysets"]


def test_lifecycle_figures(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    te = rows(snap, "turn_ended")[0]
    assert te["files_with_turn_ended"] == planted["files_with_turn_ended"]
    assert te["files_without_turn_ended"] == planted["files_without_turn_ended"]
    assert te["turn_ended_last"] == planted["turn_ended_last"]
    assert te["turn_ended_not_last"] >= 1  # the generator plants one on purpose


def test_lineage_and_sidecars(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    ln = rows(snap, "lineage")[0]
    assert ln["pairs"] == planted["subagent_pairs"]
    assert ln["child_id_in_parent"] == planted["child_id_in_parent"]
    assert ln["dir_id_equals_file_id"] == planted["nested_dir_equals_file"]
    at = rows(snap, "agent_tools")[0]
    sizes = planted["agent_tools_sizes"]
    assert (at["files"], at["min_bytes"], at["max_bytes"]) == (len(sizes), min(sizes), max(sizes))
    assert at["p50_bytes"] == quantile_disc(sizes, 0.5)
    rb = {r["via"]: r["calls"] for r in rows(snap, "readback_refs")}
    assert rb.get("agent_tools_path", 0) == planted["readback_refs"]["input.path"]
    assert rb.get("agent_tools_command", 0) == planted["readback_refs"]["input.command"]


def test_payload_percentiles(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    pl = rows(snap, "payload_lengths")[0]
    a = planted["payload_lengths"]
    everything = a + planted["payload_lengths_user"]
    assert pl["assistant_payloads"] == len(a)
    assert (pl["p50"], pl["p90"], pl["p99"], pl["max"]) == (
        quantile_disc(a, 0.5), quantile_disc(a, 0.9), quantile_disc(a, 0.99), max(a))
    assert pl["max_including_user"] == max(everything)


def test_assistant_pair_relations(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    ap = rows(snap, "assistant_pairs")[0]
    for k, v in planted["assistant_pairs"].items():
        assert ap[k] == v, k


def test_text_markers_are_counted_by_both_greps(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    ev = {p["id"]: p for p in load_json(snap, "evidence")["probes"]}
    assert ev["marker_ellipsis"]["duckdb"]["occurrences"] == planted["text_markers"]["[...]"]
    assert ev["marker_truncated"]["duckdb"]["occurrences"] == planted["text_markers"]["[truncated]"]
    assert all(p["agree"] for p in ev.values())


def test_legacy_headings_value_map(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    got = {r["name"]: r["headings"] for r in rows(snap, "legacy_headings")}
    # names outside the reviewed vocabulary (an MCP-style name here) are withheld, not printed
    _keys, values = load_vocab("cursor")
    want: dict[str, int] = {}
    for name, n in planted["legacy_tool_headings"].items():
        k = name if name in values["heading:tool_call"] else "<withheld>"
        want[k] = want.get(k, 0) + n
    assert got == want


def test_headline_claims_are_stated_with_evidence(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    c = claims(snap)
    assert c["agent_tools_count"].value == planted["files"]["agent_tools"]
    tu = planted["block_keysets"]["tool_use"]
    with_id = sum(v for ks, v in tu.items() if {"id", "tool_use_id", "call_id"} & set(ks.split(",")))
    assert c["tool_use_keyset"].value == [tu.get("input,name,type", 0), sum(tu.values()), with_id]
    for claim in c.values():
        assert claim.evidence and all(e.command for e in claim.evidence)


def test_page_renders_every_figure_from_the_snapshot(cursor_survey) -> None:
    planted, res, _snap = cursor_survey
    page = Path(res.page).read_text()
    assert "## Not observed" in page and "## Evidence" in page
    assert f"| Subagent files | {planted['files']['subagent']:,} " in page
    assert "up to 39 tool_use blocks" in page


def test_payload_percentiles_from_a_histogram_equal_duckdbs_quantile_disc(tmp_path: Path) -> None:
    """payload_lengths.sql reads exact percentiles off a histogram of lengths (bounded memory);
    DuckDB's own quantile_disc over every value must agree, edge cases included."""
    import random

    import duckdb
    import polars as pl

    sql = Path("survey/runtimes/cursor/queries/payload_lengths.sql").read_text()
    rng = random.Random(7)
    cases = [[], [("user", 5)], [("assistant", 9)], [("assistant", 3)] * 4 + [("user", 1)]]
    for n in (2, 3, 10, 99, 100, 101, 1000):
        cases.append([(rng.choice(["assistant", "assistant", "user"]), rng.choice([0, 1, 2, 7, 7, 40, 10**5]))
                      for _ in range(n)])
    con = duckdb.connect()
    for i, case in enumerate(cases):
        snap = tmp_path / str(i)
        (snap / "walk").mkdir(parents=True)
        frames = pl.DataFrame({"file_id": ["f-0000000000000001"] * len(case), "file_key": [1] * len(case),
                               "line_no": list(range(len(case))), "role": [r for r, _ in case]},
                              schema={"file_id": pl.String, "file_key": pl.UInt64, "line_no": pl.Int64,
                                      "role": pl.String})
        blocks = frames.select("file_id", "file_key", "line_no").with_columns(
            payload_len=pl.Series([n for _, n in case], dtype=pl.Int64))
        frames.write_parquet(snap / "walk" / "frames.parquet")
        blocks.write_parquet(snap / "walk" / "blocks.parquet")
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        got = con.execute(sql).fetchone()
        a = [n for r, n in case if r == "assistant"]
        want = con.execute(
            "SELECT count(x), quantile_disc(x, 0.5), quantile_disc(x, 0.9), quantile_disc(x, 0.99), max(x) "
            "FROM (SELECT unnest(?::BIGINT[]) AS x)", [a]).fetchone()
        assert got[:5] == want, (i, case)
        assert got[5] == (max(n for _, n in case) if case else None)
        assert got[6] == len(case)
