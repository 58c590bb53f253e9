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


def replace_file(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` in one step (a temp file beside it, then a rename), its
    folder made if need be: a reader sees the old file or the new, never half of one.
    False where it could not be written (the survey never depends on these files)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True
