"""Cursor desktop app: the ``User`` folder and its global ``globalStorage/state.vscdb``.

Root: the Cursor ``User`` directory — ``~/.config/Cursor/User`` (Linux),
``~/Library/Application Support/Cursor/User`` (macOS), ``%APPDATA%/Cursor/User`` (Windows) —
or ``CURSOR_DESKTOP_USER_DIR``. Surfaces: ``state`` (the global SQLite store, read through
``survey.corpus.stores.read_desktop_store`` from a private read-only copy), its sidecars and
backup (counted), ``workspaceStorage/<hash>/workspace.json`` (walked: one key), the older
per-workspace ``state.vscdb`` files (counted, not read). Everything else is ``other``.

Records of the store: each ``composerHeaders`` row's ``value`` (``rclass="composerHeaders"``,
when the table exists), then every ``cursorDiskKV`` row in rowid order with its key kind as
record class (``composerData``, ``bubbleId``, ``checkpointId``, ``messageRequestContext``,
``codeBlockDiff``, ``composerVirtualRowHeights``; other kinds ``<unknown-kind>``). ``agentKv``
cells are counted and sized, never decoded (status ``opaque``). The id parts of keys never
leave the reader. ``ItemTable`` is counted only.

Bubbles have 60-70 top-level keys, so ``max_keys`` is raised above the default: a bubble is a
record, not a data-keyed map. Maps keyed by data (file URIs, bubble ids, model names) are
``dict_paths``: counted, never described.
"""

from __future__ import annotations

import os
import sys

from survey.runtimes.base import Probe, Profile, Scope, Surface
from survey.runtimes.cursor_desktop.claims import claims
from survey.runtimes.cursor_desktop.notes import NOTES

SEG = r"[^/]+"
TFD = "$.toolFormerData"
MENTIONS = ("notepads", "composers", "quotes", "selectedCommits", "selectedPullRequests",
            "selectedImages", "folderSelections", "fileSelections", "terminalFiles", "selections",
            "terminalSelections", "selectedDocs", "externalLinks", "cursorRules", "cursorCommands",
            "uiElementSelections", "consoleLogs")


def _roots() -> tuple[str, ...]:
    linux = os.path.join("~", ".config", "Cursor", "User")
    mac = os.path.join("~", "Library", "Application Support", "Cursor", "User")
    win = os.path.join(os.environ.get("APPDATA") or os.path.join("~", "AppData", "Roaming"), "Cursor", "User")
    if sys.platform == "darwin":
        return (mac, linux)
    if sys.platform.startswith("win"):
        return (win,)
    return (linux,)


PROFILE = Profile(
    name="cursor_desktop",
    title="Cursor desktop store (state.vscdb)",
    default_roots=_roots(),
    env_roots=("CURSOR_DESKTOP_USER_DIR",),
    surfaces=(
        Surface("state", r"^globalStorage/state\.vscdb$", kind="sqlite",
                description="globalStorage/state.vscdb (SQLite: ItemTable, cursorDiskKV[, composerHeaders])"),
        Surface("state_sidecar", r"^globalStorage/state\.vscdb-(?:wal|shm|journal)$", kind="blob",
                description="state.vscdb-wal / -shm / -journal beside a live store"),
        Surface("state_backup", r"^globalStorage/state\.vscdb\.backup$", kind="blob",
                description="globalStorage/state.vscdb.backup (counted, not read)"),
        Surface("workspace_json", rf"^workspaceStorage/(?P<session>{SEG})/workspace\.json$", kind="json",
                description="workspaceStorage/<hash>/workspace.json"),
        Surface("workspace_state", rf"^workspaceStorage/{SEG}/state\.vscdb(?:\.backup|-wal|-shm|-journal)?$",
                kind="blob", description="older per-workspace state.vscdb (counted, not read)"),
    ),
    record_class=(),
    frame_fields={"tool_name": f"{TFD}.name", "tool_status": f"{TFD}.status"},
    carriers=(),
    vocab_paths=frozenset({
        "$._v", "$.type", "$.capabilityType", "$.unifiedMode", "$.status", "$.forceMode",
        f"{TFD}.name", f"{TFD}.tool", f"{TFD}.status", f"{TFD}.userDecision",
        "$.modelInfo.modelName", "$.modelConfig.modelName", "$.isAgentic", "$.isDraft",
        "$.isArchived", "$.capabilities[].type",
    }),
    dict_paths=frozenset({
        "$.codeBlockData", "$.originalFileStates", "$.conversationMap", "$.usageData",
        *(f"$.context.mentions.{m}" for m in MENTIONS),
    }),
    # a result string, marked per record (its text never read): joined to the record's status
    markers={"tool_call_id_newline": (f"{TFD}.toolCallId", "\n"), "tool_result": (f"{TFD}.result", "")},
    # numbers per record (joined to its kind by line_no): _v is shared by composerData and
    # bubbles, the token counts are judged in pairs, the tool id pairs with the tool name
    numbers={"v": "$._v", "tool": f"{TFD}.tool", "input_tokens": "$.tokenCount.inputTokens",
             "output_tokens": "$.tokenCount.outputTokens", "capability": "$.capabilityType"},
    max_keys=160,
    scopes=(
        Scope("vscdb", ("**/*.vscdb", "**/*.vscdb-wal"), ("*.vscdb", "*.vscdb-wal"),
              ("state", "state_sidecar", "workspace_state")),
    ),
    probes=(
        Probe("composer_headers_table", ("CREATE TABLE composerHeaders",), "vscdb", expect="count",
              about="the composerHeaders table's schema text (raw pages)"),
        Probe("no_stop_reason", ('"stopReason"', '"stop_reason"'), "vscdb", key="stopReason",
              about="a stop reason"),
        Probe("no_git_branch", ('"gitBranch"', '"git_branch"'), "vscdb", key="gitBranch",
              about="a git branch"),
        Probe("no_cli_version", ('"cliVersion"', '"clientVersion"'), "vscdb", key="cliVersion",
              about="a client version"),
        Probe("tool_former_text", ('"toolFormerData"',), "vscdb", expect="count", key="toolFormerData",
              about="toolFormerData (raw pages)"),
    ),
    template="cursor_desktop.md.j2",
    claims=claims,
    notes=NOTES,
    synth="survey.synth.cursor_desktop",
    fixtures="survey.runtimes.cursor_desktop.fixtures",
    store_reader="survey.corpus.stores.read_desktop_store",
    expected_statuses=frozenset({"opaque"}),  # agentKv cells: counted, never decoded
    # declared shapes: the key sets of nested objects, per record class (a header's head value,
    # each fullConversationHeadersOnly entry, a tool bubble's toolFormerData)
    nested_keysets={
        "nested_head": ("composerHeaders|$",),
        "nested_conversation_headers": ("composerData|$.fullConversationHeadersOnly[]",),
        "nested_tool_former": (f"bubbleId|{TFD}",),
        "nested_model_config": ("composerData|$.modelConfig",),
    },
    # a tool bubble's toolFormerData as a named block: the tool name at name, its params (a
    # JSON object carried in a string) parsed for its key set per tool name
    named_objects={"bubbleId": ("toolFormerData", "name", "params")},
)
