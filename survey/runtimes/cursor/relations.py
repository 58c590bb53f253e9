"""Links of the Cursor transcripts that are not id joins (``links_*.sql``): whether agent-tools
sidecars are ever written by Write or ApplyPatch, and whether a subagent file's shapes are
its parent's. Stated as ``link_…`` claims: the links section lists them."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt
from survey.evidence.kit import Kit
from survey.evidence.subagents import subagent_schema_claim


def relation_claims(k: Kit) -> None:
    sw = k.one("links_sidecar_writes")
    n = as_int(sw.get("records_naming_sidecars"))
    only, beside = as_int(sw.get("only_write_calls")), as_int(sw.get("write_beside_other_calls"))
    k.state("link_sidecar_writes", "rate",
            (f"Of {fmt(n)} records whose tool input names an agent-tools/ path, {fmt(only)} hold only Write/ApplyPatch "
             f"calls (a sidecar written by a write call) and {fmt(beside)} a write call beside other calls; "
             f"{fmt(as_int(sw.get('no_write_call')))} hold no write call." if n else
             "No tool input names an agent-tools/ path: whether a write call targets a sidecar is not determined."),
            k.ev("links_sidecar_writes", f"only write {only}; beside {beside}; of {n}"),
            value={key: as_int(v) for key, v in sw.items()}, provenance="observed" if n else "not determined")

    subagent_schema_claim(k)  # (the shared comparison: evidence/subagents.py)
