"""Charts beside every runtime page: valid SVG, rendered by a headless browser, their drawn
numbers equal to the page's tables, and those tables equal to figures computed here from the
snapshot's Parquet (not through the census's SQL).

Each runtime's seeded generator writes a corpus in ``tmp_path``; the survey runs over it once
per module; the page and its SVGs are read back from ``reports/``.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from survey.pipeline import run_survey
from survey.render import charts
from survey.render.render import render_page
from survey.runtimes import NAMES, get
from survey.synth.demo import generator

IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]+\.svg)\)$", re.M)


@pytest.fixture(scope="module")
def surveyed(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, Path]]:
    """``surveyed(runtime)``: (its page, its snapshot), surveyed once per module."""
    base = tmp_path_factory.mktemp("charts")
    done: dict[str, tuple[Path, Path]] = {}

    def one(runtime: str) -> tuple[Path, Path]:
        if runtime not in done:
            root = base / "corpora" / runtime
            root.mkdir(parents=True)
            generator(runtime)(root, seed=5)
            res = run_survey(get(runtime), root, snapshots=base / "snapshots", reports=base / "reports",
                             date="2026-02-03", cache=False)
            done[runtime] = (Path(str(res.page)), Path(res.snapshot))
        return done[runtime]

    return one


def images(page: Path) -> list[tuple[str, Path, str]]:
    """(alt text, SVG file, the Markdown table right after the image) for each chart."""
    text = page.read_text()
    out = []
    for m in IMAGE.finditer(text):
        rest = text[m.end():].lstrip("\n")
        table = rest.split("\n\n", 1)[0]
        out.append((m.group(1), page.parent / m.group(2), table))
    return out


def grid(table: str) -> tuple[list[str], list[list[str]]]:
    """A Markdown table's header and cells (as the page prints them)."""
    lines = [ln for ln in table.splitlines() if ln.startswith("|")]
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in lines]
    return cells[0], [r for r in cells[2:]]


def num(s: str) -> int:
    return int(s.replace(",", ""))


def md(s: str) -> str:
    return s.replace("<", "&lt;").replace(">", "&gt;")


@pytest.mark.parametrize("runtime", NAMES)
def test_every_chart_is_valid_svg_whose_numbers_are_the_pages(runtime: str, surveyed: Callable) -> None:
    page, _snap = surveyed(runtime)
    found = images(page)
    kinds = {svg.stem for _a, svg, _t in found}
    assert {"strata", "key_presence"} <= kinds, kinds
    # a runtime with block carriers draws its payloads; one that records versions, its classes by them
    assert ("payload_lengths" in kinds) == bool(get(runtime).carriers), kinds
    assert ("class_versions" in kinds) == (runtime in ("claude_code", "codex", "cursor_desktop")), kinds
    assert all(svg.parent == page.parent / runtime for _a, svg, _t in found), "charts sit beside the page"
    for alt, svg, table in found:
        root = ET.fromstring(svg.read_text())  # well-formed XML
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert alt and "\n" not in alt
        data = charts.read_data(svg.read_text())
        assert data["chart"] == svg.stem
        head, rows = grid(table)
        if svg.stem == "strata":
            assert data["strata"] == [r[0] for r in rows]
            assert data["files"] == [num(r[1]) for r in rows]
            assert data["walked"] == [num(r[2]) for r in rows]
            for s, n in zip(data["strata"], data["files"], strict=True):
                assert f"{s} {n:,} file{'s' if n != 1 else ''}," in alt
        elif svg.stem == "payload_lengths":
            types = head[1:]
            assert len(types) <= charts.MAX_SERIES, "the demo draws every block type"
            for j, t in enumerate(types):
                drawn = data["series"][html.unescape(t)]
                col = {r[0]: num(r[1 + j]) for r in rows if num(r[1 + j])}
                assert {charts.bucket_label(int(b)): n for b, n in drawn.items()} == col
                assert f"{html.unescape(t)} {sum(col.values()):,} payload" in html.unescape(alt.replace("‹", "<").replace("›", ">"))
        elif svg.stem == "class_versions":
            assert data["versions"] == head[1:]
            by = {html.unescape(r[0]): [num(x) for x in r[1:]] for r in rows}
            drawn = dict(data["series"])
            other = drawn.pop(charts.OTHER, None)
            for c, ys in drawn.items():
                assert by.pop(c) == ys
            assert (other is None) == (not by)
            if other is not None:  # the classes past the drawn ones, summed
                assert other == [sum(col) for col in zip(*by.values(), strict=True)]
        elif svg.stem == "key_presence":
            assert data["classes"] == [html.unescape(r[0]) for r in rows]
            for part, j in (("always", 2), ("sometimes", 3), ("rare", 4)):
                assert data["series"][part] == [num(r[j]) for r in rows]
        else:
            pytest.fail(f"an unknown chart {svg.name}")
    # the folder holds this page's charts and nothing else (no temp file left)
    assert sorted(p.name for p in (page.parent / runtime).iterdir()) == sorted(svg.name for _a, svg, _t in found)


