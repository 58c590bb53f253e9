"""The mutation runner lists a module's mutants by unparsing and compiling only the top-level
statement each one changes: the list (names, lines, order and each mutated module's text) is the
one the plain method gives, which parses, unparses and compiles the whole module per mutant."""

from __future__ import annotations

import ast

from tests.test_mutate_tool import SOURCE
from tools.mutate.__main__ import REPO
from tools.mutate.mutants import (
    Mutant,
    _replacements,
    _set,
    _short,
    _stmt_replacements,
    _walk,
    mutants,
)


def whole_module_mutants(path: str, source: str) -> list[Mutant]:
    """The plain method: a fresh parse of the module per mutant, unparsed and compiled whole."""
    tree = ast.parse(source)
    out: list[Mutant] = []
    seen: dict[tuple[str, str, str], int] = {}
    for step, node, parent, field, where in list(_walk(tree, (), "<module>", source.splitlines())):
        reps = list(_replacements(node, parent, field))
        if isinstance(node, ast.stmt):
            reps += list(_stmt_replacements(node))
        for op, new in reps:
            if new is None:
                continue
            tree2 = ast.parse(source)
            _set(tree2, step, new)
            ast.fix_missing_locations(tree2)
            try:
                mutated = ast.unparse(tree2)
                compile(mutated, path, "exec")
            except (SyntaxError, ValueError):
                continue
            before, after = _short(node), _short(new)
            if before == after:
                continue
            n = seen[(where, before, after)] = seen.get((where, before, after), 0) + 1
            out.append(Mutant(path, op, where, getattr(node, "lineno", 0), before, after, mutated, n))
    return out


# A first statement that is not a docstring, a mutated top-level statement, a nested class, a
# loop whose ``break`` becomes ``continue``, and a ``nonlocal`` that only compiles in its function.
EDGES = '''import re
X = 1 if re.match("^a$", "a") else 2
print(X + 1)


class K:
    class Inner:
        LIMIT = (1, 2, 3)

        def m(self, v):
            while v > 0:
                if v == 3:
                    break
                v -= 1
            return v


def outer():
    n = 0

    def inner():
        nonlocal n
        n += 1
        return n
    return inner() and n
'''


def test_listing_matches_the_whole_module_method() -> None:
    for path, source in (("m.py", SOURCE), ("e.py", EDGES),
                         ("survey/evidence/claims.py", (REPO / "survey/evidence/claims.py").read_text())):
        got, want = mutants(path, source), whole_module_mutants(path, source)
        assert len(want) > 20
        assert got == want, path
        assert all(m.source != ast.unparse(ast.parse(source)) for m in got)
