"""Claude Code session stores: ``~/.claude/projects/<encoded-cwd>/`` (or ``~/.config/claude``).

Surfaces (regexes over the path relative to the root): ``parent`` transcripts
``<cwd>/<sid>.jsonl``; ``subagent`` transcripts ``<sid>/subagents/agent-<id>.jsonl`` with their
``subagent_meta`` (``agent-<id>.meta.json``, one JSON document); workflow agents
``<sid>/subagents/workflows/wf_<id>/agent-<id>.jsonl`` (``workflow_agent``) with their metas
(``workflow_meta``) and a ``journal.jsonl``; persisted tool output
``<sid>/tool-results/<id>.txt`` (``tool_result_txt``, counted and sized, never read out).
Everything else (images, ``memory/*.md`` …) is ``other``, by extension.

The record class is ``type`` or ``type/subtype``. Ids never leave the machine: ``uuid``,
``parentUuid``, ``sessionId``, ``message.id``, ``tool_use`` ids, ``tool_result.tool_use_id``
and a meta's ``toolUseId`` are links (salted pseudonyms), so the DAG checks, the call/result
pairing, the meta join and the usage de-duplication run in SQL. Usage token counts are
numbers; whether ``toolUseResult.persistedOutputPath`` names a file that exists is an
existence check (presence only, never the path). Data-keyed maps (``trackedFileBackups``,
HTTP ``headers``, tool ``input`` objects, whose keys are MCP argument names for MCP tools)
are counted, never described.
"""

from __future__ import annotations

from survey.runtimes.base import Link, Probe, Profile, Scope, SubagentPairs, Surface
from survey.runtimes.claude_code.claims import claims
from survey.runtimes.claude_code.notes import NOTES

SEG = r"[^/]+"
SID = rf"(?P<parent>{SEG})"
TU = "$.message.content[type=tool_use]"
TR = "$.message.content[type=tool_result]"
TRANSCRIPTS = ("parent", "subagent", "workflow_agent")

