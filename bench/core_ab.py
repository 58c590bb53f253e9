"""``python -m bench.core_ab``: two versions of the walk's C core, side by side on one corpus.

Timings on a shared machine move by ±20 % from run to run, so a change to ``_walkcore.c``
is judged here in two ways that move less:

- ``cpu``: the whole walk stage (``collect.walk_batch`` over every batch of the corpus, one
  process: reading, the C core, building and writing the tables), CPU seconds, the versions
  alternating in one process, best of ``--repeat``.
- ``instructions``: instructions executed inside ``Core.lines`` over the first ``--mb`` MB of
  the corpus's JSONL files, counted by ``valgrind --tool=callgrind
  --toggle-collect=Core_lines`` (deterministic; needs valgrind). Under valgrind the CPU's
  SHA extensions are not used, so id hashing weighs more than in a real run.

Each version is a git revision (``HEAD``, ``3cdd5ff`` ...) or a ``.c`` file: its
``_walkcore.c`` is built into a private folder and loaded beside the current Python walker
(an older core ignores attributes it does not know). The corpus is a bench corpus
(``bench/corpora/<runtime>-<size>MB``, made by ``make bench``) or ``--root``.

Examples::

    python -m bench.core_ab --runtime codex 3cdd5ff HEAD
    python -m bench.core_ab --runtime cursor --measure instructions 3cdd5ff HEAD
    python -m bench.core_ab --runtime claude_code --size 1000 --repeat 5 HEAD~1 HEAD
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent
REPO = HERE.parent
BUILDS = Path(tempfile.gettempdir()) / "survey-core-ab"


def source(version: str) -> bytes:
    """The ``_walkcore.c`` of a git revision, or of a file."""
    if version.endswith(".c") and Path(version).is_file():
        return Path(version).read_bytes()
    return subprocess.run(["git", "show", f"{version}:survey/census/_walkcore.c"], cwd=REPO,
                          capture_output=True, check=True).stdout


def built(version: str) -> Path:
    """The extension module built from that source (cached by the source's hash)."""
    from survey.census import build

    src = source(version)
    d = BUILDS / hashlib.sha256(src).hexdigest()[:16]
    out = d / ("_walkcore" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    if not out.exists():
        d.mkdir(parents=True, exist_ok=True)
        (d / "_walkcore.c").write_bytes(src)
        cmd = build.command(out)
        cmd[cmd.index(str(build.SOURCE))] = str(d / "_walkcore.c")
        subprocess.run(cmd, check=True)
    return out


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("_walkcore", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cpu(runtime: str, root: Path, versions: list[str], repeat: int) -> list[float]:
    """Best CPU seconds of the whole walk stage per version, alternating."""
    from survey.census import collect as C
    from survey.census import walk as W
    from survey.corpus.crawl import crawl
    from survey.corpus.privacy import load_salt
    from survey.runtimes import get

    salt, profile = load_salt(), get(runtime)
    inv = crawl(root, profile, salt)
    todo, children = C._todo(inv, root, profile)
    needles = C._needles(inv, children, todo)
    tasks = [C._batch_tasks(b, needles) for b in C._batches(todo.select("path", "file_id", "kind", "size"), 2)]
    fields = list(profile.frame_fields)
    walkers = []
    for v in versions:
        w = W.make_walker(runtime, "reviewed", False, salt)
        w.root = str(root)
        w._core = load(built(v)).Core(w)
        walkers.append(w)
    best = [float("inf")] * len(walkers)
    for _ in range(repeat):
        for k, w in enumerate(walkers):
            spill = tempfile.mkdtemp(prefix="survey-core-ab-")
            t = time.process_time()
            for i, batch in enumerate(tasks):
                C.walk_batch(w, batch, spill, i, fields)
            best[k] = min(best[k], time.process_time() - t)
            shutil.rmtree(spill, ignore_errors=True)
    return best


def lines_once(runtime: str, root: str, module: str, mb: float) -> None:
    """The callgrind child: Core.lines over the first ``mb`` MB of JSONL (3 files first, to
    warm the caches, as a long walk has them)."""
    from survey.census import walk as W

    datas, total = [], 0
    for dp, _dn, fn in sorted(os.walk(root)):
        for f in sorted(fn):
            if f.endswith(".jsonl") and total < mb * 1e6:
                datas.append(Path(dp, f).read_bytes())
                total += len(datas[-1])
    w = W.make_walker(runtime, "reviewed", False, b"core-ab")
    w._core = load(Path(module)).Core(w)
    gc.disable()
    for d in [*datas[:3], *datas]:
        w._core.lines(W.FileResult(file_id="x"), d, 0, 1 << 30, 0)


def instructions(runtime: str, root: Path, versions: list[str], mb: float) -> list[int]:
    if not shutil.which("valgrind"):
        raise SystemExit("core_ab: --measure instructions needs valgrind")
    out = []
    for v in versions:
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg", "--toggle-collect=Core_lines",
                 sys.executable, "-m", "bench.core_ab", "--child", runtime, str(root), str(built(v)), str(mb)],
                cwd=REPO, capture_output=True, text=True, check=True)
        counts = [line.split()[-1] for line in proc.stderr.splitlines() if "Collected" in line]
        out.append(int(counts[-1]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.core_ab", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("versions", nargs="*", help="git revisions or .c files (at least one)")
    ap.add_argument("--runtime", default="cursor")
    ap.add_argument("--size", type=int, default=100, help="bench corpus size in MB (default 100)")
    ap.add_argument("--root", type=Path, help="a corpus folder instead of the bench corpus")
    ap.add_argument("--measure", choices=["cpu", "instructions"], default="cpu")
    ap.add_argument("--repeat", type=int, default=3, help="cpu: runs per version, best kept")
    ap.add_argument("--mb", type=float, default=15.0, help="instructions: MB of JSONL to walk")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        rt, root, module, mb = args.child
        lines_once(rt, root, module, float(mb))
        return 0
    if not args.versions:
        ap.error("name at least one version")
    root = args.root or HERE / "corpora" / f"{args.runtime}-{args.size}MB"
    if not root.is_dir():
        raise SystemExit(f"core_ab: no corpus at {root} (make bench generates the bench corpora)")
    if args.measure == "cpu":
        figures = [f"{x:.2f} CPU s" for x in cpu(args.runtime, root, args.versions, args.repeat)]
    else:
        figures = [f"{x / 1e6:,.0f} M instructions" for x in instructions(args.runtime, root, args.versions, args.mb)]
    for v, f in zip(args.versions, figures, strict=True):
        print(f"{args.runtime}  {v}: {f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
