"""What the reference page states about the CLI chat store that the stores alone cannot show
(what a blob means, what the CLI writes while live, which release the shapes came from), each
with its source and, where the census can test it, a check: holds, CONTRADICTED or not
determined.
"""

from __future__ import annotations

from survey.evidence.claims import Evidence, as_int
from survey.evidence.kit import Kit
from survey.runtimes.base import Note

SRC = "cursor-cli-chat-store.md (reference page)"

ROLES = ("system", "user", "assistant", "tool")
ASSISTANT_PARTS = ("text", "reasoning", "thinking", "redacted-reasoning", "tool-call", "image")
RESULT_KEYS = ("type", "toolCallId", "toolName", "result", "isError")
META0_KEYS = ("agentId", "name", "createdAt", "workspacePath", "lastUsedModel", "latestRootBlobId", "mode",
              "approvalMode")
META_JSON_KEYS = ("schemaVersion", "title", "createdAtMs", "updatedAtMs", "hasConversation")


def _keys_within(k: Kit, query: str, col: str, rows: list[dict], listed: tuple[str, ...],
                 what: str) -> tuple[bool | None, Evidence]:
    seen = {x for r in rows for x in (r[col] or "").split(",") if x}
    extra = sorted(seen - set(listed))
    ev = k.ev(query, f"{what}: {len(seen)} observed" + (f"; not in the reference: {', '.join(extra)}" if extra else ""))
    return (None if not seen else not extra), ev


def _content_addressed(k: Kit) -> tuple[bool | None, Evidence]:
    b = k.one("blob_ids")
    rows, bad = as_int(b.get("blob_rows")), as_int(b.get("id_not_sha256"))
    return (None if not rows else not bad), k.ev("blob_ids", f"{bad} of {rows} ids are not sha256(data)")


def _protobuf(k: Kit) -> tuple[bool | None, Evidence]:
    bc = k.rows("blob_classes")
    non = [r for r in bc if not r["json"] and r["status"] != "corrupt"]
    proto = sum(as_int(r["blobs"]) for r in non if r["rclass"] == "blob:protobuf")
    total = sum(as_int(r["blobs"]) for r in non)
    return (None if not total else proto == total), k.ev("blob_classes", f"{proto} of {total} non-JSON blobs parse as protobuf")


