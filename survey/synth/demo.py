"""The bundled demo corpus: each runtime's generator, run with a fixed seed into ``.demo/``.

A runtime in ``TIMELINES`` (Codex) also holds older files written as a client writes them
over time (``survey.synth.timeline``): a seeded sequence of client versions, each drifting
the format; ``write_demo(..., upto=i)`` writes the corpus as it stood at the end of epoch
``i``, so ``survey history --or-demo`` can take a dated snapshot of each planted date.

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
# runtimes whose demo also holds a client's history (``survey.synth.timeline``): older
# rollouts of a seeded sequence of versions, written before the generator's own files
TIMELINES = frozenset({"codex"})


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


def demo_epochs(runtime: str) -> list[dict]:
    """The demo's planted history of ``runtime`` (version, release and snapshot date and
    changes of each epoch, ``survey.synth.timeline.plan``); [] where its demo has none."""
    if runtime not in TIMELINES:
        return []
    from survey.synth.timeline import plan

    return [e.to_json() for e in plan(DEMO_SEED)]


def write_demo(root: Path, runtime: str, upto: int | None = None) -> dict:
    """The demo corpus of ``runtime`` under ``root``: its history's epochs (``upto``: up to
    that one only, the corpus as it stood at its end), then, when whole, the generator's
    own files. Returns what was planted."""
    planted: dict = {}
    if runtime in TIMELINES:
        from survey.synth.timeline import generate as timeline

        planted["timeline"] = timeline(root, seed=DEMO_SEED, upto=upto)
        mark(root, runtime, DEMO_SEED)
    if upto is None:
        planted = {**generator(runtime)(root, seed=DEMO_SEED), **planted}
    return planted


def ensure_demo(runtime: str, fresh: bool = False) -> Path:
    root = demo_root(runtime)
    stamp = DEMO_DIR / f"{runtime}.planted.json"
    want = {"seed": DEMO_SEED, "version": __version__, "timeline": runtime in TIMELINES}
    if not fresh and root.is_dir() and stamp.exists():
        have = orjson.loads(stamp.read_bytes())
        if {k: have.get(k) for k in want} == want:
            if not is_synthetic(root):  # a demo made before generated corpora were labelled
                mark(root, runtime, DEMO_SEED)
            return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    planted = write_demo(root, runtime)
    stamp.write_bytes(orjson.dumps({**want, "planted": planted}, option=orjson.OPT_INDENT_2))
    return root
