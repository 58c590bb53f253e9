"""Mutants of one module's source: small AST edits, each one a plausible slip.

Operators (each applied to one node at a time):

- ``cmp``: a comparison flipped at its boundary or negated (``<`` -> ``<=``, ``==`` -> ``!=``,
  ``in`` -> ``not in``, ``is`` -> ``is not``);
- ``bool``: ``and`` <-> ``or``, and each operand of a boolean chain dropped (a check removed);
- ``not``: a ``not`` removed;
- ``if``: an ``if``/``elif``/``while``/conditional-expression test forced False (the branch
  dropped) or True (always taken);
- ``const``: a number plus one, a boolean flipped, a string wrapped in ``XX``;
- ``regex``: a pattern given to ``re.compile`` loses its ``^`` or its final ``$``/``\\Z``, or
  its character classes also admit ``/`` and a space;
- ``elem``: one element of a literal tuple, list or set dropped;
- ``binop``: an arithmetic operator swapped (``+`` <-> ``-``, ``*`` <-> ``/``, ...);
- ``stmt``: a call statement, ``raise``, augmented assignment or ``return <value>`` (as
  ``return None``) dropped, ``break`` <-> ``continue``.

Never mutated: docstrings, type annotations, imports, decorators, f-string text, a string used
as a subscript (``row["files"]``: a changed key raises wherever the line runs, so it says no
more than coverage), and any line ending in ``# pragma: no mutate``.

A mutant is named by the function it sits in and its code before and after
(``Gate.value: `v.startswith('mcp__')` -> `False` ``), not by line number, so a list of
equivalent mutants survives edits elsewhere in the module.
"""

from __future__ import annotations
import __future__

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

CMP_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
    ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
BIN_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr,
    ast.BitXor: ast.BitOr, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}
Step = tuple[str, int | None]  # (field, index in a list field or None)


@dataclass(frozen=True)
class Mutant:
    module: str  # the module's path, as given
    op: str
    where: str  # the enclosing function or class (qualname), or "<module>"
    line: int
    before: str
    after: str
    source: str  # the whole mutated module
    occurrence: int = 1  # the same edit's nth place in one function

    @property
    def key(self) -> str:
        """How the equivalent-mutant list names it: ``where: `before` -> `after```."""
        tail = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return f"{self.where}: `{self.before}` -> `{self.after}`{tail}"


def _is_docstring(node: ast.AST, parent: ast.AST | None, field: str, index: int | None) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str) and field == "body"
            and isinstance(parent, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)))


def _regex_variants(pattern: str) -> list[str]:
    out = []
    if pattern.startswith("^"):
        out.append(pattern[1:])
    for end in ("\\Z", "$"):
        if pattern.endswith(end) and not pattern.endswith("\\" + end):
            out.append(pattern[: -len(end)])
            break
    if "[" in pattern:
        widened, i, changed = [], 0, False
        while i < len(pattern):
            ch = pattern[i]
            widened.append(ch)
            if ch == "\\":
                widened.append(pattern[i + 1: i + 2])
                i += 2
                continue
            if ch == "[" and not pattern.startswith("[^", i):
                widened.append("/ ")
                changed = True
            i += 1
        if changed:
            out.append("".join(widened))
    return out


