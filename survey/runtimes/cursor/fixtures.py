"""Fixture predicates for Cursor agent transcripts (``survey fixtures``): the structural
checklist a parser's fixture set covers."""

from __future__ import annotations

from typing import Any

from survey.export.fixtures import Predicate, get, items, json_len, typed


def blocks(r: Any) -> list[Any]:
    return items(r, "message", "content")


def calls(r: Any) -> list[dict]:
    return typed(blocks(r), "tool_use")


def named(*names: str):
    return lambda r: any(c.get("name") in names for c in calls(r))


def status(s: str):
    return lambda r: get(r, "type") == "turn_ended" and get(r, "status") == s


PREDICATES = (
    Predicate("user_frame", "a user frame", record=lambda r: get(r, "role") == "user"),
    Predicate("assistant_text_only", "an assistant frame of text blocks only",
              record=lambda r: get(r, "role") == "assistant" and bool(blocks(r))
              and len(typed(blocks(r), "text")) == len(blocks(r))),
    Predicate("single_call", "a frame holding exactly one block, a call",
              record=lambda r: len(blocks(r)) == 1 and len(calls(r)) == 1),
    Predicate("text_and_tool", "text and a call in one frame",
              record=lambda r: bool(typed(blocks(r), "text")) and bool(calls(r))),
    Predicate("parallel_calls", "more than 3 calls in one frame", record=lambda r: len(calls(r)) > 3),
    Predicate("string_input", "a call whose input is a string (ApplyPatch)",
              record=lambda r: any(isinstance(c.get("input"), str) for c in calls(r))),
    Predicate("mcp_wrapper", "a CallMcpTool or CallDynamicTool call", record=named("CallMcpTool", "CallDynamicTool")),
    Predicate("ask_question", "an AskQuestion call", record=named("AskQuestion")),
    Predicate("subagent_call", "a Subagent or Task call", record=named("Subagent", "Task")),
    Predicate("background_shell", "a background shell: run_in_background true, or AwaitShell",
              record=lambda r: any(get(c, "input", "run_in_background") is True or c.get("name") == "AwaitShell"
                                   for c in calls(r))),
    Predicate("sidecar_read_back", "a call whose input.path points into agent-tools/",
              record=lambda r: any("/agent-tools/" in (get(c, "input", "path") or "") for c in calls(r)
                                   if isinstance(get(c, "input", "path"), str))),
    Predicate("turn_ended_success", "turn_ended, status success", record=status("success")),
    Predicate("turn_ended_error", "turn_ended, status error", record=status("error")),
    Predicate("turn_ended_aborted", "turn_ended, status aborted", record=status("aborted")),
    Predicate("turn_ended_cancelled", "turn_ended, status cancelled", record=status("cancelled")),
    Predicate("no_turn_ended", "a whole file with no turn_ended frame",
              file=lambda rs: bool(rs) and not any(get(r, "type") == "turn_ended" for r in rs),
              surfaces=("transcript", "transcript_flat", "subagent")),
    Predicate("subagent_with_parent", "a subagents/ child file with its parent transcript",
              file=lambda rs: True, surfaces=("subagent",), with_parent=True),
    Predicate("block_over_30kb", "a block whose payload is over 30 KB",
              record=lambda r: any(json_len(b.get("text") if b.get("type") == "text" else b.get("input")) > 30_000
                                   for b in blocks(r) if isinstance(b, dict))),
)
