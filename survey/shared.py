"""Small helpers several stages share, kept here so that no stage imports another's module for
them: the greps do not depend on the census they check, and the pages do not depend on the
corpus code."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import polars as pl

PKG_ROOT = Path(__file__).parents[1]  # the repository folder: the one commands are run from


def rel(path: Path) -> str:
    """A path as a command shows it: relative to the repository folder where it lies there."""
    try:
        return str(path.relative_to(PKG_ROOT))
    except ValueError:
        return str(path)


def sync_files(wanted: Iterable[tuple[Path, str | None]], check: bool) -> int:
    """Files the tool writes from a source of its own (a template, a fragment): each ``(path,
    wanted text)``, None where the file should not exist. Write each file that differs, or with
    ``check`` write nothing; print one line per file that differed, and exit 1 if checking found
    any (a test runs the check, so a stale file fails it)."""
    stale = []
    for path, want in wanted:
        if (path.read_text() if path.exists() else None) == want:
            continue
        stale.append(path)
        if not check:
            if want is None:
                path.unlink()
            else:
                path.write_text(want)
    for path in stale:
        print(("differs: " if check else "wrote: ") + rel(path))
    return 1 if check and stale else 0


def ref_numbers(refs: pl.Series, strict: bool = True) -> pl.Series:
    """Pseudonyms as their 64 bits (``f-00000000000000ff`` -> 255; null stays null), as
    ``privacy.file_key`` gives one; strict: anything else is a bug, never a value to guess at
    (not strict: null)."""
    return refs.str.slice(2).str.to_integer(base=16, dtype=pl.UInt64, strict=strict)
