"""Options and inputs no command could honour are refused up front, naming what is wrong,
with exit 2 and no traceback: a sample below 1, an unknown stratum or on-exists mode, an
unknown runtime or a generated corpus of no files for ``synth``, and a candidates file of
another shape (whose runtime field is never taken as a folder name) for ``vocab``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.options import check_options
from survey.pipeline import run_survey
from survey.runtimes import get

BAD = {
    ("--sample", "0"): "--sample must be at least 1 (got 0)",
    ("--sample", "-3"): "--sample must be at least 1 (got -3)",
    ("--jobs", "0"): "--jobs must be at least 1",
    ("--min-files", "0"): "--min-files must be at least 1",
    # choices: refused by the parser, naming the choices (and listed in --help)
    ("--stratum", "week"): "'week' is not one of 'month', 'day', 'quarter', 'year'",
    ("--on-exists", "bogus"): "'bogus' is not one of 'refuse', 'reuse', 'suffix', 'auto'",
    ("--mode", "x"): "'x' is not one of 'reviewed', 'discover'",
    ("--date", "../escape"): "--date names one snapshot folder",
    ("--date", ".hidden"): "--date names one snapshot folder",
    ("--date", "a/b"): "--date names one snapshot folder",
}


def test_run_refuses_each_before_anything_is_written(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "p").mkdir(parents=True)
    (root / "p" / "s.jsonl").write_text('{"type":"user"}\n')
    for argv, says in BAD.items():
        r = CliRunner().invoke(app, ["run", "-r", "claude_code", "--root", str(root), "--snapshots",
                                     str(tmp_path / "s"), "--reports", str(tmp_path / "r"), *argv])
        assert r.exit_code == 2, (argv, r.output)
        assert says in " ".join(re.sub("[│╭╮╰╯─]", " ", r.output).split()), (argv, r.output)
    assert not (tmp_path / "s").exists() and not (tmp_path / "r").exists() and not (tmp_path / "escape").exists()
    r = CliRunner().invoke(app, ["crawl", "-r", "claude_code", "--root", str(root), "--stratum", "week"])
    assert r.exit_code == 2 and "'week' is not one of" in r.output


def test_the_library_refuses_them_too(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--sample must be at least 1"):
        run_survey(get("claude_code"), tmp_path, snapshots=tmp_path / "s", sample_n=0)
    with pytest.raises(ValueError, match="--stratum is one of"):
        run_survey(get("claude_code"), tmp_path, snapshots=tmp_path / "s", stratum="week")
    assert not (tmp_path / "s").exists()
    check_options(sample_n=1, stratum="quarter", mode="discover", jobs=1, on_exists="auto", min_files=1)


def test_synth_refuses_what_it_cannot_generate(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    cases = {
        ("nosuch", "a"): "unknown runtime 'nosuch'",
        ("claude_code", "a", "--target-mb", "-5"): "--target-mb must be more than 0",
        ("claude_code", "a", "--target-mb", "nan"): "--target-mb must be more than 0",
        ("claude_code", "file"): "is not a folder",
        ("claude_code", "a", "--sessions", "0"): "--sessions",
    }
    for (rt, where, *rest), says in cases.items():
        r = CliRunner().invoke(app, ["synth", rt, str(tmp_path / where), *rest])
        assert r.exit_code == 2 and "Traceback" not in r.output, (rt, rest, r.output)
        assert says in " ".join(r.output.split()), (rt, rest, r.output)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing was generated


def test_vocab_and_locate_refuse_bad_input_without_a_traceback(tmp_path: Path) -> None:
    from survey.runtimes.base import HERE

    before = {p: p.read_bytes() for p in HERE.glob("*/vocab.json")}
    files = {
        "list.json": ("[]", "not a JSON object"),
        # the runtime names the vocab.json that --accept writes: never a path
        "path.json": ('{"runtime": "../../x", "keys": {}, "values": {}}', "its runtime is none of"),
        "keys.json": ('{"runtime": "codex", "keys": {"a": "1"}, "values": {}}', "'keys' is not an object of file counts"),
        "values.json": ('{"runtime": "codex", "keys": {}, "values": {"type": [1]}}', "'values' is not an object"),
    }
    for name, (text, says) in files.items():
        (tmp_path / name).write_text(text)
        r = CliRunner().invoke(app, ["vocab", str(tmp_path / name), "--accept"])
        assert r.exit_code == 2 and "Traceback" not in r.output, (name, r.output)
        assert says in " ".join(r.output.split()), (name, r.output)
    assert {p: p.read_bytes() for p in HERE.glob("*/vocab.json")} == before
    r = CliRunner().invoke(app, ["locate", "f-0000000000000000", "--root", str(tmp_path / "gone"), "-r", "codex"])
    assert r.exit_code == 2 and "--root is not a folder" in r.output


def test_a_snapshot_reference_says_what_the_date_holds(tmp_path: Path) -> None:
    from survey.snapshot.store import find

    for rt in ("codex", "cursor"):
        (tmp_path / "d1" / rt).mkdir(parents=True)
        (tmp_path / "d1" / rt / "manifest.json").write_text("{}")
    (tmp_path / "d2" / "codex").mkdir(parents=True)
    (tmp_path / "d2" / "codex" / "manifest.json").write_text("{}")
    assert find(tmp_path, "d1", "cursor") == tmp_path / "d1" / "cursor"
    assert find(tmp_path, "d2") == tmp_path / "d2" / "codex"  # one runtime: no --runtime needed
    with pytest.raises(FileNotFoundError, match="'d1' holds snapshots of codex, cursor: say which with --runtime"):
        find(tmp_path, "d1")
    with pytest.raises(FileNotFoundError, match="'d2' holds no snapshot of cursor \\(it holds codex;"):
        find(tmp_path, "d2", "cursor")
    with pytest.raises(FileNotFoundError, match="no snapshot at 'd3'"):
        find(tmp_path, "d3", "codex")


def test_a_file_where_a_folder_should_be_is_one_line_not_a_traceback(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "projects"
    (root / "p").mkdir(parents=True)
    (root / "p" / "s.jsonl").write_text('{"type":"user"}\n')
    (tmp_path / "file").write_text("x")

    def run(*extra: str, date: str) -> tuple[int, str]:
        r = CliRunner().invoke(app, ["run", "-r", "claude_code", "--root", str(root), "--date", date, *extra])
        return r.exit_code, " ".join(r.output.split())

    out = ["--snapshots", str(tmp_path / "s"), "--reports", str(tmp_path / "r")]
    for extra, says in {("--snapshots", str(tmp_path / "file"), "--reports", str(tmp_path / "r")): "--snapshots is not a folder",
                        ("--snapshots", str(tmp_path / "s"), "--reports", str(tmp_path / "file" / "x")): "--reports is not a folder"}.items():
        code, text = run(*extra, date="a")
        assert code == 2 and says in text and "Traceback" not in text, text
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "file"))
    code, text = run(*out, date="b")
    assert code == 2 and "the cache folder (SURVEY_CACHE_DIR" in text and "--no-cache" in text, text
    code, text = run(*out, "--no-cache", date="c")  # the cache is never needed
    assert code == 0, text
    monkeypatch.delenv("SURVEY_CACHE_DIR")
    monkeypatch.setenv("SURVEY_CONFIG_DIR", str(tmp_path / "file"))
    code, text = run(*out, date="d")
    assert code == 2 and "the config folder (SURVEY_CONFIG_DIR" in text and "is not a folder" in text, text
    r = CliRunner().invoke(app, ["crawl", "-r", "claude_code", "--root", str(root)])  # (the salt itself says)
    assert r.exit_code == 2 and "the survey's salt cannot be kept at" in " ".join(r.output.split()), r.output
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "salt").write_text("not hex")
    monkeypatch.setenv("SURVEY_CONFIG_DIR", str(tmp_path / "cfg"))
    code, text = run(*out, date="e")
    assert code == 2 and "cannot be read" in text and "remove it to start a new one" in text, text
    r = CliRunner().invoke(app, ["crawl", "-r", "claude_code", "--root", str(root)])
    assert r.exit_code == 2 and "cannot be read" in " ".join(r.output.split())
    (tmp_path / "cfg" / "salt").write_text("abcd")  # hex, but not a whole salt
    r = CliRunner().invoke(app, ["crawl", "-r", "claude_code", "--root", str(root)])
    assert r.exit_code == 2 and "cannot be read (ValueError: not 64 hex digits)" in " ".join(r.output.split())
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["c"]  # only the --no-cache run wrote


def test_render_recheck_and_diff_check_where_they_write(tmp_path: Path) -> None:
    for d in ("d1", "d2"):
        (tmp_path / "s" / d / "codex").mkdir(parents=True)
        (tmp_path / "s" / d / "codex" / "manifest.json").write_text('{"runtime": "codex"}')
    (tmp_path / "file").write_text("x")
    (tmp_path / "root").mkdir()
    snaps = ["--snapshots", str(tmp_path / "s")]
    cases = {
        ("render", "d1", *snaps, "--reports", str(tmp_path / "file")): "--reports is not a folder",
        ("recheck", "d1", "--root", str(tmp_path / "root"), *snaps, "--reports", str(tmp_path / "file" / "r")):
            "--reports is not a folder",
        ("diff", "d1", "d2", *snaps, "--out", str(tmp_path / "file" / "x.md")): "--out's folder is not a folder",
        ("diff", "d1", "d2", *snaps, "--out", str(tmp_path / "root")): "--out names a folder, not a file",
        ("recheck", "d1", "--root", str(tmp_path / "root"), *snaps, "--since", "2026-13-01"): "--since is a date",
        ("recheck", "d1", "--root", str(tmp_path / "root"), *snaps, "--reports", str(tmp_path / "root" / "r")):
            "--reports is inside the corpus root",
        ("recheck", "d1", "--root", str(tmp_path), *snaps, "--reports", str(tmp_path.parent / "elsewhere")):
            "the snapshot is inside the corpus root",
    }
    for argv, says in cases.items():
        r = CliRunner().invoke(app, list(argv))
        assert r.exit_code == 2 and says in " ".join(r.output.split()), (argv[0], r.output)
    assert not (tmp_path / "s" / "d1" / "codex" / "recheck.json").exists()  # refused before any verdict
    assert sorted(p.name for p in (tmp_path / "s" / "d1" / "codex").iterdir()) == ["manifest.json"]


def test_an_environment_root_that_is_not_a_folder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_PROJECTS_DIR", str(tmp_path / "typo"))
    for argv in (["run", "-r", "claude_code", "--snapshots", str(tmp_path / "s"), "--reports", str(tmp_path / "r")],
                 ["crawl", "-r", "claude_code"]):
        r = CliRunner().invoke(app, argv)
        assert r.exit_code == 2, r.output
        assert "$CLAUDE_PROJECTS_DIR names a root that is not a folder" in " ".join(r.output.split())
    monkeypatch.delenv("CLAUDE_PROJECTS_DIR")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "typo"))
    r = CliRunner().invoke(app, ["crawl", "-r", "codex"])
    assert r.exit_code == 2 and "$CODEX_HOME/sessions names a root" in " ".join(r.output.split())


def test_nothing_is_written_inside_the_corpus_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "corpus"
    (root / "p").mkdir(parents=True)
    (root / "p" / "s.jsonl").write_text('{"type":"user"}\n')
    outside = ["--snapshots", str(tmp_path / "s"), "--reports", str(tmp_path / "r")]
    cases = {
        ("--snapshots", str(root / "snapshots"), "--reports", str(tmp_path / "r")): "--snapshots is inside the corpus root",
        ("--snapshots", str(tmp_path / "s"), "--reports", str(root)): "--reports is inside the corpus root",
    }
    for extra, says in cases.items():
        r = CliRunner().invoke(app, ["run", "-r", "cursor_stream", "--root", str(root), "--date", "a", *extra])
        assert r.exit_code == 2 and says in " ".join(r.output.split()), r.output
    for var, says in (("SURVEY_CACHE_DIR", "the cache folder"), ("SURVEY_CONFIG_DIR", "the config folder")):
        monkeypatch.setenv(var, str(root / ".survey"))
        r = CliRunner().invoke(app, ["run", "-r", "cursor_stream", "--root", str(root), "--date", "b", *outside])
        assert r.exit_code == 2 and f"{says} (" in r.output and "is inside the corpus root" in " ".join(r.output.split())
        monkeypatch.undo()
    # a link to the root is the root
    (tmp_path / "link").symlink_to(root)
    r = CliRunner().invoke(app, ["run", "-r", "cursor_stream", "--root", str(tmp_path / "link"), "--date", "c",
                                 "--snapshots", str(root / "s"), "--reports", str(tmp_path / "r")])
    assert r.exit_code == 2 and "inside the corpus root" in " ".join(r.output.split())
    assert sorted(p.name for p in root.iterdir()) == ["p"]
    r = CliRunner().invoke(app, ["run", "-r", "cursor_stream", "--root", str(root), "--date", "d", *outside])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in root.iterdir()) == ["p"]
