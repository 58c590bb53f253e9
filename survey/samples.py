"""Survey every root of the real public samples (``../shared/corpora``) -> ``samples/``.

``make samples`` writes each root's page under ``samples/<label>/`` (never under ``reports/``)
so anyone can read what the survey says about real data. Roots under ``handmade/`` are
surveyed too; their pages carry the fixture banner and never count as real evidence.
Runs with: ``python -m survey.samples [--corpora DIR] [--out samples]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from survey.runtimes import NAMES, get

# $SURVEY_CORPORA (as the tests read it), else ../shared/corpora beside the clone
DEFAULT_CORPORA = Path(__file__).resolve().parents[1] / os.path.expanduser(
    os.environ.get("SURVEY_CORPORA") or "../shared/corpora")

# (root relative to the corpora folder, runtime, label)
ROOTS = (
    ("cursor/projects", "cursor", "real-cursor"),
    ("claude/projects", "claude_code", "real-claude-code"),
    ("codex/sessions", "codex", "real-codex"),
    ("cursor-desktop/User", "cursor_desktop", "real-cursor-desktop"),
    ("cursor-stream-json", "cursor_stream", "real-cursor-stream"),
    ("handmade/cursor/projects", "cursor", "handmade-cursor"),
    ("handmade/cursor/chats", "cursor_chats", "handmade-cursor-chats"),
    ("handmade/claude/projects", "claude_code", "handmade-claude-code"),
    ("handmade/codex/sessions", "codex", "handmade-codex"),
    ("handmade/cursor-stream-json", "cursor_stream", "handmade-cursor-stream"),
)


def landed_roots(corpora: Path) -> list[tuple[Path, str, str]]:
    return [(corpora / r, rt, label) for r, rt, label in ROOTS if rt in NAMES and (corpora / r).is_dir()]


def main(argv: list[str] | None = None) -> int:
    from survey.pipeline import run_survey

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--out", type=Path, default=Path("samples"))
    args = ap.parse_args(argv)
    if not args.corpora.is_dir():
        print(f"no public samples at {args.corpora}: nothing to do", file=sys.stderr)
        return 0
    for root, runtime, label in landed_roots(args.corpora):
        res = run_survey(get(runtime), root, snapshots=args.out / "snapshots" / label,
                         reports=args.out / label, date="samples", on_exists="auto")
        print(f"{label:28} {runtime:15} files {res.files:5}  page {res.page}"
              + ("  (fixture)" if res.fixture else "")
              + (f"\n{'':28} root: {res.root_check['message']}" if res.root_check else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
