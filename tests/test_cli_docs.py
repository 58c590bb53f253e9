"""Every command is documented: its help ends with examples, docs/cli.md (written from the
CLI by ``make docs``) is current and names every command and option, and the README shows
every command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from survey.cli import app

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
CLI_MD = REPO / "docs" / "cli.md"


def _leaves(group, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    out: dict[tuple[str, ...], object] = {}
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            out.update(_leaves(cmd, (*prefix, name)))
        else:
            out[(*prefix, name)] = cmd
    return out


LEAVES = _leaves(get_command(app))
COMMANDS = sorted(" ".join(k) for k in LEAVES)


def test_there_are_commands() -> None:
    assert {"run", "crawl", "render", "recheck", "diff", "synth", "demo", "runtimes", "vocab",
            "cache info", "cache clean"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_command_help_has_examples(name: str) -> None:
    r = CliRunner().invoke(app, [*name.split(), "--help"], terminal_width=120)
    assert r.exit_code == 0, r.output
    assert "Examples" in r.output
    assert f"survey {name}" in r.output


@pytest.mark.parametrize("name", COMMANDS)
def test_command_is_in_the_readme(name: str) -> None:
    assert f"survey {name}" in README


def test_cli_md_is_written_from_the_cli_and_current() -> None:
    from survey.clidoc import render

    assert CLI_MD.read_text() == render(), "docs/cli.md is stale: run `make docs`"


def test_every_command_and_option_is_in_cli_md() -> None:
    """Not only equal to what the generator writes: the generator leaves nothing out."""
    text = CLI_MD.read_text()
    group = get_command(app)
    for opt in (o for p in group.params for o in p.opts):  # the global options
        assert f"{opt}" in text, opt
    for path, cmd in LEAVES.items():
        name = " ".join(path)
        section = text.split(f"## `survey {name}`", 1)
        assert len(section) == 2, f"no section for survey {name}"
        body = section[1].split("\n## ", 1)[0]
        for p in cmd.params:  # type: ignore[attr-defined]
            if p.param_type_name == "argument":
                assert f"`{p.name.upper()}`" in body, (name, p.name)
            elif not p.hidden:
                for opt in (*p.opts, *p.secondary_opts):
                    assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", body), (name, opt)


def test_python_dash_m_survey_is_the_cli() -> None:
    r = subprocess.run([sys.executable, "-m", "survey", "runtimes", "--help"], capture_output=True, text=True,
                       check=False, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Usage: survey runtimes" in r.stdout and "Examples" in r.stdout


def test_readme_starts_with_the_two_commands() -> None:
    head = README[:1500]
    assert "make survey" in head and "make test" in head
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "make test" in ci


def test_an_empty_default_root_counts_as_no_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.runtimes import get

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".claude" / "projects").mkdir(parents=True)
    assert get("claude_code").default_root() is None
    (tmp_path / ".claude" / "projects" / "-x").mkdir()
    assert get("claude_code").default_root() == tmp_path / ".claude" / "projects"


def test_the_progress_bar_is_throttled_but_counts_every_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The crawl reports each file; the bar is redrawn at most every ``REDRAW`` seconds, a
    stage with a total shows its percent, and a stage's held counts are shown in full (its
    total, where it has one) once the next stage starts; each runtime has its own bars."""
    import io

    from rich.console import Console

    from survey import cli

    monkeypatch.setattr(cli, "err", Console(file=io.StringIO(), force_terminal=True))
    prog, for_runtime = cli._progress()
    assert prog is not None and for_runtime is not None
    cb = for_runtime("codex")
    updates = 0
    real = prog.update

    def counted(*a, **k):
        nonlocal updates
        updates += 1
        return real(*a, **k)

    monkeypatch.setattr(prog, "update", counted)
    for _ in range(5000):
        cb("crawl", 1, 1000)
    cb("walk", 0, 0, 10)  # a total: 10 files to walk
    cb("walk", 3, 2_000_000)
    cb("census", 0, 0, 4)
    for_runtime("cursor")("crawl", 7, 0)
    got = {t.description: (t.completed, t.total, t.fields["mb"]) for t in prog.tasks}
    assert got == {"codex crawl": (5000, None, "5 MB"), "codex walk": (10, 10, "2 MB"),
                   "codex census": (4, 4, ""), "cursor crawl": (7, None, "")}  # (runtimes run one by one)
    assert updates < 100  # not one redraw per file
    monkeypatch.setattr(cli, "VERBOSITY", [-1])  # -q: no bars at all
    assert cli._progress() == (None, None)


