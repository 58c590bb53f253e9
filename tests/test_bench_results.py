"""``make bench`` keeps every run of a day: a second run of the same command is saved beside
the first under a label of its own, never over it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bench import run as B


def test_ordinals() -> None:
    assert [B.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th"]


def test_a_second_run_of_the_day_is_kept_beside_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "RESULTS", tmp_path)
    assert B.fresh_label("2026-12-05", "default") == "default"  # no results yet
    B.save("2026-12-05", "default", {"label": "default", "n": 1})
    second = B.fresh_label("2026-12-05", "default")
    assert second == "default (2nd)"
    B.save("2026-12-05", second, {"label": second, "n": 2})
    B.save("2026-12-05", second, {"label": second, "n": 2, "done": True})  # the run's own saves replace its partial one
    assert B.fresh_label("2026-12-05", "default") == "default (3rd)"
    assert B.fresh_label("2026-12-05", "quick") == "quick" and B.fresh_label("2026-12-06", "default") == "default"
    runs = orjson.loads((tmp_path / "2026-12-05.json").read_bytes())["runs"]
    assert runs == {"default": {"label": "default", "n": 1},
                    "default (2nd)": {"label": "default (2nd)", "n": 2, "done": True}}
    (tmp_path / "2026-12-07.json").write_bytes(b"{not json")  # a damaged file: the label as it is
    assert B.fresh_label("2026-12-07", "default") == "default"
