"""Negative (and positive) greps over every file of a scope, two independent ways: DuckDB
(``duck``) and ripgrep (``rg``), both kept and any disagreement shown, never averaged away;
a third, structural figure for a probe about a key comes from the snapshot (``keyhits``).
Nothing read is kept except counts; ``verdicts.run_probes`` is the stage's entry point.

The parts: ``commands`` (the SQL and the pasteable commands), ``scopes`` (which files a scope
holds), ``reads`` (reading files in bounded memory), ``cache`` (per-file counts kept between
runs), ``duck`` and ``rg`` (the engines), ``keyhits``, ``verdicts``. Every name of the parts
is also a name of this package; setting one here sets it in every part that holds it.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from survey.evidence.grep import cache, commands, duck, keyhits, reads, rg, scopes, verdicts

PARTS = (commands, reads, scopes, cache, duck, rg, keyhits, verdicts)

for _part in PARTS:
    for _name, _value in vars(_part).items():
        if not _name.startswith("__"):
            globals().setdefault(_name, _value)


class _Package(types.ModuleType):
    """Setting ``grep.NAME`` sets ``NAME`` in every part bound to the same object, so a caller
    that replaces a function or a limit (the bench's timers, the tests) reaches every user of it."""

    def __setattr__(self, name: str, value: Any) -> None:
        old = self.__dict__.get(name, _Package)
        for part in PARTS:
            if name in vars(part) and vars(part)[name] is old:
                setattr(part, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
