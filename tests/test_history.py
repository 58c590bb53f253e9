"""``survey history``: the planted drift of a client's versions, recovered at the right date and version.

A Codex store is written by ``survey.synth.timeline`` epoch by epoch (in ``tmp_path``), and
surveyed as it stood at the end of each epoch, with that day as the snapshot's name. What
the page must say is computed from the generator's plan alone (its versions, snapshot days
and the payload key set of each record class per epoch), never from the survey: a key set's
first snapshot and version are those of the first epoch that writes it, its last version
that of the last one. Scope marks are shown on copies of a snapshot with an edited manifest.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.pipeline import run_survey
from survey.render.history import chart, history, render_history, snapshots_of
from survey.runtimes import get
from survey.synth.timeline import generate, plan

SEED = 5


def build(base: Path, seed: int, canaries: bool = False) -> dict[str, Any]:
    root = base / "sessions"
    planted: dict[str, Any] = {}
    for i, ep in enumerate(plan(seed)):
        planted = generate(root, seed=seed, upto=i, canaries=canaries)
        run_survey(get("codex"), root, snapshots=base / "snapshots", reports=None, date=ep.snapshot, cache=False)
    return planted


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("history")
    planted = build(base, SEED)
    got = render_history(base / "snapshots", "codex", base / "reports")
    return {"base": base, "planted": planted, "result": got, "page": Path(got["page"]).read_text()}


def table(md: str, heading: str) -> list[list[str]]:
    """The rows (cells, stripped) of the first table under ``## heading``."""
    part = md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in part.splitlines() if ln.startswith("| ")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows[1:]]


def plain(cell: str) -> str:
    return cell.strip("`").strip("{}")


def expected_payload_keysets(planted: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str, str, str]]:
    """(class, payload key set) -> (first snapshot, last snapshot, first version, last version),
    from the plan: the corpus keeps every file, so the last snapshot is the newest."""
    eps = planted["epochs"]
    out: dict[tuple[str, str], list[int]] = {}
    for i, ep in enumerate(eps):
        for cls, ks in ep["payload_keysets"].items():
            out.setdefault((cls, ks), []).append(i)
    return {k: (eps[min(v)]["snapshot"], eps[-1]["snapshot"], eps[min(v)]["version"], eps[max(v)]["version"])
            for k, v in out.items()}


def test_plan_drifts_every_way_and_is_seeded() -> None:
    for seed in (1, 5, 7, 11):
        eps = plan(seed)
        kinds = {c["kind"] for e in eps for c in e.changes}
        assert kinds == {"added", "renamed", "dropped", "new_class"}, seed
        assert all(e.changes for e in eps[1:]) and not eps[0].changes
        days = [e.released for e in eps]
        assert days == sorted(days) and all(a.snapshot < b.released for a, b in itertools.pairwise(eps))
        assert [e.to_json() for e in plan(seed)] == [e.to_json() for e in eps]
    assert [e.to_json() for e in plan(1)] != [e.to_json() for e in plan(5)]


