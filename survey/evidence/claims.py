"""Claims and their evidence: every sentence a page states, and what backs it.

A :class:`Claim` has a kind (census, value_map, percentile, absence, iff, rate), a
provenance label (observed, inferred, verified, not determined) and one or more pieces of
:class:`Evidence` (a query file and its result, or a probe with both grep commands). A
claim without evidence cannot be built, and a page cannot render a claim id that was not
built: the template's ``claim()`` raises, so the render fails instead of printing a blank.

Absence claims are worded as "not observed in N files", never "does not exist".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = ("census", "value_map", "percentile", "absence", "iff", "rate", "reference")
PROVENANCE = ("observed", "inferred", "verified", "not determined", "reference")


class MissingEvidence(ValueError):
    """A claim was stated without evidence, or a page asked for a claim that has none."""


@dataclass(frozen=True)
class Evidence:
    source: str  # a .sql file (relative) or "probe:<id>"
    result: str  # the figure(s) the claim rests on, as text
    scope: str  # e.g. "350 files, 43 MB (walked sample)"
    command: str  # pasteable command that reproduces it
    second_command: str = ""  # the independent cross-check (rg), when there is one


@dataclass(frozen=True)
class Claim:
    id: str
    kind: str
    text: str
    evidence: tuple[Evidence, ...]
    provenance: str = "observed"
    value: Any = None
    headline: bool = False
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: unknown kind {self.kind!r}")
        if self.provenance not in PROVENANCE:
            raise ValueError(f"claim {self.id}: unknown provenance {self.provenance!r}")
        if not self.evidence or any(not (e.source and e.command) for e in self.evidence):
            raise MissingEvidence(f"claim {self.id!r} has no evidence (query or probe)")

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(d: dict) -> Claim:
        ev = tuple(Evidence(**e) for e in d.pop("evidence"))
        return Claim(evidence=ev, **d)


def pct(a: int, b: int) -> str:
    """A share as the pages print it (``12.5%``), or ``n/a`` of nothing."""
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def as_int(v: Any) -> int:
    """A census cell as an int (NULL counts as 0)."""
    return int(v or 0)


def fmt(n: int | float | None) -> str:
    """Thousands separators, as on the reference pages (1,295)."""
    if n is None:
        return "n/a"
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.1f}"
    return f"{int(n):,}"


def human_bytes(n: int | None) -> str:
    if n is None:
        return "n/a"
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= div:
            return f"~{n / div:,.1f} {unit}"
    return f"{n} B"
