"""``--no-charts`` (``render_page(..., charts=False)``): each chart's heading and table of
figures stay on the page, no image is drawn, linked or written, and matplotlib is never
imported (the CLI runs in a process of its own, and says what ``sys.modules`` held).

A seeded generator writes the corpus in ``tmp_path``; the page without charts must equal,
byte for byte, the page of the same snapshot with charts once its image lines are taken out.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from survey.render import charts
from survey.render.render import Page, render_page

RUNTIME = "claude_code"  # (its page holds every kind of chart)
IMAGE = re.compile(r"^!\[[^\]]*\]\([^)]+\.svg\)\n\n", re.M)

# the CLI in this process, then what it imported, on the last line of stderr
CLI = """
import sys
from survey.cli import app
try:
    app(sys.argv[1:], prog_name="survey")
except SystemExit as exc:
    code = exc.code
import json
sys.stderr.write("\\n" + json.dumps({"code": code, "matplotlib": "matplotlib" in sys.modules}) + "\\n")
"""


def cli(args: list[str], cwd: Path) -> tuple[dict, str]:
    r = subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd)
    seen = orjson.loads(r.stderr.strip().splitlines()[-1])
    assert seen["code"] in (0, None), r.stderr
    return seen, r.stdout


@pytest.fixture(scope="module")
def uncharted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """(the page of ``survey run --no-charts``, its snapshot, what the process imported)."""
    from survey.synth.demo import generator

    base = tmp_path_factory.mktemp("nocharts")
    root = base / "corpus"
    generator(RUNTIME)(root, seed=7)
    seen, out = cli(["run", "-r", RUNTIME, "--root", str(root), "--snapshots", str(base / "snapshots"),
                     "--reports", str(base / "reports"), "--date", "2026-03-04", "--no-cache", "--no-charts",
                     "--json"], base)
    (res,) = orjson.loads(out)["results"]
    return Path(res["page"]), Path(res["snapshot"]), seen


def test_a_run_without_charts_draws_nothing_and_never_imports_matplotlib(uncharted: tuple) -> None:
    page, _snap, seen = uncharted
    assert seen["matplotlib"] is False
    assert not list(page.parent.rglob("*.svg"))
    text = page.read_text()
    assert "## Charts" in text and ".svg)" not in text and "![" not in text


def test_its_tables_are_the_charted_pages_less_the_images(uncharted: tuple, tmp_path: Path) -> None:
    page, snap, _seen = uncharted
    charted = render_page(snap, tmp_path / "reports" / page.name)
    with_images = charted.read_text()
    drawn = IMAGE.findall(with_images)
    svgs = sorted(p.name for p in (charted.parent / charted.stem).glob("*.svg"))
    assert len(drawn) == len(svgs) == len(charts.KINDS), (drawn, svgs)
    # every chart's heading and table of figures, and all else on the page, as the charted page has them
    assert IMAGE.sub("", with_images) == page.read_text()
    headings = re.findall(r"^### .*$", page.read_text().split("## Charts", 1)[1].split("\n## ", 1)[0], re.M)
    assert len(headings) == len(charts.KINDS)


def test_each_kind_gives_the_same_table_and_alt_text_undrawn(uncharted: tuple) -> None:
    _page, snap, _seen = uncharted
    on, off = Page(snap, charts_dir="p"), Page(snap, charts_dir="p", draw=False)
    for kind in charts.KINDS:
        drawn, table = on.chart(kind), off.chart(kind)
        assert drawn.startswith("![") and drawn.endswith("\n\n" + table), kind
    assert len(on.charts) == len(charts.KINDS) and off.charts == {}
    rows = [{"stratum": "2026-01", "files": 3, "bytes": 10, "walked": 2, "walked_bytes": 7}]
    a, b = charts.strata_chart(rows, "[E1]"), charts.strata_chart(rows, "[E1]", draw=False)
    assert a.svg and b.svg == "" and (a.alt, a.table, a.data) == (b.alt, b.table, b.data)


def test_render_without_charts_removes_an_earlier_renders_images(uncharted: tuple, tmp_path: Path) -> None:
    page, snap, _seen = uncharted
    reports = tmp_path / "reports"
    render_page(snap, reports / page.name)
    folder = reports / page.stem
    (folder / "notes.txt").write_text("kept")
    assert len(list(folder.glob("*.svg"))) == len(charts.KINDS)
    seen, out = cli(["render", str(snap), "--reports", str(reports), "--no-charts", "--json"], tmp_path)
    assert seen["matplotlib"] is False
    assert orjson.loads(out)["page"] == str(reports / page.name)
    assert not list(folder.glob("*.svg")) and (folder / "notes.txt").read_text() == "kept"
    assert (reports / page.name).read_text() == page.read_text()


def test_a_recheck_without_charts_draws_nothing_and_never_imports_matplotlib(uncharted: tuple, tmp_path: Path) -> None:
    import shutil

    _page, snap, _seen = uncharted
    root = snap.parents[2] / "corpus"
    # a copy: the verdicts the re-check keeps beside its snapshot stay out of the other tests' pages
    copy = tmp_path / "snapshots" / snap.parent.name / snap.name
    shutil.copytree(snap, copy)
    reports = tmp_path / "reports"
    seen, out = cli(["recheck", str(copy), "--root", str(root), "--reports", str(reports), "--no-charts", "--json"],
                    tmp_path)
    assert seen["matplotlib"] is False
    got = orjson.loads(out)
    page = Path(got["page"])
    assert page.parent == reports and got["verdicts"] and not got["disagreements"]
    assert not list(reports.rglob("*.svg"))
    # the page the re-check wrote is the same snapshot's charted page, verdicts and all, less its images
    charted = render_page(copy, tmp_path / "charted" / page.name)
    with_images = charted.read_text()
    assert len(IMAGE.findall(with_images)) == len(charts.KINDS)
    assert IMAGE.sub("", with_images) == page.read_text()
    assert "## Charts" in page.read_text() and ".svg)" not in page.read_text()
