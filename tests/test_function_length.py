"""The run path reads as its stages: no function in the modules a ``survey run`` passes
through is longer than ``MAX_LINES`` lines (its decorators, signature, docstring and body), so
each stage and each step of one can be read top to bottom on one screen."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "survey"
MAX_LINES = 80
# the modules a ``survey run`` passes through, stage by stage
RUN_PATH = ["pipeline.py", "schedule.py", "reuse.py", "corpus/crawl.py", "corpus/frames.py", "corpus/stores.py",
            "census/collect.py", "census/walk.py", "census/sql.py", "census/partials.py", "census/rarekeys.py",
            "snapshot/store.py", *(f"evidence/grep/{p.name}" for p in sorted((PKG / "evidence/grep").glob("*.py"))),
            "evidence/kit.py", "evidence/claims.py", "render/render.py"]


def functions(path: Path) -> list[tuple[str, int]]:
    """Every function and method in ``path`` (nested ones too), by qualified name, with its
    length in lines."""
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                out.append((prefix + child.name, (child.end_lineno or child.lineno) - start + 1))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text()), "")
    return out


@pytest.mark.parametrize("module", RUN_PATH)
def test_no_function_on_the_run_path_is_long(module: str) -> None:
    long = {name: n for name, n in functions(PKG / module) if n > MAX_LINES}
    assert not long, f"{module}: functions over {MAX_LINES} lines: {long}"


def test_the_measure_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    f = tmp_path / "m.py"
    f.write_text(f"class C:\n    @staticmethod\n    def long() -> None:\n    {body.replace(chr(10), chr(10) + '    ')}\n\n"
                 "def short() -> None:\n    pass\n")
    assert dict(functions(f)) == {"C.long": MAX_LINES + 2, "short": 2}
