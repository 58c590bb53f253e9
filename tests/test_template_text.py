"""Templates hold layout and method, never a sentence about the format.

Every literal text fragment of a page template (text outside ``{{ }}`` and ``{% %}``) must be
markdown structure or a line listed in ``survey/render/method_text.txt`` under the
template's section (or ``[*]``, shared). That list is reviewed text: what a probe is, how to
re-run a query, a heading that names a topic. A sentence about the format ("Identity is
positional", "## Tool results: not recorded") belongs in a claim, which changes when the
format does, or in a profile's reference notes. A static sentence added to a template later
fails here until it is either made a claim or reviewed into the list.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from survey.render.render import TEMPLATES, environment

ALLOW = TEMPLATES.parent / "method_text.txt"
STRUCTURE = re.compile(r"^[\s|:\-#`()\[\]*>.,;·/↗–=0-9]*$")


def fragments(name: str) -> list[str]:
    """The literal text lines of a template, stripped, as the lexer sees them."""
    env: jinja2.Environment = environment()
    src = (TEMPLATES / name).read_text()
    out = []
    for _line, kind, value in env.lex(src):
        if kind != "data":
            continue
        for part in value.split("\n"):
            part = part.strip()
            if part and not STRUCTURE.match(part):
                out.append(part)
    return out


def allowed() -> dict[str, set[str]]:
    sections: dict[str, set[str]] = {}
    cur = "*"
    for raw in ALLOW.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(";;"):
            continue
        m = re.fullmatch(r"\[(.+)\]", line)
        if m:
            cur = m.group(1)
            continue
        sections.setdefault(cur, set()).add(line)
    return sections


TEMPLATE_NAMES = sorted(p.name for p in TEMPLATES.glob("*.j2"))


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_literal_text_is_reviewed_method_text(name: str) -> None:
    ok = allowed()
    mine = ok.get(name, set()) | ok.get("*", set())
    stray = [f for f in fragments(name) if f not in mine]
    assert not stray, (f"{name} holds literal text that is not reviewed method text; make it a claim or a "
                       f"reference note, or review it into {ALLOW.name}:\n  " + "\n  ".join(stray))


def test_a_static_format_sentence_added_to_a_template_fails(tmp_path: Path) -> None:
    """The guard bites: a template with a sentence about the format is caught."""
    src = (TEMPLATES / "cursor.md.j2").read_text() + "\nIdentity is positional: pairing by name is unsafe.\n"
    env = environment()
    lit = [v for _l, k, v in env.lex(src) if k == "data"]
    frag = [p.strip() for v in lit for p in v.split("\n") if p.strip() and not STRUCTURE.match(p.strip())]
    ok = allowed()
    mine = ok.get("cursor.md.j2", set()) | ok.get("*", set())
    assert "Identity is positional: pairing by name is unsafe." in [f for f in frag if f not in mine]


def test_every_reviewed_line_is_still_used() -> None:
    """A reviewed line that no template holds any more is dropped from the list, so the list
    stays the page's method text and nothing else."""
    ok = allowed()
    used = {f for n in TEMPLATE_NAMES for f in fragments(n)}
    stale = sorted(line for sec in ok.values() for line in sec if line not in used)
    assert not stale, "method_text.txt lists lines no template holds:\n  " + "\n  ".join(stale)