def test_payload_buckets_and_strata_equal_figures_from_the_parquet(surveyed: Callable) -> None:
    """The census's rows behind two charts, recomputed with polars and Python's bit_length."""
    page, snap = surveyed("claude_code")
    blocks = pl.read_parquet(snap / "walk" / "blocks.parquet" / "*.parquet").filter(pl.col("payload_len").is_not_null())
    want: dict[tuple[str, int], int] = {}
    for t, n in blocks.select("btype", "payload_len").iter_rows():
        b = 0 if n == 0 else 1 << (int(n).bit_length() - 1)
        want[(t, b)] = want.get((t, b), 0) + 1
    found = {svg.stem: (svg, table) for _a, svg, table in images(page)}
    data = charts.read_data(found["payload_lengths"][0].read_text())
    got = {(t, int(b)): n for t, s in data["series"].items() for b, n in s.items()}
    assert got == want and len(want) > 3
    inv = pl.read_parquet(snap / "inventory" / "*" / "*.parquet", hive_partitioning=True)
    by = inv.group_by("stratum").agg(pl.len().alias("files"), pl.col("size").sum().alias("bytes")).sort("stratum")
    data = charts.read_data(found["strata"][0].read_text())
    assert data["strata"] == by["stratum"].to_list()
    assert data["files"] == by["files"].to_list() and data["bytes"] == by["bytes"].to_list()


def test_key_presence_equals_figures_from_the_frames(surveyed: Callable) -> None:
    page, snap = surveyed("codex")
    fr = pl.read_parquet(snap / "walk" / "frames.parquet" / "*.parquet").filter(pl.col("frame_status") == "ok")
    total: dict[str, int] = {}
    has: dict[str, dict[str, int]] = {}
    for c, ks in fr.select("rclass", "keyset").iter_rows():
        total[c] = total.get(c, 0) + 1
        for k in (ks or "").split(","):
            if k:
                has.setdefault(c, {})[k] = has.setdefault(c, {}).get(k, 0) + 1
    svg = next(s for _a, s, _t in images(page) if s.stem == "key_presence")
    data = charts.read_data(svg.read_text())
    for i, c in enumerate(data["classes"]):
        kk = has.get(c, {})
        assert data["series"]["always"][i] == sum(1 for n in kk.values() if n == total[c])
        assert data["series"]["rare"][i] == sum(1 for n in kk.values() if n < total[c] * charts.RARE_SHARE)
        assert data["series"]["sometimes"][i] == sum(1 for n in kk.values() if total[c] * charts.RARE_SHARE <= n < total[c])
    assert sorted(data["classes"]) == sorted(total)


def test_the_same_snapshot_gives_byte_identical_svgs(surveyed: Callable, tmp_path: Path) -> None:
    _page, snap = surveyed("claude_code")
    a = render_page(snap, tmp_path / "a" / "claude_code.md")
    b = render_page(snap, tmp_path / "b" / "claude_code.md")
    assert a.read_text() == b.read_text()
    sa = sorted((tmp_path / "a" / "claude_code").glob("*.svg"))
    assert len(sa) == 4, "claude_code draws all four kinds"
    for p in sa:
        assert p.read_bytes() == (tmp_path / "b" / "claude_code" / p.name).read_bytes()


def test_a_stale_chart_is_removed_on_render_and_other_files_kept(surveyed: Callable, tmp_path: Path) -> None:
    _page, snap = surveyed("cursor")  # (Cursor's transcripts record no version: no class_versions chart)
    (tmp_path / "cursor").mkdir()
    (tmp_path / "cursor" / "class_versions.svg").write_text("<svg/>")
    (tmp_path / "cursor" / "other.svg").write_text("<svg/>")
    render_page(snap, tmp_path / "cursor.md")
    assert not (tmp_path / "cursor" / "class_versions.svg").exists()
    assert (tmp_path / "cursor" / "other.svg").read_text() == "<svg/>"
    assert (tmp_path / "cursor" / "strata.svg").is_file()


def test_an_unknown_chart_kind_is_a_missing_evidence_error(surveyed: Callable) -> None:
    from survey.evidence.claims import MissingEvidence
    from survey.render.render import Page

    _page, snap = surveyed("cursor")
    with pytest.raises(MissingEvidence, match="chart 'pie'"):
        Page(snap).chart("pie")


