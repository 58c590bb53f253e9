"""Cursor agent transcripts: ``~/.cursor/projects/<project>/agent-transcripts/``.

Surfaces (regexes over the path relative to the root):
nested ``<id>/<id>.jsonl`` transcripts, flat ``<id>.jsonl`` transcripts, ``subagents/``
children, legacy plain-text ``<id>.txt`` transcripts (their ``[Tool call] Name`` headings give
a separately labelled value map), and ``agent-tools/<uuid>.txt`` sidecars (counted and
sized, never read out). Everything else in a project folder is ``other``, by extension.
"""

from __future__ import annotations

from survey.runtimes.base import Probe, Profile, Scope, SubagentPairs, Surface
from survey.runtimes.cursor.claims import claims
from survey.runtimes.cursor.notes import NOTES

SEG = r"[^/]+"
BLOCK = "$.message.content[type=tool_use]"

PROFILE = Profile(
    name="cursor",
    title="Cursor agent transcripts",
    default_roots=("~/.cursor/projects",),
    env_roots=("CURSOR_PROJECTS_DIR",),
    surfaces=(
        Surface("transcript", rf"^{SEG}/agent-transcripts/(?P<session>{SEG})/(?P<stem>[^/]+)\.jsonl$",
                description="<id>/<id>.jsonl (nested layout)"),
        Surface("transcript_flat", rf"^{SEG}/agent-transcripts/(?P<session>{SEG})\.jsonl$",
                description="<id>.jsonl (flat layout)"),
        Surface("subagent", rf"^{SEG}/agent-transcripts/(?P<parent>{SEG})/subagents/(?P<session>{SEG})\.jsonl$",
                description="<id>/subagents/<child>.jsonl"),
        Surface("legacy_txt", rf"^{SEG}/agent-transcripts/(?P<session>{SEG})\.txt$", kind="text",
                description="<id>.txt legacy plain-text transcript"),
        Surface("agent_tools", rf"^{SEG}/agent-tools/(?P<session>{SEG})\.txt$", kind="blob",
                description="agent-tools/<uuid>.txt off-transcript tool output"),
    ),
    record_class=("$.type", "$.role"),
    frame_fields={"role": "$.role", "type": "$.type", "status": "$.status"},
    carriers=("message.content",),
    vocab_paths=frozenset({"$.role", "$.type", "$.status", "$.message.content[].type",
                           f"{BLOCK}.name"}),
    withheld_paths=frozenset({f"{BLOCK}.input.server", f"{BLOCK}.input.toolName"}),
    opaque_paths=frozenset({f"{BLOCK}.input.arguments"}),
    markers={
        "text:user_query": ("$.message.content[type=text].text", "<user_query>"),
        "text:user_info": ("$.message.content[type=text].text", "<user_info>"),
        "agent_tools_path": (f"{BLOCK}.input.path", "/agent-tools/"),
        "agent_tools_command": (f"{BLOCK}.input.command", "/agent-tools/"),
        # ApplyPatch's input is a raw string: a patch naming a sidecar (links_sidecar_writes.sql)
        "agent_tools_patch": (f"{BLOCK}.input", "/agent-tools/"),
        "skill_md_path": (f"{BLOCK}.input.path", "SKILL.md"),
    },
    # a subagent file's path names its parent transcript's id (links_subagent_schema.sql)
    subagent_pairs=SubagentPairs(tops=("transcript", "transcript_flat"), children=("subagent",)),
    text_headings={"tool_call": r"^\[Tool call\] (\S+)"},
    scopes=(
        Scope("jsonl", ("**/*.jsonl",), ("*.jsonl",), ("transcript", "transcript_flat", "subagent")),
        Scope("all", ("**",), (), ("*",)),
    ),
    probes=(
        Probe("no_tool_result", ('"tool_result"',), "jsonl", about="tool_result blocks",
              key=None),
        Probe("no_tool_use_id", ('"tool_use_id"',), "jsonl", key="tool_use_id",
              about="a call id on a result"),
        Probe("no_is_error", ('"is_error"',), "jsonl", key="is_error", about="a per-call failure flag"),
        Probe("no_cancelled", ('"cancelled"',), "jsonl", about='status "cancelled"'),
        Probe("no_timestamp", ('"timestamp"', '"createdAt"'), "jsonl", key="timestamp",
              about="timestamps of any kind"),
        Probe("no_usage", ('"usage"',), "jsonl", key="usage", about="token usage"),
        Probe("no_version", ('"version"',), "jsonl", key="version", about="a client version"),
        Probe("no_model_meta", ('"model"',), "jsonl", key="model", key_paths=("$", "$.message"),
              about="a model field outside tool arguments"),
        Probe("marker_user_query", ("<user_query>",), "jsonl", expect="count", about="the text marker <user_query>"),
        Probe("marker_user_info", ("<user_info>",), "jsonl", expect="count", about="the text marker <user_info>"),
        Probe("agent_tools_referenced", ("/agent-tools/",), "jsonl", expect="present",
              about="sidecar read-backs"),
        Probe("marker_ellipsis", ("[...]",), "jsonl", expect="count",
              about="the literal [...]"),
        Probe("marker_truncated", ("[truncated]",), "jsonl", expect="count",
              about="the literal [truncated]"),
    ),
    template="cursor.md.j2",
    claims=claims,
    notes=NOTES,
    synth="survey.synth.cursor",
    fixtures="survey.runtimes.cursor.fixtures",
    # declared shapes: nested key sets (the message object; AskQuestion's questions[] /
    # options[]) and the text markers in text blocks (each beside its raw-text probe)
    nested_keysets={
        "nested_message": ("$.message",),
        "nested_questions": (f"{BLOCK}.input.questions[]", f"{BLOCK}.input.questions[].options[]"),
    },
)
