"""The mutation runner (``make mutate``, ``tools/mutate``): which mutants it makes, that a mutant
reaches every process of a test run, and how its two files are read. The mutation pass itself is
not part of the test suite."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from tools.mutate.__main__ import (
    HOOK,
    REPO,
    Report,
    Run,
    finish,
    load_equivalent,
    load_modules,
    print_report,
)
from tools.mutate.mutants import mutants

SOURCE = '''"""Module docstring: never mutated."""
import re

PATTERN = re.compile(r"^[a-z]+$")
LIMIT: int = 2 + 1


def check(x: str, row: dict) -> str | None:
    """Function docstring."""
    if x in ("a", "b") and len(x) < LIMIT:
        return row["key"]
    label = f"value {x} of {LIMIT + 1}"
    for _ in range(2):
        break
    return None if not x else label


def untouched() -> int:
    return 41 + 1  # pragma: no mutate
'''


def test_mutants_cover_each_operator_and_skip_what_they_promise() -> None:
    ms = mutants("m.py", SOURCE)
    ops = {m.op for m in ms}
    assert ops == {"regex", "const", "cmp", "bool", "if", "stmt", "elem", "binop", "not"}
    befores = {m.before for m in ms}
    assert not any("docstring" in b for b in befores)
    assert "'key'" not in befores  # a subscript key
    assert not any("value " in b for b in befores)  # f-string text
    assert not any(m.where == "untouched" for m in ms)  # the pragma line
    assert not any(b in ("int", "str | None", "dict") for b in befores)  # annotations
    keys = [m.key for m in ms]
    assert len(keys) == len(set(keys))
    for m in ms:
        assert m.source != ast.unparse(ast.parse(SOURCE)), m.key
        compile(m.source, "m.py", "exec")
    regex = {m.after for m in ms if m.op == "regex"}
    assert regex == {"'[a-z]+$'", "'^[a-z]+'", "'^[/ a-z]+$'"}
    assert "check: `len(x) < LIMIT` -> `len(x) <= LIMIT`" in keys
    assert "check: `x in ('a', 'b') and len(x) < LIMIT` -> `len(x) < LIMIT`" in keys  # a check dropped
    assert "check: `break` -> `continue`" in keys
    assert mutants("m.py", SOURCE) == ms  # the same list every time


def test_a_mutant_reaches_every_process_of_the_test_run(tmp_path: Path) -> None:
    spec = tmp_path / "m.json"
    marker = tmp_path / "loaded"
    spec.write_text(json.dumps({"module": "survey.evidence.claims", "path": str(REPO / "survey/evidence/claims.py"),
                                "source": "MUTATED = 42\n", "marker": str(marker)}))
    env = {**os.environ, "SURVEY_MUTANT": str(spec), "PYTHONPATH": str(HOOK)}
    code = "import survey.evidence.claims as c, survey; print(c.MUTATED, c.__file__.endswith('claims.py'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.split() == ["42", "True"] and marker.read_text().strip() == str(int(marker.read_text()))
    env.pop("SURVEY_MUTANT")
    out = subprocess.run([sys.executable, "-c", "import survey.evidence.claims as c; print(hasattr(c, 'MUTATED'))"],
                         env=env, capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "False"


def test_the_module_map_and_equivalent_list_are_read(tmp_path: Path) -> None:
    mapping = load_modules()
    assert "survey/corpus/privacy.py" in mapping and "survey/evidence/claims.py" in mapping
    for path, m in mapping.items():
        assert (REPO / path).is_file(), path
        assert m["tests"] and m["every"] >= 1
        for t in m["tests"]:
            assert (REPO / t.split("::")[0]).is_file(), t
    f = tmp_path / "eq.md"
    f.write_text("# title\n\ncommentary - not a bullet\n\n## `a.py`\n\n- f: `x < 1` -> `x <= 1` — x is never 1\n"
                 "- no dash separator here\n## b.py\n- g: `a` -> `b` — why — with a dash inside\n")
    assert load_equivalent(f) == {"a.py": {"f: `x < 1` -> `x <= 1`": "x is never 1"},
                                  "b.py": {"g: `a` -> `b`": "why — with a dash inside"}}
    assert "survey/corpus/privacy.py" in load_equivalent()


def test_a_mutant_that_breaks_collection_is_killed(tmp_path: Path) -> None:
    """A node id in a file that no longer imports is pytest's usage error (exit 4): the
    unmutated run passed the same arguments, so the mutant is killed, not an error."""
    def run(code: int | None) -> str:
        r = Run(0, None, 0.0, tmp_path / "s.json", tmp_path / "m.loaded", tmp_path / "o.out")
        r.output.write_text("ERROR: found no collectors\n")
        r.marker.write_text("1\n")
        return finish(r, code)[0]

    assert [run(c) for c in (0, 1, 2, 4, 3, None)] == ["survived", "killed", "killed", "killed", "error", "timeout"]


def test_a_sampled_run_never_calls_an_equivalent_it_did_not_run_stale(capsys) -> None:
    """An equivalent mutant outside every Nth sample was not run, not removed: only a run of
    every mutant may say that equivalent.md names one that no longer exists."""
    for sampled, says in ((False, True), (True, False)):
        print_report([Report("m.py", [], equivalent={"f: `a` -> `b`": "why"}, sampled=sampled)])
        assert ("no longer exists: f: `a` -> `b`" in capsys.readouterr().out) is says
