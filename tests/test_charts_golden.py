"""Golden charts: one SVG of each chart kind, byte for byte, from Claude Code's demo page.

The page is built as the page goldens build it (``test_golden_page.build``: the demo seed, the
fixed date and salt); its charts sit in ``reports/claude_code/``. Updating, after an intended
change, is the page goldens' way: ``SURVEY_UPDATE_GOLDEN=1`` writes each chart that changed,
prints its diff and fails until run again without the variable.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from survey.render.charts import KINDS

from .test_golden_page import build, compare  # noqa: F401  (build: the fixture)

RUNTIME = "claude_code"  # the demo runtime that draws every kind (it records client versions)


@pytest.mark.parametrize("kind", KINDS)
def test_chart_matches_golden(kind: str, build: Callable[[str], tuple[str, Path]]) -> None:  # noqa: F811
    build(RUNTIME)
    svg = build.base / "reports" / RUNTIME / f"{kind}.svg"  # type: ignore[attr-defined]
    assert svg.is_file(), f"the demo page draws no {kind} chart"
    compare(f"{RUNTIME}-{kind}.svg", svg.read_text())
