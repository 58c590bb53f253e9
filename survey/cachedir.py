"""Where the survey keeps what it can always make again: the walk's and the greps' per-file
caches (``census.collect``, ``evidence.grep``) and the pages' compiled templates
(``render.render``). Outside every corpus root: ``$SURVEY_CACHE_DIR``, else
``$XDG_CACHE_HOME/survey``, else ``~/.cache/survey``. Nothing here imports the pipeline, so
the renderer (which never imports the corpus side) can use it."""

from __future__ import annotations

import os
from pathlib import Path


def cache_base() -> Path:
    env = os.environ.get("SURVEY_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "survey"
