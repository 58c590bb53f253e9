"""``python -m tools.mutate [MODULE ...]``: mutate each module, run its mapped tests per mutant.

Prints, per module, the kill rate (killed over mutants not listed as equivalent) and every
survivor as ``path:line  where: `before` -> `after```. Options: ``--jobs N`` mutants at once
(default 1: the machine's cores are shared), ``--list`` to print the mutants without running
them, ``--match TEXT`` (again for more) to run only the mutants whose name contains one of them, ``--json FILE`` for
the whole result. Exit status 0 whatever survived (``--fail-under PCT`` makes it 1 below a
rate), 2 for a usage error or a module whose tests fail unmutated.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import signal
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tools.mutate.mutants import Mutant, mutants

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
HOOK = HERE / "hook"
MODULES = HERE / "modules.toml"
EQUIVALENT = HERE / "equivalent.md"
LIVE: set[int] = set()  # the process groups of the test runs under way (stopped on exit)
STOP = threading.Event()  # set when the run is stopped: no further test run starts


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed, timeout, survived, not-loaded, error
    seconds: float
    note: str = ""


@dataclass
class Report:
    module: str
    tests: list[str]
    baseline_s: float = 0.0
    outcomes: list[Outcome] = field(default_factory=list)
    equivalent: dict[str, str] = field(default_factory=dict)
    sampled: bool = False  # every Nth mutant only: an equivalent not run may still exist

    def counts(self) -> dict[str, int]:
        eq = [o for o in self.outcomes if o.mutant.key in self.equivalent]
        rest = [o for o in self.outcomes if o.mutant.key not in self.equivalent]
        killed = sum(o.status in ("killed", "timeout") for o in rest)
        return {"mutants": len(self.outcomes), "equivalent": len(eq), "killed": killed,
                "survived": sum(o.status == "survived" for o in rest),
                "errors": sum(o.status in ("not-loaded", "error") for o in rest)}

    def rate(self) -> float:
        c = self.counts()
        scored = c["mutants"] - c["equivalent"]
        return 100.0 * c["killed"] / scored if scored else 100.0


def load_modules(path: Path = MODULES) -> dict[str, dict]:
    """``modules.toml``: module path -> {"tests": pytest arguments, fastest first, "every": N}."""
    data = tomllib.loads(path.read_text())
    return {m["path"]: {"tests": list(m["tests"]), "every": int(m.get("every", 1)),
                        "reuse_snapshot": bool(m.get("reuse_snapshot", False))} for m in data["module"]}


def load_equivalent(path: Path = EQUIVALENT) -> dict[str, dict[str, str]]:
    """``equivalent.md``: under each ``## <module path>`` heading, bullets
    ``- <where>: `<before>` -> `<after>` — <why no test can tell them apart>``."""
    out: dict[str, dict[str, str]] = {}
    module = None
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            module = line[3:].strip().strip("`")
            out.setdefault(module, {})
        elif line.startswith("- ") and module and " — " in line:
            key, reason = line[2:].split(" — ", 1)
            out[module][key.strip()] = reason.strip()
    return out


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


PRELOAD = ("pytest", "polars", "duckdb", "jinja2", "typer", "rich", "orjson", "xxhash", "hypothesis", "pyarrow")
"""Third-party modules imported once, before the first fork, so no test run pays for them
again. Never the survey's own modules or the tests: those must import the mutant."""


@dataclass
class Run:
    """One test run under way in a forked child."""

    pid: int
    mutant: Mutant | None
    started: float
    spec: Path
    marker: Path
    output: Path


def start(path: str, tests: list[str], source: str, workdir: Path, tag: str, mutant: Mutant | None) -> Run:
    """Fork a child that runs the tests with the module's source swapped for ``source``.

    The child loads the import hook into itself (the module is not imported yet: the parent
    never imports the survey) and names it in ``SURVEY_MUTANT`` and ``PYTHONPATH`` for any
    process it starts; pytest's output goes to a file, for the survivor's last line."""
    spec = workdir / f"{tag}.json"
    marker = workdir / f"{tag}.loaded"
    output = workdir / f"{tag}.out"
    marker.unlink(missing_ok=True)
    spec.write_text(json.dumps({"module": module_name(path), "path": str(REPO / path),
                                "source": source, "marker": str(marker)}))
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        rc = 3
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the runner's handlers
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.setsid()  # its own process group: a timeout or a stop kills all it started
            fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.chdir(REPO)
            os.environ["SURVEY_MUTANT"] = str(spec)
            os.environ["PYTHONPATH"] = os.pathsep.join([str(HOOK), *filter(None, [os.environ.get("PYTHONPATH")])])
            hook = importlib.util.spec_from_file_location("_survey_mutant_hook", HOOK / "sitecustomize.py")
            assert hook is not None and hook.loader is not None
            hook.loader.exec_module(importlib.util.module_from_spec(hook))  # installs it (SURVEY_MUTANT is set)
            import pytest

            rc = int(pytest.main(["-x", "-q", "--no-header", "-p", "no:cacheprovider", "-o", "addopts=", *tests]))
        except BaseException:  # whatever happens, the child exits here
            rc = 3
        finally:
            with contextlib.suppress(BaseException):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(rc)
    LIVE.add(pid)
    return Run(pid, mutant, time.perf_counter(), spec, marker, output)


