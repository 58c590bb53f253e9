"""Codex rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``.

The root is ``~/.codex/sessions`` (``$CODEX_HOME/sessions`` when ``CODEX_HOME`` is set; else
``~/.codex/archived_sessions``). Surfaces: ``rollout`` (the dated layout; the filename uuid is
the path id ``session``), ``archived_rollout`` (the flat ``rollout-<ts>-<uuid>.jsonl`` of
``archived_sessions``, when that folder is the root) and ``rollout_unnamed`` (a rollout whose
name carries no uuid). Everything else is ``other``.

Every record is ``{timestamp, type, payload}``; the record class is ``type`` plus
``payload.type`` where the payload has one. Ids leave only as salted pseudonyms, the same
function as the crawl's path ids, so "the filename uuid equals the first ``session_meta``
id" is a join: links on ``payload.id``, ``payload.session_id``, ``payload.call_id`` and
``payload.turn_id``. ``cli_version`` is a frame field (``session_meta`` only), so every
figure can be stratified by the file's first header's version. Numbers: ``ordinal`` and
``subagent_history_start_ordinal`` (inherited history), the cumulative token counter, and
exit codes where a record carries one as a number; markers count exit codes stated as text
in an output, never the output. ``payload.arguments`` strings are JSON documents (a
declared carrier) whose keys are MCP argument names for MCP calls: decoded, they are counted
as maps, never described; so are patch ``changes`` (keyed by file path), MCP
``structuredContent`` and tool-schema ``properties``.
"""

from __future__ import annotations

from survey.runtimes.base import Link, Probe, Profile, Scope, SubagentPairs, Surface
from survey.runtimes.codex.claims import claims
from survey.runtimes.codex.notes import NOTES

UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
TS = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}"
ROLLOUTS = ("rollout", "archived_rollout", "rollout_unnamed")