PROFILE = Profile(
    name="claude_code",
    title="Claude Code session stores",
    default_roots=("~/.claude/projects", "~/.config/claude/projects"),
    env_roots=("CLAUDE_PROJECTS_DIR", "CLAUDE_CONFIG_DIR/projects"),
    surfaces=(
        Surface("parent", rf"^{SEG}/(?P<session>{SEG})\.jsonl$",
                description="<encoded-cwd>/<sid>.jsonl: the session transcript"),
        Surface("subagent", rf"^{SEG}/{SID}/subagents/agent-(?P<session>{SEG})\.jsonl$",
                description="<sid>/subagents/agent-<id>.jsonl: a subagent transcript"),
        Surface("subagent_meta", rf"^{SEG}/{SID}/subagents/agent-{SEG}\.meta\.json$", kind="json",
                description="<sid>/subagents/agent-<id>.meta.json: the subagent's type, description, toolUseId"),
        Surface("workflow_agent",
                rf"^{SEG}/{SID}/subagents/workflows/wf_{SEG}/agent-(?P<session>{SEG})\.jsonl$",
                description="<sid>/subagents/workflows/wf_<id>/agent-<id>.jsonl: a workflow agent"),
        Surface("workflow_meta", rf"^{SEG}/{SID}/subagents/workflows/wf_{SEG}/agent-{SEG}\.meta\.json$",
                kind="json", description="<sid>/subagents/workflows/wf_<id>/agent-<id>.meta.json"),
        Surface("journal", rf"^{SEG}/{SID}/subagents/workflows/wf_{SEG}/journal\.jsonl$",
                description="<sid>/subagents/workflows/wf_<id>/journal.jsonl: started/result records"),
        Surface("tool_result_txt", rf"^{SEG}/{SID}/tool-results/{SEG}\.txt$", kind="blob",
                description="<sid>/tool-results/<id>.txt: persisted (oversized) tool output"),
    ),
    record_class=("$.type", "$.subtype"),
    frame_fields={"type": "$.type", "subtype": "$.subtype", "version": "$.version",
                  "is_sidechain": "$.isSidechain"},
    carriers=("message.content",),
    vocab_paths=frozenset({
        "$.type", "$.subtype", "$.message.role", "$.message.content[].type", f"{TU}.name",
        f"{TR}.is_error", "$.message.stop_reason", "$.toolUseResult.type", "$.toolUseResult.status",
        "$.data.type", "$.attachment.type", "$.operation", "$.userType", "$.permissionMode",
        "$.level", "$.entrypoint", "$.isSidechain",
        "$.version",  # dotted versions pass the gate at a version path: a value map of versions
    }),
    dict_paths=frozenset({
        "$.snapshot.trackedFileBackups",  # keyed by file paths
        "$.error.headers",  # HTTP headers of an API error
        f"{TU}.input",  # MCP tool inputs are keyed by argument names (data)
        "$.message.content[type=server_tool_use].input",
        "$.data.message.message.content[].input",  # tool inputs mirrored in agent_progress
        "$.toolUseResult.structuredContent",
    }),
    links={
        "uuid": "$.uuid",
        "parent_uuid": "$.parentUuid",
        "session": "$.sessionId",
        "message": "$.message.id",
        "tool_use": f"{TU}.id",
        "tool_result": f"{TR}.tool_use_id",
        "meta_tool_use": "$.toolUseId",
    },
    # -- links (evidence/links.py): joins over the ids above
    declared_links=(
        Link("tool_result_pairing", ("user", "tool_result"), ("assistant", "tool_use"), scope="file", expect="unique",
             about="A tool_result's tool_use_id pairs with one tool_use id"),
        Link("parent_uuid_in_file", ("*", "parent_uuid"), ("*", "uuid"), scope="file", expect="all",
             about="A parentUuid names a uuid of the same file"),
        Link("session_id_constant", ("*", "session"), scope="file", expect="constant",
             about="sessionId is one value a file"),
        Link("meta_names_parent_call", ("*", "meta_tool_use"), ("assistant", "tool_use"), scope="corpus",
             expect="all", about="A subagent .meta.json toolUseId names a tool_use of a transcript"),
    ),
    # a subagent or workflow agent's path names its parent transcript's session id
    subagent_pairs=SubagentPairs(tops=("parent",), children=("subagent", "workflow_agent")),
    numbers={
        "input_tokens": "$.message.usage.input_tokens",
        "output_tokens": "$.message.usage.output_tokens",
        "cache_creation_input_tokens": "$.message.usage.cache_creation_input_tokens",
        "cache_read_input_tokens": "$.message.usage.cache_read_input_tokens",
    },
    exists_checks={"persisted": "$.toolUseResult.persistedOutputPath"},
    markers={
        "persisted_marker": (f"{TR}.content", "<persisted-output>"),
        # the empty substring marks every *string* toolUseResult (the text is never read out)
        "tool_use_result_string": ("$.toolUseResult", ""),
        # an MCP tool name (mcp__<server>__<tool>): tells a name withheld by policy from an unreviewed one
        "mcp_tool_name": (f"{TU}.name", "mcp__"),
    },
    scopes=(
        Scope("jsonl", ("**/*.jsonl",), ("*.jsonl",), (*TRANSCRIPTS, "journal")),
        Scope("all", ("**",), (), ("*",)),
    ),
    probes=(
        # "as a key" is counted at any path (key_paths empty): the page names the paths where it was seen
        Probe("no_exit_code", ('"exitCode"',), "jsonl", key="exitCode",
              about="an exit code (exitCode) on any record"),
        Probe("no_exit_code_snake", ('"exit_code"',), "jsonl", key="exit_code",
              about="an exit code (exit_code) on any record"),
        Probe("no_cost", ('"costUSD"',), "jsonl", key="costUSD",
              about="a cost figure on a record"),
        Probe("no_cost_snake", ('"cost_usd"',), "jsonl", key="cost_usd",
              about="a cost figure (cost_usd) on a record"),
        Probe("no_call_id", ('"call_id"',), "jsonl", key="call_id",
              about="a call_id (another runtime's call key)"),
        Probe("no_tool_call_id", ('"tool_call_id"',), "jsonl", key="tool_call_id",
              about="a tool_call_id (another runtime's call key)"),
        Probe("no_session_end", ('"SessionEnd"', '"session_end"'), "jsonl",
              about="a session-end record or hook"),
        Probe("persisted_marker", ("<persisted-output>",), "jsonl", expect="count",
              about="<persisted-output> markers (oversized output moved to tool-results/)"),
        Probe("is_error_true", ('"is_error":true',), "jsonl", expect="count",
              about='"is_error":true on a tool result'),
        Probe("skill_text", ('"Skill"',), "jsonl", expect="count",
              about='"Skill" (the skill tool\'s name) anywhere'),
    ),
    template="claude_code.md.j2",
    claims=claims,
    notes=NOTES,
    synth="survey.synth.claude_code",
    fixtures="survey.runtimes.claude_code.fixtures",
)
