"""What runs beside what (``survey.schedule``): when the greps start beside the walk, when the
census and the greps run side by side, and that the threads they run in hand over what they
must, in the order they must."""

from __future__ import annotations

import threading
from pathlib import Path

import polars as pl
import pytest

from survey.runtimes import get
from survey.schedule import (
    OVERLAP_MAX_FILES,
    GrepsBesideWalk,
    census_and_greps,
    rerun_greps_beside,
)

WAIT = 30  # seconds a thread waits for the other at most: a failure, never a measure


def test_the_walk_leaves_a_core_idle_where_one_file_is_most_of_the_bytes() -> None:
    """The greps start beside the walk only where the walk's largest file (one worker's
    task) keeps one worker busy while the others have nothing left: at least half its time."""
    import polars as pl

    from survey.schedule import BESIDE_MIN_BYTES, walk_leaves_core_idle

    mb = 1 << 20

    def inv(*sizes: int, kind: str = "sqlite") -> pl.DataFrame:
        return pl.DataFrame({"kind": [kind, *["json"] * (len(sizes) - 1)], "size": list(sizes)})

    store = inv(1500 * mb, 20 * mb, 20 * mb)  # the desktop store's shape
    assert walk_leaves_core_idle(store, 2) and walk_leaves_core_idle(store, 8)
    assert not walk_leaves_core_idle(store, 1)  # one worker: no core to spare
    assert not walk_leaves_core_idle(inv(*[10 * mb] * 200), 2)  # many files: every core busy
    # on two cores: idle while the rest is at most half the largest file
    assert walk_leaves_core_idle(inv(200 * mb, 100 * mb), 2)
    assert not walk_leaves_core_idle(inv(200 * mb, 101 * mb), 2)
    # on four, the rest shares three workers
    assert walk_leaves_core_idle(inv(200 * mb, *[50 * mb] * 10), 4)
    assert not walk_leaves_core_idle(inv(200 * mb, *[50 * mb] * 11), 4)
    assert not walk_leaves_core_idle(inv(BESIDE_MIN_BYTES - 1), 2)  # too little to gain
    assert walk_leaves_core_idle(inv(BESIDE_MIN_BYTES), 2)
    # files the walk does not read do not count
    assert not walk_leaves_core_idle(inv(1500 * mb, 20 * mb, kind="symlink"), 2)


def test_a_rerun_overlaps_census_and_greps_only_when_nearly_all_was_served_from_few_files() -> None:
    """Side by side only on a re-run that served at least 90 % of the files from the cache,
    and of at most ``OVERLAP_MAX_FILES`` files: the greps' per-file state grows with the
    files, so on more the two stages' memory would add up."""
    from survey.schedule import OVERLAP_MAX_FILES, overlap_stages

    assert overlap_stages({"files": 1000, "cache_hits": 900})
    assert not overlap_stages({"files": 1000, "cache_hits": 899})  # a first run, or much changed
    assert not overlap_stages({"files": 0, "cache_hits": 0}) and not overlap_stages({})
    assert overlap_stages({"files": OVERLAP_MAX_FILES, "cache_hits": OVERLAP_MAX_FILES})
    assert not overlap_stages({"files": OVERLAP_MAX_FILES + 1, "cache_hits": OVERLAP_MAX_FILES + 1})


def test_side_by_side_the_greps_run_while_the_census_does() -> None:
    """Where ``overlap``, the greps start before the census ends (the census here waits for
    them to start) and get no key figures: they make their own."""
    started = threading.Event()
    order: list[str] = []

    def census() -> dict:
        assert started.wait(WAIT), "the greps did not start beside the census"
        order.append("census")
        return {"c": 1}

    def greps(structural: dict[str, dict] | None) -> dict:
        started.set()
        order.append(f"greps:{structural}")
        return {"g": 2}

    def key_figures() -> dict[str, dict]:
        raise AssertionError("side by side, the greps make their own key figures")

    assert census_and_greps(True, census, greps, key_figures) == ({"c": 1}, {"g": 2})
    assert order == ["greps:None", "census"]


def test_one_after_the_other_only_the_key_figures_run_beside_the_census() -> None:
    """Without ``overlap``, the key figures run while the census does (the census waits for
    them to start), and the greps start after both, with the key figures handed to them."""
    began = threading.Event()
    order: list[str] = []

    def census() -> dict:
        assert began.wait(WAIT), "the key figures did not run beside the census"
        order.append("census")
        return {"c": 1}

    def key_figures() -> dict[str, dict]:
        began.set()
        return {"probe": {"files": 3}}

    def greps(structural: dict[str, dict] | None) -> dict:
        order.append("greps")
        assert threading.current_thread() is threading.main_thread()
        return {"structural": structural}

    assert census_and_greps(False, census, greps, key_figures) == ({"c": 1}, {"structural": {"probe": {"files": 3}}})
    assert order == ["census", "greps"]


def test_a_census_that_fails_beside_the_greps_fails_the_stage() -> None:
    def census() -> dict:
        raise RuntimeError("census broke")

    for overlap in (True, False):
        with pytest.raises(RuntimeError, match="census broke"):
            census_and_greps(overlap, census, lambda s: {}, lambda: {})


def test_greps_beside_the_walk_wait_for_its_readable_files_only_when_asked() -> None:
    """The greps run in their own thread; the walk's readable files reach them through
    ``walked``; counts that went stale are dropped; a walk that never finished gives the
    greps an error, not a hang."""
    beside = GrepsBesideWalk()
    assert beside.result(stale=False) is None  # never started
    seen: list[str] = []

    def greps(readable: object) -> list:
        seen.append(threading.current_thread().name)
        return [readable()]  # type: ignore[operator]

    beside.start(greps)
    beside.walked(lambda: ["a", "b"])
    beside.walked(lambda: ["ignored"])  # (the first hand-over holds)
    assert beside.result(stale=False) == [["a", "b"]]
    assert seen and seen[0].startswith("greps") and beside.seconds > 0
    beside.close()

    stale = GrepsBesideWalk()
    stale.start(greps)
    stale.walked(lambda: ["x"])
    assert stale.result(stale=True) is None
    stale.close()

    broken = GrepsBesideWalk()
    broken.start(greps)
    broken.close()  # the walk did not finish: the greps' wait ends with an error
    with pytest.raises(RuntimeError, match="did not finish"):
        broken.result(stale=False)


def test_a_rerun_starts_its_greps_beside_the_walk_only_with_a_cache_of_this_walk(tmp_path: Path) -> None:
    """No cache (``--no-cache``), an empty inventory or more than ``OVERLAP_MAX_FILES``
    files: never; a cache folder without this walk's signature: never."""
    profile = get("claude_code")
    few = pl.DataFrame({"kind": ["jsonl"] * 3, "size": [1, 2, 3]})
    assert not rerun_greps_beside(few, None, profile, "reviewed", False)
    assert not rerun_greps_beside(few.clear(), tmp_path, profile, "reviewed", False)
    many = pl.DataFrame({"kind": ["jsonl"] * (OVERLAP_MAX_FILES + 1), "size": [1] * (OVERLAP_MAX_FILES + 1)})
    assert not rerun_greps_beside(many, tmp_path, profile, "reviewed", False)
    (tmp_path / "meta.parquet").write_bytes(b"not parquet")
    assert not rerun_greps_beside(few, tmp_path, profile, "reviewed", False)
