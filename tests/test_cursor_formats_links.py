"""Value formats and links of the Cursor desktop store and stream-json pages, against planted truth.

The desktop generator plants a composerId that is not a UUID on every fourth composer, a tool
call whose result disagrees with its status every eleventh call, an empty draft and an empty
composer that is no draft; the stream-json generator plants ``timestamp_ms`` in epoch seconds
and ``duration_ms`` as a string at known rates. Each figure is counted here a second time from
the files (``sqlite3`` on a copy, ``json``), never from the census, and the claim's sentence
and value must carry it. The real samples, where present, are held to the same recount.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from survey.evidence.claims import fmt, pct
from survey.synth import cursor_desktop, cursor_stream
from tests.conftest import CORPORA
from tests.test_cursor_stores import claims, survey

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DONE = ("completed", "error")
REAL_DESKTOP = CORPORA / "cursor-desktop" / "User"
REAL_STREAM = CORPORA / "cursor-stream-json"


# --------------------------------------------------------------------------- plain recounts


def desktop_recount(user: Path, scratch: Path) -> dict[str, Any]:
    """composerId formats, composers with and without bubble rows (and drafts), results by
    status: from a copy of the store with ``sqlite3`` and ``json`` alone."""
    db = user / "globalStorage" / "state.vscdb"
    scratch.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(db, scratch / "state.vscdb")
    con = sqlite3.connect(f"file:{scratch / 'state.vscdb'}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    ids: Counter[str] = Counter()
    drafts: set[str] = set()
    if "composerHeaders" in tables:
        for (v,) in con.execute("SELECT value FROM composerHeaders"):
            head = json.loads(v)
            ids["uuid" if UUID.fullmatch(head["composerId"]) else "other"] += 1
            if head.get("isDraft") is True:
                drafts.add(head["composerId"])
    composers: set[str] = set()
    with_rows: set[str] = set()
    results: dict[str, Counter[str]] = {}
    for key, v in con.execute("SELECT key, value FROM cursorDiskKV"):
        parts = key.split(":")
        if parts[0] == "composerData":
            composers.add(parts[1])
            doc = json.loads(v)
            ids["uuid" if UUID.fullmatch(doc["composerId"]) else "other"] += 1
            if doc.get("isDraft") is True:
                drafts.add(parts[1])
        elif parts[0] == "bubbleId":
            with_rows.add(parts[1])
            try:
                tfd = json.loads(v).get("toolFormerData")
            except ValueError:
                continue
            if isinstance(tfd, dict):
                c = results.setdefault(tfd.get("status") or "<no status>", Counter())
                c["calls"] += 1
                c["with_result"] += isinstance(tfd.get("result"), str)
    con.close()
    return {"ids": ids, "composer_bubbles": {
        "with_bubbles": len(composers & with_rows), "without_bubbles": len(composers - with_rows),
        "drafts": len(composers & drafts), "drafts_without_bubbles": len((composers & drafts) - with_rows)},
        "results": {s: dict(c) for s, c in results.items()}}


def stream_recount(root: Path) -> dict[str, Counter[str]]:
    ts: Counter[str] = Counter()
    dur: Counter[str] = Counter()
    for p in sorted(root.rglob("*.jsonl")):
        for line in p.read_bytes().split(b"\n"):
            try:
                o = json.loads(line)
            except ValueError:
                continue
            if not isinstance(o, dict):
                continue
            t = o.get("timestamp_ms")
            if isinstance(t, int) and not isinstance(t, bool):
                ts["epoch_ms" if 946_684_800_000 <= t < 4_102_444_800_000 else "other"] += 1
            elif "timestamp_ms" in o:
                ts["other"] += 1
            d = o.get("duration_ms")
            if "duration_ms" in o:
                dur["number" if isinstance(d, int | float) and not isinstance(d, bool) and d < 946_684_800 else "other"] += 1
    return {"timestamp_ms": ts, "duration_ms": dur}


# --------------------------------------------------------------------------- expected sentences


def composer_text(cb: dict[str, int]) -> str:
    w, wo, d, de = cb["with_bubbles"], cb["without_bubbles"], cb["drafts"], cb["drafts_without_bubbles"]
    t = w + wo
    return (f"{fmt(w)} of {fmt(t)} composers (composerData cells) have bubbleId rows of their id in the same store "
            f"({pct(w, t)})" + (f"; {fmt(wo)} have none (empty composers: no message to read)" if wo else "; none is empty")
            + ((f". 1 composer is marked isDraft, and it has {'no' if de else 'some'} bubbleId rows" if d == 1 else
                f". {fmt(d)} composers are marked isDraft, {fmt(de)} of them without bubbleId rows"
                + (f" ({fmt(d - de)} with some)" if de < d else "")) if d else ". No composer is marked isDraft")
            + (f"; {fmt(wo - de)} of the empty composers {'is' if wo - de == 1 else 'are'} not marked as a draft."
               if wo else "."))


def result_text(by: dict[str, dict[str, int]]) -> str:
    done = sum(v["calls"] for s, v in by.items() if s in DONE)
    done_res = sum(v["with_result"] for s, v in by.items() if s in DONE)
    rest = sum(v["calls"] for s, v in by.items() if s not in DONE)
    rest_res = sum(v["with_result"] for s, v in by.items() if s not in DONE)
    broken = done - done_res + rest_res
    return (f"A toolFormerData result string is present in {fmt(done_res)} of {fmt(done)} calls whose status is "
            f"completed or error, "
            + (f"and in {fmt(rest_res)} of {fmt(rest)} calls of any other status" if rest else "and no call has another status")
            + (" (" + ", ".join(f"{s} {fmt(v['with_result'])} of {fmt(v['calls'])}" for s, v in sorted(by.items())
                                if s not in DONE) + ")" if rest else "")
            + (": a result is present exactly when the status is completed or error, in every call." if not broken
               else f": {fmt(broken)} call{'s do' if broken != 1 else ' does'} not (a result with another status, "
                    "or none with completed or error)."))


def format_text(what: str, label: str, ok: int, other: dict[str, int]) -> str:
    total = ok + sum(other.values())
    return (f"{what}: {fmt(ok)} of {fmt(total)} values are {label}"
            + ("." if not other else "; the others: "
               + ", ".join(f"{f} {fmt(n)}" for f, n in sorted(other.items(), key=lambda kv: (-kv[1], kv[0]))) + "."))


# --------------------------------------------------------------------------- desktop


@pytest.fixture(scope="module", params=[{"variant": "modern"}, {"variant": "real_like"},
                                        {"variant": "modern", "seed": 8, "sessions": 9}],
                ids=["modern", "real_like", "seed8x9"])
def desktop(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("desktop-formats-links")
    planted = cursor_desktop.generate(base / "User", **request.param)
    _res, snap = survey("cursor_desktop", base / "User", base)
    return {"planted": planted, "claims": claims(snap),
            "recount": desktop_recount(base / "User", base / "scratch"), "headers": request.param["variant"] == "modern"}


def test_desktop_plants_each_violation(desktop: dict[str, Any]) -> None:
    p, r = desktop["planted"], desktop["recount"]
    assert p["composer_ids_not_uuid"] >= 1 and p["composer_bubbles"]["without_bubbles"] == 2
    assert p["composer_bubbles"] == r["composer_bubbles"]
    # the non-UUID composers: their composerData, and their header where the table exists
    assert r["ids"]["other"] == p["composer_ids_not_uuid"] * (2 if desktop["headers"] else 1)
    assert p["tool_results"] == r["results"]
    broken = sum(v["calls"] - v["with_result"] if s in DONE else v["with_result"] for s, v in r["results"].items())
    # every RESULT_FLIP_EVERY-th call (by its order of writing) breaks the rule once
    assert broken == sum(v["calls"] for v in r["results"].values()) // cursor_desktop.RESULT_FLIP_EVERY >= 1


def test_desktop_composer_id_format_claim(desktop: dict[str, Any]) -> None:
    c, ids = desktop["claims"]["fmt_composer_id"], desktop["recount"]["ids"]
    assert c["text"] == format_text("`composerId` of composerData documents and composer headers", "UUIDs",
                                    ids["uuid"], {"hex32": ids["other"]} if ids["other"] else {})
    assert (c["value"]["expected"], c["value"]["total"]) == (ids["uuid"], ids["uuid"] + ids["other"])


def test_desktop_empty_composers_claim(desktop: dict[str, Any]) -> None:
    c, cb = desktop["claims"]["link_composer_bubbles"], desktop["recount"]["composer_bubbles"]
    assert c["text"] == composer_text(cb) and c["value"] == cb
    assert c["kind"] == "rate" and c["evidence"][0]["source"].endswith("queries/composer_bubbles.sql")
    assert (cb["drafts"] == 1) == desktop["headers"] and ("No composer is marked isDraft" in c["text"]) != desktop["headers"]


def test_desktop_result_status_claim(desktop: dict[str, Any]) -> None:
    c, by = desktop["claims"]["link_tool_result_status"], desktop["recount"]["results"]
    assert c["text"] == result_text(by)
    assert c["value"]["by_status"] == by and c["value"]["breaks"] >= 1 and c["value"]["other_type"] == 0
    assert c["evidence"][0]["source"].endswith("queries/tool_result_status.sql")
    assert "link_tool_result_status" in desktop["claims"]["links"]["value"]


@pytest.mark.skipif(not REAL_DESKTOP.is_dir(), reason=f"real desktop sample absent at {REAL_DESKTOP}")
def test_real_desktop_sample_against_a_plain_recount(tmp_path: Path) -> None:
    _res, snap = survey("cursor_desktop", REAL_DESKTOP, tmp_path)
    cl = claims(snap)
    r = desktop_recount(REAL_DESKTOP, tmp_path / "scratch")
    assert cl["link_composer_bubbles"]["value"] == r["composer_bubbles"]
    assert cl["link_tool_result_status"]["value"]["by_status"] == r["results"]
    assert cl["link_tool_result_status"]["text"] == result_text(r["results"])
    assert (cl["fmt_composer_id"]["value"]["expected"], cl["fmt_composer_id"]["value"]["total"]) == \
        (r["ids"]["uuid"], r["ids"]["uuid"] + r["ids"]["other"])


# --------------------------------------------------------------------------- stream-json


@pytest.fixture(scope="module", params=[{}, {"seed": 11, "sessions": 30}], ids=["seed7", "seed11x30"])
def stream(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("stream-formats")
    planted = cursor_stream.generate(base / "root", **request.param)
    _res, snap = survey("cursor_stream", base / "root", base)
    return {"planted": planted, "claims": claims(snap), "recount": stream_recount(base / "root")}


def test_stream_plants_and_the_recount_agree(stream: dict[str, Any]) -> None:
    p, r = stream["planted"], stream["recount"]
    assert p["timestamp_ms"].get("epoch_ms", 0) == r["timestamp_ms"]["epoch_ms"]
    assert p["timestamp_ms"].get("epoch_s", 0) == r["timestamp_ms"]["other"]
    assert p["duration_ms"].get("number", 0) == r["duration_ms"]["number"]
    assert p["duration_ms"].get("string", 0) == r["duration_ms"]["other"]


def test_stream_timestamp_and_duration_claims(stream: dict[str, Any]) -> None:
    p, cl = stream["planted"], stream["claims"]
    ts, dur = p["timestamp_ms"], p["duration_ms"]
    assert cl["fmt_timestamp_ms"]["text"] == format_text(
        "event `timestamp_ms`", "millisecond epoch numbers", ts.get("epoch_ms", 0),
        {"epoch_s": ts["epoch_s"]} if ts.get("epoch_s") else {})
    assert cl["fmt_duration_ms"]["text"] == format_text(
        "result `duration_ms`", "plain numbers (not strings, not epochs)", dur.get("number", 0),
        {"text": dur["string"]} if dur.get("string") else {})
    assert "fmt_timestamp_ms" in cl["value_formats"]["extra"]["checks"]


def test_a_larger_stream_run_plants_both_violations(tmp_path: Path) -> None:
    p = cursor_stream.generate(tmp_path / "root", seed=11, sessions=30)
    assert p["timestamp_ms"].get("epoch_s", 0) >= 1 and p["duration_ms"].get("string", 0) >= 1


@pytest.mark.skipif(not REAL_STREAM.is_dir(), reason=f"real stream-json captures absent at {REAL_STREAM}")
def test_real_stream_captures_against_a_plain_recount(tmp_path: Path) -> None:
    _res, snap = survey("cursor_stream", REAL_STREAM, tmp_path)
    cl = claims(snap)
    r = stream_recount(REAL_STREAM)
    assert (cl["fmt_timestamp_ms"]["value"]["expected"], cl["fmt_timestamp_ms"]["value"]["total"]) == \
        (r["timestamp_ms"]["epoch_ms"], sum(r["timestamp_ms"].values()))
    assert (cl["fmt_duration_ms"]["value"]["expected"], cl["fmt_duration_ms"]["value"]["total"]) == \
        (r["duration_ms"]["number"], sum(r["duration_ms"].values()))


def test_a_folder_without_a_store_determines_neither_relation(tmp_path: Path) -> None:
    root = tmp_path / "User" / "workspaceStorage" / "abc"
    root.mkdir(parents=True)
    (root / "workspace.json").write_text('{"folder": "file:///w"}')
    _res, snap = survey("cursor_desktop", tmp_path / "User", tmp_path)
    cl = claims(snap)
    assert cl["link_composer_bubbles"]["provenance"] == "not determined"
    assert cl["link_tool_result_status"]["provenance"] == "not determined"
    assert "fmt_composer_id" not in cl  # no value at the path: no format claim


def test_canaried_ids_results_and_params_stay_inside(tmp_path: Path) -> None:
    planted = cursor_desktop.generate(tmp_path / "User", seed=5, canaries=True)
    _res, snap = survey("cursor_desktop", tmp_path / "User", tmp_path)
    cl = claims(snap)
    said = json.dumps([cl[c] for c in ("fmt_composer_id", "link_composer_bubbles", "link_tool_result_status")])
    assert planted["canaries"] and not [c for c in planted["canaries"] if c in said]
    # canaried ids are no UUIDs: the format claim counts them as other classes, naming none
    assert cl["fmt_composer_id"]["value"]["expected"] == 0 and "cnry" not in said
