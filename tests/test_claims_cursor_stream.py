"""The Cursor stream-json page's sentences, each held to figures read back from the corpus.

Two corpora: the seeded stream-json generator's captures with one more capture of edge events
and one file that is not a capture; and a folder with no JSON event at all, where every list
is empty. Each expected figure is counted here from the files with the standard library
(``json``, ``collections.Counter``), never taken from the census, and every sentence is
compared whole.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from survey.evidence.claims import fmt, human_bytes

from .claims_util import surveyed_claims

CAPTURES = (".jsonl", ".ndjson")
ABSENT = (("no_usage", "Token usage"), ("no_timestamp_iso", "A timestamp other than timestamp_ms"),
          ("no_version", "A client version"), ("no_parent_call", "A parent / subagent link on an event"))
SENTENCES = ("basis_files", "basis_lines", "families", "family_subtypes", "family_keysets", "timestamps",
             "tool_call_variants", "tool_call_single_key", "result_outcomes", "call_id_newlines",
             "non_json_lines", "capture_endings", "init_values", "data_keyed_maps")
NON_JSON = {"malformed": "plain text / not JSON", "partial": "cut off (last line, no LF)", "blank": "blank"}

# one more capture: a call whose $.tool_call holds two variants and one whose $.tool_call is empty
# (cases the generator never writes), and a timed user event (so two families are timed on some events only); its completed call holds a
# data-keyed map at a second path
EDGE = [
    {"type": "system", "subtype": "init", "session_id": "s", "model": "Auto", "apiKeySource": "env",
     "permissionMode": "default", "cwd": "w"},
    {"type": "tool_call", "subtype": "started", "call_id": "a\nb", "session_id": "s", "timestamp_ms": 1,
     "tool_call": {"shellToolCall": {"args": {}}, "readToolCall": {"args": {}}}},
    {"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": "s", "timestamp_ms": 2,
     "tool_call": {}},
    {"type": "tool_call", "subtype": "started", "call_id": "d\ne", "session_id": "s", "timestamp_ms": 3,
     "tool_call": {"readToolCall": {"args": {}}}},
    {"type": "tool_call", "subtype": "completed", "call_id": "d\ne", "session_id": "s", "timestamp_ms": 4,
     "tool_call": {"readToolCall": {"args": {}, "result": {"success": {"workspaceResults": {"w": {"n": 1}}}}}}},
    {"type": "user", "session_id": "s", "timestamp_ms": 5, "message": {"role": "user", "content": []}},
]


def _family(o: dict) -> str:
    return f"{o['type']}/{o['subtype']}" if isinstance(o.get("subtype"), str) else str(o["type"])


def read(root: Path) -> dict[str, Any]:
    """Every figure the page states, counted from the files with the standard library."""
    files = [p for p in sorted(root.rglob("*")) if p.is_file()]
    caps = [p for p in files if p.suffix in CAPTURES]
    status: Counter[str] = Counter()
    status_files: dict[str, set[str]] = {}
    events: list[dict] = []
    endings: Counter[tuple[str, bool]] = Counter()
    for p in caps:
        data = p.read_bytes()
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with LF
        kinds = []
        for line in lines:
            if not line.strip():
                kinds.append(("blank", None))
                continue
            try:
                o = json.loads(line)
            except ValueError:
                o = None
            kinds.append(("ok", o) if isinstance(o, dict) else ("malformed", None))
        if tail:
            kinds.append(("partial", None))
        last = None
        for kind, o in kinds:
            status[kind] += 1
            status_files.setdefault(kind, set()).add(p.name)
            if o is not None:
                events.append(o)
                last = _family(o)
        endings[(last or "<no JSON event>", tail != b"")] += 1
    fam = Counter(_family(o) for o in events)
    ks = Counter(f"{_family(o)}|{','.join(sorted(o))}" for o in events)
    ts = {f: {"present": sum(1 for o in events if _family(o) == f and "timestamp_ms" in o),
              "absent": sum(1 for o in events if _family(o) == f and "timestamp_ms" not in o)} for f in fam}
    calls = [o for o in events if o["type"] == "tool_call" and isinstance(o.get("tool_call"), dict)]
    started = Counter(",".join(sorted(o["tool_call"])) for o in calls if o.get("subtype") == "started")
    outcomes: Counter[str] = Counter()
    outcome_rows = set()  # (variant, outcome, beside isBackground)
    for o in calls:
        if o.get("subtype") == "completed":
            for name, v in o["tool_call"].items():
                if isinstance(v, dict) and isinstance(v.get("result"), dict):
                    out = ",".join(k for k in sorted(v["result"]) if k != "isBackground")
                    outcomes[out] += 1
                    outcome_rows.add((name, out, "isBackground" in v["result"]))
    with_result = sum(1 for o in calls if o.get("subtype") == "started"
                      for v in o["tool_call"].values() if isinstance(v, dict) and "result" in v)
    maps: Counter[str] = Counter()
    for o in calls:
        for name, v in o["tool_call"].items():
            wr = (((v or {}).get("result") or {}).get("success") or {}).get("workspaceResults")
            if isinstance(wr, dict):
                maps[f"$.tool_call.{name}.result.success.workspaceResults"] += 1
    values: Counter[tuple[str, str]] = Counter()
    for o in events:
        for key in ("apiKeySource", "is_error", "model", "permissionMode"):
            if key in o and isinstance(o[key], (str, bool)):
                values[(f"$.{key}", json.dumps(o[key]) if isinstance(o[key], bool) else o[key])] += 1
    with_id = [o for o in events if o["type"] == "tool_call" and "call_id" in o]
    return {
        "files": len(files), "captures": len(caps), "capture_bytes": sum(p.stat().st_size for p in caps),
        "status": dict(status), "status_files": {k: len(v) for k, v in status_files.items()},
        "families": fam, "keysets": ks, "timestamps": ts, "started": started,
        "one_key": sum(1 for o in calls if len(o["tool_call"]) == 1), "calls": len(calls),
        "outcomes": dict(outcomes), "outcome_rows": len(outcome_rows), "started_with_result": with_result, "maps": maps, "values": values,
        "endings": endings,
        "call_id": (sum(1 for o in with_id if "\n" in o["call_id"]), len(with_id)),
    }


def _by_count(c: Counter[str]) -> list[tuple[str, int]]:
    return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))


def expected_text(t: dict[str, Any]) -> dict[str, str]:
    """The sentence each claim must print, built from the figures ``read`` counted."""
    st = t["status"]
    fam = _by_count(t["families"])
    bare = [f for f, _ in fam if "/" not in f]
    per_family = Counter(k.split("|")[0] for k in t["keysets"])
    multi = sorted(f for f, n in per_family.items() if n > 1)
    ts = t["timestamps"]
    always = [f for f in sorted(ts) if not ts[f]["absent"]]
    never = [f for f in sorted(ts) if not ts[f]["present"]]
    mixed = [f for f in sorted(ts) if ts[f]["present"] and ts[f]["absent"]]
    started = _by_count(t["started"])
    not_one = t["calls"] - t["one_key"]
    outs = sorted(t["outcomes"].items())
    swr = t["started_with_result"]
    where = ("a call's outcome is recorded only in its tool_call/completed event (no started event carries a result)"
             if not swr else f"{fmt(swr)} tool_call/started events carry a result too")
    nl, ids = t["call_id"]
    nj = sorted(((NON_JSON[s], s, n) for s, n in st.items() if s != "ok"), key=lambda x: (-x[2], x[0]))
    ends = sorted(t["endings"].items(), key=lambda kv: (-kv[1], kv[0][0]))
    vals = sorted(t["values"].items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))
    maps = _by_count(t["maps"])
    return {
        "basis_files": f"The folder holds {fmt(t['files'])} files: {fmt(t['captures'])} stream-json captures and "
                       f"{fmt(t['files'] - t['captures'])} other files.",
        "basis_lines": f"{fmt(t['captures'])} captures were walked ({human_bytes(t['capture_bytes'])}): "
                       f"{fmt(st.get('ok', 0))} JSON events and {fmt(sum(n for s, n in st.items() if s != 'ok'))} other lines.",
        "families": f"{len(fam)} event {'family' if len(fam) == 1 else 'families'} (type/subtype): "
                    + (", ".join(f"{f} {fmt(n)}" for f, n in fam) or "none") + ".",
        "family_subtypes": f"{fmt(len(fam) - len(bare))} of {fmt(len(fam))} families carry a subtype"
                           + (f"; {', '.join(bare)} {'carries' if len(bare) == 1 else 'carry'} none: "
                              "the record class is the type alone." if bare
                              else ": the record class is always type/subtype."),
        "family_keysets": f"{len(t['keysets'])} (family, key set) pairs; "
                          + (f"families with more than one key set: {', '.join(multi)}." if multi
                             else "every family has one key set."),
        "timestamps": "timestamp_ms is on every event of " + (", ".join(always) or "no family")
                      + "; on none of " + (", ".join(never) or "no family")
                      + ("; on some events of " + ", ".join(mixed) if mixed else "")
                      + (": events of the families without it cannot be timed from the stream alone."
                         if never or mixed else "."),
        "tool_call_variants": f"tool_call variants (the key of $.tool_call) over {fmt(sum(t['started'].values()))} "
                              "started calls: " + (", ".join(f"{v or '{}'} {fmt(n)}" for v, n in started) or "none")
                              + ". Variants outside the reviewed vocabulary show as <unreviewed-key>.",
        "tool_call_single_key": (f"$.tool_call has exactly one key (the variant) in {fmt(t['one_key'])} of "
                                 f"{fmt(t['calls'])} tool_call events"
                                 + (f"; {fmt(not_one)} carry none or several: the variant is not always the single key."
                                    if not_one else "."))
                                if t["calls"] else
                                "No tool_call event was observed, so the shape of $.tool_call is not determined.",
        "result_outcomes": "Completed calls by outcome: " + (", ".join(f"{o} {fmt(n)}" for o, n in outs) or "none")
                           + (f"; {where}." if outs or swr else "."),
        "call_id_newlines": f"{fmt(nl)} of {fmt(ids)} tool_call events carry a call_id containing a newline "
                            "(counted, never printed)"
                            + (": ids must be sanitised before use as keys or file names." if nl else "."),
        "non_json_lines": "Lines that are not JSON events: "
                          + (", ".join(f"{c} {fmt(n)} (in {fmt(t['status_files'][s])} captures)" for c, s, n in nj)
                             or "none") + ".",
        "capture_endings": "Captures end with: "
                           + (", ".join(f"{e}{' (cut off)' if cut else ''} {fmt(n)}" for (e, cut), n in ends)
                              or "none") + ".",
        "init_values": "system/init and result values: "
                       + ("; ".join(f"{p} {v} ×{fmt(n)}" for (p, v), n in vals) or "none") + ".",
        "data_keyed_maps": f"{fmt(sum(t['maps'].values()))} data-keyed maps were counted, never described"
                           + (": " + ", ".join(f"{p} ×{fmt(n)}" for p, n in maps) if maps else "") + ".",
    }


def expected_evidence(t: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """Each claim's evidence: (result, scope), from the same counts."""
    walked = f"{fmt(t['captures'])} walked files, {human_bytes(t['capture_bytes'])}"
    st = t["status"]
    fam = t["families"]
    bare = [f for f, _ in _by_count(fam) if "/" not in f]
    ts = t["timestamps"]
    nl, ids = t["call_id"]
    bad = sorted(((NON_JSON[s], s, n) for s, n in st.items() if s != "ok"), key=lambda x: (-x[2], x[0]))
    return {k: [(r, walked) for r in v] if isinstance(v, tuple) else [(v, walked)] for k, v in {
        "basis_lines": "; ".join(f"{s} {n}" for s, n in _by_count(Counter(st))),
        "families": f"{len(fam)} families",
        "family_subtypes": f"without subtype: {', '.join(bare) or 'none'}",
        "family_keysets": f"{len(t['keysets'])} pairs",
        "timestamps": f"always {sum(1 for v in ts.values() if not v['absent'])}, "
                      f"never {sum(1 for v in ts.values() if not v['present'])}, "
                      f"mixed {sum(1 for v in ts.values() if v['present'] and v['absent'])} families",
        "tool_call_variants": f"{len(t['started'])} variants",
        "tool_call_single_key": f"one key {t['one_key']}/{t['calls']}",
        "result_outcomes": (f"{t['outcome_rows']} rows", f"started with result {t['started_with_result']}"),
        "call_id_newlines": f"{nl}/{ids}",
        "non_json_lines": "; ".join(f"{s} {n}" for _, s, n in bad) or "0 lines",
        "capture_endings": f"{len(t['endings'])} rows",
        "init_values": f"{len(t['values'])} values",
        "data_keyed_maps": f"{len(t['maps'])} paths",
    }.items()} | {"basis_files": [(f"{fmt(t['files'])} files", f"{fmt(t['files'])} files (whole corpus)")]}


