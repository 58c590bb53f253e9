"""Fixture predicates for Cursor desktop's state store (``survey fixtures``): JSON records
taken from the store's values, and the workspace JSON files."""

from __future__ import annotations

from typing import Any

from survey.export.fixtures import Predicate, get, items


def has(key: str):
    return lambda r: isinstance(r, dict) and key in r


def bubble(r: Any) -> bool:
    return isinstance(r, dict) and "bubbleId" in r and "_v" in r


PREDICATES = (
    Predicate("composer", "a composerData document", record=lambda r: (has("composerId")(r) and has("conversation")(r))
              or has("fullConversationHeadersOnly")(r)),
    Predicate("bubble_user", "a user bubble (type 1)", record=lambda r: bubble(r) and get(r, "type") == 1),
    Predicate("bubble_assistant", "an assistant bubble (type 2)", record=lambda r: bubble(r) and get(r, "type") == 2),
    Predicate("bubble_tool", "a bubble with toolFormerData", record=lambda r: bubble(r) and isinstance(get(r, "toolFormerData"), dict)),
    Predicate("bubble_thinking", "a bubble with thinking blocks",
              record=lambda r: bubble(r) and bool(items(r, "allThinkingBlocks"))),
    Predicate("capabilities", "a composer with capabilities", record=lambda r: bool(items(r, "capabilities"))),
    Predicate("checkpoint", "a checkpoint document", record=has("activeInlineDiffs")),
    Predicate("code_block_diff", "a code block diff", record=has("originalModelDiffWrtV0")),
    Predicate("message_request_context", "a message request context", record=lambda r: has("cursorRules")(r) and not bubble(r)),
    Predicate("workspace_json", "a workspace.json document", record=has("folder")),
)
