"""``survey diff`` on two snapshots written by hand: each differs from the other in known
ways (a scope field, a key set, a vocabulary value, a claim), so every figure the diff reports
is known before it runs. diff reads only a snapshot's manifest, census and claims."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from survey.snapshot.diff import SCOPE_FIELDS, diff, to_markdown

MANIFEST: dict[str, Any] = {
    "runtime": "cursor", "sample": {"n": None, "seed": None}, "counts": {"walked_files": 4, "files": 4},
    "root": "root-a", "tool_version": "1.0", "snapshot_schema": 7, "vocab": "v1", "mode": "reviewed",
    "allow_mcp_names": False, "privacy": {"min_files": 2},
}
# every scope field, another value
OTHER: dict[str, Any] = {
    "sample": {"n": 2, "seed": 5}, "root": "root-b", "tool_version": "1.1", "snapshot_schema": 8, "vocab": "v2",
    "mode": "discover", "allow_mcp_names": True, "privacy": {"min_files": 3},
}
WHAT = {"sample": "what was walked", "root": "root pseudonym", "tool_version": "tool version",
        "snapshot_schema": "snapshot schema", "vocab": "vocabulary version", "mode": "gate mode",
        "allow_mcp_names": "MCP names let through", "min_files": "rare-key threshold (files)"}


def table(columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"columns": columns, "rows": rows}


def write(base: Path, name: str, manifest: dict[str, Any] | None = None, census: dict[str, Any] | None = None,
          claims: list[dict[str, Any]] | None = None) -> Path:
    snap = base / name / "cursor"
    snap.mkdir(parents=True)
    (snap / "manifest.json").write_text(json.dumps(manifest if manifest is not None else MANIFEST))
    (snap / "census.json").write_text(json.dumps(census or {}))
    (snap / "claims.json").write_text(json.dumps(claims or []))
    return snap


def test_each_scope_field_that_differs_is_named_by_what_it_is(tmp_path: Path) -> None:
    old = write(tmp_path, "a")
    for field, value in OTHER.items():
        name = "min_files" if field == "privacy" else field
        new = write(tmp_path, f"b-{field}", {**MANIFEST, field: value})
        d = diff(old, new)
        assert [(s["field"], s["what"]) for s in d.scope_differences] == [(name, WHAT[name])], field
        lines = to_markdown(d).splitlines()
        assert "**The two snapshots differ in scope**; read what follows with that in mind:" in lines
        assert any(ln.startswith(f"- {WHAT[name]}: ") for ln in lines), field
    every = diff(old, write(tmp_path, "c", {**MANIFEST, **OTHER}))
    assert [(s["field"], s["what"]) for s in every.scope_differences] == [(f, w) for f, w in SCOPE_FIELDS]
    assert [s["field"] for s in every.scope_differences] == list(WHAT)
    same = diff(old, write(tmp_path, "d"))
    assert same.scope_differences == [] and not same.drifted


# -- what a claim states, figures aside (each expected line written out by hand) -------------------
def claim(value: Any, text: str = "X seen", kind: str = "count", provenance: str | None = "measured",
          **extra: Any) -> dict[str, Any]:
    return {"id": "c", "kind": kind, "value": value, "text": text, "provenance": provenance, **extra}


AGREEMENT = ["is", "are", "was", "were", "has", "have", "do", "does", "a", "an", "it", "they", "s",
             "b", "kb", "mb", "gb"]


def test_agreement_words_units_figures_and_plurals_say_nothing() -> None:
    from survey.snapshot.diff import statement

    def words(text: str) -> list[str]:
        return statement(claim(1, text))["words"]

    for w in AGREEMENT:
        assert words(f"files {w} seen") == words("files seen") == ["file", "seen"], w
    assert words("3 entries") == words("1 entry") == ["entry"]
    assert words("ties") == ["tie"] and words("abcs") == ["abc"]  # 4 letters: only the s goes
    assert words("gas bus") == ["bus", "gas"]  # 3 letters: kept whole
    assert words("Seen, 1,234.5 in v2 3rd") == ["in", "rd", "seen", "v"]
    assert statement(claim(0, "took 1,234.5 s in v2 on 3rd x.5"))["value"] == "0"
    assert statement(claim("took 1,234.5 s in v2 on 3rd"))["value"] == "took # s in v2 on 3rd"


def test_a_value_is_judged_by_sign_rate_and_multiset() -> None:
    from survey.snapshot.diff import statement

    def v(value: Any, kind: str = "count") -> Any:
        return statement(claim(value, kind=kind))["value"]

    assert [v(0), v(5), v(-2), v(0.0), v(2.5), v(True), v(False), v(None)] == ["0", "+", "-", "0", "+", True, False, None]
    assert v([3, 3], "rate") == {"#1": "+", "#2": "+", "#1 of #2": "all"}
    assert v([1, 3, 0], "rate") == {"#1": "+", "#2": "+", "#3": "0", "#1 of #2": "not all"}
    assert v([3, 3]) == ["+", "+"]  # not a rate: a multiset
    assert v([3], "rate") == ["+"]  # one figure is no rate
    assert v([True, 3], "rate") == ["+", True]  # a bool is no figure
    assert v(["b", "a", "b"]) == ["a", "b", "b"]
    assert v([["b", 1], ["a", 0]]) == [["a", "0"], ["b", "+"]]  # a pair keeps its order
    assert v({1: 0, "k": [2, 1]}) == {"1": "0", "k": ["+", "+"]}
    assert v({"r": [2, 2]}, "rate") == {"r": {"#1": "+", "#2": "+", "#1 of #2": "all"}}
    assert v((1, 2)) == repr((1, 2))


def test_each_change_of_a_statement_is_named_where_it_is() -> None:
    from survey.snapshot.diff import statement, statement_changes

    def changes(o: dict[str, Any], c: dict[str, Any]) -> list[str]:
        return statement_changes(statement(o), statement(c))

    assert changes(claim({"x": 0, "y": [1, 2]}), claim({"x": 4, "z": 1}, provenance="sampled")) == [
        "provenance: measured → sampled", "value · `x`: zero → non-zero", "value · `y`: gone", "value · `z`: new"]
    assert changes(claim(["a", "b", "b"]), claim(["b", "c"])) == [
        "value: new item c", "value: item gone a", "value: item gone b"]
    assert changes(claim([{"name": "Shell", "n": 3}]), claim([{"name": "<x>", "n": 0}])) == [
        "value: new item name &lt;x&gt;", "value: item gone name Shell"]
    assert changes(claim([{"n": 3}]), claim([{"n": 0}])) == ['value: new item {"n": "0"}', 'value: item gone {"n": "+"}']
    assert changes(claim(1, "Seen in 3 files"), claim(1, "Absent from 3 files")) == [
        "sentence words no longer: in seen; now: absent from"]
    assert changes(claim(1, "Seen in files"), claim(1, "Seen files")) == ["sentence words no longer: in"]
    assert changes(claim(1, "Seen files"), claim(1, "Seen in files")) == ["sentence words now: in"]
    assert changes(claim(0, "Seen <a>"), claim(2, "Gone <a>")) == ["value: zero → non-zero"]  # the value says where
    assert changes(claim(1, holds=True), claim(1, holds=False)) == []  # extra is read from "extra"
    assert changes(claim(1, extra={"holds": True}), claim(1, extra={"holds": False})) == ["extra · `holds`: true → false"]
    assert changes(claim(-1), claim(None)) == ["value: negative → none"]
    assert changes(claim("a"), claim(["a"])) == ['value: a → ["a"]']
    assert changes(claim(1, provenance="<p>"), claim(1, provenance=None)) == ["provenance: &lt;p&gt; → None"]


def test_figures_that_moved_are_named_by_key_path_or_in_the_sentence() -> None:
    from survey.snapshot.diff import figure_changes

    assert figure_changes(claim({"a": 1, "b": [2, 1200], "c": "x", "d": True}),
                          claim({"a": 1, "b": [2, 1500], "c": "y", "d": False})) == ["`b` · #2: 1,200 → 1,500"]
    assert figure_changes(claim({"a": 2.5, "n": {"k": 3}}), claim({"a": 3.5, "n": {"k": 3}, "m": 1})) == ["`a`: 2.5 → 3.5"]
    assert figure_changes(claim(7, "3 of 10 files, 2.5 MB"), claim(7, "4 of 12 files, 2.5 MB")) == [
        "in its sentence: 3 / 10 → 4 / 12"]
    assert figure_changes(claim(7, "3 files"), claim(7, "3 files")) == []
    assert figure_changes(claim(7, "3 files"), claim(8, "3 files")) == ["value: 7 → 8"]


# -- two snapshots that differ in known ways ------------------------------------------------------
KS = ["rclass", "path", "jtype", "keyset", "occurrences"]
VM = ["path", "value", "occurrences"]
ST = ["stratum", "files"]
OLD_CENSUS = {"keyset_census": table(KS, [["user", "$", "object", "a,b", 5], ["user", "$.m", "object", "x", 2],
                                          [None, "$", "object", "a", 1]]),
              "value_maps": table(VM, [["$.t", "a", 3], ["$.t", "b", 1]]),
              "strata": table(ST, [["2026-01", 3], ["2026-02", 1]])}
NEW_CENSUS = {"keyset_census": table(KS, [["user", "$", "object", "a,b", 9], ["assistant", "$", "object", "a,c", 3],
                                          [None, "$.z", "string", "", 4]]),
              "value_maps": table(VM, [["$.t", "a", 7], ["$.t", "c", 2]]),
              "strata": table(ST, [["2026-02", 2], ["2026-03", 5]])}


def c(cid: str, kind: str, value: Any, text: str) -> dict[str, Any]:
    return {"id": cid, "kind": kind, "value": value, "text": text, "provenance": "measured"}


OLD_CLAIMS = [c("no_x", "absence", True, "X: not observed"), c("no_y", "absence", True, "Y: not observed in 3 files"),
              c("p", "percentile", {"p50": 1, "p90": 5}, "p90 5"), c("p2", "percentile", [1, 2], "1 then 2"),
              c("n", "count", 3, "3 files"), c("z", "count", 0, "0 files had it"), c("gone", "count", 1, "Said once"),
              c("same", "count", 1, "1 file")]
NEW_CLAIMS = [c("no_x", "absence", False, "X: observed in 1"), c("no_y", "absence", True, "Y: not observed in 4 files"),
              c("p", "percentile", {"p50": 1, "p90": 7}, "p90 7"), c("p2", "percentile", [1, 2], "1 then 2 again"),
              c("n", "count", 5, "5 files"), c("z", "count", 2, "2 files had it"), c("came", "count", 1, "Said anew"),
              c("same", "count", 1, "1 file")]
SAMPLED = {"sample": {"n": 2, "seed": 5}, "counts": {"walked_files": 2, "files": 4}}


def pair(base: Path, old_manifest: dict[str, Any] | None = None, new_manifest: dict[str, Any] | None = None
         ) -> tuple[Path, Path]:
    return (write(base, "old", old_manifest or MANIFEST, OLD_CENSUS, OLD_CLAIMS),
            write(base, "new", new_manifest or MANIFEST, NEW_CENSUS, NEW_CLAIMS))


def test_each_planted_difference_lands_in_its_list(tmp_path: Path) -> None:
    d = diff(*pair(tmp_path))
    assert d.runtime == "cursor" and d.scope_differences == []
    assert d.keysets_appeared == [{"rclass": None, "path": "$.z", "jtype": "string", "keyset": "", "count": 4},
                                  {"rclass": "assistant", "path": "$", "jtype": "object", "keyset": "a,c", "count": 3}]
    assert d.keysets_vanished == [{"rclass": None, "path": "$", "jtype": "object", "keyset": "a", "count": 1},
                                  {"rclass": "user", "path": "$.m", "jtype": "object", "keyset": "x", "count": 2}]
    assert d.values_appeared == [{"path": "$.t", "value": "c", "count": 2}]
    assert d.values_vanished == [{"path": "$.t", "value": "b", "count": 1}]
    assert d.strata == {"2026-01": [3, 0], "2026-02": [1, 2], "2026-03": [0, 5]}
    assert d.flipped_absences == [{"claim": "no_x", "old": "X: not observed", "new": "X: observed in 1"}]
    assert d.percentile_shifts == [{"claim": "p", "old": {"p50": 1, "p90": 5}, "new": {"p50": 1, "p90": 7}}]
    assert d.statements_changed == [
        {"claim": "came", "old": None, "new": "Said anew", "changed": ["stated on one side only"]},
        {"claim": "z", "old": "0 files had it", "new": "2 files had it", "changed": ["value: zero → non-zero"]},
        {"claim": "gone", "old": "Said once", "new": None, "changed": ["stated on one side only"]}]
    assert d.figures_moved == [{"claim": "n", "figures": ["value: 3 → 5"]},
                               {"claim": "no_y", "figures": ["in its sentence: 3 → 4"]}]
    assert d.drift_counts() == {"flipped_absences": 1, "statements_changed": 3, "keysets_appeared": 2,
                                "keysets_vanished": 2, "values_appeared": 1, "values_vanished": 1}
    assert d.drifted
    assert d.summary() == ("drift: 1 absence claims flipped, 3 statements changed, 2 key sets appeared, "
                           "2 key sets vanished, 1 vocabulary values appeared, 1 vocabulary values vanished")
    j = d.to_json()
    assert (j["drifted"], j["vanished_means"], j["appeared_means"], j["summary"]) == (
        True, "vanished", "appeared", d.summary())
    assert j["drift_counts"] == d.drift_counts() and j["keysets_appeared"] == d.keysets_appeared
    md = to_markdown(d)
    lines = md.splitlines()
    whole = "whole corpus, 4 of 4 files walked; root `root-a`; tool `1.0`, schema `7`, vocabulary `v1`"
    assert lines[:8] == ["# Drift: cursor", "", f"From `{d.old}` to `{d.new}`.", "", "## Scope", "",
                         f"- older: {whole}", f"- newer: {whole}"]
    assert "- `None` `$.z` string ×4" in lines and "- `assistant` `$` object `{a,c}` ×3" in lines
    assert "- `$.t` = `b` ×1" in lines and "- 2026-03: 0 → 5" in lines
    assert "## Key sets that vanished" in lines and "## Statements changed" in lines
    # the same pair the other way round: what came went, the lists swap
    back = diff(*reversed(pair(tmp_path / "again")))
    assert [k["count"] for k in back.keysets_vanished] == [4, 3] and [k["count"] for k in back.keysets_appeared] == [1, 2]


def test_against_a_newer_sample_what_is_missing_was_not_seen(tmp_path: Path) -> None:
    d = diff(*pair(tmp_path, new_manifest={**MANIFEST, **SAMPLED}))
    assert (d.old_sampled, d.new_sampled) == (False, True)
    assert d.drift_counts() == {"flipped_absences": 1, "keysets_appeared": 2, "values_appeared": 1}
    assert d.summary() == ("drift: 1 absence claims flipped, 2 key sets appeared, 1 vocabulary values appeared; "
                           "not drift: 3 statements that differ where a sample was walked, 2 key sets not seen in the "
                           "newer sample, 1 vocabulary values not seen in the newer sample")
    j = d.to_json()
    assert (j["vanished_means"], j["appeared_means"]) == ("not seen in the newer snapshot's sample", "appeared")
    lines = to_markdown(d).splitlines()
    assert ("- the newer snapshot walked 2 of 4 files: a shape missing from it was not seen in its sample, which is not "
            "evidence that it is gone") in lines
    assert not any(ln.startswith("- the older snapshot walked") for ln in lines)
    assert "- newer: sample of 2 (seed 5), 2 of 4 files walked; root `root-a`; tool `1.0`, schema `7`, vocabulary `v1`" in lines
    # nothing came, went or changed: no drift, and no empty list named as "not drift"
    quiet = diff(write(tmp_path, "q-old", MANIFEST, NEW_CENSUS, NEW_CLAIMS),
                 write(tmp_path, "q-new", {**MANIFEST, **SAMPLED}, NEW_CENSUS, NEW_CLAIMS))
    assert quiet.summary() == "no drift" and not quiet.drifted and quiet.drift_counts() == {}
    only = diff(write(tmp_path, "o-old", MANIFEST, OLD_CENSUS, NEW_CLAIMS),
                write(tmp_path, "o-new", {**MANIFEST, **SAMPLED}, {**OLD_CENSUS, "value_maps": table(VM, [])}, NEW_CLAIMS))
    assert only.summary() == "no drift; not drift: 2 vocabulary values not seen in the newer sample"
    for h in ("## Statements that differ where a sample was walked (not evidence of drift)",
              "## Key sets not seen in the newer snapshot's sample", "## Key sets that appeared",
              "## Vocabulary values not seen in the newer snapshot's sample", "## Vocabulary values that appeared"):
        assert h in lines, h


def test_against_an_older_sample_what_is_new_was_not_seen_before(tmp_path: Path) -> None:
    d = diff(*pair(tmp_path, old_manifest={**MANIFEST, **SAMPLED, "vocab": None}))
    assert (d.old_sampled, d.new_sampled) == (True, False)
    assert d.drift_counts() == {"flipped_absences": 1, "keysets_vanished": 2, "values_vanished": 1}
    assert d.summary() == ("drift: 1 absence claims flipped, 2 key sets vanished, 1 vocabulary values vanished; "
                           "not drift: 3 statements that differ where a sample was walked, 2 key sets not seen in the "
                           "older sample, 1 vocabulary values not seen in the older sample")
    j = d.to_json()
    assert (j["vanished_means"], j["appeared_means"]) == ("vanished", "not seen in the older snapshot's sample")
    lines = to_markdown(d).splitlines()
    assert ("- the older snapshot walked 2 of 4 files: a shape missing from it was not seen in its sample, which is not "
            "evidence that it is new") in lines
    assert not any(ln.startswith("- the newer snapshot walked") for ln in lines)
    assert ("- older: sample of 2 (seed 5), 2 of 4 files walked; root `root-a`; tool `1.0`, schema `7`, "
            "vocabulary version not recorded") in lines
    for h in ("## Key sets in the newer snapshot only (not seen in the older one's sample)", "## Key sets that vanished",
              "## Vocabulary values in the newer snapshot only (not seen in the older one's sample)"):
        assert h in lines, h


def test_two_runtimes_are_refused_and_missing_files_count_as_empty(tmp_path: Path) -> None:
    import pytest

    from survey.snapshot.diff import RuntimeMismatch

    old = write(tmp_path, "a")
    other = write(tmp_path, "b", {**MANIFEST, "runtime": "codex"})
    with pytest.raises(RuntimeMismatch) as e:
        diff(old, other)
    assert str(e.value) == "cannot compare a snapshot of cursor with one of codex: diff compares two snapshots of one runtime"
    bare = tmp_path / "bare" / "cursor"
    bare.mkdir(parents=True)
    (bare / "manifest.json").write_text(json.dumps(MANIFEST))  # no census, no claims
    d = diff(bare, write(tmp_path, "c", MANIFEST, NEW_CENSUS, []))
    assert len(d.keysets_appeared) == 3 and d.strata == {"2026-02": [0, 2], "2026-03": [0, 5]}
    assert d.statements_changed == [] and d.keysets_vanished == []


# -- the report a reviewer reads, every line written out by hand ----------------------------------
WHOLE = "whole corpus, 4 of 4 files walked; root `root-a`; tool `1.0`, schema `7`, vocabulary `v1`"
# the planted pair's lists, as the report prints them (counts from OLD_/NEW_CENSUS and _CLAIMS above)
BODY = ["## Absence claims that flipped",
        "- **no_x**: X: not observed → X: observed in 1",
        "",
        "## Statements changed",
        "- **came**: – → Said anew",
        "  - stated on one side only",
        "- **z**: 0 files had it → 2 files had it",
        "  - value: zero → non-zero",
        "- **gone**: Said once → –",
        "  - stated on one side only",
        "",
        "## Key sets that appeared",
        "- `None` `$.z` string ×4",
        "- `assistant` `$` object `{a,c}` ×3",
        "",
        "## Key sets that vanished",
        "- `None` `$` object `{a}` ×1",
        "- `user` `$.m` object `{x}` ×2",
        "",
        "## Vocabulary values that appeared",
        "- `$.t` = `c` ×2",
        "",
        "## Vocabulary values that vanished",
        "- `$.t` = `b` ×1",
        "",
        "## Figures that moved (the statement holds: not drift)",
        "- n: value: 3 → 5",
        "- no_y: in its sentence: 3 → 4",
        "",
        "## Percentile shifts",
        "- p · `p90`: 5 → 7",
        "",
        "## Files per mtime stratum (old → new)",
        "",
        "- 2026-01: 3 → 0",
        "- 2026-02: 1 → 2",
        "- 2026-03: 0 → 5"]


def test_the_report_of_the_planted_pair_line_by_line(tmp_path: Path) -> None:
    old, new = pair(tmp_path)
    md = to_markdown(diff(old, new))
    assert md.endswith("\n") and not md.endswith("\n\n")
    assert md.splitlines() == [
        "# Drift: cursor", "", f"From `{old}` to `{new}`.", "", "## Scope", "",
        f"- older: {WHOLE}", f"- newer: {WHOLE}", "",
        "Same scope: same sampling, root, tool, schema and vocabulary.", "",
        "## Summary", "",
        "drift: 1 absence claims flipped, 3 statements changed, 2 key sets appeared, 2 key sets vanished, "
        "1 vocabulary values appeared, 1 vocabulary values vanished", "", *BODY]


def test_a_report_against_a_sample_states_the_scope_first_line_by_line(tmp_path: Path) -> None:
    old, new = pair(tmp_path, new_manifest={**MANIFEST, **SAMPLED})
    lines = to_markdown(diff(old, new)).splitlines()
    assert lines[4:lines.index("## Absence claims that flipped")] == [
        "## Scope", "",
        f"- older: {WHOLE}",
        "- newer: sample of 2 (seed 5), 2 of 4 files walked; root `root-a`; tool `1.0`, schema `7`, vocabulary `v1`", "",
        "**The two snapshots differ in scope**; read what follows with that in mind:", "",
        "- what was walked: `whole corpus` → `sample of 2 (seed 5)`",
        "- the newer snapshot walked 2 of 4 files: a shape missing from it was not seen in its sample, which is not "
        "evidence that it is gone", "",
        "## Summary", "",
        "drift: 1 absence claims flipped, 2 key sets appeared, 1 vocabulary values appeared; not drift: 3 statements "
        "that differ where a sample was walked, 2 key sets not seen in the newer sample, 1 vocabulary values not seen "
        "in the newer sample", ""]
    # the lists are the same lists, under the names a sample allows
    renamed = [{"## Statements changed": "## Statements that differ where a sample was walked (not evidence of drift)",
                "## Key sets that vanished": "## Key sets not seen in the newer snapshot's sample",
                "## Vocabulary values that vanished": "## Vocabulary values not seen in the newer snapshot's sample",
                }.get(ln, ln) for ln in BODY]
    assert lines[lines.index("## Absence claims that flipped"):] == renamed


def test_a_report_without_a_scope_has_no_scope_lines() -> None:
    from survey.snapshot.diff import Drift

    lines = to_markdown(Drift(old="a", new="b", runtime="codex")).splitlines()
    assert lines[:11] == ["# Drift: codex", "", "From `a` to `b`.", "", "## Scope", "",
                          "Same scope: same sampling, root, tool, schema and vocabulary.", "", "## Summary", "", "no drift"]


def test_a_long_list_of_changes_is_cut_at_six_with_the_rest_counted() -> None:
    from survey.snapshot.diff import SHOWN, Drift, statement_lines

    assert SHOWN == 6

    def st(n: int) -> dict[str, Any]:
        return {"claim": "c", "old": "A <x>", "new": None, "changed": [f"w{i}" for i in range(n)]}

    head = ["- **c**: A &lt;x&gt; → –"]
    assert statement_lines(st(6)) == head + [f"  - w{i}" for i in range(6)]
    assert statement_lines(st(7)) == head + [f"  - w{i}" for i in range(6)] + ["  - … 1 more"]
    assert statement_lines(st(1006)) == head + [f"  - w{i}" for i in range(6)] + ["  - … 1,000 more"]
    assert statement_lines({**st(0), "old": None, "new": "B"}) == ["- **c**: – → B"]

    def moved(n: int) -> list[str]:
        d = Drift(old="a", new="b", runtime="cursor", figures_moved=[{"claim": "f", "figures": [f"#{i}" for i in range(n)]}])
        lines = to_markdown(d).splitlines()
        return lines[lines.index("## Figures that moved (the statement holds: not drift)") + 1:][:1]

    assert moved(6) == ["- f: #0; #1; #2; #3; #4; #5"]
    assert moved(7) == ["- f: #0; #1; #2; #3; #4; #5; … 1 more"]
    assert moved(1) == ["- f: #0"]


# -- a statement compared whatever the shapes on either side (each expected line by hand) ----------
def test_a_change_of_shape_is_named_as_such() -> None:
    from survey.snapshot.diff import statement, statement_changes

    def changes(o: dict[str, Any], c: dict[str, Any]) -> list[str]:
        return statement_changes(statement(o), statement(c))

    # a map against a number, a list against a string, either way round
    assert changes(claim(0), claim({"k": 1})) == ['value: zero → {"k": "+"}']
    assert changes(claim({"k": 1}), claim(0)) == ['value: {"k": "+"} → zero']
    assert changes(claim(None), claim({"k": 1})) == ['value: none → {"k": "+"}']
    assert changes(claim(["a"]), claim("a")) == ['value: ["a"] → a']
    # a key called as the top of the path is still a key, in backticks
    assert changes(claim({"value": 0, "extra": 1}), claim({"value": 2, "extra": 0})) == [
        "value · `extra`: non-zero → zero", "value · `value`: zero → non-zero"]
    assert changes(claim(1, extra={"value": True}), claim(1, extra={"value": False})) == [
        "extra · `value`: true → false"]


def test_a_list_item_that_is_a_map_is_named_by_its_words() -> None:
    from survey.snapshot.diff import statement, statement_changes

    def changes(o: dict[str, Any], c: dict[str, Any]) -> list[str]:
        return statement_changes(statement(o), statement(c))

    # only its string entries name it: a count of any sign, a flag, no value, a list are figures or shapes
    rest = {"n": -2, "m": 4, "z": 0, "ok": True, "of": None, "at": [1]}
    assert changes(claim([{"name": "A", "kind": "k", **rest}]), claim([{"name": "<B>", "kind": "k", **rest}])) == [
        "value: new item name &lt;B&gt;; kind k", "value: item gone name A; kind k"]
    # a map is the same item whatever the order of its keys
    assert changes(claim([{"n": 1, "k": "x"}]), claim([{"k": "x", "n": 1}, "y"])) == ["value: new item y"]
    # words outside ASCII print as they are
    assert changes(claim("a"), claim(["é"])) == ['value: a → ["é"]']
    assert changes(claim([["é", 1]]), claim([["ü", 1]])) == ['value: new item ["ü", "+"]', 'value: item gone ["é", "+"]']


def test_only_a_rate_claims_value_is_read_as_a_rate() -> None:
    from survey.snapshot.diff import statement

    # a reference note's extra fields are no rate, whatever the claim's kind
    assert statement(claim([3, 3], kind="rate", extra={"sizes": [3, 3]}))["extra"] == {"sizes": ["+", "+"]}
    assert statement(claim([3, 3], kind="rate", extra={"sizes": [3, 3]}))["value"] == {
        "#1": "+", "#2": "+", "#1 of #2": "all"}
    # a rate without a whole, or of words, is a multiset (never a comparison of a word with zero)
    assert statement(claim([3, None], kind="rate"))["value"] == ["+", None]
    assert statement(claim(["b", "a"], kind="rate"))["value"] == ["a", "b"]


def test_words_fold_plurals_and_a_claim_without_a_sentence_says_none() -> None:
    from survey.snapshot.diff import statement

    assert statement(claim(1, "3 flies, 1 fly"))["words"] == ["fly", "fly"]
    assert statement(claim(1, "replies"))["words"] == ["reply"]
    assert statement({"id": "c", "kind": "count", "value": 1})["words"] == []
    assert statement(claim(1, None))["words"] == []  # type: ignore[arg-type]


def test_a_sentence_with_more_figures_pairs_them_in_order() -> None:
    from survey.snapshot.diff import figure_changes

    assert figure_changes(claim(7, "Files: 2"), claim(7, "Files: 3, 4")) == ["in its sentence: 2 → 3"]
    assert figure_changes(claim(7, "Files: 3, 4, 5"), claim(7, "Files: 3, 6")) == ["in its sentence: 4 → 6"]
    # the sentence's own comma and full stop are no part of a figure; a version is no figure
    assert figure_changes(claim(7, "In 1,200 of 1,500 files, v1.2.3."), claim(7, "In 1,250 of 12,000 files, v1.2.4.")) == [
        "in its sentence: 1,200 / 1,500 → 1,250 / 12,000"]
    assert figure_changes(claim(7, "Seen in 7."), claim(7, "Seen in 8.")) == ["in its sentence: 7 → 8"]


# -- what a snapshot lacks is read as nothing ----------------------------------------------------
def bare(base: Path, name: str, manifest: dict[str, Any] | None) -> Path:
    snap = base / name / "cursor"
    snap.mkdir(parents=True)
    if manifest is not None:
        (snap / "manifest.json").write_text(json.dumps(manifest))
    return snap


def test_a_manifest_without_sample_counts_or_privacy_is_a_whole_corpus(tmp_path: Path) -> None:
    old = bare(tmp_path, "old", {"runtime": "cursor"})
    d = diff(old, write(tmp_path, "new"))
    assert d.scope["old"] == {"sampled": False, "sample": "whole corpus", "walked_files": None, "files": None,
                              "root": None, "tool_version": None, "snapshot_schema": None, "vocab": None,
                              "mode": None, "allow_mcp_names": None, "min_files": None}
    assert [s["field"] for s in d.scope_differences] == [
        "root", "tool_version", "snapshot_schema", "vocab", "mode", "allow_mcp_names", "min_files"]
    lines = to_markdown(d).splitlines()
    assert ("- older: whole corpus, n/a of n/a files walked; root `None`; tool `None`, schema `None`, "
            "vocabulary version not recorded") in lines
    assert "- rare-key threshold (files): `None` → `2`" in lines


def test_a_newer_snapshot_without_claims_leaves_every_claim_on_one_side(tmp_path: Path) -> None:
    old = write(tmp_path, "old", MANIFEST, OLD_CENSUS, OLD_CLAIMS)
    d = diff(old, bare(tmp_path, "new", MANIFEST))
    assert d.statements_changed == [{"claim": x["id"], "old": x["text"], "new": None,
                                     "changed": ["stated on one side only"]}
                                    for x in sorted(OLD_CLAIMS, key=lambda x: x["id"])]
    assert len(d.keysets_vanished) == 3 and d.strata == {"2026-01": [3, 0], "2026-02": [1, 0]}


def test_a_folder_without_a_manifest_is_no_snapshot_of_the_runtime(tmp_path: Path) -> None:
    import pytest

    from survey.snapshot.diff import RuntimeMismatch

    snap, nothing = write(tmp_path, "a"), bare(tmp_path, "b", None)
    for a, b in ((snap, nothing), (nothing, snap)):
        with pytest.raises(RuntimeMismatch, match="cursor"):
            diff(a, b)


# -- nothing private reaches the report: diff prints only the fields it names ---------------------
def test_no_canary_in_the_fields_diff_does_not_name_reaches_it(tmp_path: Path) -> None:
    canaries = [f"cnry{i:02d}q" for i in range(12)]

    def manifest(i: int) -> dict[str, Any]:
        return {**MANIFEST, "title": canaries[0 + i], "problems": {canaries[2 + i]: 1},
                "counts": {**MANIFEST["counts"], "by_surface": {canaries[4 + i]: 2}}}

    def census(base: dict[str, Any], i: int) -> dict[str, Any]:
        ks = base["keyset_census"]
        return {**base, "keyset_census": table([*ks["columns"], "example"], [[*r, canaries[6 + i]] for r in ks["rows"]]),
                "tool_names": table(["name", "calls"], [[canaries[8 + i], 1]])}

    def claims(base: list[dict[str, Any]], i: int) -> list[dict[str, Any]]:
        return [{**x, "evidence": [{"command": f"rg {canaries[10 + i]}", "result": "1"}]} for x in base]

    old = write(tmp_path, "old", manifest(0), census(OLD_CENSUS, 0), claims(OLD_CLAIMS, 0))
    new = write(tmp_path, "new", manifest(1), census(NEW_CENSUS, 1), claims(NEW_CLAIMS, 1))
    d = diff(old, new)
    text = to_markdown(d) + json.dumps(d.to_json(), ensure_ascii=False)
    assert [x for x in canaries if x in text] == []
    # and the report is the planted pair's, every line: what it does not name changed nothing
    assert to_markdown(d).splitlines()[-len(BODY):] == BODY


def test_a_claim_without_extra_fields_states_what_one_with_none_states(tmp_path: Path) -> None:
    """A claim stored without ``extra`` (as before reference notes had one) and the same claim
    with an empty ``extra``: only its figures moved."""
    before = c("n", "count", 3, "3 files")
    assert "extra" not in before
    after = {**c("n", "count", 3, "4 files"), "extra": {}}
    d = diff(write(tmp_path, "old", claims=[before]), write(tmp_path, "new", claims=[after]))
    assert d.statements_changed == [] and not d.drifted
    assert d.figures_moved == [{"claim": "n", "figures": ["in its sentence: 3 → 4"]}]


def test_two_samples_say_what_each_did_not_show_newer_first(tmp_path: Path) -> None:
    newer = {"sample": {"n": 3, "seed": 5}, "counts": {"walked_files": 3, "files": 4}}
    old, new = pair(tmp_path, old_manifest={**MANIFEST, **SAMPLED}, new_manifest={**MANIFEST, **newer})
    lines = to_markdown(diff(old, new)).splitlines()
    tail = "`root-a`; tool `1.0`, schema `7`, vocabulary `v1`"
    missing = "files: a shape missing from it was not seen in its sample, which is not evidence that it is"
    assert lines[4:] == [
        "## Scope", "",
        f"- older: sample of 2 (seed 5), 2 of 4 files walked; root {tail}",
        f"- newer: sample of 3 (seed 5), 3 of 4 files walked; root {tail}", "",
        "**The two snapshots differ in scope**; read what follows with that in mind:", "",
        "- what was walked: `sample of 2 (seed 5)` → `sample of 3 (seed 5)`",
        f"- the newer snapshot walked 3 of 4 {missing} gone",
        f"- the older snapshot walked 2 of 4 {missing} new", "",
        "## Summary", "",
        "drift: 1 absence claims flipped; not drift: 3 statements that differ where a sample was walked, 2 key sets not "
        "seen in the older sample, 2 key sets not seen in the newer sample, 1 vocabulary values not seen in the older "
        "sample, 1 vocabulary values not seen in the newer sample", "",
        *[{"## Statements changed": "## Statements that differ where a sample was walked (not evidence of drift)",
           "## Key sets that appeared": "## Key sets in the newer snapshot only (not seen in the older one's sample)",
           "## Key sets that vanished": "## Key sets not seen in the newer snapshot's sample",
           "## Vocabulary values that appeared":
               "## Vocabulary values in the newer snapshot only (not seen in the older one's sample)",
           "## Vocabulary values that vanished": "## Vocabulary values not seen in the newer snapshot's sample",
           }.get(ln, ln) for ln in BODY]]
