"""The packages split into parts keep one namespace: every name of a part of the greps
(``survey.evidence.grep``) and of the bench (``bench.run``) is a name of the whole, and
setting one on the whole sets it in every part that uses it, as in one module."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import bench.run as B
import survey.evidence.grep as G


@pytest.mark.parametrize("whole", [G, B], ids=["grep", "bench"])
def test_every_name_of_a_part_is_the_wholes(whole: object) -> None:
    parts = whole.PARTS  # type: ignore[attr-defined]
    assert len(parts) >= 6
    for part in parts:
        assert part.__doc__ and len(part.__doc__.strip().splitlines()) <= 8, part.__name__
        for name, value in vars(part).items():
            if not name.startswith("__") and not hasattr(value, "__path__"):
                assert name in vars(whole), f"{part.__name__}.{name}"


def test_a_limit_set_on_the_greps_reaches_every_part_that_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.evidence.grep import reads, rg

    real = reads.PIECE_BYTES
    assert real == rg.PIECE_BYTES  # (rg cuts its pieces by the same size)
    monkeypatch.setattr(G, "PIECE_BYTES", 5)
    assert (G.PIECE_BYTES, reads.PIECE_BYTES, rg.PIECE_BYTES) == (5, 5, 5)
    monkeypatch.undo()
    assert (real, real, real) == (G.PIECE_BYTES, reads.PIECE_BYTES, rg.PIECE_BYTES)


def test_a_function_replaced_on_the_greps_is_the_one_their_callers_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.evidence.grep import duck, verdicts

    monkeypatch.setattr(G, "duckdb_grep", lambda *a, **k: "stand-in")
    assert verdicts.duckdb_grep() == "stand-in" and duck.duckdb_grep() == "stand-in"


def test_the_bench_results_folder_set_once_is_every_parts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import bench.report as R

    monkeypatch.setattr(B, "RESULTS", tmp_path)
    assert R.RESULTS == tmp_path == B.RESULTS
    (tmp_path / "2026-01-01.json").write_bytes(orjson.dumps({"runs": {"default": {}}}))
    assert B.fresh_label("2026-01-01", "default") == "default (2nd)"  # read from the folder set here
