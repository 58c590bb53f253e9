"""Negative (and positive) greps over every file of a scope, two independent ways: DuckDB
(``duck``) and ripgrep (``rg``), both kept and any disagreement shown, never averaged away;
a third, structural figure for a probe about a key comes from the snapshot (``keyhits``).
Nothing read is kept except counts; ``verdicts.run_probes`` is the stage's entry point.

The parts: ``commands`` (the SQL and the pasteable commands), ``scopes`` (which files a scope
holds), ``reads`` (reading files in bounded memory), ``cache`` (per-file counts kept between
runs), ``duck`` and ``rg`` (the engines), ``keyhits``, ``verdicts``. Each name lives in one
part; the other parts read it as that part's attribute (``reads.PIECE_BYTES``), so setting it
on its part (``reads.PIECE_BYTES = n``) reaches every reader.
"""

from __future__ import annotations

from survey.evidence.grep import cache, commands, duck, keyhits, reads, rg, scopes, verdicts
from survey.evidence.grep.verdicts import ScopeGrep, grep_scopes, run_probes

PARTS = (commands, reads, scopes, cache, duck, rg, keyhits, verdicts)

__all__ = ["PARTS", "ScopeGrep", "cache", "commands", "duck", "grep_scopes", "keyhits", "reads", "rg",
           "run_probes", "scopes", "verdicts"]
