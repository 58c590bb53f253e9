"""Helpers the Claude Code and Codex drift operators share.

An operator reads every ``.jsonl`` file of a copied corpus and writes it back changed, the way
a client update would write its files: each parsed record goes through a function that may
edit it in place, drop it (return None) or add records after it (return a list).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Edit = Callable[[dict[str, Any]], "dict[str, Any] | list[dict[str, Any]] | None"]


def rewrite(root: Path, edit: Edit) -> int:
    """Apply ``edit`` to every parsed record of every ``.jsonl`` file (the shared harness's
    ``rewrite_jsonl``: other lines and each file's mtime kept). Returns the records seen."""
    from tests.drift import rewrite_jsonl

    return rewrite_jsonl(root, lambda rec, _path: edit(rec))


def records(root: Path, name: str = "*.jsonl") -> list[tuple[Path, dict[str, Any]]]:
    """Every parsed record (object) of every matching file, with its file."""
    out = []
    for f in sorted(root.rglob(name)):
        for line in f.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append((f, rec))
    return out


def blocks(rec: dict[str, Any], carrier: tuple[str, str]) -> list[dict[str, Any]]:
    """The object blocks of ``rec[carrier[0]][carrier[1]]`` when it is a list (else none)."""
    outer = rec.get(carrier[0])
    inner = outer.get(carrier[1]) if isinstance(outer, dict) else None
    return [b for b in inner if isinstance(b, dict)] if isinstance(inner, list) else []

