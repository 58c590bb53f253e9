"""Claims and their evidence: every sentence a page states, and what backs it.

A claim without evidence cannot be built, and a page cannot render a claim id that was not
built; absence claims are worded as "not observed in N files", never "does not exist"."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = ("census", "value_map", "percentile", "absence", "iff", "rate", "reference")
PROVENANCE = ("observed", "inferred", "verified", "not determined", "reference")


class MissingEvidence(ValueError):
    """A claim was stated without evidence, or a page asked for a claim that has none."""


@dataclass(frozen=True)
class Evidence:
    """What one claim rests on. Built only whole: a source without the command that reproduces
    it (or a command without its source), or no scope, is refused."""

    source: str  # a .sql file (relative), "probe:<id>", "reference: <source>", "survey diff"
    result: str  # the figure(s) the claim rests on, as text
    scope: str  # e.g. "350 files, 43 MB (walked sample)"
    command: str  # pasteable command that reproduces it
    second_command: str = ""  # the independent cross-check (rg), when there is one

    def __post_init__(self) -> None:
        if not self.source or not self.command:
            raise MissingEvidence(f"evidence {self.source!r}: a source and the command that reproduces it, "
                                  f"both ({'no command' if self.source else 'no source'})")
        if not self.scope:
            raise MissingEvidence(f"evidence {self.source!r}: no scope (what was searched)")


@dataclass(frozen=True)
class Claim:
    """One sentence a page states. Refused at construction: no id or text, a kind or
    provenance not in ``KINDS`` / ``PROVENANCE``, or no evidence.

    A :class:`Claim` has a kind (census, value_map, percentile, absence, iff, rate, reference), a
    provenance label (observed, inferred, verified, not determined, reference) and one or more
    pieces of :class:`Evidence` (a query file and its result, a probe with both grep commands, or a
    reference note's source). A
    claim without evidence cannot be built, and a page cannot render a claim id that was not
    built: the template's ``claim()`` raises, so the render fails instead of printing a blank.
    """

    id: str
    kind: str
    text: str
    evidence: tuple[Evidence, ...]
    provenance: str = "observed"
    value: Any = None
    headline: bool = False
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.id or not self.text.strip():
            raise ValueError(f"claim {self.id!r}: an id and a sentence, both")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: unknown kind {self.kind!r}")
        if self.provenance not in PROVENANCE:
            raise ValueError(f"claim {self.id}: unknown provenance {self.provenance!r}")
        if not self.evidence or not all(isinstance(e, Evidence) for e in self.evidence):
            raise MissingEvidence(f"claim {self.id!r} has no evidence (query or probe)")

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(d: dict) -> Claim:
        """The claim ``to_json`` gave (the dict itself is left as it was)."""
        rest = {k: v for k, v in d.items() if k != "evidence"}
        return Claim(evidence=tuple(Evidence(**e) for e in d["evidence"]), **rest)


def _figure(n: float | None) -> float | None:
    """The number, or None for no figure: None, or a NaN (a census average over no rows)."""
    return None if n is None or math.isnan(n) else n


def pct(a: float | None, b: float | None) -> str:
    """A share as the pages print it (``12.5%``), or ``n/a`` of nothing (never ``0.0%``: none
    of nothing is not a share)."""
    part, whole = _figure(a), _figure(b)
    if part is None or not whole:
        return "n/a"
    return f"{100.0 * part / whole:.1f}%"


def as_int(v: Any) -> int:
    """A census cell as an int (NULL counts as 0)."""
    return int(v or 0)


def fmt(n: float | None) -> str:
    """Thousands separators, as on the reference pages (1,295); ``n/a`` for no figure, never 0."""
    f = _figure(n)
    if f is None:
        return "n/a"
    if isinstance(f, float) and not f.is_integer():
        return f"{f:,.1f}"
    return f"{int(f):,}"


def human_bytes(n: float | None) -> str:
    """A size as the pages print it (``~3.2 MB``, ``512 B``); ``n/a`` for no figure, never 0 B."""
    f = _figure(n)
    if f is None:
        return "n/a"
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if f >= div:
            return f"~{f / div:,.1f} {unit}"
    return f"{n} B"
