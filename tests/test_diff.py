"""``survey diff``: drift named honestly, scope first.

Snapshots are taken of corpora made by ``survey/synth`` (in ``tmp_path``), with a planted
transcript whose shapes and values the generator never writes (a ``tool_use`` block with a
call id, a ``status`` of ``cancelled``): its counts are known by construction. A snapshot is
altered only in a copy (its manifest or claims edited), to show one scope difference or one
percentile shift at a time.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.pipeline import run_survey
from survey.runtimes import get
from survey.snapshot.diff import Drift, RuntimeMismatch, diff, shift_lines, to_markdown
from survey.snapshot.store import SCHEMA_VERSION
from survey.synth.cursor import generate
from tests.kept_util import built_once

CALLS = 3  # tool_use blocks with an id in the planted transcript
TOOL_USE = "$.message.content[type=tool_use]"


def plant(root: Path) -> None:
    d = root / "proj-drift" / "agent-transcripts" / "drift-1"
    d.mkdir(parents=True)
    recs = [{"role": "assistant", "message": {"content": [
        {"type": "tool_use", "id": f"call-{i}", "name": "Shell", "input": {"command": "x"}} for i in range(CALLS)]}},
        {"type": "turn_ended", "status": "cancelled", "error": "x"}]
    (d / "drift-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def survey(root: Path, base: Path, date: str, **kw: Any) -> Path:
    res = run_survey(get("cursor"), root, snapshots=base / "snapshots", reports=None, date=date, cache=False, **kw)
    return Path(res.snapshot)


@pytest.fixture(scope="module")
def snaps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """plain: a generated corpus; planted: the same root with the planted transcript added;
    sample: that root, 5 files walked; moved: a copy of it under another root."""
    def build(base: Path) -> tuple[Path, ...]:
        root = base / "projects"
        root.mkdir()
        generate(root, seed=3, sessions=6)
        plain = survey(root, base, "2026-01-01")
        plant(root)
        moved = base / "moved" / "projects"
        shutil.copytree(root, moved)
        return (plain, survey(root, base, "2026-02-01"), survey(root, base, "2026-03-01", sample_n=5, seed=1),
                survey(moved, base, "2026-04-01"))

    return dict(zip(("plain", "planted", "sample", "moved"), built_once("diff", tmp_path_factory, build), strict=True))


def copy(snap: Path, base: Path, date: str) -> Path:
    dst = base / "snapshots" / date / snap.name
    shutil.copytree(snap, dst)
    return dst


def edit(snap: Path, name: str, change) -> None:  # type: ignore[no-untyped-def]
    p = snap / f"{name}.json"
    p.write_text(json.dumps(change(json.loads(p.read_text()))))


def sections(md: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    cur = "#"
    for line in md.splitlines():
        if line.startswith("## "):
            cur = line[3:]
            out[cur] = []
        elif line:
            out.setdefault(cur, []).append(line)
    return out


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["diff", *args])


# -- what drifted ------------------------------------------------------------------------------
def test_planted_shapes_and_values_appear(snaps: dict[str, Path]) -> None:
    d = diff(snaps["plain"], snaps["planted"])
    ks = {(r["path"], r["keyset"]): r["count"] for r in d.keysets_appeared}
    assert ks[(TOOL_USE, "id,input,name,type")] == CALLS
    assert ks[(f"{TOOL_USE}.id", "")] == CALLS
    vals = {(r["path"], r["value"]): r["count"] for r in d.values_appeared}
    assert vals[("$.status", "cancelled")] == 1
    assert not d.keysets_vanished and not d.values_vanished
    assert "no_cancelled" in {f["claim"] for f in d.flipped_absences}
    assert d.drifted and d.drift_counts()["keysets_appeared"] == len(d.keysets_appeared)
    assert d.scope_differences == []


def test_shapes_that_only_vanish_are_drift_and_fail_the_check(snaps: dict[str, Path]) -> None:
    d = diff(snaps["planted"], snaps["plain"])
    ks = {(r["path"], r["keyset"]): r["count"] for r in d.keysets_vanished}
    assert ks[(TOOL_USE, "id,input,name,type")] == CALLS
    vals = {(r["path"], r["value"]): r["count"] for r in d.values_vanished}
    assert vals[("$.status", "cancelled")] == 1
    assert not d.keysets_appeared and not d.values_appeared
    assert d.drifted
    r = invoke(str(snaps["planted"]), str(snaps["plain"]), "--fail-on-drift")
    assert r.exit_code == 3, r.output
    said = " ".join(r.output.split())
    assert f"drift: 1 absence claims flipped, {len(d.statements_changed)} statements changed, " \
           f"{len(d.keysets_vanished)} key sets vanished, {len(d.values_vanished)} vocabulary values vanished" in said
    md = sections(to_markdown(d))
    assert "- `Shell`" not in "\n".join(md["Key sets that vanished"])
    assert any(f"`{TOOL_USE}` object `{{id,input,name,type}}` ×{CALLS}" in ln for ln in md["Key sets that vanished"])
    assert md["Vocabulary values that vanished"] == ["- `$.status` = `cancelled` ×1"]
    assert md["Key sets that appeared"] == ["- none"] and md["Vocabulary values that appeared"] == ["- none"]


def test_values_that_only_vanish_are_drift(snaps: dict[str, Path], tmp_path: Path) -> None:
    old = copy(snaps["plain"], tmp_path, "2026-05-01")

    def add_value(census: dict) -> dict:
        q = census["value_maps"]
        row: dict[str, Any] = dict.fromkeys(q["columns"], 0)
        row.update(path="$.status", value="gone_value", occurrences=4, files=2)
        q["rows"].append([row[c] for c in q["columns"]])
        return census

    edit(old, "census", add_value)
    d = diff(old, snaps["plain"])
    assert d.values_vanished == [{"path": "$.status", "value": "gone_value", "count": 4}]
    assert d.drifted and not d.keysets_vanished and not d.flipped_absences
    assert d.drift_counts() == {"values_vanished": 1}
    assert invoke(str(old), str(snaps["plain"]), "--fail-on-drift").exit_code == 3
    assert invoke(str(snaps["plain"]), str(snaps["plain"]), "--fail-on-drift").exit_code == 0


def test_the_same_snapshot_has_no_drift(snaps: dict[str, Path]) -> None:
    d = diff(snaps["planted"], snaps["planted"])
    assert not d.drifted and d.drift_counts() == {} and d.summary() == "no drift"
    assert not (d.keysets_appeared or d.keysets_vanished or d.values_appeared or d.values_vanished
                or d.flipped_absences or d.percentile_shifts or d.scope_differences)
    assert all(a == b for a, b in d.strata.values())
    r = invoke(str(snaps["planted"]), str(snaps["planted"]), "--fail-on-drift", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["drifted"] is False


# -- percentile shifts --------------------------------------------------------------------------
def test_percentile_shifts_print_as_the_pages_print_figures(snaps: dict[str, Path], tmp_path: Path) -> None:
    old, new = copy(snaps["plain"], tmp_path, "2026-06-01"), copy(snaps["plain"], tmp_path, "2026-07-01")

    def set_value(cid: str, v: Any):  # type: ignore[no-untyped-def]
        return lambda claims: [{**c, "value": v} if c["id"] == cid else c for c in claims]

    edit(old, "claims", set_value("agent_tools_sizes", [1234, 56789, 1234567]))
    edit(new, "claims", set_value("agent_tools_sizes", [1234, 60000, 1234567]))
    edit(old, "claims", set_value("payload_percentiles", {"p50": 136, "p99": 12000, "max": 38579}))
    edit(new, "claims", set_value("payload_percentiles", {"p50": 136, "p99": 12500.5, "gone": None, "max": 38579}))
    d = diff(old, new)
    assert [p["claim"] for p in d.percentile_shifts] == ["agent_tools_sizes", "payload_percentiles"]
    md = sections(to_markdown(d))
    assert md["Percentile shifts"] == [
        "- agent_tools_sizes: 1,234 / 56,789 / 1,234,567 → 1,234 / 60,000 / 1,234,567",
        "- payload_percentiles · `gone`: – → n/a",
        "- payload_percentiles · `p99`: 12,000 → 12,500.5",
    ]
    assert not d.drifted  # a shift is reported, not drift
    r = invoke(str(old), str(new), "--json")
    assert json.loads(r.output)["percentile_shifts"][0] == {"claim": "agent_tools_sizes", "old": [1234, 56789, 1234567],
                                                           "new": [1234, 60000, 1234567]}


def test_shift_lines_name_each_changed_entry() -> None:
    p = {"claim": "c", "old": {"a": [1000, 2000], "b": [1, 2], "same": 5}, "new": {"a": [1000, 2500], "n": 7, "same": 5}}
    assert shift_lines(p) == ["- c · `a`: 1,000 / 2,000 → 1,000 / 2,500", "- c · `b`: 1 / 2 → –", "- c · `n`: – → 7"]
    assert shift_lines({"claim": "c", "old": 1500, "new": 2500.25}) == ["- c: 1,500 → 2,500.2"]
    assert shift_lines({"claim": "c", "old": True, "new": None}) == ["- c: true → n/a"]
    # a map inside a map, a map against no value, a string
    assert shift_lines({"claim": "c", "old": {"a": {"p50": 1000, "max": 9}}, "new": {"a": {"p50": 2000, "max": 9}}}) == [
        "- c · `a`: p50 1,000; max 9 → p50 2,000; max 9"]
    assert shift_lines({"claim": "c", "old": {"a": 1500}, "new": None}) == ["- c: a 1,500 → n/a"]
    assert shift_lines({"claim": "c", "old": "<1", "new": [1, None]}) == ["- c: &lt;1 → 1 / n/a"]
    # a map on the newer side only: the whole value, whatever the older one was
    assert shift_lines({"claim": "c", "old": None, "new": {"a": 1500}}) == ["- c: n/a → a 1,500"]
    assert shift_lines({"claim": "c", "old": [1, 2], "new": {"a": 1}}) == ["- c: 1 / 2 → a 1"]


# -- refusals and scope ------------------------------------------------------------------------
def test_two_runtimes_are_refused_in_one_line(snaps: dict[str, Path], tmp_path: Path) -> None:
    other = copy(snaps["plain"], tmp_path, "2026-08-01")
    edit(other, "manifest", lambda m: {**m, "runtime": "codex"})
    with pytest.raises(RuntimeMismatch):
        diff(snaps["plain"], other)
    r = invoke(str(snaps["plain"]), str(other))
    assert r.exit_code == 2
    assert r.output.startswith("error: ") and r.output.count("error:") == 1
    msg = " ".join(r.output.split())
    assert "cursor" in msg and "codex" in msg and "##" not in r.output


def test_a_sample_against_a_whole_corpus_says_so_first(snaps: dict[str, Path]) -> None:
    d = diff(snaps["planted"], snaps["sample"])
    assert [s["field"] for s in d.scope_differences] == ["sample"]
    assert d.scope_differences[0]["old"] == "whole corpus" and d.scope_differences[0]["new"] == "sample of 5 (seed 1)"
    assert d.keysets_vanished and not d.drifted  # not seen in a sample: not drift
    assert d.summary().startswith("no drift; not drift: ")
    assert f"{len(d.keysets_vanished)} key sets not seen in the newer sample" in d.summary()
    md = to_markdown(d)
    s = sections(md)
    assert list(s)[1:3] == ["Scope", "Summary"]
    assert "**The two snapshots differ in scope**; read what follows with that in mind:" in s["Scope"]
    new = d.scope["new"]
    assert (f"- the newer snapshot walked {new['walked_files']:,} of {new['files']:,} files: a shape missing from it "
            "was not seen in its sample, which is not evidence that it is gone") in s["Scope"]
    assert "Key sets not seen in the newer snapshot's sample" in s and "Key sets that vanished" not in s
    assert "vanished" not in md
    j = json.loads(invoke(str(snaps["planted"]), str(snaps["sample"]), "--json", "--fail-on-drift").output)
    assert j["vanished_means"] == "not seen in the newer snapshot's sample" and j["drifted"] is False
    assert j["scope"]["new"]["sampled"] is True and j["scope"]["old"]["sampled"] is False
    assert j["scope_differences"][0]["field"] == "sample"
    r = invoke(str(snaps["planted"]), str(snaps["sample"]), "--fail-on-drift")
    assert r.exit_code == 0 and "differ in scope" in " ".join(r.output.split())
    # the other way round: what the older sample did not show is not new
    d = diff(snaps["sample"], snaps["planted"])
    assert d.keysets_appeared and not d.drifted and not d.keysets_vanished
    s = sections(to_markdown(d))
    assert "Key sets in the newer snapshot only (not seen in the older one's sample)" in s
    assert "Key sets that appeared" not in s


def test_another_root_tool_or_vocabulary_is_named(snaps: dict[str, Path], tmp_path: Path) -> None:
    d = diff(snaps["planted"], snaps["moved"])
    assert [s["field"] for s in d.scope_differences] == ["root"]
    assert d.scope_differences[0]["old"] != d.scope_differences[0]["new"]
    assert not d.drifted  # the same files under another root
    other = copy(snaps["planted"], tmp_path, "2026-09-01")
    edit(other, "manifest", lambda m: {**m, "tool_version": "9.9.9", "vocab": "v2", "snapshot_schema": 99})
    vocab = json.loads((snaps["planted"] / "manifest.json").read_text())["vocab"]  # (the survey records it)
    assert vocab
    d = diff(snaps["planted"], other)
    assert {s["field"]: (s["old"], s["new"]) for s in d.scope_differences} == {
        "tool_version": (json.loads((snaps["planted"] / "manifest.json").read_text())["tool_version"], "9.9.9"),
        "vocab": (vocab, "v2"), "snapshot_schema": (SCHEMA_VERSION, 99)}
    s = sections(to_markdown(d))["Scope"]
    assert "- tool version: `" in "\n".join(s) and f"- vocabulary version: `{vocab}` → `v2`" in s
    assert f"- snapshot schema: `{SCHEMA_VERSION}` → `99`" in s


# -- the report, section by section -------------------------------------------------------------
def test_to_markdown_section_by_section() -> None:
    scope = {"sampled": False, "sample": "whole corpus", "walked_files": 1200, "files": 1500, "root": "r-1",
             "tool_version": "0.1.0", "snapshot_schema": 7, "vocab": None, "mode": "reviewed",
             "allow_mcp_names": False, "min_files": 1}
    d = Drift(old="a", new="b", runtime="cursor", scope={"old": scope, "new": {**scope, "root": "r-2"}},
              scope_differences=[{"field": "root", "what": "root pseudonym", "old": "r-1", "new": "r-2"}],
              flipped_absences=[{"claim": "no_x", "old": "X: not observed in 3 files", "new": "X: observed in <1> of 3"}],
              keysets_appeared=[{"rclass": "assistant", "path": "$.m", "jtype": "object", "keyset": "a,b", "count": 12345}],
              keysets_vanished=[{"rclass": "<withheld>", "path": "$.n", "jtype": "string", "keyset": "", "count": 2}],
              values_appeared=[{"path": "$.s", "value": "v1", "count": 1000}],
              values_vanished=[{"path": "$.s", "value": "v0", "count": 3}],
              statements_changed=[{"claim": "wal", "old": "0 of 2 had a -wal.", "new": "1 of 2 had a -wal <x>.",
                                   "changed": ["value · `with_wal`: zero → non-zero"]},
                                  {"claim": "gone", "old": "Said once.", "new": None,
                                   "changed": ["stated on one side only"]}],
              figures_moved=[{"claim": "roles", "figures": ["`user`: 1,000 → 1,200"]},
                             {"claim": "many", "figures": [f"#{i}: {i} → {i + 1}" for i in range(8)]}],
              percentile_shifts=[{"claim": "p", "old": [1, 2000], "new": [1, 3000]}],
              strata={"2026-01": [1000, 1200], "2026-02": [0, 5]})
    md = to_markdown(d)
    assert md.startswith("# Drift: cursor\n\nFrom `a` to `b`.\n\n## Scope\n")
    s = sections(md)
    assert list(s) == ["#", "Scope", "Summary", "Absence claims that flipped", "Statements changed",
                       "Key sets that appeared", "Key sets that vanished", "Vocabulary values that appeared",
                       "Vocabulary values that vanished", "Figures that moved (the statement holds: not drift)",
                       "Percentile shifts", "Files per mtime stratum (old → new)"]
    line = ("whole corpus, 1,200 of 1,500 files walked; root `{}`; tool `0.1.0`, schema `7`, "
            "vocabulary version not recorded")
    assert s["Scope"] == [f"- older: {line.format('r-1')}", f"- newer: {line.format('r-2')}",
                          "**The two snapshots differ in scope**; read what follows with that in mind:",
                          "- root pseudonym: `r-1` → `r-2`"]
    assert s["Summary"] == ["drift: 1 absence claims flipped, 2 statements changed, 1 key sets appeared, "
                            "1 key sets vanished, 1 vocabulary values appeared, 1 vocabulary values vanished"]
    assert s["Statements changed"] == ["- **wal**: 0 of 2 had a -wal. → 1 of 2 had a -wal &lt;x&gt;.",
                                       "  - value · `with_wal`: zero → non-zero",
                                       "- **gone**: Said once. → –", "  - stated on one side only"]
    assert s["Figures that moved (the statement holds: not drift)"] == [
        "- roles: `user`: 1,000 → 1,200", "- many: #0: 0 → 1; #1: 1 → 2; #2: 2 → 3; #3: 3 → 4; #4: 4 → 5; #5: 5 → 6; … 2 more"]
    assert s["Absence claims that flipped"] == ["- **no_x**: X: not observed in 3 files → X: observed in &lt;1&gt; of 3"]
    assert s["Key sets that appeared"] == ["- `assistant` `$.m` object `{a,b}` ×12,345"]
    assert s["Key sets that vanished"] == ["- `<withheld>` `$.n` string ×2"]
    assert s["Vocabulary values that appeared"] == ["- `$.s` = `v1` ×1,000"]
    assert s["Vocabulary values that vanished"] == ["- `$.s` = `v0` ×3"]
    assert s["Percentile shifts"] == ["- p: 1 / 2,000 → 1 / 3,000"]
    assert s["Files per mtime stratum (old → new)"] == ["- 2026-01: 1,000 → 1,200", "- 2026-02: 0 → 5"]
    empty = sections(to_markdown(Drift(old="a", new="a", runtime="cursor", scope={"old": scope, "new": scope})))
    assert empty["Scope"][-1] == "Same scope: same sampling, root, tool, schema and vocabulary."
    assert empty["Summary"] == ["no drift"]
    for name in ("Absence claims that flipped", "Statements changed", "Key sets that appeared", "Key sets that vanished",
                 "Vocabulary values that appeared", "Vocabulary values that vanished",
                 "Figures that moved (the statement holds: not drift)", "Percentile shifts",
                 "Files per mtime stratum (old → new)"):
        assert empty[name] == ["- none"], name


def test_out_writes_the_report_and_json_is_what_diff_returns(snaps: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r" / "drift.md"
    r = invoke(str(snaps["plain"]), str(snaps["planted"]), "--out", str(out), "--json")
    assert r.exit_code == 0
    d = diff(snaps["plain"], snaps["planted"])
    assert json.loads(r.output) == json.loads(json.dumps(d.to_json()))
    assert out.read_text() == to_markdown(d)


def test_a_query_one_snapshot_lacks_counts_as_no_rows(snaps: dict[str, Path], tmp_path: Path) -> None:
    """An older snapshot without a query (a runtime or a schema that had none) is compared
    as having no rows of it, never a crash."""
    old = copy(snaps["plain"], tmp_path, "2026-10-01")
    edit(old, "census", lambda c: {k: v for k, v in c.items() if k not in ("strata", "value_maps")})
    d = diff(old, snaps["plain"])
    new_strata = json.loads((snaps["plain"] / "census.json").read_text())["strata"]
    files = {r[new_strata["columns"].index("stratum")]: r[new_strata["columns"].index("files")] for r in new_strata["rows"]}
    assert d.strata == {s: [0, n] for s, n in sorted(files.items())}
    assert len(d.values_appeared) == len(json.loads((snaps["plain"] / "census.json").read_text())["value_maps"]["rows"])
    assert not d.keysets_appeared and not d.keysets_vanished and not d.values_vanished


# -- claims: a statement that changed is drift, figures that moved are not ------------------------
def _claim(cid: str, kind: str, text: str, value: Any, **kw: Any) -> dict[str, Any]:
    ev = {"source": "q.sql", "result": "r", "scope": "s", "command": "c", "second_command": ""}
    return {"id": cid, "kind": kind, "text": text, "evidence": [ev], "provenance": kw.pop("provenance", "observed"),
            "value": value, "headline": False, "extra": kw.pop("extra", {})}


def _with_claims(snaps: dict[str, Path], base: Path, date: str, *claims: dict[str, Any]) -> Path:
    snap = copy(snaps["plain"], base, date)
    edit(snap, "claims", lambda cs: [*cs, *claims])
    return snap


def test_figures_that_move_are_listed_not_drift(snaps: dict[str, Path], tmp_path: Path) -> None:
    old = _with_claims(snaps, tmp_path, "2026-05-01",
                       _claim("x_outcomes", "census", "5 ok, 2 failed: truncated 2.", {"ok": 5, "truncated": 2}),
                       _claim("x_rate", "rate", "3 of 9 calls carry an id.", [3, 9]),
                       _claim("x_roles", "value_map", "Roles: user 4, tool 2.", {"user": 4, "tool": 2}))
    new = _with_claims(snaps, tmp_path, "2026-05-02",
                       _claim("x_outcomes", "census", "1,500 ok, 1 failed: truncated 1.", {"ok": 1500, "truncated": 1}),
                       _claim("x_rate", "rate", "4 of 12 calls carry an id.", [4, 12]),
                       # the order of a list by frequency, and a plural, are figures too
                       _claim("x_roles", "value_map", "Roles: tool 9, user 5.", {"tool": 9, "user": 5}))
    d = diff(old, new)
    assert not d.drifted and d.statements_changed == []
    moved = {f["claim"]: f["figures"] for f in d.figures_moved}
    assert moved == {"x_outcomes": ["`ok`: 5 → 1,500", "`truncated`: 2 → 1"], "x_rate": ["#1: 3 → 4", "#2: 9 → 12"],
                     "x_roles": ["`tool`: 2 → 9", "`user`: 4 → 5"]}
    md = sections(to_markdown(d))
    assert "- x_outcomes: `ok`: 5 → 1,500; `truncated`: 2 → 1" in md["Figures that moved (the statement holds: not drift)"]
    assert md["Statements changed"] == ["- none"]
    assert invoke(str(old), str(new), "--fail-on-drift").exit_code == 0


@pytest.mark.parametrize(("old_claim", "new_claim", "said"), [
    # a count that crosses zero (a failure outcome appearing), an entry that comes
    (_claim("x", "census", "5 ok; none failed.", {"ok": 5, "truncated": 0}),
     _claim("x", "census", "5 ok; failures: truncated 1.", {"ok": 5, "truncated": 1}), "value · `truncated`: zero → non-zero"),
    (_claim("x", "census", "Tables: a, b.", {"tables": ["a", "b"]}),
     _claim("x", "census", "Tables: a, b, c.", {"tables": ["a", "b", "c"]}), "value · `tables`: new item c"),
    (_claim("x", "value_map", "Encodings: hex 2, json 2.", {"hex": 2, "json": 2}),
     _claim("x", "value_map", "Encodings: json 4.", {"json": 4}), "value · `hex`: gone"),
    # a rate that stops covering all, a verdict flipping, a reference note contradicted
    (_claim("x", "rate", "18 of 18 ids contain a newline.", [18, 18]),
     _claim("x", "rate", "17 of 18 ids contain a newline.", [17, 18]), "value · #1 of #2: all → not all"),
    (_claim("x", "census", "Rows follow rowid order.", False), _claim("x", "census", "Rows do not follow rowid order.", True),
     "value: false → true"),
    (_claim("x", "reference", "Ids contain a newline.", True, provenance="reference", extra={"checked": True, "holds": True}),
     _claim("x", "reference", "Ids contain a newline.", False, provenance="reference",
            extra={"checked": True, "holds": False}), "extra · `holds`: true → false"),
    # the same value, a sentence that says something else (a conclusion dropped)
    (_claim("x", "census", "Up to 39 calls in a frame. None carries an id: pairing by name is unsafe.", 39),
     _claim("x", "census", "Up to 39 calls in a frame.", 39), "sentence words no longer: by carry id name none"),
])
def test_a_statement_that_changed_is_drift_and_named(snaps: dict[str, Path], tmp_path: Path, old_claim: dict[str, Any],
                                                    new_claim: dict[str, Any], said: str) -> None:
    old = _with_claims(snaps, tmp_path, "2026-06-01", old_claim)
    new = _with_claims(snaps, tmp_path, "2026-06-02", new_claim)
    d = diff(old, new)
    assert d.drift_counts() == {"statements_changed": 1} and not d.figures_moved
    (s,) = d.statements_changed
    assert s["claim"] == "x" and s["old"] == old_claim["text"] and s["new"] == new_claim["text"]
    assert any(c.startswith(said) for c in s["changed"]), s["changed"]
    r = invoke(str(old), str(new), "--fail-on-drift")
    assert r.exit_code == 3
    out = " ".join(r.output.split())
    assert "drift: 1 statements changed" in out and "x" in sections(to_markdown(d))["Statements changed"][0]


def test_a_claim_stated_on_one_side_only_is_a_changed_statement(snaps: dict[str, Path], tmp_path: Path) -> None:
    old = _with_claims(snaps, tmp_path, "2026-06-03", _claim("only_old", "census", "Said before.", 1))
    new = _with_claims(snaps, tmp_path, "2026-06-04", _claim("only_new", "census", "Said now.", 1))
    d = diff(old, new)
    assert [(s["claim"], s["old"], s["new"]) for s in d.statements_changed] == [
        ("only_new", None, "Said now."), ("only_old", "Said before.", None)]
    assert d.drifted


def test_statements_that_differ_against_a_sample_are_not_drift(snaps: dict[str, Path]) -> None:
    d = diff(snaps["planted"], snaps["sample"])
    assert d.statements_changed and not d.drifted
    md = sections(to_markdown(d))
    assert "Statements that differ where a sample was walked (not evidence of drift)" in md
    assert "Statements changed" not in md
    assert f"{len(d.statements_changed)} statements that differ where a sample was walked" in d.summary()


def test_the_planted_drift_is_named_among_the_statements(snaps: dict[str, Path]) -> None:
    """The planted call ids: the claim about tool_use key sets says something else now (a
    count crossed zero, all blocks id-less no longer), and the growth elsewhere is figures."""
    d = diff(snaps["plain"], snaps["planted"])
    said = {s["claim"]: s["changed"] for s in d.statements_changed}
    assert "tool_use_keyset" in said and "value · #1 of #2: all → not all" in said["tool_use_keyset"]
    assert "turn_status" in said and "value · `cancelled`: new" in said["turn_status"]
    moved = {f["claim"] for f in d.figures_moved}
    assert "basis_frames" in moved and not moved & set(said)


@pytest.mark.parametrize("runtime", ["cursor_chats", "claude_code"])
def test_no_canary_reaches_the_diff(runtime: str, tmp_path: Path) -> None:
    """A drift over a corpus with canaries planted everywhere private data could be: the
    report and its JSON hold none (claims are gated; the diff prints their sentences and
    the names their values were stated under)."""
    import sqlite3

    from survey.synth.demo import generator
    from tests.drift import rewrite_jsonl
    from tests.test_privacy import leaks

    root = tmp_path / "corpus"
    canaries = generator(runtime)(root, seed=11, canaries=True)["canaries"]
    assert len(canaries) > 20
    old = Path(run_survey(get(runtime), root, snapshots=tmp_path / "s", reports=None, date="2026-01-01", cache=False).snapshot)
    if runtime == "cursor_chats":
        for db in sorted(root.rglob("store.db")):
            try:
                con = sqlite3.connect(db)
                with con:
                    con.execute("CREATE TABLE extra (k TEXT)")
                    for key, value in con.execute("SELECT key, value FROM meta").fetchall():
                        with contextlib.suppress(ValueError, TypeError):
                            con.execute("UPDATE meta SET value = ? WHERE key = ?", (bytes.fromhex(value).decode(), key))
                con.close()
            except sqlite3.DatabaseError:
                continue
    else:
        rewrite_jsonl(root, lambda rec, _p: {**rec, "gitBranch": "cnry000000000000z", "slug": rec.get("uuid")})
    new = Path(run_survey(get(runtime), root, snapshots=tmp_path / "s", reports=None, date="2026-02-01", cache=False).snapshot)
    d = diff(old, new)
    assert d.drifted and d.statements_changed
    text = to_markdown(d) + json.dumps(d.to_json()) + invoke(str(old), str(new), "--json").output
    leaked = sorted(leaks(canaries, text))
    assert not leaked, f"{len(leaked)} canaries reached the diff, e.g. {leaked[:3]}"


def test_a_list_of_lists_changing_is_named_without_a_crash(snaps: dict[str, Path], tmp_path: Path) -> None:
    old = _with_claims(snaps, tmp_path, "2026-06-05", _claim("x", "census", "Pairs: a.", [["a", 1]]))
    new = _with_claims(snaps, tmp_path, "2026-06-06", _claim("x", "census", "Pairs: a, b.", [["a", 1], ["b", 0]]))
    (s,) = diff(old, new).statements_changed
    assert s["changed"] == ['value: new item ["b", "0"]']
    assert invoke(str(old), str(new), "--fail-on-drift").exit_code == 3
