"""Cursor CLI chat stores: ``~/.cursor/chats/<md5(workspace)>/<session uuid>/``.

Surfaces (regexes over the path relative to the root): ``store.db`` (SQLite, tables
``blobs(id, data)`` and ``meta(key, value)``, read through ``survey.corpus.stores.
read_chat_store``: copied with its ``-wal``/``-shm`` into a private temp folder and opened
read-only there, never in place), its sidecars (``store.db-wal``/``-shm``/``-journal``,
counted and sized), ``meta.json`` (one small JSON document) and ``prompt_history.json`` (a
top-level array of the user's prompts: walked as shape only — element count and types —
never read out). Everything else is ``other``, by extension.

Records of a store: meta key ``"0"`` (``rclass="meta:0"``, its hex-or-plain encoding is a
store fact), then every blob in rowid order: JSON messages by role (``system``, ``user``,
``assistant``, ``tool``; ``<unknown-role>`` / ``<no-role>`` otherwise), non-JSON blobs as
``blob:protobuf`` (parses as top-level protobuf fields) or ``blob:binary``, and JSON-looking
bytes that do not parse as ``blob:json`` with status ``corrupt``. Whether a blob id is
``sha256(data)`` is counted by the reader (store facts), never emitted. Tool-call ids become
salted pseudonyms (``links``) so calls and results join in SQL without an id leaving.
"""

from __future__ import annotations

import os

from survey.runtimes.base import Link, Probe, Profile, Scope, Surface
from survey.runtimes.cursor_chats.claims import claims
from survey.runtimes.cursor_chats.notes import NOTES

SEG = r"[^/]+"
CALL = "$.content[type=tool-call]"
RESULT = "$.content[type=tool-result]"

PROFILE = Profile(
    name="cursor_chats",
    title="Cursor CLI chat stores",
    default_roots=(os.path.join("~", ".cursor", "chats"),),
    env_roots=("CURSOR_CHATS_DIR",),
    surfaces=(
        Surface("store", rf"^{SEG}/(?P<session>{SEG})/store\.db$", kind="sqlite",
                description="<md5>/<uuid>/store.db (SQLite: blobs, meta)"),
        Surface("store_sidecar", rf"^{SEG}/(?P<session>{SEG})/store\.db-(?:wal|shm|journal)$",
                kind="blob", description="store.db-wal / -shm / -journal beside a live store"),
        Surface("meta_json", rf"^{SEG}/(?P<session>{SEG})/meta\.json$", kind="json",
                description="<md5>/<uuid>/meta.json"),
        Surface("prompt_history", rf"^{SEG}/(?P<session>{SEG})/prompt_history\.json$", kind="json",
                description="<md5>/<uuid>/prompt_history.json (array of prompts, shape only)"),
    ),
    record_class=(),
    frame_fields={"role": "$.role"},
    carriers=("content",),
    block_name_key="toolName",
    payload_keys=("text", "args", "result", "data", "image"),
    vocab_paths=frozenset({
        "$.role", "$.content[].type", f"{CALL}.toolName", f"{RESULT}.toolName",
        f"{RESULT}.isError", "$.providerOptions.cursor.modelName", "$.lastUsedModel", "$.mode",
        "$.approvalMode", "$.schemaVersion", "$.hasConversation",
    }),
    dict_paths=frozenset({f"{CALL}.args.env", f"{RESULT}.result"}),
    links={"call_id": f"{CALL}.toolCallId", "result_call_id": f"{RESULT}.toolCallId", "agent_id": "$.agentId"},
    # -- links (evidence/links.py)
    declared_links=(
        Link("agent_id_is_folder", ("meta:0", "agent_id"), ("<path>", "session"), scope="file", expect="all",
             about="meta \"0\"'s agentId is the store folder's UUID"),
        Link("root_blob", ("meta:0", "latestRootBlobId"), ("blob", "id"), scope="store", compared_by="reader",
             about="latestRootBlobId names a blob of the same store"),
        Link("workspace_md5", ("meta:0", "workspacePath"), ("<path>", "workspace folder"), scope="store",
             compared_by="reader",
             about="The workspace folder's name is the MD5 of meta \"0\"'s workspacePath, where it is recorded"),
        Link("result_names_call", ("*", "result_call_id"), ("*", "call_id"), scope="file", expect="all",
             about="A tool-result's toolCallId names a tool-call of the same store"),
    ),
    scopes=(
        Scope("db", ("**/*.db", "**/*.db-wal"), ("*.db", "*.db-wal"), ("store", "store_sidecar")),
        Scope("json", ("**/*.json",), ("*.json",), ("meta_json", "prompt_history")),
    ),
    probes=(
        Probe("no_usage", ('"usage"',), "db", key="usage", about="token usage"),
        Probe("no_stop_reason", ('"stopReason"', '"stop_reason"', '"finishReason"'), "db",
              key="stopReason", about="a stop / finish reason"),
        Probe("is_error_text", ('"isError"',), "db", expect="count", key="isError",
              about="isError on a tool result (raw pages)"),
        Probe("tool_call_id_text", ('"toolCallId"',), "db", expect="count", key="toolCallId",
              about="toolCallId (raw pages)"),
        # no key: the structural figure counts a key at any path of any record, and this probe
        # is about meta.json alone (a blob may carry a "version" of its own)
        Probe("marker_user_query", ("<user_query>",), "db", expect="count", about="the text marker <user_query>"),
        Probe("marker_user_info", ("<user_info>",), "db", expect="count", about="the text marker <user_info>"),
        Probe("marker_workspace_path", ("Workspace Path:",), "db", expect="count",
              about="the text marker Workspace Path:"),
        Probe("marker_redacted", ("[REDACTED]",), "db", expect="count", about="the text marker [REDACTED]"),
        Probe("no_version_meta", ('"version"', '"cliVersion"'), "json",
              about="a client version in meta.json"),
    ),
    template="cursor_chats.md.j2",
    claims=claims,
    notes=NOTES,
    synth="survey.synth.cursor_chats",
    fixtures="survey.runtimes.cursor_chats.fixtures",
    store_reader="survey.corpus.stores.read_chat_store",
    expected_statuses=frozenset({"non_json", "opaque"}),  # protobuf blobs are the format, not damage
    # declared shapes: text markers the reference names (message text: content as a string, a
    # text part's text) and the key sets of nested objects (a tool call's args, per record class)
    markers={**{f"text:{label}": ("$.content", lit) for label, lit in (
        ("user_query", "<user_query>"), ("user_info", "<user_info>"),
        ("workspace_path", "Workspace Path:"), ("redacted", "[REDACTED]"))},
        **{f"text:{label}@part": ("$.content[type=text].text", lit) for label, lit in (
            ("user_query", "<user_query>"), ("user_info", "<user_info>"),
            ("workspace_path", "Workspace Path:"), ("redacted", "[REDACTED]"))}},
    nested_keysets={
        "nested_tool_call_args": (f"{CALL}.args",),
        "nested_tool_result": (RESULT,),
        "nested_provider_options": ("$.providerOptions", "$.providerOptions.cursor"),
        "nested_meta0": ("meta:0|$",),
    },
)
