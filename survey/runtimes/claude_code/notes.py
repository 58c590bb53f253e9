"""What the Claude Code page may say only as a reference note: knowledge from the sibling
schema page and its recon (what a field means, how a client behaves live), each with its
source and, where the census can test it, a check that marks it holds or CONTRADICTED."""

from __future__ import annotations

from survey.evidence.claims import Evidence, as_int
from survey.evidence.kit import Kit
from survey.runtimes.base import Note

REF = "sibling-facts.md (Claude Code schema page and recon, 2026-09-18)"


def _files(k: Kit) -> dict[str, int]:
    return {r["surface"]: as_int(r["files"]) for r in k.rows("files_by_surface")}


def _layout(k: Kit) -> tuple[bool | None, Evidence]:
    f = _files(k)
    sub, meta = f.get("subagent", 0), f.get("subagent_meta", 0)
    wf, wmeta = f.get("workflow_agent", 0), f.get("workflow_meta", 0)
    ev = k.ev("files_by_surface", f"subagent {sub}, subagent_meta {meta}, workflow_agent {wf}, workflow_meta {wmeta}",
              scope=f"{sum(f.values()):,} files (whole corpus)")
    if not (sub or meta or wf or wmeta):
        return None, ev
    return (sub == meta and wf == wmeta), ev


def _sidechain(k: Kit) -> tuple[bool | None, Evidence]:
    rows = k.rows("sidechain")
    true_in = {r["surface"]: as_int(r["records"]) for r in rows if r["is_sidechain"] == "true"}
    ev = k.ev("sidechain", "; ".join(f"{s} true {n}" for s, n in true_in.items()) or "no record with true")
    kids = sum(as_int(r["records"]) for r in rows if r["surface"] in ("subagent", "workflow_agent"))
    if true_in.get("parent"):
        return False, ev
    if not kids:
        return None, ev
    return bool(true_in), ev


def _meta_join(k: Kit) -> tuple[bool | None, Evidence]:
    mj = {r["surface"]: r for r in k.rows("meta_join")}
    m, w = mj.get("subagent_meta", {}), mj.get("workflow_meta", {})
    ev = k.ev("meta_join", f"subagent metas joined {as_int(m.get('joined_parent_call'))}/{as_int(m.get('metas'))}; "
                           f"workflow metas with toolUseId {as_int(w.get('with_tool_use_id'))}/{as_int(w.get('metas'))}")
    if not (as_int(m.get("metas")) or as_int(w.get("metas"))):
        return None, ev
    return as_int(w.get("with_tool_use_id")) == 0 and as_int(m.get("joined_parent_call")) > 0, ev


def _per_block(k: Kit) -> tuple[bool | None, Evidence]:
    o = {r["name"]: r for r in k.rows("usage_dedup")}.get("output_tokens", {})
    ev = k.ev("usage_dedup", f"messages {as_int(o.get('messages'))}, repeated {as_int(o.get('messages_repeated'))}")
    if not as_int(o.get("messages")):
        return None, ev
    return as_int(o.get("messages_repeated")) > 0, ev


def _persisted(k: Kit) -> tuple[bool | None, Evidence]:
    p = k.one("persisted")
    named = as_int(p.get("target_present")) + as_int(p.get("target_missing"))
    marker = as_int(p.get("results_with_marker"))
    ev = k.ev("persisted", f"marker {marker}, named {named}, missing {as_int(p.get('target_missing'))}")
    if not (named or marker):
        return None, ev
    return bool(named and marker), ev


def _thinking(k: Kit) -> tuple[bool | None, Evidence]:
    th = k.one("thinking")
    tb, so = as_int(th.get("thinking_blocks")), as_int(th.get("signature_only"))
    ev = k.ev("thinking", f"signature-only {so} of {tb}")
    if not tb:
        return None, ev
    return so * 2 > tb, ev


def _subagent_schema(k: Kit) -> tuple[bool | None, Evidence]:
    sc = k.rows("surface_classes")
    parent = {r["rclass"] for r in sc if r["surface"] == "parent"}
    kids = {r["rclass"] for r in sc if r["surface"] in ("subagent", "workflow_agent")}
    extra = sorted(kids - parent)
    ev = k.ev("surface_classes", f"classes only in children: {', '.join(extra) or 'none'}")
    if not kids or not parent:
        return None, ev
    return not extra, ev


NOTES = (
    Note("note_layout",
         "Layout: <sid>.jsonl parents; <sid>/subagents/agent-<id>.jsonl, each with a .meta.json; workflow agents "
         "under <sid>/subagents/workflows/wf_<id>/ (each with a .meta.json) beside a journal.jsonl; "
         "<sid>/tool-results/<id>.txt; also images and memory/*.md.", REF, _layout),
    Note("note_subagent_schema", "A subagent transcript uses the same record schema as its parent.", REF,
         _subagent_schema),
    Note("note_sidechain", "isSidechain is true in subagent records only.", REF, _sidechain),
    Note("note_meta_join",
         "A .meta.json toolUseId joins a directly spawned child to its parent's call; workflow children join by "
         "directory only.", REF, _meta_join),
    Note("note_one_record_per_block",
         "The client writes one assistant record per content block: message.id repeats, and usage repeats with it.",
         REF, _per_block),
    Note("note_is_error_absent", "An absent is_error means unknown, not success.", REF),
    Note("note_persisted",
         "A <persisted-output> marker pairs with toolUseResult.persistedOutputPath; some targets are missing on disk.",
         REF, _persisted),
    Note("note_thinking", "Thinking blocks are mostly signature-only.", REF, _thinking),
)
