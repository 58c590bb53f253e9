"""Plain-Python recounts of the real-sample figures that need more than one pass: quantiles as
the census takes them, per-class key sets, values and nested objects at a path, and the joins
(call and result pairing). Nothing here imports the survey; each function reads parsed records.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import Any


def quantile_disc(xs: Iterable[int], q: float) -> int | None:
    """DuckDB's ``quantile_disc``: the value at 0-based index ``max(1, n - floor(n - q*n)) - 1`` of
    the sorted values (the smallest whose running count reaches ``ceil(q*n)``, at least the first)."""
    s = sorted(xs)
    n = len(s)
    return s[max(1, n - math.floor(n - q * n)) - 1] if n else None


def quantiles(xs: list[int]) -> dict[str, int | None]:
    """p50, p90, p99 (``quantile_disc``) and max of some lengths."""
    return {"p50": quantile_disc(xs, 0.5), "p90": quantile_disc(xs, 0.9), "p99": quantile_disc(xs, 0.99),
            "max": max(xs, default=None)}


def json_len(v: Any) -> int:
    """A payload's length in code points: a string as it is, anything else as compact JSON text."""
    return len(v) if isinstance(v, str) else len(json.dumps(v, separators=(",", ":"), ensure_ascii=False))


def block_payload(b: dict[str, Any], keys: tuple[str, ...] = ("text", "thinking", "input", "content")) -> int | None:
    """The length of a block's payload: its first key of ``keys`` present, unless that is null."""
    for k in keys:
        if k in b:
            return None if b[k] is None else json_len(b[k])
    return None


def at_path(v: Any, path: str) -> Iterator[Any]:
    """The values at a ``$``-path: ``.key`` steps into an object, ``[]`` into every element of an
    array, ``[type=X]`` into the elements whose ``type`` is X."""
    steps: list[str] = []
    for part in path.removeprefix("$").lstrip(".").replace("[", ".[").split("."):
        if part:
            steps.append(part)
    yield from _walk(v, steps)


def _walk(v: Any, steps: list[str]) -> Iterator[Any]:
    if not steps:
        yield v
        return
    head, rest = steps[0], steps[1:]
    if head.startswith("["):
        if not isinstance(v, list):
            return
        want = head[1:-1].partition("=")[2] if "=" in head else None
        for x in v:
            if want is None or (isinstance(x, dict) and x.get("type") == want):
                yield from _walk(x, rest)
    elif isinstance(v, dict) and head in v:
        yield from _walk(v[head], rest)


