"""What the Cursor page may say only as a reference note: knowledge the static files cannot
show (live behaviour, what a policy implies), each with its source."""

from __future__ import annotations

from survey.runtimes.base import Note

REF = "cursor-session-schema.txt (reference page, 2026-09-18)"

NOTES = (
    Note("note_sidecar_unlinked",
         "Recorded evidence never links a sidecar to the call that produced it; only a later read-back "
         "reference exists.", REF),
    Note("note_sidecar_scrub",
         "Sidecars are a store of raw tool output outside the transcript: a scrubbing policy that covers "
         "transcripts but not agent-tools/ leaves that content exposed.", REF),
    Note("note_grow_in_place",
         "Static files show each message once: revision behaviour needs a live capture, and positional "
         "identities are stable only once a turn has ended.", REF),
    Note("note_subagent_schema", "A subagent transcript uses the same schema as its parent.", REF),
    Note("note_unterminated",
         "The absence of turn_ended is the only unterminated-turn signal, and it is common, not an error.", REF),
    Note("note_markers_prose",
         "The literals [...] and [truncated] inside payloads are authored prose, not harness truncation "
         "markers.", REF),
)