PROFILE = Profile(
    name="codex",
    title="Codex rollouts",
    default_roots=("~/.codex/sessions", "~/.codex/archived_sessions"),
    env_roots=("CODEX_SESSIONS_DIR", "CODEX_HOME/sessions"),
    surfaces=(
        Surface("rollout", rf"^\d{{4}}/\d{{2}}/\d{{2}}/rollout-{TS}-(?P<session>{UUID})\.jsonl$",
                description="YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl"),
        Surface("archived_rollout", rf"^rollout-{TS}-(?P<session>{UUID})\.jsonl$",
                description="rollout-<ts>-<uuid>.jsonl (archived_sessions, flat)"),
        Surface("rollout_unnamed", r"^(?:\d{4}/\d{2}/\d{2}/)?rollout-[^/]*\.jsonl$",
                description="rollout-*.jsonl without a uuid in its name"),
    ),
    record_class=("$.type", "$.payload.type"),
    frame_fields={"type": "$.type", "ptype": "$.payload.type", "cli_version": "$.payload.cli_version",
                  "name": "$.payload.name", "namespace": "$.payload.namespace",
                  "status": "$.payload.status", "role": "$.payload.role", "phase": "$.payload.phase"},
    carriers=("payload.content",),
    vocab_paths=frozenset({
        "$.type", "$.payload.type", "$.payload.content[].type", "$.payload.role", "$.payload.name",
        "$.payload.namespace", "$.payload.status", "$.payload.phase", "$.payload.source",
        "$.payload.originator", "$.payload.thread_source", "$.payload.model_provider",
        "$.payload.approval_policy", "$.payload.sandbox_policy.type", "$.payload.effort",
        "$.payload.reason", "$.payload.execution", "$.payload.collaboration_mode_kind",
        "$.payload.success", "$.payload.result.Ok.isError",
        "$.payload.cli_version",  # dotted versions pass the gate at a version path: a value map of versions
    }),
    # MCP server (namespace) names: withheld unless --allow-mcp-names
    withheld_paths=frozenset({"$.payload.namespace"}),
    dict_paths=frozenset({
        "$.payload.arguments",  # tool_search / dynamic tool arguments (an object)
        "$.payload.arguments.<json>",  # function_call arguments, decoded: MCP argument names
        "$.payload.invocation.arguments", "$.payload.item.arguments",
        "$.payload.changes", "$.payload.item.changes",  # keyed by file path
        "$.payload.result.Ok.structuredContent", "$.payload.item.result.structuredContent",
        "$.payload.result.Ok._meta", "$.payload.item.result._meta",
        "$.payload.tools[].tools[].parameters.properties", "$.payload.tools[].parameters.properties",
        "$.payload.dynamic_tools[].inputSchema.properties",
        "$.payload.dynamic_tools[].tools[].inputSchema.properties",
        "$.payload.dynamic_tools.tools[].inputSchema.properties",
        "$.payload.final_output_json_schema.properties",
        "$.payload.state.environments.environments",  # keyed by environment name
        "$.payload.statuses",  # keyed by thread id
    }),
    json_carriers=frozenset({"$.payload.arguments"}),
    links={
        "payload_id": "$.payload.id",
        "session_id": "$.payload.session_id",
        "parent_thread": "$.payload.parent_thread_id",
        "call_id": "$.payload.call_id",
        "turn_id": "$.payload.turn_id",
        "new_thread": "$.payload.new_thread_id",
        "agent_thread": "$.payload.agent_thread_id",
    },
    # -- links (evidence/links.py): joins over the ids above
    declared_links=(
        Link("function_output_pairing", ("response_item/function_call_output", "call_id"),
             ("response_item/function_call", "call_id"), scope="file", expect="unique",
             about="A function_call_output pairs with one function_call by call_id"),
        Link("custom_output_pairing", ("response_item/custom_tool_call_output", "call_id"),
             ("response_item/custom_tool_call", "call_id"), scope="file", expect="unique",
             about="A custom_tool_call_output pairs with one custom_tool_call by call_id"),
        Link("child_names_parent", ("session_meta", "parent_thread"), ("session_meta", "payload_id"),
             scope="corpus", expect="all", about="A child's parent_thread_id names a session_meta id"),
        Link("spawn_names_child", ("*", "new_thread"), ("session_meta", "payload_id"), scope="corpus",
             expect="all", about="A spawn's new_thread_id names a session_meta id"),
    ),
    # a child rollout's first session_meta names its parent's id as session_id
    subagent_pairs=SubagentPairs(tops=ROLLOUTS, header=("session_meta", "session_id", "payload_id")),
    numbers={
        "ordinal": "$.ordinal",
        "history_start": "$.payload.subagent_history_start_ordinal",
        "total_tokens": "$.payload.info.total_token_usage.total_tokens",
        "last_total_tokens": "$.payload.info.last_token_usage.total_tokens",
        "last_output_tokens": "$.payload.info.last_token_usage.output_tokens",
        "exit_code": "$.payload.exit_code",
        "item_exit_code": "$.payload.item.exit_code",
    },
    markers={
        "exit_text": ("$.payload.output", "Process exited with code "),
        "exit_text_zero": ("$.payload.output", "Process exited with code 0\n"),
        "exit_prefix": ("$.payload.output", "Exit code: "),
        "exit_prefix_zero": ("$.payload.output", "Exit code: 0\n"),
    },
    scopes=(
        Scope("jsonl", ("**/*.jsonl",), ("*.jsonl",), ROLLOUTS),
        Scope("all", ("**",), (), ("*",)),
    ),
    probes=(
        Probe("no_is_error", ('"is_error"',), "jsonl", key="is_error",
              about="an is_error flag (MCP results carry isError instead)"),
        Probe("no_tool_use_id", ('"tool_use_id"',), "jsonl", key="tool_use_id",
              about="a tool_use_id (calls join by call_id)"),
        Probe("no_uuid_chain", ('"uuid"', '"parentUuid"'), "jsonl", key="parentUuid",
              about="a per-record uuid / parentUuid chain"),
        Probe("no_usage_object", ('"usage"',), "jsonl", key="usage",
              about="a per-message usage object (tokens are token_count events)"),
        Probe("no_record_version", ('"version"',), "jsonl", key="version",
              about="a per-record version (cli_version is on session_meta only)"),
        Probe("exit_code_key", ('"exit_code"',), "jsonl", expect="count", key="exit_code",
              about='"exit_code" as a key (event stream)'),
        Probe("exit_code_text", ("Process exited with code",), "jsonl", expect="count",
              about="exit codes stated as text inside outputs"),
        Probe("skill_md", ("SKILL.md",), "jsonl", expect="count",
              about="SKILL.md mentioned anywhere (skills leave no call type of their own)"),
    ),
    template="codex.md.j2",
    claims=claims,
    notes=NOTES,
    synth="survey.synth.codex",
    fixtures="survey.runtimes.codex.fixtures",
)