def test_an_epoch_written_again_is_the_same_and_mtimes_fall_in_it(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    generate(a, seed=SEED, upto=1)
    planted = generate(b, seed=SEED)
    files_a = {p.relative_to(a): (p.read_bytes(), p.stat().st_mtime) for p in a.rglob("*.jsonl")}
    files_b = {p.relative_to(b): (p.read_bytes(), p.stat().st_mtime) for p in b.rglob("*.jsonl")}
    assert files_a and set(files_a) < set(files_b) and all(files_b[k] == v for k, v in files_a.items())
    eps = planted["epochs"]
    assert len(files_b) == sum(e["files"] for e in eps)
    import datetime as dt

    for _rel, (body, mtime) in files_b.items():
        v = json.loads(body.splitlines()[0])["payload"]["cli_version"]
        ep = next(e for e in eps if e["version"] == v)
        day = dt.datetime.fromtimestamp(mtime, dt.UTC).date().isoformat()
        assert ep["released"] <= day <= ep["snapshot"]


def test_planted_drift_is_on_the_page_at_its_date_and_version(made: dict[str, Any]) -> None:
    assert_drift(made["page"], made["planted"]["epochs"])


def assert_drift(md: str, eps: list[dict[str, Any]]) -> None:
    """Each planted change on the page at its epoch's snapshot and version (``eps``: the plan)."""
    planted = {"epochs": eps}
    want = expected_payload_keysets(planted)
    rows = {(plain(r[0]), plain(r[3])): (r[4], r[5], plain(r[6]), plain(r[7]))
            for r in table(md, "Key sets that came or went") if plain(r[1]) == "$.payload"}
    came_or_went = {k: v for k, v in want.items()
                    if v[0] != eps[0]["snapshot"] or v[3] != eps[-1]["version"]}
    # every payload key set that changed is listed, with its span; none that held throughout
    assert {k: v for k, v in rows.items() if k[0] in {c for c, _ in want}} == came_or_went
    assert came_or_went
    for i, ep in enumerate(eps):
        for ch in ep["changes"]:
            cls = ch["rclass"]
            if ch["kind"] == "new_class":
                (row,) = [r for r in table(md, "Record classes") if plain(r[0]) == cls]
                assert (row[1], plain(row[4])) == (ep["snapshot"], ep["version"])
                continue
            field = f"$.payload.{ch['field'] if ch['kind'] != 'renamed' else ch['was']}"
            fields = {plain(r[1]): r for r in table(md, "Key sets that came or went") if plain(r[0]) == cls}
            if ch["kind"] == "added":
                assert (fields[field][4], plain(fields[field][6])) == (ep["snapshot"], ep["version"])
            else:  # dropped or renamed: the old field's last version is the epoch before
                assert plain(fields[field][7]) == eps[i - 1]["version"]
            if ch["kind"] == "renamed":
                new = fields[f"$.payload.{ch['field']}"]
                assert (new[4], plain(new[6])) == (ep["snapshot"], ep["version"])
    versions = {plain(r[0]): r[1] for r in table(md, "Client versions")}
    assert {v: versions[v] for v in (e["version"] for e in eps)} == {e["version"]: e["snapshot"] for e in eps}
    values = {plain(r[1]): (r[2], plain(r[4]), plain(r[5])) for r in table(md, "Vocabulary values that came or went")
              if plain(r[0]) == "$.payload.cli_version"}
    assert {e["version"]: values[e["version"]] for e in eps[1:]} == \
        {e["version"]: (e["snapshot"], e["version"], e["version"]) for e in eps[1:]}


def test_the_figures_agree_with_each_snapshot(made: dict[str, Any]) -> None:
    planted, h = made["planted"], made["result"]
    eps = planted["epochs"]
    assert h["timeline"] == [e["snapshot"] for e in eps] and not h["marked"]
    classes = [len({c for e in eps[: i + 1] for c in e["records"]}) for i in range(len(eps))]
    assert h["present"]["record_classes"] == classes
    assert h["present"]["versions"] == list(range(1, len(eps) + 1))
    shown = table(made["page"], "Shapes present over time")
    assert [int(r[3]) for r in shown] == classes and [r[0] for r in shown] == h["timeline"]
    alt = re.search(r"!\[(.*?)\]\((codex-history\.svg)\)", made["page"])
    assert alt and f"record classes {' → '.join(map(str, classes))}" in alt.group(1)


def test_the_chart_is_the_same_bytes_and_svg(made: dict[str, Any]) -> None:
    svg = Path(made["result"]["chart"]).read_text()
    h = history(made["base"] / "snapshots", "codex")
    tag = re.search(r"<!-- survey-history [0-9a-f]{16} -->\n", svg)
    assert tag and svg.replace(tag.group(0), "") == chart(h)
    assert svg.lstrip().startswith("<?xml") and svg.rstrip().endswith("</svg>")
    texts = re.findall(r">([^<>]+)</text>", svg)
    assert {e["snapshot"] for e in made["planted"]["epochs"]} <= {t.strip() for t in texts}


def test_json_is_what_the_library_returns(made: dict[str, Any], tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["history", "-r", "codex", "--snapshots", str(made["base"] / "snapshots"),
                                 "--reports", str(made["base"] / "reports"), "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["histories"] == [json.loads(json.dumps(made["result"]))] and got["skipped"] == {}
    r = CliRunner().invoke(app, ["history", "--snapshots", str(made["base"] / "snapshots"),
                                 "--reports", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    assert f"page: {tmp_path / 'r' / 'codex-history.md'}" in said and "codex: 4 snapshots in the timeline" in said
    r = CliRunner().invoke(app, ["history", "-r", "cursor", "--snapshots", str(made["base"] / "snapshots")])
    assert r.exit_code == 2 and "no snapshot of cursor" in r.output
    r = CliRunner().invoke(app, ["history", "--snapshots", str(tmp_path / "none"), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["histories"] == []


def _copy(snap: Path, base: Path, date: str, change: dict[str, Any]) -> Path:
    dst = base / date / snap.name
    shutil.copytree(snap, dst)
    m = json.loads((dst / "manifest.json").read_text())
    (dst / "manifest.json").write_text(json.dumps({**m, **change}))
    return dst


def test_other_scopes_are_marked_and_another_root_kept_apart(made: dict[str, Any], tmp_path: Path) -> None:
    base = tmp_path / "snapshots"
    shutil.copytree(made["base"] / "snapshots", base)
    snaps = snapshots_of(base, "codex")
    first, last = snaps[0], snaps[-1]
    svg = Path(render_history(base, "codex", tmp_path / "reports")["chart"])
    was = (svg.stat().st_ino, svg.read_bytes())
    render_history(base, "codex", tmp_path / "reports")
    assert (svg.stat().st_ino, svg.read_bytes()) == was  # the same figures: the chart is kept, not drawn again
    _copy(first, base, "2025-01-01", {"root": "r-0000000000000000"})
    _copy(last, base, "2027-01-01", {"sample": {"n": 3, "seed": 1, "method": "stratified", "stratum": "month"}})
    _copy(last, base, "2027-02-01", {"tool_version": "0.0.9"})
    got = render_history(base, "codex", tmp_path / "reports")
    md = Path(got["page"]).read_text()
    assert got["reference"] == "2027-02-01"  # the newest whole-corpus one
    assert "2025-01-01" not in got["timeline"] and got["timeline"][-2:] == ["2027-01-01", "2027-02-01"]
    # all but the reference are of another tool (or a sample); the other root is not in the timeline
    assert got["marked"] == sorted(got["timeline"][:-1])
    rows = {r[0]: r for r in table(md, "Snapshots")}
    assert "not in the timeline" in rows["2025-01-01"][6] and "root pseudonym" in rows["2025-01-01"][7]
    assert "what was walked" in rows["2027-01-01†"][7]
    assert "tool version" in rows[f"{last.parent.name}†"][7]  # the reference is of another tool than it
    assert "2027-01-01†" in [r[0] for r in table(md, "Shapes present over time")]
    assert "2027-01-01†" in svg.read_text() and "2027-02-01†" not in md and svg.read_bytes() != was[1]


def test_no_canary_reaches_the_page_the_chart_or_the_json(tmp_path: Path) -> None:
    planted = build(tmp_path, 11, canaries=True)
    assert planted["canaries"]
    got = render_history(tmp_path / "snapshots", "codex", tmp_path / "reports")
    out = (Path(got["page"]).read_text() + Path(got["chart"]).read_text() + json.dumps(got))
    leaked = [t for t in planted["canaries"] if t in out]
    assert not leaked, f"{len(leaked)} canary tokens reached the history"
    assert "cnry" not in out and "/home/dev" not in out


def test_the_demo_takes_its_planted_dates_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``history --or-demo`` where Codex has no root: the demo as it stood at each planted date,
    then the whole demo again (as ``survey demo`` writes it), and the history of those dates."""
    from survey.synth.demo import demo_epochs, demo_root

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CODEX_HOME", "CODEX_SESSIONS_DIR"):
        monkeypatch.delenv(var, raising=False)
    r = CliRunner().invoke(app, ["history", "-r", "codex", "--or-demo", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    eps = demo_epochs("codex")
    assert got["demo_snapshots"] == {"codex": [e["snapshot"] for e in eps]}
    (h,) = got["histories"]
    assert h["timeline"] == [e["snapshot"] for e in eps]
    assert_drift(Path(h["page"]).read_text(), eps)
    written = {p.relative_to(demo_root("codex")): p.read_bytes() for p in demo_root("codex").rglob("*.jsonl")}
    fresh = CliRunner().invoke(app, ["demo", "-r", "codex"])
    assert fresh.exit_code == 0, fresh.output
    assert written == {p.relative_to(demo_root("codex")): p.read_bytes() for p in demo_root("codex").rglob("*.jsonl")}
    again = CliRunner().invoke(app, ["history", "-r", "codex", "--or-demo", "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["demo_snapshots"] == {}


def test_a_damaged_snapshot_is_counted_and_left_out(made: dict[str, Any], tmp_path: Path) -> None:
    base = tmp_path / "snapshots"
    shutil.copytree(made["base"] / "snapshots", base)
    bad = _copy(snapshots_of(base, "codex")[-1], base, "2027-03-01", {})
    (bad / "census.json").write_bytes(b"{not json")
    r = CliRunner().invoke(app, ["history", "-r", "codex", "--snapshots", str(base), "--reports", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    assert "1 unreadable, left out" in " ".join(r.output.split())
    md = (tmp_path / "r" / "codex-history.md").read_text()
    assert "**1 snapshot(s) could not be read**" in md and "2027-03-01 (JSONDecodeError)" in md
    assert [r[0] for r in table(md, "Shapes present over time")] == [e["snapshot"] for e in made["planted"]["epochs"]]
