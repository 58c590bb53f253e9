"""Deterministic SVG from matplotlib: the same figure gives the same bytes on every run.

Every chart beside a page goes through ``to_svg``: the Agg-free SVG backend, a fixed id
salt, no creation date or tool stamp, text kept as text (no embedded glyph paths, so the
file is small and its labels are searchable). matplotlib is imported here only, and only
when a chart is drawn, so the walk and census never pay for it.
"""

from __future__ import annotations

import io
import sys
from typing import Any

_RC: Any = {  # (matplotlib types its keys as literals)
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

    plt.rcParams.update(_RC)
    return plt


def figure(**kw: Any) -> Any:
    """A matplotlib ``Figure`` with the fixed style, made without pyplot (whose import and
    figure manager cost more than drawing a small chart); ``to_svg`` takes it as it is."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        return Figure(**kw)


def style() -> Any:
    """The fixed style as a context: draw a ``figure()``'s axes inside it."""
    import matplotlib

    return matplotlib.rc_context(_RC)


def to_svg(fig: Any) -> str:
    """The figure as SVG text, byte-identical for the same figure; a pyplot figure is closed."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches=None)
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close(fig)
    return buf.getvalue()
