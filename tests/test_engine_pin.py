"""The engine and the `duckdb` CLI a reviewer pastes the pages' commands into are pinned
exactly (pyproject and constraints.txt agree), the installed CLI is the pinned one, and a page
prints the engine's version beside the grep table. The two differ while no CLI of the
engine's release is published (the CLI is the newest release; every .sql runs on both)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[1]


def test_pyproject_pins_the_package_and_the_cli_together() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = {m.group(1): m.group(2) for d in [*meta["dependencies"], *meta["optional-dependencies"]["dev"]]
            if (m := re.fullmatch(r"(duckdb|duckdb-cli)==(\S+)", d))}
    assert set(pins) == {"duckdb", "duckdb-cli"}
    pinned = {line.split("==")[0]: line.split("==")[1] for line in (REPO / "constraints.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    assert pinned["duckdb"] == pins["duckdb"] and pinned["duckdb-cli"] == pins["duckdb-cli"]


def test_the_installed_cli_is_the_engine_and_the_page_says_which(cursor_survey) -> None:
    cli = Path(sys.executable).parent / "duckdb"
    if not cli.exists():
        cli = Path(shutil.which("duckdb") or "duckdb")
    if not cli.exists():
        pytest.skip("no duckdb CLI installed (the dev extras hold duckdb-cli)")
    said = subprocess.run([str(cli), "--version"], capture_output=True, text=True, check=True, timeout=60).stdout
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    cli_pin = next(d.split("==")[1] for d in meta["optional-dependencies"]["dev"] if d.startswith("duckdb-cli=="))
    assert said.split()[0].lstrip("v") == cli_pin
    _, res, _ = cursor_survey
    page = Path(res.page).read_text()
    assert f"DuckDB {duckdb.__version__} computed these figures" in page
