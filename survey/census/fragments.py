"""SQL said once: a fragment written into each query that shares it.

A query a page cites (the census's, the history page's) is one file a reviewer pastes and
runs as it is, so a chain of CTEs that several queries share is written into each of them
from one fragment (``queries/fragments/`` beside them), as ``evidence/links.py`` writes each
runtime's ``links.sql`` from its template: ``python -m survey.census.fragments`` writes the
fragments in, ``--check`` names the queries that differ, and a test holds them equal.

A fragment file is its comment lines, then the CTEs; in a query those run from the first
CTE's line to the line closing the last CTE, and their ``{name}`` fields are filled per query
(``USES``)."""

from __future__ import annotations

import sys
from pathlib import Path

from survey.shared import sync_files

RUNTIMES = Path(__file__).parents[1] / "runtimes"
RENDER = Path(__file__).parents[1] / "render" / "queries"
MERGE = Path(__file__).parents[1] / "merge" / "queries"

# fragment -> the queries it is written into, each with its fields
USES: dict[Path, dict[Path, dict[str, str]]] = {
    # a tool_result's tool: through its result link to the one call of that id in its file
    RUNTIMES / "claude_code" / "queries" / "fragments" / "result_tool.sql": {
        RUNTIMES / "claude_code" / "queries" / "result_lengths.sql": {"part": ""},
        RUNTIMES / "claude_code" / "queries" / "tool_use_result_by_tool.sql": {"part": ""},
        RUNTIMES / "claude_code" / "queries" / "parts" / "result_lengths.sql": {"part": "part, "},
        RUNTIMES / "claude_code" / "queries" / "parts" / "tool_use_result_by_tool.sql": {"part": ""},
    },
    # a rollout's headers with their ids, and its first header
    RUNTIMES / "codex" / "queries" / "fragments" / "headers.sql": {
        RUNTIMES / "codex" / "queries" / name: {} for name in ("extra_headers.sql", "file_identity.sql", "subagents.sql")
    },
    # each file's first recorded client version (the history page's and the merged page's queries)
    RENDER / "fragments" / "file_version.sql": {
        **{RENDER / name: {} for name in ("keysets_by_version.sql", "values_by_version.sql")},
        **{MERGE / name: {} for name in ("versions.sql", "version_keysets.sql")},
    },
}


def _span(text: str, body: str) -> tuple[int, int]:
    """Where the fragment ``body`` sits in a query's ``text``: from its first CTE's line to the
    line closing its last CTE (the first line after that CTE's that starts with ``)``)."""
    def name(line: str) -> str:
        return line.removeprefix("), ").split(" AS (")[0]

    lines = body.split("\n")
    heads = [ln for ln in lines[1:] if ln.startswith("), ")]
    first, last = name(lines[0]), name(heads[-1]) if heads else name(lines[0])
    start = text.find(f" {first} AS (")
    at = (start if not heads else text.find(f"\n), {last} AS (", start)) if start >= 0 else -1
    end = text.find("\n)", at + 1) if at >= 0 else -1
    if end < 0:
        raise ValueError(f"the query holds no CTEs {first!r} to {last!r}")
    return start + 1, end + 2


def _body(fragment: Path) -> str:
    """A fragment's SQL: its file without the comment lines that head it."""
    lines = fragment.read_text().rstrip("\n").split("\n")
    while lines and lines[0].startswith("--"):
        lines.pop(0)
    return "\n".join(lines)


def written(fragment: Path, query: Path, text: str | None = None) -> str:
    """``query``'s text with ``fragment`` written in (its fields filled as ``USES`` says)."""
    body = _body(fragment)
    fields = USES[fragment][query]
    for k, v in fields.items():
        body = body.replace("{" + k + "}", v)
    text = query.read_text() if text is None else text
    start, end = _span(text, body)
    return text[:start] + body + text[end:]


def wanted() -> list[tuple[Path, str]]:
    """Each query that shares a fragment, with its text as the fragments write it."""
    return [(q, written(fragment, q)) for fragment, queries in USES.items() for q in queries]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--check"]):
        print("usage: python -m survey.census.fragments [--check]", file=sys.stderr)
        return 2
    return sync_files(wanted(), check=bool(args))


if __name__ == "__main__":
    raise SystemExit(main())
