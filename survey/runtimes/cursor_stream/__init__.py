"""Cursor CLI stream-json captures: a folder of ``.jsonl`` files, each the stdout of one
``cursor-agent --print --output-format stream-json`` run (one event a line).

There is no default root on disk (the CLI keeps no captures): ``CURSOR_STREAM_DIR`` or
``--root``, else the demo corpus. Every ``.jsonl`` (or ``.ndjson``) file at any depth is a
``capture``, walked with the generic JSONL walk (LF framing: a plain-text warning is
``malformed``, a capture cut mid-line ``partial``, an empty line ``blank``).

The record class is the event family ``type/subtype`` (``system/init``, ``thinking/delta``,
``tool_call/started`` …; ``user`` and ``assistant`` have no subtype). A ``tool_call`` event
names its variant as the single key of ``$.tool_call`` (``shellToolCall`` …), so the variant is
the key set at that path (keys gated by the reviewed vocabulary); its outcome is the key of
``…result`` beside ``isBackground``. ``call_id`` values that contain a newline are counted by a
marker, never printed.
"""

from __future__ import annotations

from survey.runtimes.base import Link, Probe, Profile, Scope, Surface
from survey.runtimes.cursor_stream.claims import claims
from survey.runtimes.cursor_stream.notes import NOTES

VARIANTS = ("shellToolCall", "readToolCall", "editToolCall", "writeToolCall", "grepToolCall",
            "globToolCall", "deleteToolCall", "lsToolCall", "mcpToolCall", "todoToolCall")

PROFILE = Profile(
    name="cursor_stream",
    title="Cursor CLI stream-json captures",
    default_roots=(),
    env_roots=("CURSOR_STREAM_DIR",),
    surfaces=(
        Surface("capture", r"^(?:.*/)?(?P<session>[^/]+)\.(?:jsonl|ndjson)$",
                description="<name>.jsonl: one stream-json capture"),
    ),
    record_class=("$.type", "$.subtype"),
    frame_fields={"type": "$.type", "subtype": "$.subtype"},
    carriers=("message.content",),
    vocab_paths=frozenset({
        "$.type", "$.subtype", "$.apiKeySource", "$.permissionMode", "$.model", "$.is_error",
        "$.message.role", "$.message.content[].type",
        *(f"$.tool_call.{v}.args.timeoutBehavior" for v in VARIANTS),
        *(f"$.tool_call.{v}.args.outputMode" for v in VARIANTS),
    }),
    dict_paths=frozenset(f"$.tool_call.{v}.result.success.workspaceResults" for v in VARIANTS),
    markers={"call_id_newline": ("$.call_id", "\n")},
    # -- links (evidence/links.py): ids kept as salted pseudonyms, compared in the census
    links={"call_id": "$.call_id", "session_id": "$.session_id"},
    declared_links=(
        Link("tool_call_pairing", ("tool_call/completed", "call_id"), ("tool_call/started", "call_id"),
             scope="file", expect="unique", about="A tool_call/completed event pairs with its started event by call_id"),
        Link("session_id_constant", ("*", "session_id"), scope="file", expect="constant",
             about="session_id is constant within a capture"),
    ),
    scopes=(
        Scope("jsonl", ("**/*.jsonl", "**/*.ndjson"), ("*.jsonl", "*.ndjson"), ("capture",)),
    ),
    probes=(
        Probe("no_usage", ('"usage"',), "jsonl", key="usage", about="token usage"),
        Probe("no_timestamp_iso", ('"timestamp"',), "jsonl", key="timestamp",
              about="a timestamp other than timestamp_ms"),
        Probe("no_version", ('"version"', '"cli_version"'), "jsonl", key="version",
              about="a client version"),
        Probe("no_parent_call", ('"parent_tool_call_id"', '"parent_id"'), "jsonl",
              key="parent_tool_call_id", about="a parent / subagent link on an event"),
        Probe("is_error_true", ('"is_error":true',), "jsonl", expect="count",
              about='"is_error":true on a result'),
    ),
    template="cursor_stream.md.j2",
    claims=claims,
    notes=NOTES,
    synth="survey.synth.cursor_stream",
    fixtures="survey.runtimes.cursor_stream.fixtures",
    # declared shapes: the key sets of nested objects, per event family (the message object,
    # each tool variant's args and result)
    nested_keysets={
        "nested_message": ("$.message",),
        "nested_tool_args": ("tool_call/started|$.tool_call.*.args",),
        "nested_tool_result": ("tool_call/completed|$.tool_call.*.result",),
        "nested_usage": ("$.usage",),
    },
)
