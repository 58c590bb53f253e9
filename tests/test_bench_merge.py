"""``python -m bench.merge`` keeps the day's earlier results: a step run again replaces its
row and the row it replaced is kept under ``earlier`` with the code that measured it; the
steps not run again stay as they were; results of a fleet made otherwise are not mixed in.
The saved file is what ``markdown`` reads."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bench import merge as BM


def row(engine: str, machines: int, seconds: float, **more: object) -> dict:
    return {"engine": engine, "machines": machines, "seconds": seconds, "peak_rss_mb": 100.0,
            "files": machines * 12 + 2, "stages": {"union": seconds / 2}, **more}


def run(rows: list[dict], seeds: int = 3, head: str = "b" * 40) -> dict:
    return {"seeds": seeds, "transcripts": 2, "machine": {"git_head": head, "cores": 2}, "argv": [], "rows": rows}


def test_a_rerun_keeps_the_days_earlier_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BM, "RESULTS", tmp_path)
    out = tmp_path / "2026-12-07-merge.json"
    first = run([row("duckdb", 10, 16.7), row("duckdb", 1000, 1627.7), row("spark", 10, 440.1)], head="a" * 40)
    BM.save(out, first)
    old = orjson.loads(out.read_bytes())
    assert old == first  # nothing earlier: saved as it is
    # a run of Spark at 10 and 100 machines, saved after each step as the bench does
    BM.save(out, run([row("spark", 10, 40.0, git_head="b" * 40)]), old)
    BM.save(out, run([row("spark", 10, 40.0, git_head="b" * 40), row("spark", 100, 90.0, git_head="b" * 40)]), old)
    got = orjson.loads(out.read_bytes())
    assert [(r["engine"], r["machines"], r["seconds"], r["git_head"]) for r in got["rows"]] == [
        ("duckdb", 10, 16.7, "a" * 40), ("duckdb", 1000, 1627.7, "a" * 40),
        ("spark", 10, 40.0, "b" * 40), ("spark", 100, 90.0, "b" * 40)]
    assert [(r["engine"], r["machines"], r["seconds"], r["git_head"]) for r in got["earlier"]] == [
        ("spark", 10, 440.1, "a" * 40)]
    assert got["machine"]["git_head"] == "b" * 40
    md = BM.markdown()
    assert "| spark | 10 | 122 | 40.0 s | 20.0 s | – | – | 100 MB | – |" in md and "440.1" not in md
    assert md.index("| spark | 10 |") < md.index("| spark | 100 |")
    assert "| duckdb | 1,000 | 12,002 | 1627.7 s |" in md
    assert md.endswith("\nMeasured by earlier code: duckdb at 10 (`aaaaaaa`), duckdb at 1,000 (`aaaaaaa`).\n")
    # a third run keeps both earlier Spark rows at 10 machines
    BM.save(out, run([row("spark", 10, 41.0, git_head="c" * 40)]), got)
    again = orjson.loads(out.read_bytes())
    assert [r["seconds"] for r in again["earlier"]] == [440.1, 40.0]
    assert len(again["rows"]) == 4


def test_results_of_another_fleet_are_not_mixed_in(tmp_path: Path) -> None:
    out = tmp_path / "2026-12-07-merge.json"
    old = run([row("duckdb", 10, 16.7)], seeds=5)
    BM.save(out, run([row("spark", 10, 40.0)]), old)
    got = orjson.loads(out.read_bytes())
    assert [(r["engine"], r["machines"]) for r in got["rows"]] == [("spark", 10)] and "earlier" not in got


def test_cpu_of_a_live_child(tmp_path: Path) -> None:
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "import sys\nn = 0\nfor i in range(3_000_000): n += i\nsys.stdin.read()"],
                         stdin=subprocess.PIPE)
    try:
        import time

        deadline = time.monotonic() + 60
        while BM._cpu_of(p.pid) < 0.05 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.pid in BM._children()
        assert BM._cpu_of(p.pid) >= 0.05
    finally:
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    assert BM._cpu_of(p.pid) == 0.0  # gone: nothing counted
