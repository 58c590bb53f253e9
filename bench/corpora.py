"""The corpora the bench measures: generated per runtime and size by the seeded generators
(kept between runs, made again when the generator changes), their files listed, classified
and read once so every measurement starts warm."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import importlib
import importlib.util
import os
import shutil
import time
from multiprocessing import get_context
from pathlib import Path

import orjson

from bench.common import CORPORA, MB, say

# -- files ------------------------------------------------------------------------------


def list_files(root: Path) -> list[tuple[str, int]]:
    """Every regular file under root (no symlinks followed), as (path, size), sorted."""
    out: list[tuple[str, int]] = []
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if st.st_mode & 0o170000 == 0o100000:
                out.append((p, st.st_size))
    out.sort()
    return out


def warm(files: list[tuple[str, int]]) -> float:
    """The untimed read pass (page cache), returns its seconds for the record."""
    t = time.perf_counter()
    for p, _ in files:
        with contextlib.suppress(OSError), open(p, "rb") as fh:
            while fh.read(1 << 22):
                pass
    return time.perf_counter() - t


# -- corpora ----------------------------------------------------------------------------


def generator_sha(runtime: str) -> str:
    from survey.runtimes import get

    mod = importlib.import_module(get(runtime).synth)
    src = Path(mod.__file__ or "")
    return hashlib.sha256(src.read_bytes()).hexdigest()[:16] if src.exists() else ""


def incr_manifest(root: Path) -> Path:
    return root.parent / f"{root.name}.incr.json"


def clean_increment(root: Path) -> None:
    """Remove what an incremental step added (listed beside the corpus), also after a crash."""
    man = incr_manifest(root)
    if not man.exists():
        return
    for rel in orjson.loads(man.read_bytes()):
        p = root / rel
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()
    man.unlink()


def _generate(runtime: str, root: str, seed: int, target: int) -> dict:
    from survey.synth.demo import generator

    planted = generator(runtime)(Path(root), seed=seed, target_bytes=target)
    return {"bytes_total": planted.get("bytes_total"), "sessions": planted.get("sessions")}


def generate_aside(runtime: str, root: Path, seed: int, target: int) -> dict:
    """Run a generator in a separate process: what it holds while writing never becomes the
    bench's own size (which every forked measurement would otherwise start from)."""
    with get_context().Pool(1) as pool:
        return pool.apply(_generate, (runtime, str(root), seed, target))


def ensure_corpus(runtime: str, size_mb: int, seed: int) -> tuple[Path, dict]:
    """``bench/corpora/<runtime>-<size>MB/``; the stamp beside it decides reuse."""
    from survey import __version__

    name = f"{runtime}-{size_mb}MB"
    root = CORPORA / name
    stamp = CORPORA / f"{name}.stamp.json"
    want = {"runtime": runtime, "size_mb": size_mb, "seed": seed, "tool_version": __version__,
            "generator": generator_sha(runtime)}
    if root.is_dir() and stamp.exists():
        have = orjson.loads(stamp.read_bytes())
        if {k: have.get(k) for k in want} == want:
            clean_increment(root)
            # an increment a killed run added without its list (or any other file since) would
            # make every figure of this corpus another corpus's: the bytes must be the stamp's
            now = sum(sz for _, sz in list_files(root))
            if have.get("bytes_total") in (None, now):
                return root, {**have, "reused": True}
            say(f"{name}: holds {now} bytes, not the {have['bytes_total']} generated: regenerating")
        else:
            say(f"{name}: stamp differs ({ {k: have.get(k) for k in want} }), regenerating")
    if root.exists():
        shutil.rmtree(root)
    stamp.unlink(missing_ok=True)
    root.mkdir(parents=True)
    say(f"generating {name} (seed {seed}) ...")
    t = time.perf_counter()
    planted = generate_aside(runtime, root, seed, size_mb * MB)
    secs = time.perf_counter() - t
    info = {**want, "bytes_total": planted.get("bytes_total"), "sessions": planted.get("sessions"),
            "gen_seconds": round(secs, 2), "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    stamp.write_bytes(orjson.dumps(info, option=orjson.OPT_INDENT_2))
    say(f"generated {name} in {secs:.1f} s")
    return root, {**info, "reused": False}


# -- the parse limit --------------------------------------------------------------------


def classify(root: Path, runtime: str, files: list[tuple[str, int]]) -> list[tuple[str, int, str]]:
    """Each file's kind by the runtime's surfaces, as the crawl decides it (first match wins);
    files no surface claims, or whose surface is not walked, are ``blob``."""
    from survey.runtimes import get

    surfaces = [(s.regex(), s.kind if s.walk else "blob") for s in get(runtime).surfaces]
    out = []
    for p, size in files:
        rel = os.path.relpath(p, root).replace(os.sep, "/")
        kind = next((k for rx, k in surfaces if rx.match(rel)), "blob")
        out.append((p, size, kind))
    return out
