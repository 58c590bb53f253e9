"""The bundled demo corpus: each runtime's generator, run with a fixed seed into ``.demo/``.

``make survey`` uses it when a runtime has no root on this machine. A stamp beside each
root (never inside it, or the crawl would count it) records the seed and tool version, so
the corpus is generated once and reused until either changes.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Callable
from pathlib import Path

import orjson

from survey import __version__
from survey.synth.marker import is_synthetic, mark

DEMO_DIR = Path(".demo")
DEMO_SEED = 7


def generator(runtime: str) -> Callable[..., dict]:
    """The runtime's generator, which also labels what it writes as generated (a marker
    beside the root: ``survey.synth.marker``)."""
    from survey.runtimes import get

    p = get(runtime)
    if not p.synth:
        raise KeyError(f"runtime {runtime!r} has no generator")
    gen = importlib.import_module(p.synth).generate

    def generate(root: Path, *, seed: int = DEMO_SEED, **kw) -> dict:
        planted = gen(root, seed=seed, **kw)
        mark(root, runtime, seed)
        return planted

    return generate


def demo_root(runtime: str) -> Path:
    return DEMO_DIR / runtime


def ensure_demo(runtime: str, fresh: bool = False) -> Path:
    root = demo_root(runtime)
    stamp = DEMO_DIR / f"{runtime}.planted.json"
    want = {"seed": DEMO_SEED, "version": __version__}
    if not fresh and root.is_dir() and stamp.exists():
        have = orjson.loads(stamp.read_bytes())
        if {k: have.get(k) for k in want} == want:
            if not is_synthetic(root):  # a demo made before generated corpora were labelled
                mark(root, runtime, DEMO_SEED)
            return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    planted = generator(runtime)(root, seed=DEMO_SEED)
    stamp.write_bytes(orjson.dumps({**want, "planted": planted}, option=orjson.OPT_INDENT_2))
    return root
