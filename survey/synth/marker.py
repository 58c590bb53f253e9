"""The label a generated corpus carries: a small JSON file beside its root (never inside it,
where the crawl would count it), naming the generator, runtime and seed. A run whose root
has one records ``synthetic: true`` and its pages open with a banner; a real root never has
one, and a corpus moved without it is no longer labelled."""

from __future__ import annotations

from pathlib import Path

import orjson

SUFFIX = ".survey-synthetic.json"


def marker_path(root: Path) -> Path:
    r = Path(root).expanduser().absolute()
    return r.parent / (r.name + SUFFIX)


def mark(root: Path, runtime: str, seed: int) -> Path:
    p = marker_path(root)
    p.write_bytes(orjson.dumps({"generator": "survey synth", "runtime": runtime, "seed": seed}))
    return p


def is_synthetic(root: Path) -> bool:
    try:
        return marker_path(root).is_file()
    except OSError:
        return False
