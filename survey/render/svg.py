"""Deterministic SVG from matplotlib: the same figure gives the same bytes on every run.

Every chart beside a page goes through ``to_svg``: the Agg-free SVG backend, a fixed id
salt, no creation date or tool stamp, text kept as text (no embedded glyph paths, so the
file is small and its labels are searchable). matplotlib is imported here only, and only
when a chart is drawn, so the walk and census never pay for it.
"""

from __future__ import annotations

import io
from typing import Any

_RC: dict[str, Any] = {
    "svg.hashsalt": "survey",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def pyplot() -> Any:
    """matplotlib's pyplot on the SVG-only path, with the fixed style applied."""
    import matplotlib

    matplotlib.use("svg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update(_RC)  # type: ignore[arg-type]  # (the stubs list every rc key as a literal)
    return plt


def to_svg(fig: Any) -> str:
    """The figure as SVG text, byte-identical for the same figure; the figure is closed."""
    plt = pyplot()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches=None)
    plt.close(fig)
    return buf.getvalue()
