"""What the Codex page may say only as a reference note: knowledge from the sibling schema
page and its recon (what a field means, how a client behaves live), each with its source and,
where the census can test it, a check that marks it holds or CONTRADICTED."""

from __future__ import annotations

from survey.evidence.claims import Evidence, as_int
from survey.evidence.kit import Kit
from survey.runtimes.base import Note

REF = "sibling-facts.md (Codex schema page and recon, 2026-09-18)"
CAPS = (1_048_608, 40_109)


def _layout(k: Kit) -> tuple[bool | None, Evidence]:
    f = {r["surface"]: as_int(r["files"]) for r in k.rows("files_by_surface")}
    ev = k.ev("files_by_surface", "; ".join(f"{s} {n}" for s, n in f.items()) or "none",
              scope=f"{sum(f.values()):,} files (whole corpus)")
    rollouts = f.get("rollout", 0) + f.get("archived_rollout", 0)
    if not sum(f.values()):
        return None, ev
    return rollouts > 0 and f.get("rollout_unnamed", 0) == 0, ev


def _exit_codes(k: Kit) -> tuple[bool | None, Evidence]:
    num = {r["rclass"]: as_int(r["records"]) for r in k.rows("exit_codes") if not r["field"].endswith("(text)")}
    ev = k.ev("exit_codes", "; ".join(f"{c} {n}" for c, n in num.items()) or "no numeric exit code")
    if not num:
        return None, ev
    return set(num) <= {"event_msg/item_completed"}, ev


def _inherited(k: Kit) -> tuple[bool | None, Evidence]:
    ih = k.one("inherited_history")
    ev = k.ev("inherited_history", f"shared turn ids {as_int(ih.get('shared_turn_ids'))}, "
                                   f"inherited records {as_int(ih.get('inherited_records'))}")
    if not as_int(ih.get("inherited_records")):
        return None, ev
    return as_int(ih.get("shared_turn_ids")) == 0, ev


def _counter(k: Kit) -> tuple[bool | None, Evidence]:
    tc = k.one("token_counter")
    ev = k.ev("token_counter", f"events {as_int(tc.get('token_counts'))}, drops {as_int(tc.get('drops'))}, "
                               f"at compaction {as_int(tc.get('drops_at_compaction'))}")
    if not as_int(tc.get("token_counts")):
        return None, ev
    return as_int(tc.get("drops")) == as_int(tc.get("drops_at_compaction")), ev


def _custom_status(k: Kit) -> tuple[bool | None, Evidence]:
    cc = k.rows("class_constants")
    ct = next((r for r in cc if r["rclass"] == "response_item/custom_tool_call" and r["field"] == "status"), None)
    calls = {r["rclass"]: as_int(r["records"]) for r in k.rows("record_classes")}
    ev = k.ev("class_constants", f"custom_tool_call.status constant: {ct['value'] if ct else 'no'}")
    if not calls.get("response_item/custom_tool_call"):
        return None, ev
    return bool(ct and ct["value"] == "completed"), ev


def _item_ids(k: Kit) -> tuple[bool | None, Evidence]:
    ii = k.one("item_ids")
    ev = k.ev("item_ids", f"{as_int(ii.get('item_ids_equal_to_a_call_id'))} of {as_int(ii.get('item_ids'))}")
    if not as_int(ii.get("item_ids")):
        return None, ev
    return as_int(ii.get("item_ids_equal_to_a_call_id")) < as_int(ii.get("item_ids")), ev


def _caps(k: Kit) -> tuple[bool | None, Evidence]:
    caps = [r for r in k.rows("silent_caps") if r["path"] == "$.payload.output"]
    ev = k.ev("silent_caps", "; ".join(f"{r['max_len']} × {r['files_at_max']}" for r in caps) or "no output cap")
    if not caps:
        return None, ev
    return any(as_int(r["max_len"]) in CAPS for r in caps), ev


NOTES = (
    Note("note_layout",
         "Rollouts live at ~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl (flat under "
         "~/.codex/archived_sessions/ once archived); a subagent child is a rollout of its own.", REF, _layout),
    Note("note_headers",
         "A child file can carry two session_meta headers (its own, then the parent's), and a resumed file repeats "
         "session_meta once per resume; id != session_id marks a subagent.", REF),
    Note("note_exit_codes", "Exit codes as numbers live only in the item_completed event stream.", REF, _exit_codes),
    Note("note_custom_status",
         "custom_tool_call.status is always completed: a constant, not evidence of success.", REF, _custom_status),
    Note("note_item_ids", "Item ids do not join call_id in general.", REF, _item_ids),
    Note("note_inherited", "Inherited turn_ids are disjoint from the child's own.", REF, _inherited),
    Note("note_counter",
         "The cumulative token counter rises monotonically except at compaction boundaries.", REF, _counter),
    Note("note_caps", "Output is silently capped at exact byte sizes (1,048,608 and 40,109).", REF, _caps),
)
