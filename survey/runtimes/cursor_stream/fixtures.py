"""Fixture predicates for cursor-agent stream-json captures (``survey fixtures``)."""

from __future__ import annotations

from typing import Any

from survey.export.fixtures import Predicate, get, json_len


def cls(t: str, sub: str | None = None):
    return lambda r: get(r, "type") == t and (sub is None or get(r, "subtype") == sub)


def unanswered(rs: list[Any]) -> bool:
    """A capture where a call started and never completed."""
    started = {get(r, "call_id") for r in rs if cls("tool_call", "started")(r)}
    done = {get(r, "call_id") for r in rs if cls("tool_call", "completed")(r)}
    return bool(started - done)


PREDICATES = (
    Predicate("system_init", "the system/init event", record=cls("system", "init")),
    Predicate("user", "a user event", record=cls("user")),
    Predicate("assistant", "an assistant event", record=cls("assistant")),
    Predicate("assistant_with_model_call_id", "an assistant event with model_call_id",
              record=lambda r: cls("assistant")(r) and "model_call_id" in r),
    Predicate("thinking_delta", "a thinking delta", record=cls("thinking", "delta")),
    Predicate("thinking_completed", "a thinking completed event", record=cls("thinking", "completed")),
    Predicate("tool_call_started", "a tool_call started event", record=cls("tool_call", "started")),
    Predicate("tool_call_completed", "a tool_call completed event", record=cls("tool_call", "completed")),
    Predicate("result_success", "a result/success event", record=cls("result", "success")),
    Predicate("result_error", "a result event with is_error true",
              record=lambda r: cls("result")(r) and get(r, "is_error") is True),
    Predicate("connection_event", "a connection event", record=cls("connection")),
    Predicate("retry_event", "a retry event", record=cls("retry")),
    Predicate("no_result", "a whole capture with no result event",
              file=lambda rs: bool(rs) and not any(cls("result")(r) for r in rs)),
    Predicate("call_never_completed", "a whole capture where a call started and never completed", file=unanswered),
    Predicate("block_over_30kb", "a tool_call event over 30 KB",
              record=lambda r: cls("tool_call")(r) and json_len(get(r, "tool_call")) > 30_000),
)
