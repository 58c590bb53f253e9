"""The claims model: what a claim and its evidence must hold to be built, how the pages print
figures (``n/a`` is never a zero), and the kit's wording of absences from planted probe results."""

from __future__ import annotations

import copy

import pytest

from survey.evidence.claims import Claim, Evidence, MissingEvidence, as_int, fmt, human_bytes, pct
from survey.evidence.kit import Kit

SQL = "survey/census/queries/files_by_surface.sql"
CMD = "duckdb -c \".read x.sql\""

# the kinds and provenance labels the module's docstring and the pages promise, written out
DOCUMENTED_KINDS = ["census", "value_map", "percentile", "absence", "iff", "rate", "reference"]
DOCUMENTED_PROVENANCE = ["observed", "inferred", "verified", "not determined", "reference"]


def ev(**changes: str) -> Evidence:
    return Evidence(**{"source": SQL, "result": "3 files", "scope": "9 files", "command": CMD, **changes})


def test_evidence_is_whole_or_refused() -> None:
    e = ev()
    assert (e.source, e.result, e.scope, e.command, e.second_command) == (SQL, "3 files", "9 files", CMD, "")
    assert ev(source="probe:no_usage").source == "probe:no_usage"
    assert ev(source="reference: notes.md").source == "reference: notes.md"
    assert ev(result="").result == ""  # a figure may be empty text; its provenance may not
    for bad, says in (({"command": ""}, "no command"), ({"source": ""}, "no source"),
                      ({"source": "", "command": ""}, "no source"), ({"scope": ""}, "no scope")):
        with pytest.raises(MissingEvidence, match=says):
            ev(**bad)


def claim(**changes: object) -> Claim:
    return Claim(**{"id": "c1", "kind": "census", "text": "3 of 9 files.", "evidence": (ev(),), **changes})  # type: ignore[arg-type]


def test_only_documented_kinds_and_provenance_are_built() -> None:
    c = claim()
    assert (c.provenance, c.value, c.headline, c.extra) == ("observed", None, False, {})
    for kind in DOCUMENTED_KINDS:
        for prov in DOCUMENTED_PROVENANCE:
            assert (claim(kind=kind, provenance=prov).kind, claim(kind=kind, provenance=prov).provenance) == (kind, prov)
    for kind in ("Census", "census ", "", "absent", "count"):
        with pytest.raises(ValueError, match="unknown kind"):
            claim(kind=kind)
    for prov in ("Observed", "undetermined", "", "guessed"):
        with pytest.raises(ValueError, match="unknown provenance"):
            claim(provenance=prov)


def test_a_claim_needs_an_id_a_sentence_and_evidence() -> None:
    for bad in ({"id": ""}, {"text": ""}, {"text": "  \n"}):
        with pytest.raises(ValueError, match="an id and a sentence"):
            claim(**bad)
    for evidence in ((), [], ({"source": SQL, "command": CMD},), (ev(), "probe:x")):
        with pytest.raises(MissingEvidence, match="has no evidence"):
            claim(evidence=evidence)
    assert claim(evidence=(ev(), ev(source="probe:p"))).evidence[1].source == "probe:p"


def test_claims_round_trip_through_json_without_touching_the_input() -> None:
    c = claim(kind="absence", provenance="verified", value={"ok": 3}, headline=True, extra={"n": 1},
              evidence=(ev(), ev(source="probe:no_usage", second_command="rg -c x")))
    d = c.to_json()
    assert d["evidence"][1] == {"source": "probe:no_usage", "result": "3 files", "scope": "9 files",
                                "command": CMD, "second_command": "rg -c x"}
    kept = copy.deepcopy(d)
    back = Claim.from_json(d)
    assert back == c and d == kept  # the dict is not emptied of its evidence
    assert Claim.from_json(d) == c  # so it can be read twice


