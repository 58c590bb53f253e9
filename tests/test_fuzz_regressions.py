"""Every input the C core's fuzzing (``make fuzz``, ``tests/fuzz_harness.py``) ever failed on,
replayed under the normal build: the C core and its reference (the Python walker, Python's
own functions, ``hmac.digest``) must agree on each, and nothing may raise.

The cases are ``tests/fuzz_cases/*.bin``, each a harness input (its first byte picks the
entry point), named after the entry point and the input's hash. The first came from a
differential fuzz run under UndefinedBehaviorSanitizer: ``col_chars`` called memcpy on a
column's NULL buffer with length 0 when its first string was empty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from survey.native import NATIVE

CASES = sorted((Path(__file__).parent / "fuzz_cases").glob("*.bin"))


@pytest.mark.skipif(NATIVE is None, reason="the C core is not built: nothing to hold to its reference")
@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_a_kept_fuzz_case_agrees_with_the_reference(case: Path) -> None:
    from tests import fuzz_harness

    fuzz_harness.check(case.read_bytes())


def test_cases_are_kept() -> None:
    assert CASES, "tests/fuzz_cases/ holds no case: the regressions prove nothing"


@pytest.mark.skipif(NATIVE is None, reason="the C core is not built")
def test_a_column_whose_first_string_is_empty() -> None:
    """The case's shape, asserted: a new string column's first value empty (no bytes yet, so
    no buffer), then others; every value comes back as it went in."""
    import polars as pl

    t = NATIVE.Table(("a", "b"), "ss")
    t.add([("", "x"), ("yz", ""), ("", "")], ())
    assert [pl.Series(c).to_list() for c in t.columns()] == [["", "yz", ""], ["x", "", ""]]
