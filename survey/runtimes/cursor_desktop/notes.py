"""What the reference page states about the desktop store that the store alone cannot show
(what the app's loader needs, what a number means, which release wrote a shape), each with its
source and, where the census can test it, a check: holds, CONTRADICTED or not determined.
"""

from __future__ import annotations

from survey.evidence.claims import Evidence, as_int
from survey.evidence.kit import Kit
from survey.runtimes.base import Note

SRC = "cursor-desktop-store.md (reference page)"

VERSIONS = {"composerData": "17", "bubbleId": "3"}
STATUSES = ("started", "completed", "error")
TOOL_NUMBERS = {"run_terminal_command_v2": "15", "read_file_v2": "40", "ripgrep_raw_search": "41",
                "glob_file_search": "42", "ask_question": "51"}


def _versions(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {(r["kind"], r["v"]) for r in k.rows("versions") if r["kind"] in VERSIONS}
    other = sorted(f"{kd} {v}" for kd, v in seen if VERSIONS[kd] != v)
    ev = k.ev("versions", "observed: " + (", ".join(f"{kd} {v}" for kd, v in sorted(seen)) or "none")
              + (f"; other than the reference: {', '.join(other)}" if other else ""))
    return (None if not seen else not other), ev


def _bubble_types(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {r["type"] for r in k.rows("bubble_types")}
    ev = k.ev("bubble_types", "types observed: " + (", ".join(sorted(seen)) or "none"))
    return (None if not seen else seen <= {"1", "2"}), ev


def _capabilities(k: Kit) -> tuple[bool | None, Evidence]:
    ck = {r["capability_type"]: r for r in k.rows("capability_keys")}
    t, th = ck.get("15"), ck.get("30")
    ev = k.ev("capability_keys", f"15: toolFormerData {t['with_tool_former'] if t else 0}/{t['bubbles'] if t else 0}; "
                                 f"30: thinking {th['with_thinking'] if th else 0}/{th['bubbles'] if th else 0}")
    if not t and not th:
        return None, ev
    ok = ((not t or as_int(t["with_tool_former"]) == as_int(t["bubbles"]))
          and (not th or as_int(th["with_thinking"]) == as_int(th["bubbles"])))
    return ok, ev


def _statuses(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {r["tool_status"] or "<no status>" for r in k.rows("tool_former")}
    extra = sorted(seen - set(STATUSES))
    ev = k.ev("tool_former", "statuses observed: " + (", ".join(sorted(seen)) or "none")
              + (f"; not in the reference: {', '.join(extra)}" if extra else ""))
    return (None if not seen else not extra), ev


def _tool_numbers(k: Kit) -> tuple[bool | None, Evidence]:
    pairs = {(r["tool"], r["tool_name"]) for r in k.rows("tool_numbers")}
    by_number = {v: n for n, v in TOOL_NUMBERS.items()}
    agree = sorted(f"{t} {n}" for t, n in pairs if TOOL_NUMBERS.get(n) == t)
    clash = sorted(f"{t} {n}" for t, n in pairs
                   if (n in TOOL_NUMBERS and TOOL_NUMBERS[n] != t) or (t in by_number and by_number[t] != n))
    ev = k.ev("tool_numbers", f"as the reference: {', '.join(agree) or 'none'}; otherwise: {', '.join(clash) or 'none'}")
    if clash:
        return False, ev
    return (True if agree else None), ev


def _params_string(k: Kit) -> tuple[bool | None, Evidence]:
    rows = [r for r in k.rows("keyset_census")
            if r["rclass"] == "bubbleId" and r["path"] in ("$.toolFormerData.params", "$.toolFormerData.result")]
    types = {f"{r['path'].rsplit('.', 1)[1]}:{r['jtype']}": as_int(r["occurrences"]) for r in rows}
    ev = k.ev("keyset_census", ", ".join(f"{t} {c}" for t, c in sorted(types.items())) or "no params or result")
    if not rows:
        return None, ev
    return all(r["jtype"] == "string" for r in rows), ev


def _signature_only(k: Kit) -> tuple[bool | None, Evidence]:
    th = k.one("thinking")
    n = as_int(th.get("signature_only"))
    return (True if n else None), k.ev("thinking", f"signature only {n}")


def _call_id_newline(k: Kit) -> tuple[bool | None, Evidence]:
    ids = k.one("tool_call_ids")
    n = as_int(ids.get("with_newline"))
    return (True if n else None), k.ev("tool_call_ids", f"{n}/{ids.get('call_ids')} with a newline")


def _never_present(k: Kit) -> tuple[bool | None, Evidence]:
    probes = [k.probe(p) for p in ("no_git_branch", "no_cli_version", "no_stop_reason")]
    if not all(p["agree"] for p in probes):
        return None, k.ev_probe("no_cli_version")
    keyed = [(p.get("structural") or {}).get("files_with_key", 0) for p in probes]
    worst = max(range(3), key=lambda i: keyed[i])
    return (not any(keyed)), k.ev_probe(probes[worst]["id"])


NOTES = (
    Note("ref_key_shape",
         "cursorDiskKV keys are <kind>:<composerId>[:<id>]: composerData:<cid> is a session's state document, "
         "bubbleId:<cid>:<bubbleId> one message, checkpointId:<cid>:<id> a file checkpoint, "
         "composerVirtualRowHeights:<cid> a renderer cache.",
         SRC),
    Note("ref_header_table",
         "composerHeaders holds one row per session and is the app's discovery index; databases from before the "
         "header table (the migration is recorded under composer.composerHeaders.migratedToTable in ItemTable) "
         "are read by scanning composerData: keys instead.",
         SRC),
    Note("ref_order",
         "A session's messages are its bubbleId: rows, in the order composerData.fullConversationHeadersOnly lists "
         "them, and in rowid order when that list is absent; nothing threads bubbles to each other.",
         SRC),
    Note("ref_versions",
         "Shapes are from Cursor 3.16 and 3.17.8: composerData _v 17, bubble _v 3.",
         SRC, _versions),
    Note("ref_bubble_type",
         "A bubble's type is 1 (user) or 2 (assistant).",
         SRC, _bubble_types),
    Note("ref_capability",
         "capabilityType 15 marks a bubble carrying toolFormerData (a tool call and its result); 30 a thinking "
         "bubble ({text, signature}).",
         SRC, _capabilities),
    Note("ref_status",
         "toolFormerData.status is started, completed or error: completed and error carry a result, anything else "
         "is a call in flight.",
         SRC, _statuses),
    Note("ref_tool_numbers",
         "Numeric tool ids: run_terminal_command_v2 is 15, read_file_v2 40, ripgrep_raw_search 41, "
         "glob_file_search 42, ask_question 51.",
         SRC, _tool_numbers),
    Note("ref_params_string",
         "toolFormerData.params is JSON inside a string, and result is the tool's output as a string.",
         SRC, _params_string),
    Note("ref_token_zero",
         "An all-zero tokenCount is the serializer's default, not a measurement.",
         SRC),
    Note("ref_default_model",
         'A modelConfig.modelName of "default" is the model picker\'s placeholder, not a model.',
         SRC),
    Note("ref_thinking_signature",
         "On recent builds thinking.text is often empty and only the provider signature is stored.",
         SRC, _signature_only),
    Note("ref_call_id_newline",
         "A Cursor call id can contain a literal newline.",
         SRC, _call_id_newline),
    Note("ref_never_present",
         "A git branch, a client version and a stop reason are never present.",
         SRC, _never_present),
    Note("ref_agent_kv",
         "agentKv:blob:<sha> cells are a content-addressed model-side request cache shared across sessions; "
         "Cursor 3.16 lists and continues a session with every agentKv blob deleted.",
         SRC),
    Note("ref_sidebar",
         "The Agents sidebar reads glass.localAgentProjects.v1 and glass.localAgentProjectMembership.v1 from "
         "ItemTable: a session absent from the membership map is not listed.",
         SRC),
    Note("ref_live_files",
         "-wal/-shm sidecars sit beside state.vscdb while the app runs; earlier versions kept chat history in "
         "workspaceStorage/<hash>/state.vscdb, and workspaceStorage/<hash>/workspace.json maps a hash to its "
         'folder URI ({"folder": "file:///…"}).',
         SRC),
)
