"""Fixture predicates for the cursor-agent chat store (``survey fixtures``): JSON records
taken from the store's blobs, and the JSON files beside it."""

from __future__ import annotations

from typing import Any

from survey.export.fixtures import Predicate, get, items, typed


def parts(r: Any) -> list[Any]:
    return items(r, "content")


def role(x: str):
    return lambda r: get(r, "role") == x


PREDICATES = (
    Predicate("system_message", "a system message", record=role("system")),
    Predicate("user_string", "a user message whose content is a string",
              record=lambda r: role("user")(r) and isinstance(get(r, "content"), str)),
    Predicate("user_parts", "a user message whose content is a list of parts",
              record=lambda r: role("user")(r) and bool(parts(r))),
    Predicate("assistant_text_only", "an assistant message of text parts only",
              record=lambda r: role("assistant")(r) and bool(parts(r)) and len(typed(parts(r), "text")) == len(parts(r))),
    Predicate("assistant_reasoning", "an assistant message with a reasoning part",
              record=lambda r: bool(typed(parts(r), "reasoning", "redacted-reasoning"))),
    Predicate("tool_call", "an assistant message with a tool-call part", record=lambda r: bool(typed(parts(r), "tool-call"))),
    Predicate("parallel_calls", "more than 3 tool-call parts in one message",
              record=lambda r: len(typed(parts(r), "tool-call")) > 3),
    Predicate("tool_result", "a tool message with a tool-result part",
              record=lambda r: bool(typed(parts(r), "tool-result"))),
    Predicate("tool_result_error", "a tool-result with isError true",
              record=lambda r: any(p.get("isError") is True for p in typed(parts(r), "tool-result"))),
    Predicate("meta_record", "the store's meta record (agentId, latestRootBlobId ...)",
              record=lambda r: isinstance(r, dict) and "latestRootBlobId" in r),
    Predicate("meta_json", "a meta.json document", record=lambda r: isinstance(r, dict) and "schemaVersion" in r),
    Predicate("prompt_history", "a prompt history document (an array)", record=lambda r: isinstance(r, list)),
)
