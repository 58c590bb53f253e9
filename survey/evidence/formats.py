"""The value formats a runtime's page states as claims of their own, path by path: what the
values at a path are expected to be (a format class of ``walk.string_format`` /
``walk.number_format``) and in which record classes. Each becomes a counted claim
(``Kit.format_claim``): how many values are in those classes, and what the others are. Where
no value is at the path, no claim is made."""

from __future__ import annotations

from typing import NamedTuple


class Expected(NamedTuple):
    id: str
    what: str  # what the values are, as the claim names them
    path: str
    formats: tuple[str, ...]
    label: str  # what the expected classes are, in words
    classes: tuple[str, ...] | None = None  # record classes (None: every class)


EPOCH_MS = ("epoch_ms",)
EXPECTED: dict[str, tuple[Expected, ...]] = {
    "cursor_chats": (
        Expected("fmt_created_at", "`createdAt` of messages and agent records", "$.createdAt", EPOCH_MS,
                 "millisecond epoch numbers"),
        Expected("fmt_created_at_ms", "meta.json `createdAtMs`", "$.createdAtMs", EPOCH_MS, "millisecond epoch numbers"),
        Expected("fmt_updated_at_ms", "meta.json `updatedAtMs`", "$.updatedAtMs", EPOCH_MS, "millisecond epoch numbers"),
    ),
    "cursor_stream": (
        Expected("fmt_timestamp_ms", "event `timestamp_ms`", "$.timestamp_ms", EPOCH_MS, "millisecond epoch numbers"),
        Expected("fmt_duration_ms", "result `duration_ms`", "$.duration_ms", ("number",),
                 "plain numbers (not strings, not epochs)"),
    ),
    "cursor_desktop": (
        Expected("fmt_bubble_created_at", "bubble `createdAt`", "$.createdAt", ("timestamp",),
                 "RFC 3339 / ISO timestamp strings", ("bubbleId",)),
        Expected("fmt_header_created_at", "composer header `createdAt`", "$.createdAt", EPOCH_MS,
                 "millisecond epoch numbers", ("composerHeaders",)),
        Expected("fmt_composer_id", "`composerId` of composerData documents and composer headers", "$.composerId",
                 ("uuid",), "UUIDs", ("composerData", "composerHeaders")),
        Expected("fmt_workspace_id", "composer header `workspaceIdentifier.id`", "$.workspaceIdentifier.id",
                 ("hex32",), "32 hex digits", ("composerHeaders",)),
    ),
}