def finish(run: Run, returncode: int | None) -> tuple[str, float, str]:
    """(status, seconds, last line of pytest's output) of a run that ended (None: timed out)."""
    LIVE.discard(run.pid)
    seconds = time.perf_counter() - run.started
    run.spec.unlink(missing_ok=True)
    text = run.output.read_text(errors="replace") if run.output.exists() else ""
    run.output.unlink(missing_ok=True)
    tail = (text.strip().splitlines() or [""])[-1]
    loaded = run.marker.exists()
    run.marker.unlink(missing_ok=True)
    if returncode is None:
        return "timeout", seconds, ""
    if returncode == 0:
        return ("survived" if loaded else "not-loaded"), seconds, tail
    if returncode in (1, 2, 4):
        # tests failed, or the mutant broke collection (an import): 4 is pytest's usage error,
        # which a node id whose file no longer imports gives; the unmutated run passed the
        # same arguments, so only the mutant can have caused it
        return "killed", seconds, tail
    return "error", seconds, f"pytest exit {returncode}: {tail}"


def run_all(path: str, tests: list[str], jobs: int, workdir: Path, todo: list[tuple[str, Mutant | None]],
            timeout: float | None, done: Callable[[int, Outcome], None]) -> None:
    """Run each (source, mutant) with at most ``jobs`` children at once; ``done`` per outcome."""
    queue = list(enumerate(todo))
    running: dict[int, Run] = {}
    finished = 0
    while queue or running:
        while queue and len(running) < jobs and not STOP.is_set():
            i, (source, m) = queue.pop(0)
            r = start(path, tests, source, workdir, f"m{i}", m)
            running[r.pid] = r
        if not running:
            break
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            now = time.perf_counter()
            for r in list(running.values()):
                if timeout is not None and now - r.started > timeout:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(r.pid, signal.SIGKILL)
                    os.waitpid(r.pid, 0)
                    del running[r.pid]
                    st, sec, note = finish(r, None)
                    finished += 1
                    done(finished, Outcome(r.mutant, st, sec, note))  # type: ignore[arg-type]
            time.sleep(0.05)
            continue
        if pid not in running:
            continue
        r = running.pop(pid)
        with contextlib.suppress(ProcessLookupError):  # anything the run left behind
            os.killpg(pid, signal.SIGKILL)
        st, sec, note = finish(r, os.waitstatus_to_exitcode(status))
        finished += 1
        done(finished, Outcome(r.mutant, st, sec, note))  # type: ignore[arg-type]


def mutate_module(path: str, tests: list[str], every: int, equivalent: dict[str, str], jobs: int,
                  match: list[str] | None, workdir: Path, reuse_snapshot: bool = False) -> Report:
    """Run the module's tests unmutated, then once per mutant. ``reuse_snapshot``: the tests
    may keep a corpus's census, evidence and manifest in ``SURVEY_MUTATE_SNAPSHOTS`` (a folder
    of this module's run alone) and compute the module's figures from them, unsurveyed, in
    every later run: for a module the survey calls only after its census (a runtime's claims)."""
    if reuse_snapshot:
        kept = workdir / ("snapshots-" + module_name(path))
        kept.mkdir()
        os.environ["SURVEY_MUTATE_SNAPSHOTS"] = str(kept)
    try:
        return _mutate_module(path, tests, every, equivalent, jobs, match, workdir)
    finally:
        os.environ.pop("SURVEY_MUTATE_SNAPSHOTS", None)


