"""``docs/cli.md``, written from the CLI itself: ``python -m survey.clidoc > docs/cli.md``
(``make docs``). Every command, its usage, arguments, options (with their choices and
defaults) and examples, as ``--help`` shows them; a test fails while the file is stale."""

from __future__ import annotations

import re
import sys
from typing import Any

from typer.main import get_command

from survey.cli import app

HEAD = """# Command reference

<!-- Written by `make docs` (python -m survey.clidoc) from the CLI itself; tests/test_cli_docs.py
fails while it is stale. Edit the help in survey/cli.py, not here. -->

Every command takes `-h`/`--help`; the global options go before the command
(`survey -q run ...`). Exit codes: 0 done (counted problems included), 1 the tool failed,
2 usage error, 3 `--strict`, `--fail-on-drift` or `recheck` found something.
"""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _params(cmd: Any, ctx: Any) -> list[str]:
    args = [p for p in cmd.params if p.param_type_name == "argument"]
    opts = [p for p in cmd.params if p.param_type_name == "option" and not p.hidden]
    out: list[str] = []
    if args:
        out += ["| Argument | Type | Description |", "|---|---|---|"]
        out += [f"| `{p.name.upper()}` | `{p.display_type(ctx)}` | {_cell(getattr(p, 'help', '') or '')} |" for p in args]
        out.append("")
    if opts:
        out += ["| Option | Description |", "|---|---|"]
        for p in opts:
            rec = p.get_help_record(ctx)
            if rec:
                out.append(f"| `{_cell(rec[0])}` | {_cell(rec[1])} |")
        out.append("")
    return out


def _examples(epilog: str | None) -> list[str]:
    lines = [ln[4:] for ln in (epilog or "").splitlines() if ln.startswith("    ")]
    return ["Examples:", "", "```sh", *lines, "```", ""] if lines else []


def _command(path: str, cmd: Any, parent: Any) -> list[str]:
    from typer._click.core import Context

    ctx = Context(cmd, info_name=path.split()[-1], parent=parent)
    if hasattr(cmd, "commands"):  # a group: its commands, each under its own heading
        out = []
        for name, sub in cmd.commands.items():
            out += _command(f"{path} {name}", sub, ctx)
        return out
    text = (cmd.help or "").strip()
    lines = [f"## `{path}`", "", *[re.sub(r"\s+$", "", ln) for ln in text.splitlines()], "",
             "```", cmd.get_usage(ctx).strip(), "```", ""]
    return lines + _params(cmd, ctx) + _examples(cmd.epilog)


def render() -> str:
    from typer._click.core import Context

    group = get_command(app)
    top = Context(group, info_name="survey")
    lines = [HEAD, "## Global options", "", *_params(group, top)[:]]
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        lines += _command(f"survey {name}", cmd, top)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
