"""The wheel carries the compiled C core: built by the build backend (``hatch_build.py``),
installed into a fresh virtual environment, it runs the native walker, not the fallback.

Nothing is downloaded: the wheel is built without isolation (hatchling and build are dev
dependencies), installed with ``--no-deps --no-index``, and the fresh environment finds the
dependencies through a ``.pth`` line naming this environment's site-packages (after its
own, so the survey it imports is the wheel's)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(*cmd: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=600, check=False,
                       env=env)
    assert r.returncode == 0, f"{cmd}: {r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return r


def test_the_wheel_carries_the_native_walker(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="the dev extras (pip install -e '.[dev]') hold build and hatchling")
    pytest.importorskip("hatchling", reason="the dev extras (pip install -e '.[dev]') hold build and hatchling")
    if shutil.which(os.environ.get("CC") or sysconfig.get_config_var("CC").split()[0] or "cc") is None:
        pytest.skip("no C compiler here: the wheel would be pure Python (the fallback walker)")
    # a copy of the source (not the work tree: its in-place build and caches stay out)
    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".venv", ".git", "*.so", "__pycache__", ".demo",
                                                             "reports", "snapshots", "samples", "bench", "discover",
                                                             ".*_cache", ".lock-venv", "dist", "build"))
    shutil.copytree(REPO / "bench", src / "bench", ignore=shutil.ignore_patterns("corpora", "__pycache__"))
    dist = tmp_path / "dist"
    r = _run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist, src, cwd=tmp_path)
    (wheel,) = dist.glob("survey-*.whl")
    assert "py3-none-any" not in wheel.name, r.stderr  # a platform wheel: it carries compiled code
    fresh = tmp_path / "fresh"
    _run(sys.executable, "-m", "venv", "--without-pip", fresh, cwd=tmp_path)
    _run(sys.executable, "-m", "pip", "--python", fresh / "bin" / "python", "install", "-q", "--no-deps",
         "--no-index", wheel, cwd=tmp_path)
    site = Path(_run(fresh / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                     cwd=tmp_path).stdout.strip())
    (site / "_survey_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("SURVEY_WALK", "PYTHONPATH")}
    got = json.loads(_run(fresh / "bin" / "survey", "version", "--json", cwd=tmp_path, env=env).stdout)
    assert got["walker"] == "native"
    where = _run(fresh / "bin" / "python", "-c", "import survey; print(survey.__file__)", cwd=tmp_path, env=env)
    assert Path(where.stdout.strip()).is_relative_to(site)  # the wheel's survey, not the work tree's