def _roles(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {r["role"] for r in k.rows("roles")}
    extra = sorted(seen - set(ROLES))
    ev = k.ev("roles", "roles: " + (", ".join(sorted(seen)) or "none"))
    return (None if not seen else not extra), ev


def _assistant_parts(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {r["part_type"] for r in k.rows("part_keysets") if r["role"] == "assistant"}
    extra = sorted(seen - set(ASSISTANT_PARTS))
    ev = k.ev("part_keysets", "assistant part types: " + (", ".join(sorted(seen)) or "none"))
    return (None if not seen else not extra), ev


def _result_keys(k: Kit) -> tuple[bool | None, Evidence]:
    rows = [r for r in k.rows("part_keysets") if r["part_type"] == "tool-result"]
    return _keys_within(k, "part_keysets", "keyset", rows, RESULT_KEYS, "tool-result keys")


def _user_content(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {r["jtype"] for r in k.rows("content_types") if r["role"] == "user"}
    ev = k.ev("content_types", "user content: " + (", ".join(sorted(seen)) or "none"))
    return (None if not seen else seen <= {"string", "array"}), ev


def _pairing(k: Kit) -> tuple[bool | None, Evidence]:
    j = k.one("call_result_joins")
    n, joined = as_int(j.get("results_with_id")), as_int(j.get("results_joined"))
    return (None if not n else joined == n), k.ev("call_result_joins", f"{joined} of {n} results name a call of their store")


def _missing(k: Kit) -> tuple[bool | None, Evidence]:
    t = k.one("tool_call_ids")
    no_id = as_int(t.get("calls_without_id"))
    no_ie = as_int(t.get("results")) - as_int(t.get("results_with_is_error"))
    return (True if no_id or no_ie else None), k.ev("tool_call_ids", f"calls without id {no_id}; results without isError {no_ie}")


def _meta0(k: Kit) -> tuple[bool | None, Evidence]:
    return _keys_within(k, "meta0_keysets", "keyset", k.rows("meta0_keysets"), META0_KEYS, "meta 0 keys")


def _hex(k: Kit) -> tuple[bool | None, Evidence]:
    enc = {r["encoding"]: as_int(r["stores"]) for r in k.rows("meta0_encoding")}
    return (True if enc.get("hex") else None), k.ev("meta0_encoding", f"hex {enc.get('hex', 0)}, json {enc.get('json', 0)}")


def _meta_json(k: Kit) -> tuple[bool | None, Evidence]:
    return _keys_within(k, "meta_json_keys", "keyset", k.rows("meta_json_keys"), META_JSON_KEYS, "meta.json keys")


def _schema_version(k: Kit) -> tuple[bool | None, Evidence]:
    seen = {str(r["schema_version"]) for r in k.rows("schema_versions")}
    ev = k.ev("schema_versions", "schemaVersion: " + (", ".join(sorted(seen)) or "none"))
    return (None if not seen else seen == {"1"}), ev


def _never(k: Kit) -> tuple[bool | None, Evidence]:
    probes = [k.probe(p) for p in ("no_usage", "no_stop_reason")]
    if not all(p["agree"] for p in probes):
        return None, k.ev_probe("no_usage")
    keyed = [(p.get("structural") or {}).get("files_with_key", 0) for p in probes]
    return (not any(keyed)), k.ev_probe(probes[0 if keyed[0] >= keyed[1] else 1]["id"])


def _prompt_history(k: Kit) -> tuple[bool | None, Evidence]:
    ph = k.one("prompt_history")
    files, arrays = as_int(ph.get("files")), as_int(ph.get("array_files"))
    entries, strings = as_int(ph.get("entries")), as_int(ph.get("string_entries"))
    ev = k.ev("prompt_history", f"arrays {arrays}/{files}; string entries {strings}/{entries}")
    return (None if not files else arrays == files and strings == entries), ev


QUARTER = (0.15, 0.35)  # "roughly a quarter": a share of non-JSON blobs in this band holds


def _quarter(k: Kit) -> tuple[bool | None, Evidence]:
    bc = [r for r in k.rows("blob_classes") if r["rclass"] != "meta:0"]
    total = sum(as_int(r["blobs"]) for r in bc)
    non = sum(as_int(r["blobs"]) for r in bc if not r["json"])
    share = non / total if total else 0.0
    ev = k.ev("blob_classes", f"{non} of {total} blobs are non-JSON ({100.0 * share:.1f}%; "
                              f"held as roughly a quarter between {QUARTER[0]:.0%} and {QUARTER[1]:.0%})")
    return (None if not total else QUARTER[0] <= share <= QUARTER[1]), ev


def _user_query(k: Kit) -> tuple[bool | None, Evidence]:
    """Every user blob holds the <user_query> marker (records counted by the text markers)."""
    users = sum(as_int(r["blobs"]) for r in k.rows("roles") if r["role"] == "user")
    marked = next((as_int(r["records"]) for r in k.rows("text_markers") if r["name"] == "text:user_query"), 0)
    ev = k.ev("text_markers", f"<user_query> in {marked} records; user blobs {users}")
    return (None if not users else marked >= users), ev


NOTES = (
    Note("ref_layout",
         "~/.cursor/chats/<md5(workspace path)>/<session uuid>/ holds store.db (tables blobs and meta), meta.json and "
         "prompt_history.json; store.db-wal/-shm appear while the CLI is live; no environment variable moves the root.",
         SRC),
    Note("ref_content_addressed",
         "blobs(id, data) is content-addressed: id = sha256(data).",
         SRC, _content_addressed),
    Note("ref_conversation",
         "The conversation is the sequence of JSON blobs in rowid order; nothing in the records links or threads them.",
         SRC),
    Note("ref_protobuf",
         "Non-JSON blobs are protobuf-encoded turn-graph state (user message, steps, turns, root) and carry no message.",
         SRC, _protobuf),
    Note("ref_quarter",
         "Roughly a quarter of the blobs of an observed session are non-JSON graph state.",
         SRC, _quarter),
    Note("ref_roles",
         "JSON blobs are messages with role user, assistant or tool (and system prompts).",
         SRC, _roles),
    Note("ref_user_content",
         "A user blob's content is a string or a part array.",
         SRC, _user_content),
    Note("ref_user_query",
         "A user blob's text is wrapped in <user_query>…</user_query>, and blobs whose text holds <user_info> are "
         "editor-injected context, not the user's turn.",
         SRC, _user_query),
    Note("ref_assistant_parts",
         "Assistant blobs hold parts of type text, reasoning/thinking, redacted-reasoning, tool-call and image.",
         SRC, _assistant_parts),
    Note("ref_tool_result",
         "A tool blob holds tool-result parts with toolCallId, toolName, result and isError.",
         SRC, _result_keys),
    Note("ref_pairing",
         "toolCallId pairs a tool-call with its result.",
         SRC, _pairing),
    Note("ref_missing",
         "A tool-call can lack its toolCallId and a result its isError; the reference's reader then mints an id, or "
         "infers the failure from the result's text.",
         SRC, _missing),
    Note("ref_created_at",
         "createdAt is a per-message epoch in milliseconds, and providerOptions.cursor.modelName the model of an "
         "assistant message.",
         SRC),
    Note("ref_meta0",
         'meta key "0" holds the agent record: agentId, name, createdAt, workspacePath, lastUsedModel, '
         "latestRootBlobId, mode, approvalMode.",
         SRC, _meta0),
    Note("ref_meta0_hex",
         'The meta value has been observed hex-encoded; plain JSON is accepted too, which suggests the encoding '
         "drifted between CLI releases.",
         SRC, _hex),
    Note("ref_meta_json",
         "meta.json holds schemaVersion, title, createdAtMs, updatedAtMs and hasConversation.",
         SRC, _meta_json),
    Note("ref_schema_version",
         "The reference's observations are from cursor-agent 2026.06.26 on macOS, sessions with meta.json "
         "schemaVersion 1; the blob shapes may drift with CLI releases.",
         SRC, _schema_version),
    Note("ref_prompt_history",
         "prompt_history.json is an array of the user's prompt strings.",
         SRC, _prompt_history),
    Note("ref_never",
         "stop_reason and usage are never present.",
         SRC, _never),
)
