"""Fixture predicates for Claude Code session transcripts (``survey fixtures``)."""

from __future__ import annotations

from typing import Any

from survey.export.fixtures import Predicate, get, items, json_len, typed

JSONL = ("parent", "subagent", "workflow_agent")


def blocks(r: Any) -> list[Any]:
    return items(r, "message", "content")


def kind(t: str):
    return lambda r: get(r, "type") == t


def joined(rs: list[Any]) -> bool:
    """A file where a tool_use id is answered by a tool_result's tool_use_id."""
    calls = {b.get("id") for r in rs for b in typed(blocks(r), "tool_use")}
    return any(b.get("tool_use_id") in calls for r in rs for b in typed(blocks(r), "tool_result"))


PREDICATES = (
    Predicate("user_prompt", "a user record whose message.content is a string",
              record=lambda r: get(r, "type") == "user" and isinstance(get(r, "message", "content"), str)),
    Predicate("assistant_text_only", "an assistant record of text blocks only",
              record=lambda r: get(r, "type") == "assistant" and bool(blocks(r))
              and len(typed(blocks(r), "text")) == len(blocks(r))),
    Predicate("assistant_thinking", "an assistant record with a thinking block",
              record=lambda r: bool(typed(blocks(r), "thinking"))),
    Predicate("single_call", "an assistant record whose one block is a tool_use",
              record=lambda r: get(r, "type") == "assistant" and len(blocks(r)) == 1
              and len(typed(blocks(r), "tool_use")) == 1),
    Predicate("parallel_calls", "more than 3 tool_use blocks in one record",
              record=lambda r: len(typed(blocks(r), "tool_use")) > 3),
    Predicate("tool_result", "a user record carrying a tool_result block",
              record=lambda r: bool(typed(blocks(r), "tool_result"))),
    Predicate("tool_result_error", "a tool_result with is_error true",
              record=lambda r: any(b.get("is_error") is True for b in typed(blocks(r), "tool_result"))),
    Predicate("tool_use_result_object", "a record whose toolUseResult is an object",
              record=lambda r: isinstance(get(r, "toolUseResult"), dict)),
    Predicate("tool_use_result_string", "a record whose toolUseResult is a string",
              record=lambda r: isinstance(get(r, "toolUseResult"), str)),
    Predicate("call_and_result_joined", "a whole file where a tool_use id is answered by a tool_result",
              file=joined, surfaces=JSONL),
    Predicate("sidechain", "a record with isSidechain true", record=lambda r: get(r, "isSidechain") is True),
    Predicate("api_error", "an assistant record with isApiErrorMessage true",
              record=lambda r: get(r, "isApiErrorMessage") is True),
    Predicate("system_record", "a system record", record=kind("system")),
    Predicate("compact_boundary", "a system record of subtype compact_boundary",
              record=lambda r: get(r, "type") == "system" and get(r, "subtype") == "compact_boundary"),
    Predicate("summary", "a summary record", record=kind("summary")),
    Predicate("progress", "a progress record", record=kind("progress")),
    Predicate("file_history_snapshot", "a file-history-snapshot record", record=kind("file-history-snapshot")),
    Predicate("subagent_with_parent", "a subagent transcript with its parent session",
              file=lambda rs: True, surfaces=("subagent",), with_parent=True),
    Predicate("workflow_agent_with_parent", "a workflow agent transcript with its parent session",
              file=lambda rs: True, surfaces=("workflow_agent",), with_parent=True),
    Predicate("block_over_30kb", "a content block whose payload is over 30 KB",
              record=lambda r: any(json_len(b.get("text") or b.get("content") or b.get("input") or b.get("thinking"))
                                   > 30_000 for b in blocks(r) if isinstance(b, dict))),
)
