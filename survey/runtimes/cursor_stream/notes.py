"""What the reference page states about the stream-json output that a capture alone cannot show
(what the CLI does at start-up, its exit codes, the families it writes under load), each with
its source and, where the census can test it, a check: holds, CONTRADICTED or not determined.
"""

from __future__ import annotations

from survey.evidence.claims import Evidence, as_int
from survey.evidence.kit import Kit
from survey.runtimes.base import Note

SRC = "cursor-cli-stream-json.txt (reference page)"

FAMILIES = ("system/init", "user", "thinking/delta", "thinking/completed", "assistant", "tool_call/started",
            "tool_call/completed", "result/success", "connection/reconnecting", "connection/reconnected",
            "retry/starting", "retry/resuming")
VARIANTS = ("shellToolCall", "readToolCall", "editToolCall", "writeToolCall", "grepToolCall", "globToolCall",
            "function")
OUTCOMES = ("success", "failure", "rejected")


def _subset(k: Kit, query: str, seen: set[str], listed: tuple[str, ...], what: str) -> tuple[bool | None, Evidence]:
    """Holds when every observed value is one the reference lists; CONTRADICTED by any other;
    not determined when nothing was observed."""
    extra = sorted(seen - set(listed))
    ev = k.ev(query, f"{what} observed: {', '.join(sorted(seen)) or 'none'}"
                     + (f"; not in the reference: {', '.join(extra)}" if extra else ""))
    if not seen:
        return None, ev
    return (not extra), ev


def _families(k: Kit) -> tuple[bool | None, Evidence]:
    return _subset(k, "families", {r["family"] for r in k.rows("families")}, FAMILIES, "families")


def _variants(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {r["variant"] for r in k.rows("tool_call_variants") if r["variant"]}
    return _subset(k, "tool_call_variants", seen, VARIANTS, "variants")


def _outcomes(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {r["outcome"] for r in k.rows("result_outcomes") if r["outcome"]}
    return _subset(k, "result_outcomes", seen, OUTCOMES, "outcomes")


def _newline(k: Kit) -> tuple[bool | None, Evidence]:
    ci = k.rows("call_id_newlines")
    n = sum(as_int(r["call_id_with_newline"]) for r in ci)
    ids = sum(as_int(r["with_call_id"]) for r in ci)
    return (True if n else None), k.ev("call_id_newlines", f"{n}/{ids} call ids with a newline")


def _plain_text(k: Kit) -> tuple[bool | None, Evidence]:
    nj = {r["frame_status"]: as_int(r["lines"]) for r in k.rows("non_json_lines")}
    m = nj.get("malformed", 0)
    return (True if m else None), k.ev("non_json_lines", f"plain-text lines {m}")


def _no_version(k: Kit) -> tuple[bool | None, Evidence]:
    p = k.probe("no_version")
    if not p["agree"]:
        return None, k.ev_probe("no_version")
    keyed = (p.get("structural") or {}).get("files_with_key", 0)
    return (not keyed), k.ev_probe("no_version")


def _usage(k: Kit) -> tuple[bool | None, Evidence]:
    p = k.probe("no_usage")
    hit = (p.get("structural") or {}).get("files_with_key", 0)
    return (True if hit else None), k.ev_probe("no_usage")


NOTES = (
    Note("ref_families",
         "Event families a live CLI writes: system/init, user, thinking/delta, thinking/completed, assistant, "
         "tool_call/started, tool_call/completed, result/success; under load or rate limits also "
         "connection/reconnecting, connection/reconnected, retry/starting and retry/resuming.",
         SRC, _families),
    Note("ref_variants",
         "Tool-call variants: shellToolCall, readToolCall, editToolCall, writeToolCall, grepToolCall, globToolCall, "
         "and a generic function call.",
         SRC, _variants),
    Note("ref_outcomes",
         "A completed tool call's result is one of success, failure (non-zero exit, stderr) or rejected "
         "(denied by Cursor's approval layer).",
         SRC, _outcomes),
    Note("ref_result_success",
         "result.subtype can be success even when tool calls inside the turn failed or were rejected.",
         SRC),
    Note("ref_call_id_newline",
         "tool_call.call_id contains embedded newline characters.",
         SRC, _newline),
    Note("ref_startup_plain_text",
         "Start-up failures (an invalid model, an invalid API key) are written as plain text, not JSON, and the "
         "process exits with code 1; a run that fails under load ends with a non-JSON line too.",
         SRC, _plain_text),
    Note("ref_session_id",
         "The stream's session_id equals the chat UUID that `agent create-chat` returns and `--resume` takes.",
         SRC),
    Note("ref_usage",
         "A result event may carry usage (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens).",
         SRC, _usage),
    Note("ref_version",
         "The stream names no client version; the reference observed binary 2026.02.27-e7d2ef6 by asking the "
         "CLI itself.",
         SRC, _no_version),
)
