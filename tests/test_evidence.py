"""Evidence a reviewer can audit: greps agree, absences are worded honestly, claims need
evidence, snapshots are immutable, drift is named, and re-checks are independent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.evidence.claims import Claim, MissingEvidence
from survey.pipeline import run_survey
from survey.render.render import render_page
from survey.runtimes import get
from survey.snapshot.diff import diff
from survey.snapshot.store import SCHEMA_VERSION, SnapshotExists, load_json
from survey.synth.cursor import generate

CURSOR = get("cursor")


def transcript(root: Path, sid: str, lines: list[bytes]) -> Path:
    d = root / "proj-x" / "agent-transcripts" / sid
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{sid}.jsonl"
    p.write_bytes(b"".join(line + b"\n" for line in lines))
    return p


def survey(root: Path, base: Path, date: str = "2026-01-01", **kw):
    return run_survey(CURSOR, root, snapshots=base / "snapshots", reports=base / "reports", date=date, **kw)


def probes(snap: str) -> dict[str, dict]:
    return {p["id"]: p for p in load_json(Path(snap), "evidence")["probes"]}


def claims(snap: str) -> dict[str, dict]:
    return {c["id"]: c for c in load_json(Path(snap), "claims")}


def test_diff_names_each_planted_drift(tmp_path: Path) -> None:
    old_root, new_root = tmp_path / "old", tmp_path / "new"
    generate(old_root, seed=3, sessions=10)
    generate(new_root, seed=3, sessions=10)
    transcript(new_root, "drift-1", [
        json.dumps({"role": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "EditNotebook", "input": {"path": "x"}},
            {"type": "tool_use", "id": "call-1", "name": "Shell", "input": {"command": "x"}},
        ]}}).encode(),
        json.dumps({"type": "turn_ended", "status": "cancelled", "error": "x"}).encode(),
    ])
    a = survey(old_root, tmp_path, "2026-01-01")
    b = survey(new_root, tmp_path, "2026-02-01")
    d = diff(Path(a.snapshot), Path(b.snapshot))
    appeared = {(v["path"], v["value"]) for v in d.values_appeared}
    assert ("$.message.content[type=tool_use].name", "EditNotebook") in appeared
    assert ("$.status", "cancelled") in appeared
    assert any(k["path"] == "$.message.content[type=tool_use]" and k["keyset"] == "id,input,name,type"
               for k in d.keysets_appeared)
    assert "no_cancelled" in {f["claim"] for f in d.flipped_absences}
    assert d.drifted
    # and the CLI exits 3 with --fail-on-drift
    r = CliRunner().invoke(app, ["diff", a.snapshot, b.snapshot, "--fail-on-drift", "--json"])
    assert r.exit_code == 3, r.output
    assert json.loads(r.output)["drifted"] is True
    same = diff(Path(a.snapshot), Path(a.snapshot))
    assert not same.drifted


def test_probe_that_should_hit_does(cursor_survey) -> None:
    _planted, res, _snap = cursor_survey
    p = probes(res.snapshot)["agent_tools_referenced"]
    assert p["expect"] == "present" and p["verdict"] == "holds"
    assert p["duckdb"]["files_matched"] > 0 and p["agree"]


def test_literal_in_a_value_is_a_text_hit_not_a_key(tmp_path: Path) -> None:
    root = tmp_path / "c"
    transcript(root, "s1", [json.dumps({"role": "user", "message": {"content": [
        {"type": "text", "text": "tool_use_id"}]}}).encode()])
    transcript(root, "s2", [json.dumps({"role": "user", "message": {"content": [
        {"type": "text", "text": "plain"}]}}).encode()])
    res = survey(root, tmp_path)
    p = probes(res.snapshot)["no_tool_use_id"]
    assert p["duckdb"]["files_matched"] == 1 and p["rg"]["files_matched"] == 1
    assert p["structural"]["files_with_key"] == 0
    assert p["verdict"] == "holds"
    c = claims(res.snapshot)["no_tool_use_id"]
    assert "not observed as a key" in c["text"] and "text occurs in 1 of 2 files" in c["text"]


def test_duckdb_rg_and_recheck_agree_on_escapes_non_ascii_invalid_utf8(tmp_path: Path) -> None:
    root = tmp_path / "c"
    lit = b'"tool_result"'
    transcript(root, "esc", [
        b'{"role":"user","message":{"content":[{"type":"text","text":"a\\"b \\u2028 \\\\ ' + b"caf\xc3\xa9" + b'"}]}}',
        b'{"role":"assistant","message":{"content":[{"type":"tool_result","content":"x\xe2\x80\xa8y"}]}}',
    ])
    transcript(root, "bad", [b'{"role":"user","message":{"content":[{"type":"text","text":"\xff\xfe ' + lit + b' "}]}}'])
    transcript(root, "nul", [b'{"role":"user","message":{"content":[{"type":"text","text":"\x00 ' + lit + b'"}]}}'])
    res = survey(root, tmp_path)
    p = probes(res.snapshot)["no_tool_result"]
    # one structural tool_result block, plus the literal inside two broken files
    assert p["duckdb"]["files_matched"] == 3 and p["duckdb"]["occurrences"] == 3
    assert p["agree"], (p["duckdb"], p["rg"])
    ev = load_json(Path(res.snapshot), "evidence")
    assert ev["scopes"]["jsonl"]["files_not_utf8"] == 1
    # the independent re-check reaches the same verdict on the headline claim
    r = CliRunner().invoke(app, ["recheck", res.snapshot, "--root", str(root), "--json",
                                 "--reports", str(tmp_path / "reports")])
    out = json.loads(r.output)
    v = {x["claim"]: x for x in out["verdicts"]}
    assert v["no_tool_results"]["verdict"] == "agrees"
    assert out["root_matches_snapshot"] is True


def test_recheck_disagreement_is_loud_on_the_page(tmp_path: Path) -> None:
    root = tmp_path / "c"
    generate(root, seed=5, sessions=8)
    res = survey(root, tmp_path)
    proj = next(p for p in root.iterdir() if (p / "agent-transcripts").is_dir())
    (proj / "agent-tools").mkdir(exist_ok=True)
    (proj / "agent-tools" / "late.txt").write_text("x" * 20000)
    r = CliRunner().invoke(app, ["recheck", res.snapshot, "--root", str(root),
                                 "--reports", str(tmp_path / "reports")])
    assert r.exit_code == 3
    page = (tmp_path / "reports" / "cursor.md").read_text()
    assert "RE-CHECK DISAGREES" in page
    assert "**[verified]**" in page  # the claims that still hold are marked verified
    assert (Path(res.snapshot).parent / "cursor.recheck.json").exists()


def test_snapshot_is_immutable(tmp_path: Path) -> None:
    root = tmp_path / "c"
    generate(root, seed=5, sessions=4)
    first = survey(root, tmp_path)
    before = {p: p.read_bytes() for p in Path(first.snapshot).rglob("*") if p.is_file()}
    with pytest.raises(SnapshotExists, match="immutable"):
        survey(root, tmp_path)
    assert {p: p.read_bytes() for p in Path(first.snapshot).rglob("*") if p.is_file()} == before
    again = survey(root, tmp_path, on_exists="reuse")
    assert again.reused and again.snapshot == first.snapshot
    third = survey(root, tmp_path, on_exists="suffix")
    assert third.snapshot.endswith("2026-01-01.2/cursor")
    m = load_json(Path(first.snapshot), "manifest")
    assert m["snapshot_schema"] == SCHEMA_VERSION and m["fingerprint"] and m["counts"]["files"] == first.files


def test_claim_without_evidence_cannot_exist_or_render(tmp_path: Path, cursor_survey) -> None:
    with pytest.raises(MissingEvidence):
        Claim(id="x", kind="census", text="a figure", evidence=())
    _planted, _res, snap = cursor_survey
    tpl_dir = tmp_path / "tpl"
    tpl_dir.mkdir()
    import survey.render.render as R

    (tpl_dir / "bad.md.j2").write_text("{{ say('no_such_claim') }}")
    old = R.TEMPLATES
    R.TEMPLATES = tpl_dir
    try:
        with pytest.raises(MissingEvidence):
            render_page(snap, tmp_path / "out.md", template="bad.md.j2")
    finally:
        R.TEMPLATES = old


def test_absence_claims_never_say_does_not_exist(cursor_survey) -> None:
    _planted, res, _snap = cursor_survey
    for c in claims(res.snapshot).values():
        if c["kind"] == "absence":
            assert "does not exist" not in c["text"]
            # every absence names its scope: how many files it was sought in
            assert re.search(r"\d[\d,]* (walked )?files", c["text"]), c["text"]
            assert c["evidence"][0]["source"].startswith("probe:")
    page = Path(res.page).read_text()
    assert "does not exist" not in page.replace('never means "does not exist"', "")


def test_key_figures_of_all_probes_at_once_are_each_probes_own_query(cursor_survey, tmp_path: Path) -> None:
    """key_files_all.sql (what the pipeline runs, finding each key's groups in node_counts)
    gives, for every probe, the two figures key_files.sql (the command its page entry shows,
    over nodes alone) gives for that probe: for the profile's probes and for common keys,
    at any path and at given ones."""
    import duckdb

    from survey.evidence.grep.commands import KEY_ALL_SQL, KEY_SQL
    from survey.synth.claude_code import generate as generate_claude

    generate_claude(tmp_path / "c", seed=5, sessions=6)
    claude = run_survey(get("claude_code"), tmp_path / "c", snapshots=tmp_path / "s", reports=None, jobs=1)
    cases = [
        (cursor_survey[2], [(p.key, list(p.key_paths)) for p in CURSOR.probes if p.key]
         + [("type", []), ("role", ["$"]), ("text", []), ("no-such-key", [])]),
        (Path(claude.snapshot), [(p.key, list(p.key_paths)) for p in get("claude_code").probes if p.key]
         + [("type", []), ("id", ["$.message"]), ("tool_use_id", []), ("name", ["$.message.content[type=tool_use]"])]),
    ]
    hits = 0
    for snap, keyed in cases:
        con = duckdb.connect()
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        con.execute("SET VARIABLE probes = ?::STRUCT(key VARCHAR, paths VARCHAR[])[]",
                    [[{"key": k, "paths": paths} for k, paths in keyed]])
        together = {i: (f, o, list(ps)) for i, f, o, ps in con.execute(KEY_ALL_SQL.read_text()).fetchall()}
        for i, (key, paths) in enumerate(keyed, start=1):
            con.execute("SET VARIABLE key = ?", [key])
            con.execute("SET VARIABLE paths = ?::VARCHAR[]", [paths])
            f, o, ps = con.execute(KEY_SQL.read_text()).fetchone()
            assert together[i] == (f, o, list(ps)), (snap.name, key, paths)
            hits += together[i][0] > 0
    assert hits >= 4  # the common keys were found


def test_the_fingerprint_is_sha256_of_its_documented_lines() -> None:
    """``fingerprint``: sha256 over "<file_id>\\t<size>\\t<hash>\\n" per file, sorted by file_id,
    as the plain Python loop gives it: across its 65,536-line slices, whatever the frame's
    order and other columns, for no file and one."""
    import hashlib
    import random

    import polars as pl

    from survey.snapshot.store import fingerprint

    rnd = random.Random(3)
    n = 70_000
    files = pl.DataFrame({"kind": ["jsonl"] * n,
                          "file_id": [f"f-{rnd.getrandbits(64):016x}" for _ in range(n)],
                          "size": [rnd.randint(0, 1 << 40) for _ in range(n)],
                          "hash": ["" if i % 9 == 0 else f"{rnd.getrandbits(128):032x}" for i in range(n)]})

    def plain(df: pl.DataFrame) -> str:
        h = hashlib.sha256()
        for fid, size, digest in sorted(zip(df["file_id"], df["size"], df["hash"], strict=True)):
            h.update(f"{fid}\t{size}\t{digest}\n".encode())
        return h.hexdigest()

    for df in (files, files.head(1), files.head(0)):
        assert fingerprint(df) == plain(df)
    assert fingerprint(files) != fingerprint(files.with_columns(pl.col("size") + (pl.int_range(n) == 5)))


def test_compiled_templates_are_kept_and_a_bad_cache_still_renders(
        tmp_path: Path, cursor_survey, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's compiled template is kept in the cache (``<cache>/templates``) and loaded on
    the next render, the page the same; a damaged cache file is compiled again, and a cache
    that cannot be written (a file where its folder should be) renders without it. (Each page
    has the same name, in a folder of its own: a page links its charts by its own name.)"""
    import jinja2

    _planted, _res, snap = cursor_survey
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    first = render_page(snap, tmp_path / "a" / "page.md").read_text()
    kept = sorted((tmp_path / "cache" / "templates").iterdir())
    assert kept and all(p.stat().st_size > 0 for p in kept)
    compiled: list[str] = []
    real = jinja2.Environment.compile

    def spy(self, source, name=None, filename=None, raw=False, defer_init=False):  # type: ignore[no-untyped-def]
        compiled.append(name)
        return real(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", spy)
    assert render_page(snap, tmp_path / "b" / "page.md").read_text() == first
    assert compiled == [], "a kept template was compiled again"
    for p in kept:
        p.write_bytes(p.read_bytes()[:40] + b"\x00garbage")
    assert render_page(snap, tmp_path / "c" / "page.md").read_text() == first and compiled
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "afile"))
    (tmp_path / "afile").write_text("not a folder")
    assert render_page(snap, tmp_path / "d" / "page.md").read_text() == first