def class_rows(recs: Iterable[tuple[Any, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Records and files per (record class, top-level key set): the census's record_classes rows."""
    n: Counter[tuple[str, str]] = Counter()
    files: dict[tuple[str, str], set[Any]] = defaultdict(set)
    for f, cls, r in recs:
        k = (cls, ",".join(sorted(r)))
        n[k] += 1
        files[k].add(f)
    return [{"rclass": c, "keyset": ks, "records": v, "files": len(files[(c, ks)])} for (c, ks), v in n.items()]


def keys_anywhere(v: Any) -> set[str]:
    """Every key of every object inside a value, at any depth."""
    out: set[str] = set()
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            out.update(x)
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return out


def keysets_masking(recs: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Distinct top-level key sets per record class (before and after masking unreviewed keys;
    the two are equal where every key is reviewed, which ``unreviewed_keys`` states)."""
    per: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for cls, r in recs:
        per[cls].add(tuple(sorted(r)))
    n = sum(len(v) for v in per.values())
    return {"masked": n, "raw": n, "merged_pairs": 0, "per_class": {c: [len(v), len(v)] for c, v in per.items()}}


def nested(recs: Iterable[tuple[str, dict[str, Any]]], path: str, classes: set[str] | None = None,
           label: str = "{cls}|{path}") -> dict[str, dict[str, Any]]:
    """The objects at ``path`` per record class: how many, their distinct key sets, each key's count."""
    objs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for cls, r in recs:
        if classes is not None and cls not in classes:
            continue
        for o in at_path(r, path):
            if isinstance(o, dict):
                objs[label.format(cls=cls, path=path)].append(o)
    return {k: {"objects": len(v), "keysets": len({tuple(sorted(o)) for o in v}),
                "keys": dict(Counter(key for o in v for key in o))} for k, v in objs.items()}


def values_at(recs: Iterable[dict[str, Any]], path: str) -> int:
    """How many strings and numbers (not flags, nulls, objects or arrays) sit at ``path`` over all records."""
    return sum(1 for r in recs for v in at_path(r, path) if isinstance(v, (str, int, float)) and not isinstance(v, bool))


def link_rate(pairs: Iterable[tuple[Any, int]]) -> dict[str, int]:
    """A link's figures from (source, number of targets it names) pairs: a source holds when it names
    exactly one target, is several when more, unmatched when none."""
    out = {"holds": 0, "several": 0, "total": 0, "unmatched": 0}
    for _src, n in pairs:
        out["total"] += 1
        out["holds" if n == 1 else "several" if n > 1 else "unmatched"] += 1
    return out


def _jtype(v: Any) -> str:
    return ("object" if isinstance(v, dict) else "array" if isinstance(v, list) else "string" if isinstance(v, str)
            else "boolean" if isinstance(v, bool) else "null" if v is None else "number")


def _size(v: Any) -> int:
    """A node's size as the key-set table states it: keys of an object, elements of an array,
    UTF-8 bytes of a string, 0 for anything else."""
    if isinstance(v, (dict, list)):
        return len(v)
    return len(v.encode("utf-8", "surrogatepass")) if isinstance(v, str) else 0


IDENTIFIER = re.compile(r"[A-Za-z_][\w.:-]{0,63}")


def gate_key(k: str, reviewed: set[str] | None) -> str:
    """A key as a page may show it: identifier-shaped and reviewed, else masked by its shape."""
    if not IDENTIFIER.fullmatch(k):
        return "<dynamic-key>"
    return k if reviewed is None or k in reviewed else "<unreviewed-key>"


def node_rows(recs: Iterable[tuple[Any, str, dict[str, Any]]], carrier: str | None, types: set[str],
              maps: set[tuple[str, str]] = frozenset(), reviewed: set[str] | None = None,
              json_paths: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Every node of every record by (class, path, JSON type, key set): how often, in how many files,
    its largest size. The objects of the block array at ``carrier`` are pathed ``[type=X]`` by their
    type (a type outside ``types`` is ``<withheld>``), every other array element ``[]``. An object at
    a (class, path) of ``maps`` is keyed by data: its key set is ``<map>``, its values are counted at
    ``<map-value>`` and not described further. A string at one of ``json_paths`` that parses as JSON
    is described again at ``<json>`` below it. Keys go through ``gate_key``."""
    n: Counter[tuple[str, str, str, str]] = Counter()
    files: dict[tuple[str, str, str, str], set[Any]] = defaultdict(set)
    size: dict[tuple[str, str, str, str], int] = {}
    for f, cls, r in recs:
        stack: list[tuple[str, Any, bool]] = [("$", r, False)]
        while stack:
            path, v, opaque = stack.pop()
            is_map = isinstance(v, dict) and (cls, path) in maps
            ks = ("<map>" if is_map else ",".join(sorted({gate_key(k, reviewed) for k in v}))
                  if isinstance(v, dict) and not opaque else "")
            k = (cls, path, _jtype(v), ks)
            n[k] += 1
            files[k].add(f)
            size[k] = max(size.get(k, 0), 0 if opaque else _size(v))
            if opaque:
                continue
            if isinstance(v, str) and path.split("[")[0] in json_paths:
                with contextlib.suppress(ValueError):
                    stack.append((f"{path}.<json>", json.loads(v), False))
            if is_map:
                stack.extend((f"{path}.<map-value>", x, True) for x in v.values())
            elif isinstance(v, dict):
                stack.extend((f"{path}.{gate_key(key, reviewed)}", x, False) for key, x in v.items())
            elif isinstance(v, list):
                for x in v:
                    t = x.get("type") if isinstance(x, dict) else None
                    stack.append((f"{path}[type={t if t in types else '<withheld>'}]"
                                  if path == carrier and isinstance(t, str) else f"{path}[]", x, False))
    return [{"rclass": c, "path": p, "jtype": j, "keyset": ks, "occurrences": v, "files": len(files[(c, p, j, ks)]),
             "max_len": size[(c, p, j, ks)]} for (c, p, j, ks), v in n.items()]
