"""Small helpers several stages share, kept here so that no stage imports another's module for
them: the greps do not depend on the census they check, and the pages do not depend on the
corpus code."""

from __future__ import annotations

from pathlib import Path

import polars as pl

PKG_ROOT = Path(__file__).parents[1]  # the repository folder: the one commands are run from


def rel(path: Path) -> str:
    """A path as a command shows it: relative to the repository folder where it lies there."""
    try:
        return str(path.relative_to(PKG_ROOT))
    except ValueError:
        return str(path)


def ref_numbers(refs: pl.Series, strict: bool = True) -> pl.Series:
    """Pseudonyms as their 64 bits (``f-00000000000000ff`` -> 255; null stays null), as
    ``privacy.file_key`` gives one; strict: anything else is a bug, never a value to guess at
    (not strict: null)."""
    return refs.str.slice(2).str.to_integer(base=16, dtype=pl.UInt64, strict=strict)