KINDS = {"basis_files": "census", "basis_lines": "census", "families": "value_map", "family_subtypes": "census",
         "family_keysets": "census", "timestamps": "census", "tool_call_variants": "value_map",
         "tool_call_single_key": "rate", "result_outcomes": "value_map", "call_id_newlines": "rate",
         "non_json_lines": "census", "capture_endings": "census", "init_values": "value_map",
         "data_keyed_maps": "census"}


def expected_value(t: dict[str, Any]) -> dict[str, Any]:
    st = t["status"]
    ts = t["timestamps"]
    bare = sorted(f for f in t["families"] if "/" not in f)
    return {
        "basis_files": {"total": t["files"], "capture": t["captures"], "other": t["files"] - t["captures"]},
        "basis_lines": st,
        "families": dict(t["families"]),
        "family_subtypes": bare,
        "family_keysets": dict(t["keysets"]),
        "timestamps": ts,
        "tool_call_variants": dict(t["started"]),
        "tool_call_single_key": [t["one_key"], t["calls"]],
        "result_outcomes": {"outcomes": t["outcomes"], "started_with_result": t["started_with_result"]},
        "call_id_newlines": list(t["call_id"]),
        "non_json_lines": {s: n for s, n in st.items() if s != "ok"},
        "capture_endings": {f"{e}{'|cut' if cut else ''}": n for (e, cut), n in t["endings"].items()},
        "init_values": {f"{p}:{v}": n for (p, v), n in t["values"].items()},
        "data_keyed_maps": dict(t["maps"]),
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    from survey.synth.cursor_stream import generate

    base = tmp_path_factory.mktemp("stream")
    root = base / "corpus"
    generate(root, seed=7)
    (root / "edge.jsonl").write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in EDGE))
    (root / "notes.txt").write_bytes(b"not a capture\n")
    return read(root), surveyed_claims("cursor_stream", root, base)


