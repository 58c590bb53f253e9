"""The CLI's conventions: -h and --version, choices shown in help, help text that keeps its
angle brackets, the runtime found from --root, the most relevant error first, -q, and the
cache command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey import __version__
from survey.cli import app


def invoke(*argv: str, **kw):
    return CliRunner().invoke(app, list(argv), env={"COLUMNS": "200"}, **kw)


def test_dash_h_and_version() -> None:
    assert invoke("-h").exit_code == 0 and "Usage: survey" in invoke("-h").output
    r = invoke("run", "-h")
    assert r.exit_code == 0 and "Usage: survey run" in r.output
    r = invoke("--version")
    assert r.exit_code == 0 and r.output.strip() == __version__


def test_help_lists_the_choices_and_keeps_angle_brackets() -> None:
    text = invoke("run", "-h").output
    for choices in ("<month|day|quarter|year>", "<reviewed|discover>", "<refuse|reuse|suffix|auto>"):
        assert choices in text.replace(" ", ""), choices
    assert "<rare-key>" in text  # (markdown had read it as an HTML tag and dropped it)
    assert "<date>[/<runtime>]" in invoke("render", "-h").output


def _codex(root: Path) -> None:
    from survey.synth.demo import generator

    generator("codex")(root, seed=3, sessions=2)


def test_run_without_runtime_picks_the_one_whose_files_the_root_holds(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _codex(tmp_path / "c")
    r = invoke("run", "--root", str(tmp_path / "c"), "--json")
    assert r.exit_code == 0, r.output
    assert "runtime: codex" in r.stderr
    assert [x["runtime"] for x in json.loads(r.stdout)["results"]] == ["codex"]
    # -q: the note is left out, the result is the same
    r = invoke("-q", "run", "--root", str(tmp_path / "c"), "--on-exists", "suffix", "--json")
    assert r.exit_code == 0 and r.stderr == "" and json.loads(r.stdout)["results"][0]["runtime"] == "codex"


def test_a_root_of_two_runtimes_asks_which(tmp_path: Path) -> None:
    from survey.synth.demo import generator

    _codex(tmp_path / "mixed")
    generator("cursor_chats")(tmp_path / "mixed", seed=3, sessions=2)  # (folders of its own, beside codex's)
    r = invoke("run", "--root", str(tmp_path / "mixed"), "--snapshots", str(tmp_path / "s"))
    assert r.exit_code == 2
    said = " ".join(r.output.split())
    assert "codex" in said and "cursor_chats" in said and "pass -r" in said
    assert not (tmp_path / "s").exists()
    r = invoke("run", "--root", str(tmp_path / "empty-nothing"))
    assert r.exit_code == 2 and "not a folder" in r.output


def test_an_unknown_runtime_is_said_before_the_folders(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    # a --snapshots that is a file would be refused too: the runtime is named first
    r = invoke("run", "-r", "nope", "--root", str(tmp_path / "missing"), "--snapshots", str(tmp_path / "file"))
    assert r.exit_code == 2 and "unknown runtime 'nope'" in " ".join(r.output.split())
    for argv in (["crawl", "-r", "nope", "--root", str(tmp_path / "missing")],
                 ["render", "2026-01-01", "-r", "nope", "--reports", str(tmp_path / "file")],
                 ["recheck", "2026-01-01", "-r", "nope", "--root", str(tmp_path / "missing")],
                 ["diff", "a", "b", "-r", "nope", "--out", str(tmp_path / "file" / "x.md")]):
        r = invoke(*argv)
        assert r.exit_code == 2 and "unknown runtime 'nope'" in " ".join(r.output.split()), argv


def test_cache_info_and_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(cache))
    monkeypatch.chdir(tmp_path)
    _codex(tmp_path / "c")
    assert invoke("run", "-r", "codex", "--root", str(tmp_path / "c")).exit_code == 0
    (cache / "mine.txt").write_text("not the survey's")
    info = json.loads(invoke("cache", "info", "--json").stdout)
    assert info["cache"] == str(cache) and info["salt"] is True
    assert set(info["entries"]) == {"codex", "templates"}
    assert info["entries"]["codex"]["roots"] == 1 and info["entries"]["codex"]["bytes"] > 0
    assert info["bytes"] == sum(e["bytes"] for e in info["entries"].values())
    got = json.loads(invoke("cache", "clean", "-r", "codex", "--json").stdout)
    assert got["removed"] == {"codex": info["entries"]["codex"]["bytes"]}
    assert sorted(p.name for p in cache.iterdir()) == ["mine.txt", "templates"]
    assert invoke("cache", "clean").exit_code == 0
    assert sorted(p.name for p in cache.iterdir()) == ["mine.txt"]  # never what it did not make
    assert Path(info["config"], "salt").is_file()  # nor the salt


def test_no_help_text_holds_a_bare_angle_bracket() -> None:
    """Help is Markdown (rich): a bare ``<word>`` is read as an HTML tag and vanishes, so
    every one sits in backticks; each still shows in the rendered help."""
    from typer.main import get_command

    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, [*path, name])

    for path, cmd in walk(get_command(app), []):
        texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
        for text in texts:
            bare = re.sub(r"`[^`]*`", "", text)
            assert not re.search(r"<[A-Za-z]", bare), (path, text)
        shown = invoke(*path, "-h").output
        for text in texts:
            for code in re.findall(r"`(<[^`]*>[^`]*)`", text):
                assert code in shown, (path, code)
