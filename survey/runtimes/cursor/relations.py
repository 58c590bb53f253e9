"""Links of the Cursor transcripts that are not id joins (``links_*.sql``): whether agent-tools
sidecars are ever written by Write or ApplyPatch, and whether a subagent file's shapes are
its parent's. Stated as ``link_…`` claims: the links section lists them."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, pct
from survey.evidence.kit import Kit


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

    ss = k.one("links_subagent_schema")
    subs, pairs = as_int(ss.get("subagent_files")), as_int(ss.get("pairs"))
    in_top = as_int(ss.get("subagents_all_shapes_in_transcripts"))
    in_parent = as_int(ss.get("pairs_all_shapes_in_parent"))
    k.state("link_subagent_schema", "rate",
            (f"{fmt(in_top)} of {fmt(subs)} walked subagent files ({pct(in_top, subs)}) use only shapes (record class, "
             f"path, JSON type, key set) that top-level transcripts use; {fmt(as_int(ss.get('subagent_shapes_in_no_transcript')))} "
             f"shapes occur in subagent files alone. Against its own parent: {fmt(in_parent)} of {fmt(pairs)} walked pairs "
             f"have every child shape in the parent ({fmt(as_int(ss.get('child_shapes_not_in_parent')))} child shapes are not)."
             if subs else "No subagent file was walked: whether subagents share the transcripts' schema is not determined."),
            k.ev("links_subagent_schema", f"{in_top}/{subs} in transcripts; {in_parent}/{pairs} in parent"),
            value={key: as_int(v) for key, v in ss.items()}, provenance="observed" if subs else "not determined")
