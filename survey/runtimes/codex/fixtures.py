"""Fixture predicates for Codex rollouts (``survey fixtures``)."""

from __future__ import annotations

from typing import Any

from survey.export.fixtures import Predicate, get, json_len


def item(pt: str):
    return lambda r: get(r, "type") == "response_item" and get(r, "payload", "type") == pt


def event(pt: str):
    return lambda r: get(r, "type") == "event_msg" and get(r, "payload", "type") == pt


def message(role: str):
    return lambda r: item("message")(r) and get(r, "payload", "role") == role


def joined(rs: list[Any]) -> bool:
    """A whole rollout where a function_call's call_id is answered by a function_call_output."""
    calls = {get(r, "payload", "call_id") for r in rs if item("function_call")(r)}
    return any(get(r, "payload", "call_id") in calls for r in rs if item("function_call_output")(r))


PREDICATES = (
    Predicate("session_meta", "a session_meta header", record=lambda r: get(r, "type") == "session_meta"),
    Predicate("turn_context", "a turn_context record", record=lambda r: get(r, "type") == "turn_context"),
    Predicate("user_message", "a response_item message of role user", record=message("user")),
    Predicate("assistant_message", "a response_item message of role assistant", record=message("assistant")),
    Predicate("reasoning", "a reasoning item", record=item("reasoning")),
    Predicate("function_call", "a function_call item", record=item("function_call")),
    Predicate("function_call_output", "a function_call_output item", record=item("function_call_output")),
    Predicate("custom_tool_call", "a custom_tool_call item (apply_patch)", record=item("custom_tool_call")),
    Predicate("call_and_output_joined", "a whole rollout where a call_id is answered by its output", file=joined),
    Predicate("exec_nonzero_exit", "an exec_command_end with a non-zero exit code",
              record=lambda r: event("exec_command_end")(r) and isinstance(get(r, "payload", "exit_code"), int)
              and get(r, "payload", "exit_code") != 0),
    Predicate("token_count_without_info", "a token_count event whose info is null",
              record=lambda r: event("token_count")(r) and get(r, "payload", "info") is None),
    Predicate("token_count_with_info", "a token_count event with an info object",
              record=lambda r: event("token_count")(r) and isinstance(get(r, "payload", "info"), dict)),
    Predicate("mcp_tool_call_end", "an mcp_tool_call_end event", record=event("mcp_tool_call_end")),
    Predicate("turn_aborted", "a turn_aborted event", record=event("turn_aborted")),
    Predicate("compacted", "a compacted record", record=lambda r: get(r, "type") == "compacted"),
    Predicate("no_task_complete", "a whole rollout with task_started but no task_complete",
              file=lambda rs: any(event("task_started")(r) for r in rs) and not any(event("task_complete")(r) for r in rs)),
    Predicate("output_over_30kb", "a call output over 30 KB",
              record=lambda r: (item("function_call_output")(r) or item("custom_tool_call_output")(r))
              and json_len(get(r, "payload", "output")) > 30_000),
)
