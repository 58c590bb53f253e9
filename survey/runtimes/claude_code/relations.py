"""Links of the Claude Code transcripts that are not id joins: where an ``agentId`` key sits
by file kind (``links_agent_id.sql``), and whether a subagent file's shapes are its parent's
(``links_subagent_schema.sql``, the shared comparison). Stated as ``link_…`` claims: the
links section lists them."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt
from survey.evidence.kit import Kit
from survey.evidence.subagents import subagent_schema_claim

CHILDREN = ("subagent", "workflow_agent")
SHOWN = 6  # nested paths named in the sentence (the census row holds them all)


def relation_claims(k: Kit) -> None:
    agent_id_claim(k)
    subagent_schema_claim(k)


def agent_id_claim(k: Kit) -> None:
    """``link_agent_id``: walked transcript files carrying ``agentId`` at the top level of a
    record, by surface (subagent files against parent transcripts), and where else it sits."""
    by = {r["surface"]: r for r in k.rows("links_agent_id")}
    walked = {s: as_int(r.get("walked")) for s, r in by.items()}
    top = {s: as_int(r.get("files_top_level")) for s, r in by.items()}
    kids = sum(walked.get(s, 0) for s in CHILDREN)
    kids_top = sum(top.get(s, 0) for s in CHILDREN)
    par, par_top = walked.get("parent", 0), top.get("parent", 0)
    nested = sorted({str(p) for r in by.values() for p in (r.get("nested_paths") or [])})
    par_nested = as_int(by.get("parent", {}).get("files_nested"))
    shown = ", ".join(f"`{p}`" for p in nested[:SHOWN]) + (f" and {len(nested) - SHOWN} more" if len(nested) > SHOWN else "")
    if not (kids or par):
        text = "No transcript file was walked: where agentId sits is not determined."
    else:
        verdict = ("at the top level, agentId is in subagent files only" if kids_top and not par_top else
                   "so not only subagent files carry it at the top level" if par_top else
                   "no walked file carries it at the top level")
        text = (f"agentId at the top level of a record (`$.agentId`, counted by path, never its value): in "
                f"{fmt(kids_top)} of {fmt(kids)} walked subagent files (workflow agents included) and "
                f"{fmt(par_top)} of {fmt(par)} parent transcripts; {verdict}."
                + (f" Deeper, in nested objects ({shown}): {fmt(par_nested)} parent transcripts." if nested else
                   " No nested object carries an agentId key."))
    k.state("link_agent_id", "rate", text,
            k.ev("links_agent_id", "; ".join(f"{s} top {top[s]}/{walked[s]}" for s in sorted(by)) or "no transcript walked"),
            value={"subagent_files": kids, "subagent_top_level": kids_top, "parent_files": par,
                   "parent_top_level": par_top, "parent_nested": par_nested, "nested_paths": nested},
            provenance="observed" if kids or par else "not determined")