@pytest.fixture(scope="module")
def no_events(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """Two captures of a start-up failure: plain text and a blank line, no JSON event."""
    base = tmp_path_factory.mktemp("stream-empty")
    root = base / "corpus"
    root.mkdir()
    (root / "a.jsonl").write_bytes(b"Error: no such model\n\n")
    (root / "b.jsonl").write_bytes(b"Error: invalid API key\n")
    return read(root), surveyed_claims("cursor_stream", root, base)


@pytest.fixture(scope="module")
def one_family(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """One capture of one event family, which carries no subtype, timed on one event of two."""
    base = tmp_path_factory.mktemp("stream-one")
    root = base / "corpus"
    root.mkdir()
    event = {"type": "user", "session_id": "s", "message": {"role": "user", "content": [{"type": "text", "text": "t"}]}}
    (root / "a.ndjson").write_bytes(orjson.dumps(event) + b"\n" + orjson.dumps({**event, "timestamp_ms": 1}) + b"\n")
    return read(root), surveyed_claims("cursor_stream", root, base)


@pytest.fixture(scope="module")
def no_captures(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """A folder that holds no capture at all."""
    base = tmp_path_factory.mktemp("stream-none")
    root = base / "corpus"
    root.mkdir()
    (root / "readme.txt").write_bytes(b"no capture here\n")
    return read(root), surveyed_claims("cursor_stream", root, base)


@pytest.fixture(scope="module")
def started_only(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """One started call that already carries a result (its arguments hold a "result" key too,
    which is no outcome), a second whose arguments alone hold one (deeper, so no outcome either),
    and no completed call."""
    base = tmp_path_factory.mktemp("stream-started")
    root = base / "corpus"
    root.mkdir()
    event = {"type": "tool_call", "subtype": "started", "call_id": "x", "session_id": "s", "timestamp_ms": 1,
             "tool_call": {"readToolCall": {"args": {"result": {"n": 1}}, "result": {"success": {}}}}}
    deeper = {**event, "call_id": "y", "tool_call": {"readToolCall": {"args": {"result": {"n": 2}}}}}
    init = {"type": "system", "subtype": "init", "session_id": "s", "model": "Auto", "apiKeySource": "env",
            "permissionMode": "default", "cwd": "w"}  # a family never timed, and none timed on some events only
    (root / "a.jsonl").write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in (init, event, deeper)))
    return read(root), surveyed_claims("cursor_stream", root, base)


@pytest.fixture
def corpora(generated, no_events, one_family, no_captures, started_only) -> list[tuple[dict[str, Any], dict[str, dict]]]:
    return [generated, no_events, one_family, no_captures, started_only]


def test_the_planted_corpus_shows_every_case(generated, one_family, started_only) -> None:
    """The figures the sentences turn on are non-zero here, so each branch is taken."""
    one = one_family[0]["timestamps"]
    assert list(one) == ["user"] and one["user"] == {"present": 1, "absent": 1}
    s = started_only[0]
    assert (s["started_with_result"], s["outcomes"], s["calls"], s["one_key"]) == (1, {}, 2, 2)
    assert s["timestamps"] == {"system/init": {"present": 0, "absent": 1},
                               "tool_call/started": {"present": 2, "absent": 0}}
    t, _ = generated
    assert t["files"] > t["captures"] > 1
    assert {"ok", "malformed", "blank", "partial"} <= set(t["status"])
    assert [f for f in t["families"] if "/" not in f] and t["calls"] > t["one_key"] > 0
    ts = t["timestamps"]
    assert any(not v["present"] for v in ts.values()) and any(not v["absent"] for v in ts.values())
    assert sum(1 for v in ts.values() if v["present"] and v["absent"]) > 1
    assert not t["started_with_result"] and t["outcomes"] and t["call_id"][0] and len(t["maps"]) > 1 and t["values"]
    assert "" in t["started"] and any("," in v for v in t["started"])
    assert any(cut for _, cut in t["endings"]) and ("<no JSON event>", False) in t["endings"]


@pytest.mark.parametrize("cid", SENTENCES)
def test_each_sentence_states_the_counted_figures(cid: str, corpora) -> None:
    for t, claims in corpora:
        assert claims[cid]["value"] == expected_value(t)[cid], cid
        assert claims[cid]["text"] == expected_text(t)[cid], cid
        assert [(e["result"], e["scope"]) for e in claims[cid]["evidence"]] == expected_evidence(t)[cid], cid
        assert claims[cid]["kind"] == KINDS[cid]


def test_headlines_and_provenance(generated, no_events, corpora) -> None:
    for _, claims in corpora:
        assert {c for c in (*SENTENCES, *(a for a, _ in ABSENT), "is_error_true") if claims[c]["headline"]} == \
            {"families", "timestamps", "call_id_newlines"}
        assert all(claims[c]["provenance"] == "observed" for c in SENTENCES if c != "tool_call_single_key")
    assert generated[1]["tool_call_single_key"]["provenance"] == "observed"
    assert no_events[1]["tool_call_single_key"]["provenance"] == "not determined"


def test_each_claim_cites_its_query(generated) -> None:
    _, claims = generated
    for cid, query in (("basis_files", "files_by_surface"), ("basis_lines", "frame_status"),
                       ("family_subtypes", "families"), ("tool_call_single_key", "tool_call_variants"),
                       ("capture_endings", "capture_endings"), ("data_keyed_maps", "data_keyed_maps")):
        ev = claims[cid]["evidence"]
        assert ev and f"{query}" in json.dumps(ev), cid


def test_absences_name_what_was_looked_for(generated) -> None:
    t, claims = generated
    for cid, what in ABSENT:
        assert claims[cid]["value"] is True
        assert claims[cid]["text"].startswith(f"{what}: not observed as a key in {fmt(t['captures'])} walked files")
    assert claims["is_error_true"]["text"].startswith('The text "is_error":true: not observed in ')


def test_the_relations_are_stated_after_the_census_sentences(corpora) -> None:
    """The links section's two relations are stated on every page, between the census
    sentences and the absences."""
    for _, claims in corpora:
        ids = list(claims)
        at = [ids.index(c) for c in ("data_keyed_maps", "link_failed_turns_result", "link_assistant_chunks",
                                      "no_usage")]
        assert at == sorted(at) and at[-1] - at[0] == 3, ids