def test_presence_sorts_keys_by_share() -> None:
    rows = [{"rclass": "a", "keyset": "k,x,y", "records": 97}, {"rclass": "a", "keyset": "k,y,z", "records": 3},
            {"rclass": "b", "keyset": "", "records": 4}]
    f = charts.presence_figures(rows)
    assert f["classes"][0] == {"rclass": "a", "records": 100, "always": ["k", "y"], "sometimes": ["x"], "rare": ["z"]}
    assert f["classes"][1] == {"rclass": "b", "records": 4, "always": [], "sometimes": [], "rare": []}


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


@pytest.mark.skipif(chromium() is None, reason="no chromium on PATH (Debian: apt-get install -y chromium)")
def test_a_headless_browser_renders_every_chart(surveyed: Callable, tmp_path: Path) -> None:
    svgs = []
    for runtime in NAMES:
        page, _snap = surveyed(runtime)
        svgs += [svg for _a, svg, _t in images(page)]
    assert len(svgs) >= 2 * len(NAMES)
    imgs = "\n".join(f'<img src="{s.as_uri()}">' for s in svgs)
    doc = tmp_path / "charts.html"
    doc.write_text(f"""<!doctype html><html><body>{imgs}
<script>
window.addEventListener("load", () => {{
  const bad = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0 && i.naturalHeight > 0));
  document.body.setAttribute("data-rendered", String(document.images.length - bad.length));
  document.body.setAttribute("data-failed", bad.map(i => i.src).join(" ") || "none");
}});
</script></body></html>""")
    cmd = [str(chromium()), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", "--allow-file-access-from-files",
           "--virtual-time-budget=10000", "--dump-dom", doc.as_uri()]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env={**os.environ, "HOME": str(tmp_path)})
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'data-rendered="(\d+)" data-failed="([^"]*)"', r.stdout)
    assert m, r.stdout[-2000:]
    assert m.group(2) == "none" and int(m.group(1)) == len(svgs), m.group(2)


def test_caps_inside_block_carriers_are_marked_and_others_are_not() -> None:
    """A probable cap at a path inside a carrier's elements is drawn on the payload chart; a cap
    elsewhere stays in the page's caps table alone."""
    buckets = [{"carrier": "$.message.content", "btype": "text", "bucket": 8, "payloads": 5, "longest": 9},
               {"carrier": "$.message.content", "btype": "text", "bucket": 8192, "payloads": 4, "longest": 10_000},
               {"carrier": "$.message.content", "btype": "tool_use", "bucket": 0, "payloads": 2, "longest": 0}]
    caps = [{"path": "$.message.content[].text", "max_len": 10_000, "files_at_max": 3},
            {"path": "$.payload.output", "max_len": 40_109, "files_at_max": 5}]
    ch = charts.payload_chart(buckets, caps, "[E1](#e1)")
    data = charts.read_data(ch.svg)
    assert data["caps"] == [10_000]
    assert data["series"] == {"text": {"8": 5, "8192": 4}, "tool_use": {"0": 2}}
    assert "cap 10,000" in ch.svg and "40,109" not in ch.svg
    assert "caps in blocks marked at 10,000" in ch.alt and "40,109" not in ch.alt
    head, rows = grid(ch.table)
    assert head == ["Length (code points)", "text", "tool_use"]
    assert rows == [["0", "0", "2"], ["8–15", "5", "0"], ["8,192–16,383", "4", "0"]]
    ET.fromstring(ch.svg)


def test_a_snapshot_from_before_the_charts_renders_without_those_it_cannot_draw(
        surveyed: Callable, tmp_path: Path) -> None:
    """A snapshot whose census holds no payload_buckets and strata without bytes (as taken
    before those queries) still renders: those two charts are left out, not drawn from zeros."""
    import json

    _page, snap = surveyed("cursor_stream")
    old = tmp_path / "snap"
    shutil.copytree(snap, old)
    census = json.loads((old / "census.json").read_text())
    del census["payload_buckets"]
    st = census["strata"]
    keep = [i for i, c in enumerate(st["columns"]) if c not in ("bytes", "walked_bytes")]
    st["columns"] = [st["columns"][i] for i in keep]
    st["rows"] = [[r[i] for i in keep] for r in st["rows"]]
    (old / "census.json").write_text(json.dumps(census))
    out = render_page(old, tmp_path / "r" / "cursor_stream.md")
    assert sorted(p.name for p in (tmp_path / "r" / "cursor_stream").iterdir()) == ["key_presence.svg"]
    assert "## Charts" in out.read_text()