def test_the_time_line_says_when_greps_ran_beside_the_walk() -> None:
    """The run table's stage times: the greps' part beside the walk is said in words beside
    their time, not as a stage of its own (it is inside the walk's time)."""
    from survey.cli import time_line

    beside = time_line({"walk": 13.47, "greps": 4.05, "greps_beside_walk": 4.01, "total": 13.89})
    assert beside == "walk 13.47s · greps 4.05s (4.01s of it beside the walk) · total 13.89s"
    assert time_line({"walk": 1.0, "greps": 0.5, "total": 2.0}) == "walk 1.00s · greps 0.50s · total 2.00s"


def test_locate_maps_a_pseudonym_back_to_its_file_on_this_machine_only(tmp_path: Path) -> None:
    """``survey locate`` names each file_id's path from a fresh crawl with this machine's
    salt, a name that is not UTF-8 included; a pseudonym it never made is said so."""
    import os

    from survey.corpus.crawl import crawl
    from survey.corpus.privacy import load_salt
    from survey.runtimes import get

    root = tmp_path / "c"
    (root / "p").mkdir(parents=True)
    (root / "p" / "a.jsonl").write_bytes(b"{}\n")
    with open(os.fsencode(str(root / "p")) + b"/b\xff.jsonl", "wb") as fh:
        fh.write(b"{}\n")
    inv = crawl(root, get("cursor_stream"), load_salt())
    ids = dict(zip(inv.paths_of(inv.frame["file_id"]), inv.frame["file_id"], strict=True))
    odd = os.fsdecode(b"p/b\xff.jsonl")
    assert set(ids) == {"p/a.jsonl", odd}
    r = CliRunner().invoke(app, ["locate", ids["p/a.jsonl"], ids[odd], "f-0000000000000000", "--root", str(root),
                                 "-r", "cursor_stream", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == {ids["p/a.jsonl"]: "p/a.jsonl", ids[odd]: odd, "f-0000000000000000": None}
    # plain: a line each, the name's own bytes
    r = CliRunner().invoke(app, ["locate", ids[odd], "f-0000000000000000", "--root", str(root), "-r", "cursor_stream"])
    assert r.exit_code == 0, r.output
    assert r.stdout_bytes.splitlines() == [ids[odd].encode() + b"  p/b\xff.jsonl",
                                           b"f-0000000000000000  (not found under this root with this machine salt)"]


def test_a_rerun_says_it_took_the_census_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``survey run`` tells a re-run that changed nothing by its census row: taken from the
    cache, not run; a first run says nothing of the kind."""
    from survey.synth.demo import generator

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    generator("codex")(tmp_path / "c", seed=3, sessions=3)
    said = []
    for date in ("2026-01-01", "2026-01-02"):
        r = CliRunner().invoke(app, ["run", "-r", "codex", "--root", str(tmp_path / "c"), "--date", date],
                               terminal_width=200)
        assert r.exit_code == 0, r.output
        said.append(r.output)
    assert "taken from the cache" not in said[0]
    assert re.search(r"census\s+│\s+taken from the cache: \d+ queries, nothing", said[1]), said[1]


def test_version_json_names_the_engines_a_bug_report_needs() -> None:
    r = CliRunner().invoke(app, ["version", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert set(got) == {"survey", "python", "duckdb", "polars", "rg", "walker"}
    import duckdb

    from survey import __version__
    from survey.native import ENGINE

    assert got["survey"] == __version__ and got["duckdb"] == duckdb.__version__ and got["walker"] == ENGINE
    assert CliRunner().invoke(app, ["version"]).output.strip() == __version__
