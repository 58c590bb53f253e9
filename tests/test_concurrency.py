"""Runs at once on one root, one cache and one snapshot folder.

A generated Cursor corpus is surveyed once alone (``--no-cache``: the reference), then
several ``survey run`` (one date and another, ``refuse``, ``suffix`` twice, ``auto``) start
at the same moment as a ``render``, a ``diff`` and a ``recheck`` of the reference, all as
processes (``python -m survey``) sharing a fresh cache folder and the snapshot folder. Every
one succeeds, or is refused with the documented exit code (1, "already exists" or "being
written": ``refuse`` where another run has the date), none prints a traceback; every
snapshot written is whole and holds the reference's census tables and manifest figures; the
names taken are distinct, one snapshot per name; a page two renders and a recheck wrote at
once is one whole page; nothing is left under a temporary name in the snapshot folder or the
cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from survey.synth.cursor import generate

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "-r", "cursor", "--root", "corpus", "--snapshots", "S", "--jobs", "1", "--json"]


def _start(args: list[str], cwd: Path, cache: Path) -> subprocess.Popen:
    env = {**os.environ, "SURVEY_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "survey", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _run(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    p = _start(args, cwd, cache)
    out, err = p.communicate(timeout=300)
    return subprocess.CompletedProcess(args, p.returncode, out, err)


def figures(snap: Path) -> dict:
    """What a snapshot says of the corpus: every census table (columns and rows) and the
    manifest's figures; not its name, date, timings or the commands that name its folder."""
    census = json.loads((snap / "census.json").read_bytes())
    manifest = json.loads((snap / "manifest.json").read_bytes())
    return {"census": {k: (v["columns"], v["rows"]) for k, v in census.items()},
            **{k: manifest[k] for k in ("counts", "problems", "fingerprint", "root", "privacy", "disagreements",
                                        "mode", "sample", "root_check")}}


def leftovers(*folders: Path) -> list[str]:
    """Names under ``folders`` that a run makes under a temporary name and renames or removes."""
    out = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            for n in [*dirnames, *filenames]:
                if n.endswith(".tmp") or any(s in n for s in (".tmp-", ".old-", ".walk-")):
                    out.append(os.path.relpath(os.path.join(dirpath, n), folder))
    return out


def test_runs_at_once_share_root_cache_and_snapshots(tmp_path: Path) -> None:
    generate(tmp_path / "corpus", seed=11)
    cache = tmp_path / "cache"  # fresh: no run has seen this root
    # (named to sort first: a page tells the drift since the root's latest earlier snapshot)
    # (named to sort first: a page tells the drift since the root's latest earlier snapshot)
    solo = _run([*RUN, "--date", "0solo", "--reports", "R-solo", "--no-cache"], tmp_path, tmp_path / "solo-cache")
    assert solo.returncode == 0, solo.stderr
    reference = figures(tmp_path / "S" / "0solo" / "cursor")
    solo_page = (tmp_path / "R-solo" / "cursor.md").read_text()

    runs = {  # name -> (on-exists, date, reports)
        "refuse-a": ("refuse", "A", "R-1"), "refuse-a-again": ("refuse", "A", "R-2"),
        "suffix-a": ("suffix", "A", "R-5"), "suffix-a-again": ("suffix", "A", "R-6"),
        "auto-a": ("auto", "A", "R-3"), "refuse-b": ("refuse", "B", "R-4"),
    }
    procs = {name: _start([*RUN, "--date", date, "--on-exists", mode, "--reports", rep], tmp_path, cache)
             for name, (mode, date, rep) in runs.items()}
    for name in ("render", "render-again"):  # one page, written by three processes at once
        procs[name] = _start(["render", "0solo", "-r", "cursor", "--snapshots", "S", "--reports", "R-render"],
                             tmp_path, cache)
    procs["diff"] = _start(["diff", "0solo", "0solo", "-r", "cursor", "--snapshots", "S", "--out", "drift.md"],
                           tmp_path, cache)
    procs["recheck"] = _start(["recheck", "0solo", "-r", "cursor", "--root", "corpus", "--snapshots", "S",
                               "--sample", "5", "--reports", "R-render"], tmp_path, cache)
    done = {name: (p.communicate(timeout=600), p.returncode) for name, p in procs.items()}

    for name, ((_, err), _rc) in done.items():
        assert "Traceback" not in err, (name, err)
    for name in ("render", "render-again", "diff"):
        assert done[name][1] == 0, (name, done[name][0][1])
    # (3: a verdict that disagrees, as the generated corpus's planted shapes make one)
    assert done["recheck"][1] in (0, 3) and "page:" in done["recheck"][0][0], done["recheck"][0][1]
    written: dict[str, str] = {}  # snapshot -> the run that wrote it
    reused = []
    refused = []
    for name, (mode, _date, _rep) in runs.items():
        (out, err), rc = done[name]
        if rc == 1 and mode == "refuse":  # another run had the date: refused, before its walk
            assert "already exists" in err or "being written by another run" in err, (name, err)
            refused.append(name)
            continue
        assert rc == 0, (name, rc, err)
        res = json.loads(out)["results"][0]
        if res["reused"]:
            assert mode == "auto", name
            reused.append(res["snapshot"])
            continue
        assert res["snapshot"] not in written, (name, written)  # one writer a name
        written[res["snapshot"]] = name
    # the date A was written once; every other run of A took another name, reused it or
    # (refuse) was refused; B was written by its one run
    a_names = {s for s in written if Path(s).parent.name == "A" or Path(s).parent.name.startswith("A.")}
    assert str(Path("S/A/cursor")) in written and str(Path("S/B/cursor")) in written
    assert len(a_names) + len(reused) + len(refused) == 5
    assert all(r == str(Path("S/A/cursor")) for r in reused)
    for snap in {*written, *reused}:
        assert figures(tmp_path / snap) == reference, snap
    dates = sorted(d.name for d in (tmp_path / "S").iterdir())
    assert dates == sorted({"0solo", "B", *(Path(s).parent.name for s in a_names)})
    for d in (tmp_path / "S").iterdir():  # each date: its runtime's snapshot, whole, and nothing else
        assert sorted(x.name for x in d.iterdir() if not x.name.endswith(".recheck.json")) == ["cursor"], d
        assert (d / "cursor" / "manifest.json").is_file()

    # the page two renders and a recheck wrote at once: whole, before the verdicts or after
    after = _run(["render", "0solo", "-r", "cursor", "--snapshots", "S", "--reports", "R-after"], tmp_path, cache)
    assert after.returncode == 0, after.stderr
    assert (tmp_path / "R-render" / "cursor.md").read_text() in (solo_page, (tmp_path / "R-after" / "cursor.md").read_text())
    assert (tmp_path / "drift.md").read_text()
    assert not leftovers(tmp_path / "S", cache, tmp_path / "R-render")