def _mutate_module(path: str, tests: list[str], every: int, equivalent: dict[str, str], jobs: int,
                   match: list[str] | None, workdir: Path) -> Report:
    rep = Report(path, tests, equivalent=equivalent, sampled=every > 1)
    source = (REPO / path).read_text()
    base: list[Outcome] = []
    run_all(path, tests, 1, workdir, [(source, None)], None, lambda _n, o: base.append(o))
    if not base or base[0].status != "survived":
        why = f"{base[0].status}: {base[0].note}" if base else "stopped"
        raise SystemExit(f"mutate: {path}: its tests do not pass unmutated ({why})")
    rep.baseline_s = base[0].seconds
    todo = [m for m in mutants(path, source)[::every] if not match or any(t in m.key for t in match)]
    timeout = max(20.0, 4 * rep.baseline_s)
    sampled = f" (every {every}th)" if every > 1 else ""
    print(f"{path}: {len(todo)} mutants{sampled}, tests {rep.baseline_s:.1f} s unmutated ({' '.join(tests)})",
          flush=True)

    def done(n: int, o: Outcome) -> None:
        rep.outcomes.append(o)
        if o.status not in ("killed", "timeout") and o.mutant.key not in equivalent:
            print(f"  [{n}/{len(todo)}] {o.status}: {path}:{o.mutant.line}  {o.mutant.key}", flush=True)
        elif n % 25 == 0:
            print(f"  [{n}/{len(todo)}] ...", flush=True)

    run_all(path, tests, jobs, workdir, [(m.source, m) for m in todo], timeout, done)
    order = {id(m): i for i, m in enumerate(todo)}
    rep.outcomes.sort(key=lambda o: order[id(o.mutant)])
    return rep


def print_report(reports: list[Report], complete: bool = True) -> None:
    print()
    print(f"{'module':48} {'mutants':>7} {'equiv':>5} {'killed':>6} {'surv':>5} {'err':>4} {'rate':>7}")
    for r in reports:
        c = r.counts()
        print(f"{r.module:48} {c['mutants']:7} {c['equivalent']:5} {c['killed']:6} {c['survived']:5} "
              f"{c['errors']:4} {r.rate():6.1f}%")
    for r in reports:
        keys = {o.mutant.key for o in r.outcomes}
        for o in r.outcomes:
            if o.mutant.key in r.equivalent and o.status in ("killed", "timeout"):
                print(f"note: {r.module}: listed as equivalent but killed: {o.mutant.key}")
        for k in sorted(set(r.equivalent) - keys if complete and not r.sampled else ()):
            print(f"note: {r.module}: equivalent.md names a mutant that no longer exists: {k}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.mutate", description=__doc__.split("\n")[0])
    ap.add_argument("modules", nargs="*", help="module paths from modules.toml (default: all of them)")
    ap.add_argument("--jobs", "-j", type=int, default=1)
    ap.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    ap.add_argument("--match", action="append",
                    help="only the mutants whose name contains this text (given again: any of them)")
    ap.add_argument("--every", type=int, default=None,
                    help="only every Nth mutant (default: each module's own, from modules.toml, else 1)")
    ap.add_argument("--json", type=Path, help="write every outcome here")
    ap.add_argument("--fail-under", type=float, default=None, help="exit 1 when a module's rate is below")
    args = ap.parse_args(argv)
    mapping = load_modules()
    chosen = args.modules or list(mapping)
    unknown = [m for m in chosen if m not in mapping]
    if unknown or args.jobs < 1 or (args.every is not None and args.every < 1):
        print(f"mutate: not in {MODULES.relative_to(REPO)}: {', '.join(unknown)}" if unknown
              else "mutate: --jobs and --every must be at least 1", file=sys.stderr)
        return 2
    equivalent = load_equivalent()
    if args.list:
        for path in chosen:
            for m in mutants(path, (REPO / path).read_text())[::args.every or mapping[path]["every"]]:
                if not args.match or any(t in m.key for t in args.match):
                    eq = "  (equivalent)" if m.key in equivalent.get(path, {}) else ""
                    print(f"{path}:{m.line}  {m.op:6} {m.key}{eq}")
        return 0
    for name in PRELOAD:  # once, here: each forked test run starts with them imported
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    t0 = time.perf_counter()
    reports = []

    def stop(*_: object) -> None:  # stopped (Ctrl-C, kill): no test run is left behind
        STOP.set()
        for pgid in list(LIVE):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        raise SystemExit(130)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    with tempfile.TemporaryDirectory(prefix="survey-mutate-") as tmp:
        for path in chosen:
            every = args.every or mapping[path]["every"]
            reports.append(mutate_module(path, mapping[path]["tests"], every, equivalent.get(path, {}),
                                         args.jobs, args.match, Path(tmp), mapping[path]["reuse_snapshot"]))
    print_report(reports, complete=not args.match)
    print(f"\n{sum(len(r.outcomes) for r in reports)} mutants in {time.perf_counter() - t0:.0f} s")
    if args.json:
        args.json.write_text(json.dumps([{
            "module": r.module, "tests": r.tests, **r.counts(), "rate": round(r.rate(), 1),
            "outcomes": [{"line": o.mutant.line, "op": o.mutant.op, "key": o.mutant.key, "status": o.status,
                          "equivalent": o.mutant.key in r.equivalent, "seconds": round(o.seconds, 2)}
                         for o in r.outcomes]} for r in reports], indent=1))
    if args.fail_under is not None and any(r.rate() < args.fail_under for r in reports):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