def test_shares_counts_and_sizes_print_no_figure_as_n_a_never_as_zero() -> None:
    nan = float("nan")
    assert [pct(1, 8), pct(0, 5), pct(1, 3), pct(2, 3), pct(3, 2), pct(5, 5)] == \
        ["12.5%", "0.0%", "33.3%", "66.7%", "150.0%", "100.0%"]
    assert [pct(5, 0), pct(0, 0), pct(None, 5), pct(5, None), pct(nan, 5), pct(1, nan)] == ["n/a"] * 6
    assert [fmt(1295), fmt(0), fmt(2.0), fmt(1234.56), fmt(-1500), fmt(10**6), fmt(0.25)] == \
        ["1,295", "0", "2", "1,234.6", "-1,500", "1,000,000", "0.2"]
    assert fmt(None) == fmt(nan) == "n/a"
    assert [human_bytes(n) for n in (0, 999, 1000, 1500, 999_999, 10**6, 3_200_000, 10**9, 2_500_000_000,
                                     5 * 10**12)] == \
        ["0 B", "999 B", "~1.0 KB", "~1.5 KB", "~1,000.0 KB", "~1.0 MB", "~3.2 MB", "~1.0 GB", "~2.5 GB",
         "~5,000.0 GB"]
    assert human_bytes(None) == human_bytes(nan) == "n/a"
    assert "n/a" not in (pct(0, 1), fmt(0), human_bytes(0))
    assert [as_int(None), as_int(0), as_int(7), as_int(3.9), as_int("12")] == [0, 0, 7, 3, 12]


# -- the kit, on planted census rows and probe results -------------------------------------

def probe(pid: str, files: int, occ: int, rg_files: int | None = None, key_files: int | None = None,
          verdict: str = "holds") -> dict:
    p = {"id": pid, "scope": "jsonl", "files_scanned": 40, "bytes_scanned": 2_500_000, "verdict": verdict,
         "duckdb": {"files_matched": files, "occurrences": occ},
         "rg": {"files_matched": files if rg_files is None else rg_files, "occurrences": occ},
         "duckdb_command": f"duckdb {pid}", "rg_command": f"rg {pid}"}
    if key_files is not None:
        p["structural"] = {"files_with_key": key_files}
    return p


def query(name: str, columns: list[str], rows: list[list]) -> dict:
    return {"sql": f"survey/census/queries/{name}.sql", "command": f"duckdb {name}", "columns": columns, "rows": rows}


@pytest.fixture
def kit() -> Kit:
    census = {
        "files_by_surface": query("files_by_surface", ["surface", "files"],
                                  [["transcript", 30], ["subagent", 5], ["other", None]]),
        "frame_status": query("frame_status", ["frame_status", "frames"],
                              [["ok", 1200], ["malformed", 3], ["too_deep", 2], ["blank", None]]),
        "tool_names": query("tool_names", ["name", "calls"], [["Shell", 50], ["Read", 20], ["<withheld>", 7]]),
        "value_maps": query("value_maps", ["path", "value", "distinct_withheld"],
                            [["$.name", "Shell", None], ["$.other", "<withheld>", 99], ["$.name", "<withheld>", 4]]),
        "empty": query("empty", ["x"], []),
        "ragged": query("ragged", ["a", "b"], [[1, 2], [3]]),
    }
    evidence = {"probes": [probe("none", 0, 0), probe("some", 6, 9), probe("keyless", 4, 4, key_files=0),
                           probe("keyed", 4, 4, key_files=3), probe("split", 2, 2, rg_files=3, verdict="disagreement")]}
    manifest = {"counts": {"walked_files": 35, "walked_bytes": 1_500_000, "files": 41}}
    return Kit(census, evidence, manifest)


def test_kit_reads_census_rows_and_refuses_unknown_names(kit: Kit) -> None:
    assert kit.rows("files_by_surface")[1] == {"surface": "subagent", "files": 5}
    assert kit.one("frame_status") == {"frame_status": "ok", "frames": 1200} and kit.one("empty") == {}
    with pytest.raises(ValueError):  # a row that does not fit its columns is an error, not a short dict
        kit.rows("ragged")
    with pytest.raises(MissingEvidence, match="no census query named 'nope'"):
        kit.rows("nope")
    with pytest.raises(MissingEvidence, match="no probe named 'nope'"):
        kit.probe("nope")
    assert (kit.walked, kit.walked_bytes, kit.total) == (35, 1_500_000, 41)
    assert kit.scope_walked() == "35 walked files, ~1.5 MB"
    e = kit.ev("tool_names", "3 rows")
    assert (e.source, e.result, e.scope, e.command) == ("survey/census/queries/tool_names.sql", "3 rows",
                                                        "35 walked files, ~1.5 MB", "duckdb tool_names")
    assert kit.ev("tool_names", "x", scope="every file").scope == "every file"
    assert kit.surface_counts(("transcript", "legacy", "other")) == ({"transcript": 30, "legacy": 0, "other": 0}, 35)


