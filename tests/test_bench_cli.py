"""``make bench ROOT=DIR RUNTIME=NAME`` measures a real corpus: make hands both to the bench,
the bench refuses what it cannot measure with a line saying why (never a traceback, never a
results record of failures), and the results it keeps name the root ``<root>``, never by
its path: a real corpus's folder names its owner, and results files are committed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from bench import run as B

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed here")
def test_make_bench_hands_the_root_and_the_runtime_to_the_bench() -> None:
    out = subprocess.run(["make", "-n", "bench", "ROOT=/some where/projects", "RUNTIME=codex"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if "-m bench.run" in x)
    assert line.endswith("-m bench.run --root '/some where/projects' --runtime codex")
    plain = subprocess.run(["make", "-n", "bench"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert next(x for x in plain.splitlines() if "-m bench.run" in x).split("-m bench.run")[1].strip() == ""


def test_the_bench_refuses_what_it_cannot_measure(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "RESULTS", tmp_path / "results")
    cases = {
        ("--root", str(tmp_path)): "--root needs --runtime, one of cursor,",
        ("--root", str(tmp_path), "--runtime", "codex,claude_code"): "(from make: make bench ROOT=DIR RUNTIME=NAME;",
        ("--root", str(tmp_path / "gone"), "--runtime", "codex"): "is not a folder",
        ("--runtime", "codex,nope"): "--runtime: unknown nope; known: cursor,",
    }
    for argv, says in cases.items():
        assert B.main(list(argv)) == 2, argv
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err, (argv, err)
    # numbers that count something are whole and at least 1, before anything is generated
    for argv, says in {("--sizes", "100,abc"): "--sizes: not a whole number: 'abc'",
                       ("--sizes", "0"): "--sizes: must be at least 1: '0'",
                       ("--jobs", "-2"): "--jobs: must be at least 1",
                       ("--rerun-repeat", "0"): "--rerun-repeat: must be at least 1",
                       ("--wait-quiet", "-1"): "--wait-quiet: must be 0 or more",
                       ("--mem-limit-gb", "nan"): "--mem-limit-gb: must be 0 or more"}.items():
        with pytest.raises(SystemExit) as stop:
            B.main(list(argv))
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err, (argv, err)
    assert B.parse_args(["--sizes", "100, 1000", "--jobs", "3"]).sizes == [100, 1000]
    # the survey is timed as the bare parse is, best of two (one in a smoke run), unless told
    assert [B.parse_args(a).repeat for a in ([], ["--quick"], ["--repeat", "3"], ["--quick", "--repeat", "2"])] \
        == [2, 1, 3, 2]
    assert not (tmp_path / "results").exists(), "a refused run left a results record"


def test_the_help_ends_with_examples_that_parse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        B.parse_args(["--help"])
    text = capsys.readouterr().out
    assert text.index("examples:") > text.index("--mem-limit-gb")
    lines = [x.split("#")[0].split() for x in B.EXAMPLES.splitlines()
             if x.lstrip().startswith(("make bench", "python -m bench.run"))]
    assert len(lines) >= 5
    for words in lines:  # each example's options are ones the bench takes
        argv = words[3:] if words[0] == "python" else \
            [f"--{w.split('=')[0].lower()}={w.split('=', 1)[1]}" for w in words[2:]]
        B.parse_args(argv)


def test_a_runtimes_own_store_needs_no_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``make bench ROOT=~/.claude/projects`` is Claude Code's store: no RUNTIME= needed. A
    folder the environment names for a runtime (``CODEX_HOME/sessions``) is that runtime's;
    any other folder is no runtime's."""
    from survey.runtimes import NAMES, get

    monkeypatch.setenv("HOME", str(tmp_path))
    for var in {e.partition("/")[0] for n in NAMES for e in get(n).env_roots}:
        monkeypatch.delenv(var, raising=False)
    claude = tmp_path / ".claude" / "projects"
    claude.mkdir(parents=True)

    def owners(root: Path) -> list[str]:
        return [n for n in NAMES if get(n).owns_root(root)]

    assert owners(claude) == ["claude_code"] and owners(Path("~/.claude/projects")) == ["claude_code"]
    assert owners(claude / "x" / "..") == ["claude_code"]  # compared resolved
    assert owners(tmp_path / ".claude") == [] and owners(tmp_path) == []
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    assert owners(tmp_path / "cx" / "sessions") == ["codex"] and owners(tmp_path / "cx") == []
    # the bench takes it (refused here only for what comes after: an empty store measures nothing)
    monkeypatch.setattr(B, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(B, "measure", lambda rt, *a, **k: (_ for _ in ()).throw(RuntimeError(f"measured {rt}")))
    assert B.main(["--root", str(claude), "--no-profile"]) == 1
    run = orjson.loads(next((tmp_path / "results").glob("*.json")).read_bytes())["runs"]
    assert list(run) == ["root:claude_code"]
    assert run["root:claude_code"]["notes"] == ["claude_code-root: measurement failed: RuntimeError: measured claude_code"]


def test_hide_paths_names_the_root_root_wherever_it_appears() -> None:
    payload = {"argv": ["--root", "~/alice/projects"], "corpora": [{"root": "/home/alice/projects", "n": 3}],
               "notes": ["/home/alice/projects/x.jsonl: failed", "C:\\alice"], "machine": {"os": "/"}}
    got = B.hide_paths(payload, ["~/alice/projects", "/home/alice/projects", "/home/alice", "/", "C:\\alice"])
    assert got == {"argv": ["--root", "<root>"], "corpora": [{"root": "<root>", "n": 3}],
                   "notes": ["<root>/x.jsonl: failed", "<root>"], "machine": {"os": "/"}}
    assert B.hide_paths(payload, []) == payload
    assert B._argv_without_root(["--root=~/a", "--runtime", "codex"]) == ["--root=<root>", "--runtime", "codex"]
    assert B._argv_without_root(["--runtime", "codex", "--root", "codex"]) == ["--runtime", "codex", "--root", "<root>"]


def test_a_real_root_is_measured_and_its_path_kept_out_of_the_results(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.synth.demo import generator

    # given relative, and named as a results key is: hidden as the root, never as the key
    root = tmp_path / "alice-private" / "survey"
    generator("codex")(root, seed=3, sessions=4)
    monkeypatch.chdir(root.parent)
    monkeypatch.setattr(B, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(B, "CONFIG", tmp_path / "config")
    monkeypatch.setenv("SURVEY_CONFIG_DIR", str(tmp_path / "config"))
    assert B.main(["--root", "survey", "--runtime", "codex", "--no-profile", "--jq-files", "3"]) == 0
    (saved,) = (tmp_path / "results").glob("*.json")
    text = saved.read_text()
    assert "alice-private" not in text and str(tmp_path) not in text
    run = orjson.loads(text)["runs"]["root:codex"]
    assert run["argv"] == ["--root", "<root>", "--runtime", "codex", "--no-profile", "--jq-files", "3"]
    (corpus,) = run["corpora"]
    assert corpus["root"] == "<root>" and corpus["files"] == sum(1 for p in root.rglob("*") if p.is_file())
    assert corpus["survey"]["timings"]["total"] > 0 and "partial" not in run
    # the survey timed without its charts, then the charts alone, matplotlib's import included
    s = corpus["survey"]
    assert s["charts_fresh_import"] is True
    assert s["charts_seconds"] > 0 and s["charts_cpu_seconds"] > 0
    assert s["process_wall"] > s["timings"]["total"]
    assert run["incremental"]["codex"] == {"skipped": "real corpus: the bench never writes into a real root"}
