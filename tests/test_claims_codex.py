"""The Codex page's sentences, each held to figures read back from the corpus.

Three corpora: the seeded Codex generator's rollouts with a flat (archived) rollout, a rollout
without a uuid in its name and one file that is not a rollout; a single rollout whose header
carries no version and that holds no call, output or token counter; and a rollout whose calls
carry no call_id and whose token counter falls outside a compaction. Each expected figure is
counted here from the files with the standard library (``json``, ``collections.Counter``),
never taken from the census, and every sentence is compared whole.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from survey.evidence.claims import fmt, pct

from .claims_util import claims_from, jsonl_objects, layout_text, snapshot_of, surveyed_claims

DATED = re.compile(r"^\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$")
FLAT = re.compile(r"^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$")
UNNAMED = re.compile(r"^(?:\d{4}/\d{2}/\d{2}/)?rollout-[^/]*\.jsonl$")
CALLS = ("function_call", "custom_tool_call", "tool_search_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")
ENVELOPE = {"timestamp", "type", "payload"}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TEXT_EXIT = re.compile(r"Process exited with code -?\d+|Exit code: -?\d+")


def _cls(o: dict) -> str:
    p = o.get("payload")
    return f"{o['type']}/{p['type']}" if isinstance(p, dict) and isinstance(p.get("type"), str) else str(o["type"])


def read(root: Path) -> dict[str, Any]:
    """The figures the sentences state, counted from the files with the standard library."""
    files = [p for p in sorted(root.rglob("*")) if p.is_file()]
    surf: Counter[str] = Counter()
    for p in files:
        rel = p.relative_to(root).as_posix()
        surf["rollout" if DATED.match(rel) else "archived_rollout" if FLAT.match(rel)
             else "rollout_unnamed" if UNNAMED.match(rel) else "other"] += 1
    status: Counter[str] = Counter()
    recs: list[dict] = []
    per_file: list[list[dict]] = []
    for p in files:
        if p.suffix != ".jsonl":
            continue
        mine = jsonl_objects(p, status)
        recs += mine
        per_file.append(mine)
    classes = Counter(_cls(o) for o in recs)
    keysets = {(_cls(o), ",".join(sorted(o))) for o in recs}
    env = sum(1 for o in recs if set(o) == ENVELOPE)
    heads = [[o for o in f if o["type"] == "session_meta"] for f in per_file]
    first_v = Counter(h[0]["payload"]["cli_version"] for h in heads if h and "cli_version" in h[0]["payload"])
    hdr = sum(len(h) for h in heads)
    hdr_v = sum(1 for h in heads for o in h if "cli_version" in o["payload"])
    calls = [o for o in recs if _cls(o).split("/")[-1] in CALLS and o["type"] == "response_item"]
    outs = [o for o in recs if _cls(o).split("/")[-1] in OUTPUTS and o["type"] == "response_item"]
    paired = unp_calls = unp_outs = 0
    for f in per_file:
        cid = {o["payload"]["call_id"] for o in f if o["type"] == "response_item" and _cls(o).split("/")[-1] in CALLS
               and "call_id" in o["payload"]}
        oid = [o["payload"].get("call_id") for o in f if o["type"] == "response_item"
               and _cls(o).split("/")[-1] in OUTPUTS and "call_id" in o["payload"]]
        paired += sum(1 for i in oid if i in cid)
        unp_outs += sum(1 for i in oid if i not in cid)
        unp_calls += len(cid - set(oid))
    by_out = Counter(_cls(o).split("/")[-1] for o in outs)
    num_exit = Counter(_cls(o) for o in recs if _cls(o) == "event_msg/exec_command_end" and "exit_code" in o["payload"])
    num_exit += Counter(_cls(o) for o in recs if _cls(o) == "event_msg/item_completed"
                        and isinstance(o["payload"].get("item"), dict) and "exit_code" in o["payload"]["item"])
    text_exit = sum(1 for o in outs if isinstance(o["payload"].get("output"), str) and TEXT_EXIT.search(o["payload"]["output"]))
    tc_events = tc_files = drops = at_comp = repeats = 0
    for f in per_file:
        prev, comp, seen = None, False, False
        for o in f:
            if o["type"] == "compacted":
                comp = True
            info = o["payload"].get("info") if _cls(o) == "event_msg/token_count" else None
            tu = info.get("total_token_usage") if isinstance(info, dict) else None
            if not isinstance(tu, dict):
                continue
            tc_events += 1
            seen = True
            tot = tu["total_tokens"]
            if prev is not None and tot < prev:
                drops += 1
                at_comp += comp
            repeats += prev is not None and tot == prev
            prev, comp = tot, False
        tc_files += seen
    return {"root": root, "files": len(files), "surfaces": surf, "status": status, "records": len(recs), "classes": classes,
            "keysets": len(keysets), "envelope": env, "other_keysets": len({k for _, k in keysets if set(k.split(",")) != ENVELOPE}),
            "ts": sum(1 for o in recs if "timestamp" in o), "versions": first_v, "headers": hdr, "headers_v": hdr_v,
            "header_files": sum(1 for h in heads if h), "several": sum(1 for h in heads if len(h) > 1),
            "calls": len(calls), "calls_id": sum(1 for o in calls if "call_id" in o["payload"]),
            "outputs": len(outs), "outputs_id": sum(1 for o in outs if "call_id" in o["payload"]),
            "paired": paired, "unpaired_calls": unp_calls, "unpaired_outputs": unp_outs, "by_out": by_out,
            "exit_num": dict(num_exit), "exit_text": text_exit,
            "usage": (tc_events, tc_files, drops, at_comp, repeats)}


def expected_text(t: dict[str, Any]) -> dict[str, str]:
    s = t["surfaces"]
    seen = [n for n in ("rollout", "archived_rollout", "rollout_unnamed") if s[n]]
    unseen = [n for n in ("rollout", "archived_rollout", "rollout_unnamed") if not s[n]]
    nc, ni, no, nio = t["calls"], t["calls_id"], t["outputs"], t["outputs_id"]
    if not nc:
        native = "No call record was observed."
    elif not ni:
        native = (f"Calls carry no native id: none of {fmt(nc)} call records has a `call_id`, so an output cannot "
                  "be joined to its call by id.")
    else:
        native = (("Calls carry a native id" if ni == nc else "Only some calls carry a native id")
                  + f": `call_id` on {fmt(ni)} of {fmt(nc)} call records and {fmt(nio)} of {fmt(no)} output records. "
                  f"Within a rollout, {fmt(t['paired'])} outputs answer a call; {fmt(t['unpaired_calls'])} calls with an "
                  f"id have no output; {fmt(t['unpaired_outputs'])} outputs name no call of their file.")
    v = sorted(t["versions"])
    ev, ef, dr, ac, rp = t["usage"]
    if ev:
        falls = f"total falls {fmt(dr)} times ({fmt(ac)} at a compaction)" if dr else "total never falls"
        usage = (f"{fmt(ev)} token_count events in {fmt(ef)} files carry total_token_usage; the {falls} and {fmt(rp)} "
                 "events repeat the previous total"
                 + (": a cumulative counter" + (", reset only at compaction" if dr else "")
                    + ". Use the last total per window, never a sum of events." if dr == ac else
                    f": {fmt(dr - ac)} falls are not at a compaction, so the total is not cumulative throughout."))
    else:
        usage = "No token_count event carries total_token_usage: usage was not observed."
    num = sum(t["exit_num"].values())
    return {
        "basis_files": f"The corpus holds {fmt(t['files'])} files: {fmt(s['rollout'])} rollouts in the dated layout, "
                       f"{fmt(s['archived_rollout'])} flat (archived) rollouts, {fmt(s['rollout_unnamed'])} rollouts "
                       f"without a uuid in their name and {fmt(s['other'])} other files.",
        "layout_tail": (f"; {fmt(s['other'])} other files" if s["other"] else "")
                       + (f". No file matched: {', '.join(unseen)}." if unseen else "."),
        "layout_seen": ",".join(seen),
        "record_totals": f"Records: {fmt(sum(t['status'].values()))} lines read, {fmt(t['records'])} parsed (the rest "
                         "are counted under Problems). Every record figure below counts parsed records.",
        "envelope": f"{fmt(t['envelope'])} of {fmt(t['records'])} records ({pct(t['envelope'], t['records'])}) have "
                    "exactly the top-level keys {timestamp, type, payload}"
                    + (f"; {t['other_keysets']} other top-level key sets occur (table below)." if t["other_keysets"] else "."),
        "client_version": (f"`cli_version` is on {fmt(t['headers_v'])} of {fmt(t['headers'])} session_meta headers (in "
                           f"{fmt(sum(t['versions'].values()))} of {fmt(t['header_files'])} rollouts with a header): "
                           f"{len(v)} versions ({v[0]} to {v[-1]}) by each rollout's first header; 0 rollouts hold "
                           "headers of more than one version (each counted once). Shapes below can be stratified by it.")
                          if t["headers_v"] else
                          f"No session_meta header carries `cli_version` ({fmt(t['headers'])} headers): shapes cannot "
                          "be stratified by client version here.",
        "native_call_id": native,
        "results_recorded": ("Outputs are recorded as their own records: "
                             + ", ".join(f"{c} {fmt(n)}" for c, n in t["by_out"].items()) + ".") if no
                            else "No output record was observed.",
        "usage": usage,
        "model_call_id": (f"`payload.call_id` (on {fmt(ni)} of {fmt(nc)} call records and {fmt(nio)} of {fmt(no)} "
                          "output records)") if ni else f"none observed ({fmt(nc)} calls, none with a `call_id`)",
        "model_result": f"recorded: {fmt(no)} output records" if no else "not observed",
        "model_outcome": f"exit code as text in {fmt(t['exit_text'])} outputs, as a number in {fmt(num)} records; "
                         "no is_error key",
        "exit_codes": "Exit codes stated as text inside outputs (`Process exited with code N`, `Exit code: N`): "
                      f"{fmt(t['exit_text'])} records"
                      + ("; as a number in " + ", ".join(f"{c.split('/')[-1]} {fmt(n)}" for c, n in sorted(t["exit_num"].items()))
                         if t["exit_num"] else "; no record carries one as a number") + ".",
    }


def _rollout(recs: list[dict]) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in recs)


def _r(t: str, payload: dict, ts: bool = True) -> dict:
    return {**({"timestamp": "2026-01-05T00:00:00.000Z"} if ts else {}), "type": t, "payload": payload}


UID = "019b8c3e-0000-7000-8000-000000000001"
META = {"id": UID, "timestamp": "2026-01-05T00:00:00.000Z", "cwd": "w", "originator": "o", "source": "cli"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    from survey.synth.codex import generate

    base = tmp_path_factory.mktemp("codex")
    root = base / "corpus"
    generate(root, seed=7, sessions=10)
    first = sorted(root.rglob("rollout-*.jsonl"))[0]
    (root / first.name).write_bytes(first.read_bytes().replace(b'"cli_version"', b'"cli_versio_"', 1))
    (root / "rollout-unnamed.jsonl").write_bytes(_rollout([_r("session_meta", META), {"type": "world_state", "payload": {}}]))
    (root / "rollout-headless.jsonl").write_bytes(_rollout([{"type": "world_state", "payload": {}}]))
    (root / "notes.txt").write_bytes(b"not a rollout\n")
    return read(root), surveyed_claims("codex", root, base)


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """One rollout: a header without a version, a turn context and a message; no call, output,
    exit code or token counter."""
    base = tmp_path_factory.mktemp("codex-bare")
    root = base / "corpus" / "2026" / "01" / "05"
    root.mkdir(parents=True)
    (root / f"rollout-2026-01-05T00-00-00-{UID}.jsonl").write_bytes(_rollout([
        _r("session_meta", META), _r("turn_context", {"model": "m", "cwd": "w"}),
        _r("response_item", {"type": "message", "role": "user", "content": []}),
        _r("event_msg", {"type": "token_count", "info": None})]))
    return read(base / "corpus"), surveyed_claims("codex", base / "corpus", base)


@pytest.fixture(scope="module")
def no_ids(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """Calls without a call_id, an output, and a token total that falls with no compaction."""
    base = tmp_path_factory.mktemp("codex-noid")
    root = base / "corpus" / "2026" / "01" / "05"
    root.mkdir(parents=True)

    def tc(n: int) -> dict:
        return _r("event_msg", {"type": "token_count", "info": {"total_token_usage": {"total_tokens": n}}})

    (root / f"rollout-2026-01-05T00-00-00-{UID}.jsonl").write_bytes(_rollout([
        _r("session_meta", {**META, "cli_version": "0.140.0"}),
        _r("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{}"}),
        _r("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{}"}),
        _r("response_item", {"type": "function_call_output", "call_id": "c1", "output": "Exit code: 1"}),
        tc(10), tc(10), tc(4), tc(4), _r("compacted", {"message": ""}), tc(2), tc(7)]))
    return read(base / "corpus"), surveyed_claims("codex", base / "corpus", base)


@pytest.fixture
def corpora(generated, bare, no_ids) -> list[tuple[dict[str, Any], dict[str, dict]]]:
    return [generated, bare, no_ids]


def test_the_planted_corpora_show_every_case(generated, bare, no_ids) -> None:
    t = generated[0]
    assert all(t["surfaces"][s] for s in ("rollout", "archived_rollout", "rollout_unnamed", "other"))
    assert t["headers_v"] < t["headers"] and t["unpaired_calls"] and t["unpaired_outputs"] and t["exit_num"]
    rollouts = sum(t["surfaces"][s] for s in ("rollout", "archived_rollout", "rollout_unnamed"))
    assert sum(t["versions"].values()) < t["header_files"] < rollouts  # a first header without a version; no header
    assert t["usage"][2] == t["usage"][3] > 0 and t["other_keysets"]
    b = bare[0]
    assert (b["calls"], b["outputs"], b["headers_v"], b["usage"][0]) == (0, 0, 0, 0)
    n = no_ids[0]
    assert (n["calls"], n["calls_id"], n["outputs"]) == (2, 0, 1)
    assert n["usage"] == (6, 1, 2, 1, 2)


SENTENCES = ("basis_files", "record_totals", "envelope", "client_version", "native_call_id", "results_recorded",
             "usage", "model_call_id", "model_result", "model_outcome", "exit_codes")


@pytest.mark.parametrize("cid", SENTENCES)
def test_each_sentence_states_the_counted_figures(cid: str, corpora) -> None:
    for t, claims in corpora:
        assert claims[cid]["text"] == expected_text(t)[cid], cid


def test_layout_names_the_surfaces_seen_and_unseen(corpora) -> None:
    for t, claims in corpora:
        text, want = claims["layout"]["text"], expected_text(t)
        assert text.endswith(want["layout_tail"])
        assert claims["layout"]["value"] == {s: t["surfaces"][s] for s in want["layout_seen"].split(",") if s}
        assert claims["basis_files"]["value"] == {"total": t["files"], **{k: t["surfaces"][k] for k in
                                                  ("rollout", "archived_rollout", "rollout_unnamed", "other")}}


def more(root: Path) -> dict[str, Any]:
    """Figures for the identity, tool, argument and size sentences, counted as ``read`` does."""
    per_file = []
    for p in sorted(root.rglob("*.jsonl")):
        per_file.append(jsonl_objects(p))
    recs = [o for f in per_file for o in f]
    heads = [[o for o in f if o["type"] == "session_meta"] for f in per_file]
    kids = sum(1 for h in heads if h and h[0]["payload"].get("session_id") not in (None, h[0]["payload"]["id"]))
    fc = [o["payload"] for o in recs if _cls(o) == "response_item/function_call"]
    custom = [o["payload"] for o in recs if _cls(o) == "response_item/custom_tool_call"]
    args = [a["arguments"] for a in fc if "arguments" in a]
    objs = 0
    for a in args:
        with contextlib.suppress(ValueError):
            objs += isinstance(a, str) and isinstance(json.loads(a), dict)
    sizes = [(i, len(o["payload"]["output"].encode())) for i, f in enumerate(per_file) for o in f
             if o["type"] == "response_item" and isinstance(o["payload"].get("output"), str)]
    top = max((n for _, n in sizes), default=0)
    ns = sum(1 for a in fc if "namespace" in a)
    untimed = sorted({_cls(o) for o in recs if "timestamp" not in o})
    # distinct payload.id values of response_item records (a header's id is the rollout's, not an item's)
    items = {o["payload"]["id"] for o in recs if o["type"] == "response_item" and isinstance(o.get("payload"), dict)
             and isinstance(o["payload"].get("id"), str)}
    cids = {o["payload"]["call_id"] for o in recs if isinstance(o.get("payload"), dict) and "call_id" in o["payload"]}
    return {"kids": kids, "header_files": sum(1 for h in heads if h),
            "per_file": Counter(str(len(h)) for h in heads),
            "calls": len(fc) + len(custom), "namespace": ns,
            "arguments": [objs, sum(isinstance(a, str) for a in args), sum(not isinstance(a, str) for a in args)],
            "cap": [top, len({i for i, n in sizes if n == top})], "untimed": untimed,
            "items": {"equal": sum(1 for i in items if i in cids), "items": len(items)},
            "custom_status": Counter(c.get("status") for c in custom)}


def test_headlines(corpora) -> None:
    for _, claims in corpora:
        assert claims["file_identity"]["headline"] and claims["usage"]["headline"]
        assert claims["native_call_id"]["headline"] and claims["client_version"]["headline"]
        assert not any(claims[c]["headline"] for c in ("basis_files", "headers", "subagent_files", "fixtures",
                                                     "oversized_output", "tool_names", "exit_codes"))


@pytest.fixture(scope="module")
def figures(generated, bare, no_ids) -> list[tuple[dict[str, Any], dict[str, dict]]]:
    return [(more(t["root"]), c) for t, c in (generated, bare, no_ids)]


def test_children_tools_arguments_items_and_caps(figures) -> None:
    for m, claims in figures:
        assert claims["subagent_files"]["value"] == m["kids"]
        assert claims["headers"]["value"]["per_file"] == dict(m["per_file"])
        several = sum(n for h, n in m["per_file"].items() if int(h) > 1)
        assert claims["headers"]["text"].startswith(f"{fmt(several)} of {fmt(sum(m['per_file'].values()))} rollouts hold more "
                                                    "than one session_meta header")
        assert claims["headers"]["text"].endswith(". A reader must expect more than one header per file."
                                                  if several else "header.")
        assert claims["arguments"]["value"] == m["arguments"]
        o, s, x = m["arguments"]
        assert claims["arguments"]["text"] == (
            f"function_call arguments: a string in {fmt(s)} calls ({fmt(o)} of which decode as JSON to an object whose "
            f"keys are counted, never described), another JSON type in {fmt(x)}.")
        assert claims["item_ids"]["value"] == m["items"]
        eq, n = m["items"]["equal"], m["items"]["items"]
        assert claims["item_ids"]["text"] == (f"Response item ids (`payload.id`) equal a call_id in {fmt(eq)} of "
                                              f"{fmt(n)} cases" + (": an item id is not a call id here." if n and eq < n else "."))
        untimed = m["untimed"]
        assert claims["timestamps"]["value"]["without"] == untimed
        assert claims["timestamps"]["text"].endswith(f"; classes where some lack one: {', '.join(untimed)}." if untimed
                                                     else "carry a top-level `timestamp`.")
        tn = claims["tool_names"]
        assert sum(tn["value"]["names"].values()) == m["calls"] and tn["value"]["withheld_mcp"] == m["namespace"]
        assert tn["text"].startswith(f"{len({k.split(':', 1)[1] for k in tn['value']['names']} - {'<withheld>'})} "
                                     f"tool names shown over {fmt(m['calls'])} calls; {fmt(m['namespace'])} calls carry "
                                     "a namespace")
        assert tn["text"].endswith(("; withheld names: " + f"{fmt(m['namespace'])} MCP calls (a namespace beside the "
                                    "name; withheld by policy)" if m["namespace"] else "; no name was withheld")
                                   + ". Tool names are an open set.")
        st = m["custom_status"]
        ct = claims["constants"]["text"]
        assert ct.startswith(f"custom_tool_call.status is `{next(iter(st))}` in all {fmt(sum(st.values()))} records")\
            if len(st) == 1 else not ct.startswith("custom_tool_call")
        if m["cap"][1] > 1:
            assert claims["oversized_output"]["value"] == m["cap"]
            assert claims["oversized_output"]["provenance"] == "inferred"
            assert claims["oversized_output"]["text"] == (
                f"Outputs reach the same exact maximum of {fmt(m['cap'][0])} bytes in {fmt(m['cap'][1])} files: a "
                f"probable silent cap at {fmt(m['cap'][0])} bytes (nothing in the record says it was cut).")
        else:
            assert claims["oversized_output"]["value"] is None
            assert claims["oversized_output"]["text"] == ("No output (payload.output) length repeats as an exact "
                                                          "maximum across files: no silent cap on outputs was observed.")
            assert claims["oversized_output"]["evidence"][0]["result"] == "no row for payload.output"


def test_a_rollout_without_children_calls_or_counters_says_so(bare) -> None:
    _, c = bare
    assert c["child_in_parent"]["text"] == "No rollout is a subagent child (no first header's id differs from its session_id)."
    assert c["inherited_history"]["text"] == ("No child rollout holds records below a subagent_history_start_ordinal "
                                              "(0 child rollouts): no inherited history was observed.")
    assert c["fixtures"]["text"] == "Shapes this snapshot shows, each worth one fixture: none."
    assert c["fixtures"]["value"] == []
    assert c["event_joins"]["text"] == "Events that carry a call_id and name a call of their rollout: none."
    assert c["results_recorded"]["value"] == 0 and c["model_result"]["value"] == 0


def test_values_carry_the_counted_figures(corpora) -> None:
    for t, c in corpora:
        assert c["envelope"]["value"] == {"envelope": t["envelope"], "records": t["records"],
                                          "other_keysets": t["other_keysets"]}
        assert c["record_totals"]["value"] == {"read": sum(t["status"].values()), "ok": t["records"]}
        assert c["timestamps"]["value"]["with"] == t["ts"] and c["timestamps"]["value"]["records"] == t["records"]
        # rollouts without a header, and those whose first header has no version, each under their own label
        rollouts = sum(t["surfaces"][s] for s in ("rollout", "archived_rollout", "rollout_unnamed"))
        unnamed = {"(no session_meta)": rollouts - t["header_files"],
                   "(no cli_version)": t["header_files"] - sum(t["versions"].values())}
        versions = dict(t["versions"]) | {v: n for v, n in unnamed.items() if n}
        assert c["client_version"]["value"] == {"versions": versions,
            "headers_with_version": t["headers_v"], "files_mixing": 0}
        assert c["native_call_id"]["value"] == {"calls": t["calls"], "calls_with_id": t["calls_id"], "outputs": t["outputs"],
                                                "outputs_with_id": t["outputs_id"], "paired": t["paired"],
                                                "unpaired_calls": t["unpaired_calls"], "unpaired_outputs": t["unpaired_outputs"]}
        assert c["results_recorded"]["value"] == t["outputs"] == c["model_result"]["value"]
        assert c["model_call_id"]["value"] == t["calls_id"]
        assert c["exit_codes"]["value"] == {"text": t["exit_text"], **t["exit_num"]}
        assert c["model_outcome"]["value"] == {"exit": {"text": t["exit_text"], **t["exit_num"]}, "is_error": True}
        u = c["usage"]["value"]
        assert (u.get("token_counts", 0), u.get("files", 0), u.get("drops", 0), u.get("drops_at_compaction", 0),
                u.get("repeats", 0)) == t["usage"]
        rc = c["record_classes"]["value"]
        raw = rc["keysets_raw"]  # counted by the walk before masking (its own tests hold that figure)
        assert raw >= t["keysets"]
        assert rc == {"records": dict(sorted(t["classes"].items())), "keysets": t["keysets"], "masked_keysets": 0,
                      "keysets_raw": raw, "whole_corpus": True}
        subs = sorted({k.split("/")[0] for k in t["classes"] if "/" in k})
        assert c["record_classes"]["text"] == (
            f"{len(t['classes'])} record classes (named type"
            + (f", or type/payload.type where the payload has a type: {', '.join(subs)}" if subs
               else "; no payload carries a type")
            + f") over {fmt(t['records'])} records, with {fmt(t['keysets'])} distinct top-level key sets after masking "
            f"unreviewed keys; {fmt(raw)} distinct before masking; no set holds a masked key, so masking merged none. A reader must accept classes it does not know.")
        rows = sorted(versions.items(),
                      key=lambda kv: (kv[0].startswith("("), kv[0]))  # named versions first
        assert c["client_version"]["evidence"][1]["result"] == ("; ".join(f"{v} {n} files" for v, n in rows) or "none")


def test_layout_is_worded_from_the_surfaces(corpora) -> None:
    from survey.runtimes.codex import PROFILE

    desc = {s.name: s.description for s in PROFILE.surfaces}
    for t, c in corpora:
        text, result = layout_text(desc, t["surfaces"])
        assert (c["layout"]["text"], c["layout"]["evidence"][0]["result"]) == (text, result)


def test_absences_name_what_was_looked_for(corpora) -> None:
    for t, c in corpora:
        for cid, what in (("no_tool_use_id", "A tool_use_id key"), ("no_uuid_chain", "A per-record parentUuid chain"),
                          ("no_usage_object", "A usage object"), ("no_record_version", "A version key"),
                          ("no_is_error", "A per-call is_error key")):
            assert c[cid]["value"] is True and c[cid]["text"].startswith(f"{what}: not observed as a key"), cid
        assert c["exit_code_key"]["text"].startswith('The key "exit_code": ')
        assert c["exit_code_key"]["value"] is (not t["exit_num"])
        assert c["exit_code_text"]["text"].startswith("The text Process exited with code: ")
        assert c["skill_evidence"]["text"].startswith("Skill evidence (the literal SKILL.md): not observed in ")
        assert c["failure_flag"]["text"].endswith(c["no_is_error"]["text"])


KINDS = {"basis_files": "census", "layout": "census", "record_totals": "census", "record_classes": "census",
         "envelope": "census", "client_version": "value_map", "timestamps": "rate", "file_identity": "rate",
         "headers": "census", "subagent_files": "census", "child_in_parent": "rate", "inherited_history": "census",
         "native_call_id": "rate", "results_recorded": "census", "item_ids": "rate", "event_joins": "rate",
         "tool_names": "value_map", "arguments": "rate", "exit_codes": "census", "failure_flag": "value_map",
         "constants": "census", "usage": "census", "output_sizes": "percentile", "model_call_id": "census",
         "model_result": "census", "model_outcome": "census", "fixtures": "census"}


def test_kinds(corpora) -> None:
    for _, c in corpora:
        assert {k: c[k]["kind"] for k in KINDS} == KINDS


def _tools_corpus(base: Path) -> Path:
    """One rollout whose only payload.id (the header's, no response item's) is also a call_id; an MCP call, a call
    without a name, a call named outside the vocabulary, an output with an is_error key, arguments
    on an event (not a call), a token total that never falls and a record with an unreviewed
    top-level key."""
    root = base / "corpus" / "2026" / "01" / "05"
    root.mkdir(parents=True)
    (root / f"rollout-2026-01-05T00-00-00-{UID}.jsonl").write_bytes(_rollout([
        _r("session_meta", {**META, "cli_version": "0.146.0"}),
        _r("response_item", {"type": "function_call", "namespace": "mcp__srv", "name": "exec_command", "arguments": "{}",
                             "call_id": UID}),
        _r("response_item", {"type": "function_call", "arguments": "{}", "call_id": "k2"}),
        _r("response_item", {"type": "function_call", "name": "zqunknowntool", "arguments": "[]", "call_id": "k3"}),
        _r("response_item", {"type": "function_call_output", "call_id": UID, "output": "ok", "is_error": False}),
        _r("event_msg", {"type": "dynamic_tool_call_request", "arguments": "{}"}),
        *[_r("event_msg", {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 5}}})] * 2,
        {**_r("event_msg", {"type": "agent_message", "message": "m"}), "zqextra": 1}]))
    return base / "corpus"


@pytest.fixture(scope="module")
def tools_shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    base = tmp_path_factory.mktemp("codex-tools")
    return surveyed_claims("codex", _tools_corpus(base), base, allow_mcp=True)


@pytest.fixture(scope="module")
def tools_sampled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    base = tmp_path_factory.mktemp("codex-tools-sampled")
    return surveyed_claims("codex", _tools_corpus(base), base, sample_n=1)


def test_tool_names_shown_withheld_and_unnamed(tools_shown, tools_sampled) -> None:
    c = tools_shown
    assert c["tool_names"]["text"] == (
        "1 tool names shown over 3 calls; 1 calls carry a namespace (shown: --allow-mcp-names); withheld names: 1 calls "
        "with a name outside the reviewed vocabulary (withheld as unreviewed). Tool names are an open set.")
    assert (c["tool_names"]["value"]["withheld_mcp"], c["tool_names"]["value"]["withheld_unreviewed"]) == (0, 1)
    s = tools_sampled["tool_names"]
    # without --allow-mcp-names a reviewed name is shown beside a namespace all the same, and not said to be allowed
    assert s["text"] == ("1 tool names shown over 3 calls; 1 calls carry a namespace; withheld names: 1 calls with a name "
                         "outside the reviewed vocabulary (withheld as unreviewed). Tool names are an open set.")
    assert c["arguments"]["value"] == [2, 3, 0]
    # the header's payload.id is the rollout's id, no response item's: none is counted, though it is a call_id
    assert c["item_ids"]["value"] == {"equal": 0, "items": 0}
    assert c["item_ids"]["text"] == "Response item ids (`payload.id`) equal a call_id in 0 of 0 cases."


def test_a_masked_key_and_a_sample_are_said(tools_shown, tools_sampled) -> None:
    for c, whole in ((tools_shown, True), (tools_sampled, False)):
        rc = c["record_classes"]
        assert rc["value"]["masked_keysets"] == 1 and rc["value"]["whole_corpus"] is whole
        assert ("1 of those sets hold a masked key, so masking may have merged sets that differ. A reader must accept "
                "classes it does not know.") in rc["text"]


def _model_and_flags(root: Path) -> tuple[dict[str, list[int]], dict[str, int]]:
    """Per class, payloads with a model key and all payloads (classes with one at least); outcome flags."""
    model: dict[str, list[int]] = {}
    flags: Counter[str] = Counter()
    for p in sorted(root.rglob("*.jsonl")):
        for o in jsonl_objects(p):
            if not isinstance(o.get("payload"), dict):
                continue
            pl = o["payload"]
            m = model.setdefault(_cls(o), [0, 0])
            m[0] += "model" in pl
            m[1] += 1
            if isinstance(pl.get("success"), bool):
                flags[f"$.payload.success={json.dumps(pl['success'])}"] += 1
            ok = (pl.get("result") or {}).get("Ok") if isinstance(pl.get("result"), dict) else None
            if isinstance(ok, dict) and isinstance(ok.get("isError"), bool):
                flags[f"$.payload.result.Ok.isError={json.dumps(ok['isError'])}"] += 1
    return {c: v for c, v in model.items() if v[0]}, dict(flags)


def test_model_key_and_outcome_flags(corpora) -> None:
    for t, c in corpora:
        model, flags = _model_and_flags(t["root"])
        rows = sorted(model.items(), key=lambda kv: (-kv[1][1], kv[0]))
        assert c["model"]["value"] == model
        assert c["model"]["text"] == ("`payload.model` is on " + "; ".join(f"{k} {fmt(a)} of {fmt(b)}" for k, (a, b) in rows)
                                      + " records.") if rows else "No payload carries a `model` key."
        assert c["model"]["evidence"][0]["result"] == ("; ".join(f"{k} {a}/{b}" for k, (a, b) in rows) or "none")
        assert c["failure_flag"]["value"] == {"flags": flags, "is_error": True}
        shown = "; ".join(f"{k.split('=')[0].split('.')[-1]}={k.split('=')[1]} {fmt(n)}" for k, n in sorted(flags.items()))
        assert c["failure_flag"]["text"] == f"Outcome flags observed: {shown or 'none'}. {c['no_is_error']['text']}"
        assert c["exit_codes"]["evidence"][0]["result"] != "" and (t["exit_num"] or t["exit_text"]
                                                                   or c["exit_codes"]["evidence"][0]["result"] == "none")


def test_a_total_that_never_falls_is_cumulative(tools_shown) -> None:
    assert tools_shown["usage"]["text"] == (
        "2 token_count events in 1 files carry total_token_usage; the total never falls and 1 events repeat the previous "
        "total: a cumulative counter. Use the last total per window, never a sum of events.")


def test_an_is_error_key_is_named_where_seen(tools_shown) -> None:
    c = tools_shown
    assert c["no_is_error"]["value"] is False
    assert c["model_outcome"]["text"] == "exit code as text in 0 outputs, as a number in 0 records; an is_error key at `$.payload`"
    assert c["model_outcome"]["value"] == {"exit": {"text": 0}, "is_error": False}


def test_fixtures_list_the_shapes_counted(generated, bare) -> None:
    t, c = generated
    m = more(t["root"])
    several = sum(n for h, n in m["per_file"].items() if int(h) > 1)
    inh = c["inherited_history"]["value"]
    want = [f"one rollout per cli_version ({len(t['versions'])} seen)",
            f"a rollout with a repeated session_meta ({fmt(several)} seen)",
            f"a subagent child with its parent ({fmt(m['kids'])} seen)",
            *([f"a child with inherited history ({fmt(inh['child_files'])} seen)"] if inh.get("inherited_records") else []),
            f"a compaction ({fmt(t['classes']['compacted'])} compacted records seen)",
            f"the token counter dropping ({fmt(t['usage'][2])} seen)",
            f"a call without an output ({fmt(t['unpaired_calls'])} seen)",
            f"an output without its call ({fmt(t['unpaired_outputs'])} seen)",
            f"a record with a numeric exit_code ({fmt(sum(t['exit_num'].values()))} seen)",
            f"an output at an exact byte cap ({fmt(m['cap'][1])} files seen)",
            *(f"a `{k.split('/')[-1]}` ({fmt(t['classes'][k])} seen)" for k in
              ("response_item/custom_tool_call", "response_item/tool_search_call", "response_item/local_shell_call")
              if t["classes"][k])]
    assert c["fixtures"]["value"] == want
    assert c["fixtures"]["text"] == "Shapes this snapshot shows, each worth one fixture: " + "; ".join(want) + "."
    for _, c in (generated, bare):
        per = c["headers"]["value"]["per_file"]
        assert c["headers"]["evidence"][0]["result"] == ("; ".join(f"{h} headers: {n} files" for h, n in
                                                                   sorted(per.items(), key=lambda kv: int(kv[0]))) or "none")
    cc = bare[1]["constants"]
    assert cc["text"] == f"{fmt(len(cc['value']))} (class, field) pairs hold one value everywhere (table below)."


def test_only_some_calls_carry_an_id(tmp_path: Path) -> None:
    root = tmp_path / "corpus" / "2026" / "01" / "05"
    root.mkdir(parents=True)
    (root / f"rollout-2026-01-05T00-00-00-{UID}.jsonl").write_bytes(_rollout([
        _r("session_meta", {**META, "cli_version": "0.146.0"}),
        _r("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "a"}),
        _r("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{}"}),
        _r("response_item", {"type": "function_call_output", "call_id": "a", "output": "ok"})]))
    t = read(tmp_path / "corpus")
    c = surveyed_claims("codex", tmp_path / "corpus", tmp_path)
    assert (t["calls"], t["calls_id"], t["outputs_id"], t["paired"]) == (2, 1, 1, 1)
    assert c["native_call_id"]["text"] == expected_text(t)["native_call_id"]
    assert c["native_call_id"]["text"].startswith("Only some calls carry a native id: `call_id` on 1 of 2 call records")


def test_the_walk_basis_counts_records(corpora) -> None:
    for t, c in corpora:
        assert c["basis_frames"]["value"]["ok"] == t["records"]
        assert f": {fmt(t['records'])} records parsed; " in c["basis_frames"]["text"]


def _one_rollout(base: Path, recs: list[dict], name: str = f"rollout-2026-01-05T00-00-00-{UID}.jsonl") -> Path:
    root = base / "corpus" / "2026" / "01" / "05"
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_bytes(_rollout(recs))
    return base / "corpus"


@pytest.mark.parametrize("mask", ["dynamic", "rare"])
def test_each_kind_of_masked_key_is_counted(mask: str, tmp_path: Path) -> None:
    """A top-level key that is not identifier-shaped (a dynamic key), or a reviewed key seen in
    fewer files than asked (a rare key): either makes one masked key set."""
    if mask == "dynamic":
        root = _one_rollout(tmp_path, [_r("session_meta", META), {**_r("turn_context", {"model": "m"}), "a b": 1}])
        c = surveyed_claims("codex", root, tmp_path)
    else:
        _one_rollout(tmp_path, [_r("turn_context", {"model": "m"})])  # "timestamp" in one file of two
        root = _one_rollout(tmp_path, [_r("turn_context", {"model": "m"}, ts=False)], f"rollout-2026-01-05T00-00-01-{UID[:-1]}2.jsonl")
        c = surveyed_claims("codex", root, tmp_path, min_files=2)
    rc = c["record_classes"]
    assert rc["value"]["masked_keysets"] == 1, mask
    assert "1 of those sets hold a masked key, so masking may have merged sets that differ." in rc["text"]


def test_a_corpus_without_a_rollout_or_a_payload_type_says_so(tmp_path: Path) -> None:
    """Records whose payloads carry no type; then a corpus holding one file of no surface."""
    root = _one_rollout(tmp_path / "a", [_r("session_meta", META), _r("turn_context", {"model": "m"})])
    c = surveyed_claims("codex", root, tmp_path / "a")
    assert c["record_classes"]["text"].startswith("2 record classes (named type; no payload carries a type) over 2 records")
    (tmp_path / "b" / "corpus").mkdir(parents=True)
    (tmp_path / "b" / "corpus" / "notes.txt").write_bytes(b"x\n")
    c = surveyed_claims("codex", tmp_path / "b" / "corpus", tmp_path / "b")
    assert c["layout"]["text"] == ("Files by surface (the path pattern each was recognised by): none; 1 other files. "
                                   "No file matched: rollout, archived_rollout, rollout_unnamed.")
    assert c["layout"]["evidence"][0]["result"] == "none" and c["layout"]["value"] == {}
    # with nothing walked, each list a result names is empty, and said to be
    for cid, i in (("client_version", 1), ("model", 0), ("headers", 0), ("exit_codes", 0), ("failure_flag", 1),
                   ("model_outcome", 0), ("fixtures", 1)):
        assert c[cid]["evidence"][i]["result"] == "none", cid
    assert c["model"]["text"] == "No payload carries a `model` key."
    assert c["failure_flag"]["text"].startswith("Outcome flags observed: none. ")
    assert c["event_joins"]["text"] == "Events that carry a call_id and name a call of their rollout: none."
    assert c["fixtures"]["text"] == "Shapes this snapshot shows, each worth one fixture: none."


def _identity(root: Path) -> tuple[list[int], list[tuple[str, int, int]], Counter[str]]:
    """The file-identity figures, and the later session_meta headers by kind (headers, files)."""
    ident = [0, 0, 0, 0]
    kinds: dict[str, list] = {}
    per_file: Counter[str] = Counter()
    for p in sorted(root.rglob("rollout-*.jsonl")):
        recs = jsonl_objects(p)
        heads = [o["payload"] for o in recs if o.get("type") == "session_meta"]
        ident[3] += 1
        ident[2] += bool(recs) and recs[0].get("type") == "session_meta"
        per_file[str(len(heads))] += 1  # (a rollout without a header too)
        if not heads:
            continue
        ident[1] += 1
        ident[0] += heads[0].get("id") == p.stem[-36:]
        first, sid = heads[0].get("id"), heads[0].get("session_id")
        for h in heads[1:]:
            kind = ("same id as the first header (resume)" if h.get("id") == first else
                    "the parent's header (child rollout)" if sid is not None and sid != first and h.get("id") == sid
                    else "another id")
            k = kinds.setdefault(kind, [0, set()])
            k[0] += 1
            k[1].add(p)
    rows = sorted(((kind, n, len(fs)) for kind, (n, fs) in kinds.items()), key=lambda r: (-r[1], r[0]))
    return ident, rows, per_file


def test_identity_and_later_headers(generated, bare, no_ids) -> None:
    for t, c in (generated, bare, no_ids):
        ident, rows, per_file = _identity(t["root"])
        assert c["file_identity"]["value"] == ident
        several = sum(n for h, n in per_file.items() if int(h) > 1)
        assert c["headers"]["value"]["extra"] == {kind: n for kind, n, _ in rows}
        assert c["headers"]["text"] == (
            f"{fmt(several)} of {fmt(sum(per_file.values()))} rollouts hold more than one session_meta header"
            + ((": the later headers are " + "; ".join(f"{kind} {fmt(n)} (in {fmt(f)} files)" for kind, n, f in rows)
                + ". A reader must expect more than one header per file.") if several else "."))
    assert _identity(generated[0]["root"])[1], "the generated corpus holds a rollout with later headers"


def test_events_joined_to_calls_by_call_id(generated, no_ids) -> None:
    for t, c in (generated, no_ids):
        per: dict[str, list[int]] = {}
        for p in sorted(t["root"].rglob("*.jsonl")):
            recs = jsonl_objects(p)
            calls = {o["payload"]["call_id"] for o in recs if o["type"] == "response_item"
                     and _cls(o).split("/")[-1] in CALLS and "call_id" in o["payload"]}
            for o in recs:
                if o["type"] == "event_msg" and isinstance(o["payload"], dict) and "call_id" in o["payload"]:
                    e = per.setdefault(_cls(o), [0, 0])
                    e[0] += o["payload"]["call_id"] in calls
                    e[1] += 1
        assert c["event_joins"]["value"] == per
        assert c["event_joins"]["text"] == ("Events that carry a call_id and name a call of their rollout: "
                                            + ("; ".join(f"{k.split('/')[-1]} {fmt(a)}/{fmt(n)}"
                                                         for k, (a, n) in sorted(per.items(), key=lambda kv: (-kv[1][1], kv[0])))
                                               or "none")
                                            + ".")
    assert generated[1]["event_joins"]["value"], "the generated rollouts hold events with a call_id"


def _children(root: Path) -> dict[str, int]:
    """Subagent children (first header's id differs from its session_id), counted from the files."""
    firsts: dict[Path, dict] = {}
    named: set[str] = set()
    for p in sorted(root.rglob("*.jsonl")):
        recs = jsonl_objects(p)
        heads = [o["payload"] for o in recs if o.get("type") == "session_meta" and isinstance(o.get("payload"), dict)]
        if heads:
            firsts[p] = heads[0]
        for o in recs:
            pl = o.get("payload")
            for key in ("new_thread_id", "agent_thread_id"):
                if isinstance(pl, dict) and isinstance(pl.get(key), str):
                    named.add(pl[key])
    ids = {h.get("id") for h in firsts.values()}
    kids = [h for h in firsts.values() if h.get("session_id") is not None and h.get("session_id") != h.get("id")]
    inherited = own = 0
    for p in sorted(root.rglob("*.jsonl")):
        recs = jsonl_objects(p)
        starts = [o["payload"]["subagent_history_start_ordinal"] for o in recs if isinstance(o.get("payload"), dict)
                  and isinstance(o["payload"].get("subagent_history_start_ordinal"), int)]
        ords = [o["ordinal"] for o in recs if isinstance(o.get("ordinal"), int)]
        if starts:
            inherited += sum(x < min(starts) for x in ords)
            own += sum(x >= min(starts) for x in ords)
    return {"headers": len(firsts), "kids": len(kids), "inherited": inherited, "own": own,
            "start": sum(isinstance(h.get("subagent_history_start_ordinal"), int) for h in kids),
            "present": sum(h["session_id"] in ids for h in kids), "named": sum(h.get("id") in named for h in kids)}


def test_children_their_parents_and_inherited_history(generated, bare, no_ids) -> None:
    for t, c in (generated, bare, no_ids):
        ch = _children(t["root"])
        assert c["subagent_files"]["text"] == (
            f"{fmt(ch['kids'])} of {fmt(ch['headers'])} rollouts are subagent children (first header id differs from its "
            f"session_id); {fmt(ch['start'])} carry subagent_history_start_ordinal.")
        assert c["child_in_parent"]["value"] == [ch["named"], ch["kids"], ch["present"]]
        if ch["kids"]:
            assert c["child_in_parent"]["text"] == (
                f"Of {fmt(ch['kids'])} children (each naming a session_id in its first header), the parent's rollout is "
                f"present for {fmt(ch['present'])}; a structured field of another record (collab_agent_spawn_end."
                f"new_thread_id, sub_agent_activity.agent_thread_id) names the child for {fmt(ch['named'])}.")
        ih = c["inherited_history"]["value"]
        assert c["inherited_history"]["text"] == (
            f"{fmt(ih['child_files'])} child rollouts copy {fmt(ih['inherited_records'])} records of their parent's history "
            f"below subagent_history_start_ordinal, before {fmt(ih['own_records'])} records of their own; turn ids shared "
            f"by both ranges: {fmt(ih['shared_turn_ids'])} (inherited {fmt(ih['inherited_turn_ids'])}, own "
            f"{fmt(ih['own_turn_ids'])}). Inherited history is context, not the child's turns."
            if ih["inherited_records"] else
            f"No child rollout holds records below a subagent_history_start_ordinal ({fmt(ih['child_files'])} child "
            "rollouts): no inherited history was observed.")
        assert (ih["child_files"], ih["inherited_records"], ih["own_records"]) == (ch["start"], ch["inherited"], ch["own"])
        assert "link_subagent_schema" in c
    ch = _children(generated[0]["root"])
    assert ch["present"] and ch["inherited"], "the generated rollouts hold a child beside its parent, with history"


def test_a_child_named_by_a_spawn_in_its_parent(tmp_path: Path) -> None:
    """A parent rollout whose spawn event names its child by new_thread_id, and the child."""
    kid = UID[:-1] + "2"
    _one_rollout(tmp_path, [_r("session_meta", META),
                            _r("event_msg", {"type": "collab_agent_spawn_end", "new_thread_id": kid})])
    root = _one_rollout(tmp_path, [_r("session_meta", {**META, "id": kid, "session_id": UID})],
                        f"rollout-2026-01-05T00-00-01-{kid}.jsonl")
    c = surveyed_claims("codex", root, tmp_path)
    assert _children(root)["named"] == 1
    assert c["child_in_parent"]["value"] == [1, 1, 1]
    assert c["child_in_parent"]["text"].endswith("names the child for 1.")


def test_file_identity_and_output_sizes_are_worded_from_the_counted_figures(generated, bare, no_ids) -> None:
    for t, c in (generated, bare, no_ids):
        ident, _, _ = _identity(t["root"])
        differ = 0  # a rollout whose name holds a uuid, and whose first header's id is another
        for p in sorted(t["root"].rglob("rollout-*.jsonl")):
            heads = [o["payload"] for o in jsonl_objects(p) if o.get("type") == "session_meta"]
            differ += bool(heads) and bool(UUID.search(p.stem)) and heads[0].get("id") != p.stem[-36:]
        assert c["file_identity"]["text"] == (
            f"The first session_meta `payload.id` equals the filename uuid in {fmt(ident[0])} of {fmt(ident[1])} "
            f"rollouts with a header ({fmt(differ)} differ); session_meta is the first record in "
            f"{fmt(ident[2])} of {fmt(ident[3])}.")
        sizes = [len(line) for p in sorted(t["root"].rglob("*.jsonl")) for line in p.read_bytes().split(b"\n")
                 if (o := next(iter(jsonl_objects_of(line)), None)) is not None and o.get("type") == "response_item"
                 and _cls(o).split("/")[-1] in OUTPUTS and "call_id" in o["payload"]]
        os_ = c["output_sizes"]
        a = os_["value"].get("(all tools)")
        assert (a[2] if a else None) == max(sizes, default=None)
        assert os_["text"].startswith(f"Output records (bytes of the whole JSON line) over {fmt(len(sizes) or None)} "
                                      f"outputs: p50 {fmt(a[0] if a else None)}, p90 ")
        assert os_["text"].endswith(f", p99 {fmt(a[1] if a else None)}, max {fmt(max(sizes, default=None))}; per tool below.")


def jsonl_objects_of(line: bytes) -> list[dict]:
    try:
        o = json.loads(line)
    except ValueError:
        return []
    return [o] if isinstance(o, dict) else []


def test_exit_code_evidence_lists_each_row(generated, bare, no_ids) -> None:
    for t, c in (generated, bare, no_ids):
        result = c["exit_codes"]["evidence"][0]["result"]
        if not t["exit_num"] and not t["exit_text"]:
            continue
        pieces = result.split("; ")
        assert all(re.fullmatch(r"\S+ \S.* \d+", p) for p in pieces), result
        assert sum(int(p.rsplit(" ", 1)[1]) for p in pieces) == t["exit_text"] + sum(t["exit_num"].values())
    assert generated[0]["exit_num"] and generated[0]["exit_text"], "the generated rollouts state exit codes both ways"


def test_versions_only_on_later_headers_or_mixed_in_one_rollout(tmp_path: Path) -> None:
    """A rollout whose first header has no version and whose second has one; then a rollout whose
    two headers carry two versions."""
    root = _one_rollout(tmp_path / "a", [_r("session_meta", META), _r("session_meta", {**META, "cli_version": "0.1.0"})])
    c = surveyed_claims("codex", root, tmp_path / "a")
    assert c["client_version"]["text"].startswith("`cli_version` is on 1 of 2 session_meta headers (in ")
    assert "): 0 versions (none) by each rollout's first header; " in c["client_version"]["text"]
    root = _one_rollout(tmp_path / "b", [_r("session_meta", {**META, "cli_version": "0.1.0"}),
                                         _r("session_meta", {**META, "cli_version": "0.2.0"})])
    c = surveyed_claims("codex", root, tmp_path / "b")
    assert c["client_version"]["text"] == (
        "`cli_version` is on 2 of 2 session_meta headers (in 1 of 1 rollouts with a header): 1 versions (0.1.0 to 0.1.0) "
        "by each rollout's first header; 1 rollouts hold headers of more than one version (each counted once). Shapes "
        "below can be stratified by it.")
    assert c["client_version"]["value"]["files_mixing"] == 1
    assert c["fixtures"]["value"][:1] == ["one rollout per cli_version (1 seen)"]


def test_an_is_error_key_at_two_paths_and_a_local_shell_call(tmp_path: Path) -> None:
    root = _one_rollout(tmp_path, [
        _r("session_meta", {**META, "cli_version": "0.1.0"}),
        _r("response_item", {"type": "local_shell_call", "call_id": "x", "status": "completed"}),
        _r("response_item", {"type": "function_call_output", "call_id": "x", "output": "ok", "is_error": False}),
        _r("event_msg", {"type": "item_completed", "item": {"is_error": False}})])
    c = surveyed_claims("codex", root, tmp_path)
    head = "exit code as text in 0 outputs, as a number in 0 records; an is_error key at "
    text = c["model_outcome"]["text"]
    assert text.startswith(head)
    assert sorted(text[len(head):].split(", ")) == ["`$.payload.item`", "`$.payload`"]
    assert "a `local_shell_call` (1 seen)" in c["fixtures"]["value"]


def test_arguments_that_are_not_a_string_or_decode_to_one(tmp_path: Path) -> None:
    """One call's arguments are an object, another's a JSON string that decodes to a string."""
    root = _one_rollout(tmp_path, [
        _r("session_meta", META),
        _r("response_item", {"type": "function_call", "name": "exec_command", "arguments": {"a": 1}, "call_id": "a"}),
        _r("response_item", {"type": "function_call", "name": "exec_command", "arguments": '"x"', "call_id": "b"})])
    c = surveyed_claims("codex", root, tmp_path)
    assert c["arguments"]["value"] == more(root)["arguments"] == [0, 1, 1]


def test_withheld_names_both_ways_and_no_namespace_when_allowed(tmp_path: Path) -> None:
    """An MCP call and a plain call, both named outside the vocabulary; then --allow-mcp-names
    over calls that carry no namespace."""
    root = _one_rollout(tmp_path / "a", [
        _r("session_meta", META),
        _r("response_item", {"type": "function_call", "namespace": "mcp__srv", "name": "zqa", "arguments": "{}",
                             "call_id": "a"}),
        _r("response_item", {"type": "function_call", "name": "zqb", "arguments": "{}", "call_id": "b"})])
    c = surveyed_claims("codex", root, tmp_path / "a")
    assert c["tool_names"]["text"].endswith(
        "; withheld names: 1 MCP calls (a namespace beside the name; withheld by policy), 1 calls with a name outside "
        "the reviewed vocabulary (withheld as unreviewed). Tool names are an open set.")
    root = _one_rollout(tmp_path / "b", [
        _r("session_meta", META),
        _r("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "a"})])
    c = surveyed_claims("codex", root, tmp_path / "b", allow_mcp=True)
    assert c["tool_names"]["text"] == ("1 tool names shown over 1 calls; 0 calls carry a namespace; no name was withheld. "
                                       "Tool names are an open set.")


FIELDS = ("status", "phase", "role")  # the frame fields read from the payload


def _constants(root: Path) -> list[tuple[str, str, str, int, int]]:
    """(class, field, value, records, files) of each frame field that holds one value for a class
    in at least two files (a withheld value, ``<...>``, is none), most files first, then by class
    and field: counted from the files."""
    seen: dict[tuple[str, str], tuple[set[str], list[int], set[Path]]] = {}
    for p in sorted(root.rglob("*.jsonl")):
        for o in jsonl_objects(p):
            pl = o.get("payload")
            for f in FIELDS:
                if isinstance(pl, dict) and isinstance(pl.get(f), str):
                    vals, n, files = seen.setdefault((_cls(o), f), (set(), [0], set()))
                    vals.add(pl[f])
                    n[0] += 1
                    files.add(p)
    rows = [(c, f, next(iter(v)), n[0], len(fs)) for (c, f), (v, n, fs) in seen.items()
            if len(v) == 1 and len(fs) >= 2 and not next(iter(v)).startswith("<")]
    return sorted(rows, key=lambda r: (-r[4], r[0], r[1]))


def test_the_status_constant_is_custom_tool_calls_and_item_ids_that_are_call_ids(tmp_path: Path) -> None:
    """Two rollouts: custom_tool_call records whose status and phase are each one value, an
    event class whose status is one value too (in more records, first by class), and a
    response item whose id is its own call_id."""
    for i in range(2):
        _one_rollout(tmp_path, [
            _r("session_meta", META),
            _r("event_msg", {"type": "exec_command_end", "status": "completed"}),
            _r("event_msg", {"type": "exec_command_end", "status": "completed"}),
            _r("response_item", {"type": "custom_tool_call", "status": "completed", "phase": "commentary",
                                 "name": "apply_patch", "input": "x", "call_id": f"k{i}", "id": f"k{i}"})],
            f"rollout-2026-01-05T00-00-0{i}-{UID[:-1]}{i}.jsonl")
    root = tmp_path / "corpus"
    rows = _constants(root)
    ct = next(r for r in rows if r[:2] == ("response_item/custom_tool_call", "status"))
    # another row comes first: one of the same class (phase), one of the same field (status)
    assert rows.index(ct) > 0 and any(r[0] == ct[0] for r in rows[:rows.index(ct)]) and \
        any(r[1] == "status" for r in rows[:rows.index(ct)])
    c = surveyed_claims("codex", root, tmp_path)
    assert c["constants"]["text"] == (f"custom_tool_call.status is `{ct[2]}` in all {fmt(ct[3])} records across "
                                      f"{fmt(ct[4])} files: a constant, not evidence of success. {fmt(len(rows))} "
                                      "(class, field) pairs hold one value everywhere (table below).")
    assert c["constants"]["value"] == {f"{r[0]}.{r[1]}": r[2] for r in rows}
    m = more(root)
    assert m["items"]["equal"] == m["items"]["items"] > 0  # every item id is a call id
    assert c["item_ids"]["value"] == m["items"]
    assert c["item_ids"]["text"] == (f"Response item ids (`payload.id`) equal a call_id in {fmt(m['items']['equal'])} of "
                                     f"{fmt(m['items']['items'])} cases.")


def test_a_disagreement_leaves_is_error_not_determined(bare) -> None:
    t, c = bare
    assert c["no_is_error"]["value"] is True and c["model_outcome"]["text"].endswith("; no is_error key")
    base = next((b for b in t["root"].parents if (b / "s").is_dir()), t["root"].parent)
    turned = claims_from("codex", snapshot_of("codex", t["root"], base), "no_is_error")
    assert turned["no_is_error"]["value"] is None and turned["no_is_error"]["provenance"] == "not determined"
    assert turned["model_outcome"]["text"] == c["model_outcome"]["text"].replace("; no is_error key",
                                                                                 "; is_error not determined")
    assert turned["model_outcome"]["value"]["is_error"] is None