def test_kit_probe_evidence_names_both_greps_and_the_key(kit: Kit) -> None:
    e = kit.ev_probe("keyed")
    assert (e.source, e.command, e.second_command) == ("probe:keyed", "duckdb keyed", "rg keyed")
    assert e.scope == "40 files, ~2.5 MB (every file in scope 'jsonl')"
    assert e.result == "DuckDB: 4 files / 4 hits; rg: 4 files / 4 hits; as a key: 3 of 35 walked files"
    assert "as a key" not in kit.ev_probe("some").result


def test_absences_are_worded_by_what_was_found(kit: Kit) -> None:
    cases = {
        "none": ("x: not observed in 40 files (0 hits by DuckDB and by rg)", True, "observed"),
        "some": ("x: observed in 6 of 40 files (9 hits)", False, "observed"),
        "keyless": ("x: not observed as a key in 35 walked files; the text occurs in 4 of 40 files", True, "observed"),
        "keyed": ("x: observed as a key in 3 of 35 walked files (4 of 40 files by text)", False, "observed"),
        "split": ("x: DuckDB and ripgrep DISAGREE over 40 files (2 vs 3 files): not determined", None,
                  "not determined"),
    }
    for pid, (text, value, prov) in cases.items():
        c = kit.absence(f"a_{pid}", pid, "x", headline=pid == "some")
        assert (c.text, c.value, c.provenance, c.kind) == (text, value, prov, "absence"), pid
        assert c.headline == (pid == "some") and c.evidence[0].source == f"probe:{pid}"
        assert "does not exist" not in c.text
    assert [c.id for c in kit.claims] == [f"a_{p}" for p in cases]
    assert kit.absence("plain", "none", "y").headline is False


def test_basis_and_tool_names_state_planted_figures(kit: Kit) -> None:
    assert kit.basis_frames("records") == 1200
    basis = kit.claims[-1]
    assert (basis.id, basis.kind, basis.provenance, basis.headline) == ("basis_frames", "census", "observed", False)
    assert basis.text == ("35 files were walked (~1.5 MB): 1,200 records parsed; malformed 3, blank 0, partial 0, "
                          "too_deep 2.")
    assert basis.value == {"ok": 1200, "malformed": 3, "blank": 0, "partial": 0, "oversized": 0,
                           "not_object": 0, "invalid_utf8": 0, "too_deep": 2}
    assert basis.evidence[0].result.startswith("ok 1,200; malformed 3; blank 0;")
    kit.tool_names("$.name", note="Open set.")
    t = kit.claims[-1]
    assert t.id == "tool_names" and t.kind == "value_map"
    assert t.text == "2 reviewed tool names observed over 77 calls; 7 calls carry 4 unreviewed names, withheld. Open set."
    assert t.value == {"Shell": 50, "Read": 20, "<withheld>": 7}
    assert t.evidence[0].result == "3 rows"
    kit.tool_names("$.elsewhere")  # withheld calls, but no withheld names counted at this path
    assert kit.claims[-1].text == ("2 reviewed tool names observed over 77 calls; 7 calls carry 0 unreviewed names, "
                                   "withheld. Tool names are an open set: a parser must not reject an unknown name.")
    kit.census["tool_names"] = query("tool_names", ["name", "calls"], [["Shell", 50], ["Read", 20]])
    kit.tool_names("$.name", withheld_label="server names", note="N.")
    assert kit.claims[-1].text == "2 reviewed tool names observed over 70 calls. N."