def _replacements(node: ast.AST, parent: ast.AST | None, field: str) -> Iterator[tuple[str, ast.AST | None]]:
    """(operator, replacement node) for one node; None as a replacement means "drop it"."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            cswap = CMP_SWAP.get(type(op))
            if cswap is not None:
                cmp = copy.deepcopy(node)
                cmp.ops[i] = cswap()
                yield "cmp", cmp
    elif isinstance(node, ast.BoolOp):
        chain = copy.deepcopy(node)
        chain.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield "bool", chain
        for i in range(len(node.values)):
            rest = [copy.deepcopy(v) for j, v in enumerate(node.values) if j != i]
            yield "bool", rest[0] if len(rest) == 1 else ast.BoolOp(op=copy.deepcopy(node.op), values=rest)
    elif isinstance(node, ast.IfExp):
        for value in (False, True):
            ifexp = copy.deepcopy(node)
            ifexp.test = ast.Constant(value)
            yield "if", ifexp
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not", copy.deepcopy(node.operand)
    elif isinstance(node, ast.BinOp):
        bswap = BIN_SWAP.get(type(node.op))
        if bswap is not None:
            binop = copy.deepcopy(node)
            binop.op = bswap()
            yield "binop", binop
    elif isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            yield "const", ast.Constant(not v)
        elif isinstance(v, int | float) and not isinstance(v, complex):
            yield "const", ast.Constant(v + 1)
        elif isinstance(v, str) and isinstance(parent, ast.Subscript) and field == "slice":
            return  # a mutated lookup key fails wherever the line runs: it tells nothing coverage does not
        elif isinstance(v, str):
            is_pattern = (isinstance(parent, ast.Call) and field == "args"
                          and ast.unparse(parent.func) in ("re.compile", "re.match", "re.search",
                                                           "re.fullmatch", "re.sub"))
            if is_pattern:
                for p in _regex_variants(v):
                    yield "regex", ast.Constant(p)
            yield "const", ast.Constant(f"XX{v}XX")
    elif isinstance(node, ast.Tuple | ast.List | ast.Set) and isinstance(getattr(node, "ctx", ast.Load()), ast.Load) \
            and 2 <= len(node.elts) <= 16 and all(isinstance(e, ast.Constant) for e in node.elts):
        for i in range(len(node.elts)):
            seq = copy.deepcopy(node)
            del seq.elts[i]
            yield "elem", seq


def _stmt_replacements(node: ast.stmt) -> Iterator[tuple[str, ast.AST]]:
    def pass_() -> ast.Pass:
        return ast.Pass()

    if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call | ast.Await)) or isinstance(node, ast.Raise | ast.AugAssign | ast.Delete):
        yield "stmt", pass_()
    elif isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None):
        yield "stmt", ast.Return(value=ast.Constant(None))
    elif isinstance(node, ast.Break):
        yield "stmt", ast.Continue()
    elif isinstance(node, ast.Continue):
        yield "stmt", ast.Break()
    elif isinstance(node, ast.If | ast.While):
        for value in (False, True):
            new = copy.deepcopy(node)
            new.test = ast.Constant(value)
            yield "if", new


SKIP_FIELDS = {"annotation", "returns", "decorator_list", "type_comment", "type_params"}


def _walk(node: ast.AST, path: tuple[Step, ...], where: str, lines: list[str]
          ) -> Iterator[tuple[tuple[Step, ...], ast.AST, ast.AST | None, str, str]]:
    """(path, node, parent, field, where) for every node that may be mutated."""
    for field, value in ast.iter_fields(node):
        if field in SKIP_FIELDS:
            continue
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for index, child in items:
            if not isinstance(child, ast.AST):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom | ast.JoinedStr | ast.expr_context):
                continue
            if _is_docstring(child, node, field, index):
                continue
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("TypeVar"):
                continue
            line = getattr(child, "lineno", None)
            if line is not None and lines[line - 1].rstrip().endswith("# pragma: no mutate"):
                continue
            step = (*path, (field, index))
            inner = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = child.name if where == "<module>" else f"{where}.{child.name}"
            yield step, child, node, field, inner
            yield from _walk(child, step, inner, lines)


def _get(tree: ast.AST, path: tuple[Step, ...]) -> ast.AST:
    node = tree
    for field, index in path:
        node = getattr(node, field) if index is None else getattr(node, field)[index]
    return node


def _set(tree: ast.AST, path: tuple[Step, ...], new: ast.AST) -> None:
    parent = _get(tree, path[:-1])
    field, index = path[-1]
    if index is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[index] = new


def _short(node: ast.AST, limit: int = 90) -> str:
    text = ast.unparse(node)
    if isinstance(node, ast.If | ast.While):
        text = f"{'if' if isinstance(node, ast.If) else 'while'} {ast.unparse(node.test)}: ..."
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _top_pieces(tree: ast.Module) -> list[str]:
    """The text ``ast.unparse(tree)`` gives each top-level statement (with the blank lines that
    lead it): their concatenation is the whole module's text."""
    pieces, done = [], ""
    for k in range(len(tree.body)):
        text = ast.unparse(ast.Module(body=tree.body[: k + 1], type_ignores=[]))
        pieces.append(text[len(done):])
        done = text
    return pieces


def _unparse_at(stmt: ast.stmt, first: bool) -> str:
    """``stmt``'s text as ``ast.unparse`` writes it at its place among the top-level statements:
    after another one (a leading ``pass``, cut off again) unless it is the first."""
    if first:
        return ast.unparse(ast.Module(body=[stmt], type_ignores=[]))
    return ast.unparse(ast.Module(body=[ast.Pass(), stmt], type_ignores=[]))[len("pass"):]


def mutants(path: str, source: str) -> list[Mutant]:
    """Every mutant of a module, in source order (the same list for the same source).

    A mutation changes one top-level statement: only that statement is copied, unparsed and
    compiled again (with the module's ``from __future__`` flags), and its text is set between
    the others' unchanged texts, which is ``ast.unparse`` of the whole mutated module."""
    tree = ast.parse(source)
    lines = source.splitlines()
    pieces = _top_pieces(tree)
    flags = 0
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            for alias in stmt.names:
                flags |= getattr(__future__, alias.name).compiler_flag
    out: list[Mutant] = []
    seen: dict[tuple[str, str, str], int] = {}
    for step, node, parent, field, where in list(_walk(tree, (), "<module>", lines)):
        reps: list[tuple[str, ast.AST | None]] = list(_replacements(node, parent, field))
        if isinstance(node, ast.stmt):
            reps += list(_stmt_replacements(node))
        for op, new in reps:
            if new is None:
                continue
            (_, top), rest = step[0], step[1:]
            assert top is not None
            if rest:
                stmt = copy.deepcopy(tree.body[top])
                _set(stmt, rest, new)
            else:
                stmt = new  # type: ignore[assignment]
            try:
                piece = _unparse_at(stmt, top == 0)
                compile(piece, path, "exec", flags=flags, dont_inherit=True)
            except (SyntaxError, ValueError):
                continue
            mutated = "".join(pieces[:top]) + piece + "".join(pieces[top + 1:])
            before, after = _short(node), _short(new)
            if before == after:
                continue
            n = seen[(where, before, after)] = seen.get((where, before, after), 0) + 1
            out.append(Mutant(path, op, where, getattr(node, "lineno", 0), before, after, mutated, n))
    return out
