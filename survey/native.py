"""The C core (``census/_walkcore.c``), loaded once for every stage that calls it.

It is the walk's hot loop first (``census.walk``: framing, the tape, batch tables), and it
holds three small helpers other stages call too: the crawl's pseudonyms
(``corpus.privacy.pseudonyms``), and the grep's UTF-8 check, blanking and batched reads
(``evidence.grep``). Loading it here, not in the walk, keeps the pipeline's imports
flowing one way (corpus -> census -> evidence): the crawl and the grep no longer import
the walk to reach it.

``NATIVE`` is the compiled module, or None: not built, built from another version of the
source (the module carries the hash of the source it was built from, so an edited ``.c``
never runs stale), or ``SURVEY_WALK=python`` (the parity tests run both). ``make`` builds
it (``python -m survey.census.build``). Every caller has a Python fallback that gives the
same results, more slowly; ``ENGINE`` says which one runs, for the run's record.
"""

from __future__ import annotations

import os
from typing import Any


def _load() -> tuple[Any, str]:
    if os.environ.get("SURVEY_WALK") == "python":
        return None, "python (SURVEY_WALK=python)"
    try:
        from survey.census import _walkcore  # type: ignore[attr-defined]
    except ImportError:
        return None, "python (the native walker is not built: run make, or install with a C compiler)"
    from survey.census.build import source_hash

    if getattr(_walkcore, "SOURCE_HASH", None) != source_hash():
        return None, "python (the native walker is out of date: run make)"
    return _walkcore, "native"


NATIVE, ENGINE = _load()
