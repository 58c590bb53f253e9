"""Seeded generator of a Cursor desktop global store (``User/globalStorage/state.vscdb``).

Layout written under ``root`` (which plays the Cursor ``User`` directory)::

    globalStorage/state.vscdb                 SQLite: ItemTable, cursorDiskKV [, composerHeaders]
    workspaceStorage/<hash>/workspace.json    {"folder": "file:///…"}, one per workspace

Two variants (one store per call): ``with_headers=True`` (or ``variant="modern"``, the default)
writes the ``composerHeaders`` discovery table and the Agents-sidebar ``ItemTable`` keys the
reference page describes; ``with_headers=False`` (``variant="real_like"``) writes what the real
sample shows: no ``composerHeaders`` table and an empty ``ItemTable``.

Design
------
*Shapes come from the real sample first.* The ``cursorDiskKV`` key kinds, the JSON top-level
key sets of every kind (twelve distinct bubble key sets, two ``messageRequestContext`` ones,
``composerData``, ``checkpointId``, ``codeBlockDiff``), the 61-key bubble skeleton with its
empty-collection defaults, ``toolFormerData`` (with ``toolIndex``, ``modelCallId``, ``rawArgs``,
``additionalData``, sometimes ``userDecision``/``attachments``), call ids made of two ids joined
by a newline, ``tokenCount`` all-zero on most bubbles, and signature-only thinking all follow
the real ``state.vscdb``. Where the sample is silent the reference page fills in: the
``composerHeaders`` table (its column set is inferred from the page, not observed),
``agentKv:blob:<sha256>`` opaque cells, ``composerData._v`` 17, the tool vocabulary beyond the
sample's five tools, the ``started``/``error`` statuses. A few things are invented outright to
exercise readers and are named as such in ``planted``: one unknown key kind, one corrupt bubble
cell, a composer without ``fullConversationHeadersOnly`` (ordered by ``rowid``), composers whose
``rowid`` order disagrees with their header list, and an older composer ``_v`` (3) with an
older bubble ``_v`` (2) on the composer that lacks the header list.

*Formats and links, with violations at known rates* (by position, no random draw): a
``composerId`` is a UUID except on every ``NON_UUID_COMPOSER_EVERY``-th composer (32 hex
digits); a tool call carries a ``result`` iff its status is ``completed`` or ``error``, except
every ``RESULT_FLIP_EVERY``-th call (the result dropped, or added to a ``started`` one). Besides
the empty draft (marked ``isDraft`` in its header) one empty composer that is not a draft is
written last, with no header: ``planted["composer_bubbles"]`` counts both.

*Tool params* (a JSON object carried in the ``params`` string, by position, no random draw):
every ``PARAMS_NOT_JSON_EVERY``-th call's ``params`` is its JSON text cut short (not JSON);
``read_file`` / ``read_file_v2`` leave ``offset`` and ``limit`` out on every third call (as
the real sample does on one of its five); the invented ``list_dir`` tool carries no
``params``; ``run_terminal_command_v2``'s params carry a key outside the reviewed vocabulary
(``privateArg``) and a path used as a key (``./.env``, with a canary token when canaries are on).

*Ground truth.* ``planted`` is tallied from the objects as they are built, never by re-reading
the database, so an independent recount in a test checks both sides. Bubble figures cover the
bubble cells that parse as JSON (``bubbles``); ``corrupt_cells`` counts those that do not.

*Canaries.* With ``canaries=True`` every free text, path, tool parameter value, key of a
data-keyed map (``codeBlockData``, ``originalFileStates``, grep ``workspaceResults``, the sidebar
maps) and every composer/bubble id carries a unique ``cnry<12 hex>z`` token from a separate
seeded stream (so structure does not change). Ids therefore carry tokens into the
``cursorDiskKV`` keys too. Exempt: enumerations, numbers, derived hashes (``agentKv`` keys,
``workspaceId`` and the ``workspaceStorage`` folder), and the binary ``agentKv`` cells carry
the token as raw bytes. ``planted["canaries"]`` lists exactly the tokens that were written.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from survey.synth.common import (
    SHORT_WORDS,
    STORE_BASE_DATE,
    SeededText,
    compact_json,
    keyset,
    month_counts,
    scan_canaries,
    spread_date,
    stamp,
)

BASE_DATE = STORE_BASE_DATE
DEFAULT_COMPOSERS = 4
UNKNOWN_KIND = "inlineDiffSnapshot"
"""An invented ``cursorDiskKV`` key kind: a reader must carry unknown kinds, not choke."""

_PAGE = 4096
_CAP_STATUS_KEYS = (
    "mutate-request", "start-submit-chat", "before-submit-chat", "chat-stream-finished",
    "before-apply", "after-apply", "accept-all-edits", "composer-done", "process-stream",
    "add-pending-action",
)
_SUPPORTED_TOOLS = [1, 3, 41, 5, 6, 7, 38, 8, 9, 11, 12, 15, 18, 19, 23, 24, 25, 27, 28, 43,
                    29, 30, 31, 32, 34, 35, 39, 40, 42, 44, 45]
_COMPOSER_CAPS = [30, 34, 15, 22, 18, 19, 33, 32, 23, 6, 16, 24, 25, 21, 31, 29]
_STATUS_CYCLE = ("completed", "completed", "error", "completed", "completed", "started",
                 "completed")
RESULT_FLIP_EVERY = 11
"""Every 11th tool call breaks "a result iff completed or error": a completed or error call
without its result, a started one with a result (no random draw: the other bytes stay)."""
NON_UUID_COMPOSER_EVERY = 4
PARAMS_NOT_JSON_EVERY = 13
"""Every 13th tool call's ``params`` string is its JSON text without the last character."""
"""Every 4th composer (the 4th, 8th, …) has a composerId of 32 hex digits, not a UUID."""
MODELS = ("gpt-5", "claude-4.5-sonnet", "composer-1", "default")

# bubble key order: the 61 keys every real bubble has, in the real order
_BASE_KEYS = (
    "_v", "type", "approximateLintErrors", "lints", "codebaseContextChunks", "commits",
    "pullRequests", "attachedCodeChunks", "assistantSuggestedDiffs", "gitDiffs",
    "interpreterResults", "images", "attachedFolders", "attachedFoldersNew", "bubbleId",
    "userResponsesToSuggestedCodeBlocks", "suggestedCodeBlocks", "diffsForCompressingFiles",
    "relevantFiles", "toolResults", "notepads", "capabilities", "capabilityStatuses",
    "multiFileLinterErrors", "diffHistories", "recentLocationsHistory", "recentlyViewedFiles",
    "isAgentic", "fileDiffTrajectories", "existedSubsequentTerminalCommand",
    "existedPreviousTerminalCommand", "docsReferences", "webReferences", "aiWebSearchResults",
    "requestId", "attachedFoldersListDirResults", "humanChanges", "summarizedComposers",
    "cursorRules", "contextPieces", "editTrailContexts", "allThinkingBlocks",
    "diffsSinceLastApply", "deletedFiles", "supportedTools", "tokenCount",
    "attachedFileCodeChunksMetadataOnly", "consoleLogs", "uiElementPicked", "isRefunded",
    "knowledgeItems", "documentationSelections", "externalLinks", "useWeb", "projectLayouts",
    "unifiedMode", "capabilityContexts", "todos", "createdAt", "isQuickSearchQuery", "text",
)
_BOOL_FALSE = {"existedSubsequentTerminalCommand", "existedPreviousTerminalCommand",
               "isRefunded", "useWeb", "isQuickSearchQuery", "isAgentic"}

# the twelve extras profiles observed on real bubbles (keys beyond the 61-key skeleton)
PROFILES: dict[str, tuple[str, ...]] = {
    "user": ("richText", "editToolSupportsSearchAndReplace", "modelInfo", "isNudge",
             "skipRendering", "isPlanExecution", "context", "checkpointId"),
    "user_ctxwin": ("richText", "editToolSupportsSearchAndReplace", "modelInfo", "isNudge",
                    "contextWindowStatusAtCreation", "skipRendering", "isPlanExecution",
                    "context", "checkpointId"),
    "think_first": ("attachedHumanChanges", "codeBlocks", "modelInfo", "timingInfo",
                    "serverBubbleId", "usageUuid", "capabilityType", "thinking",
                    "thinkingDurationMs"),
    "think": ("attachedHumanChanges", "codeBlocks", "serverBubbleId", "usageUuid",
              "capabilityType", "thinking", "thinkingDurationMs"),
    "text": ("attachedHumanChanges", "usageUuid"),
    "text_files": ("attachedHumanChanges", "usageUuid", "fileLinks"),
    "text_code_symbols": ("attachedHumanChanges", "usageUuid", "codeBlocks", "symbolLinks"),
    "text_symbols": ("attachedHumanChanges", "usageUuid", "symbolLinks"),
    "text_server_symbols": ("attachedHumanChanges", "codeBlocks", "serverBubbleId", "usageUuid",
                            "symbolLinks"),
    "tool": ("attachedHumanChanges", "codeBlocks", "capabilityType", "toolFormerData"),
    "tool_checkpoint": ("attachedHumanChanges", "codeBlocks", "capabilityType",
                        "toolFormerData", "checkpointId"),
    "tool_server": ("attachedHumanChanges", "codeBlocks", "serverBubbleId", "usageUuid",
                    "capabilityType", "toolFormerData"),
}
_TEXT_PROFILES = ("text", "text", "text_files", "text_code_symbols", "text_symbols",
                  "text_server_symbols")
_SHOWCASE = (  # composer 0, first turn: every profile once, every thinking form once
    ("user_ctxwin", None), ("think_first", "signature_only"), ("tool", None),
    ("text_files", None), ("think", "with_text"), ("tool_checkpoint", None),
    ("text_code_symbols", None), ("think", "blank"), ("tool_server", None),
    ("text_symbols", None), ("text_server_symbols", None), ("text", None),
)


class _Gen(SeededText):
    def __init__(self, seed: int, canaries: bool) -> None:
        super().__init__(seed, canaries, f"cursor-desktop-canary-{seed}")
        self.tool_calls = 0

    def id(self) -> str:
        """A uuid; with canaries on it carries a token (ids reach keys and paths)."""
        return self.mark(self.uuid(), "-")

    def relpath(self) -> str:
        return "/".join(self.mark(self.rng.choice(SHORT_WORDS), "-") for _ in range(2)) + ".rs"

    def b64(self, n: int) -> str:
        return base64.b64encode(self.rng.randbytes(n)).decode()


def _uri(fs_path: str, *, with_fs: bool = True) -> dict[str, Any]:
    uri: dict[str, Any] = {"$mid": 1}
    if with_fs:
        uri["fsPath"] = fs_path
    uri.update({"external": f"file://{fs_path}", "path": fs_path, "scheme": "file"})
    return uri


def _rich_text(text: str) -> str:
    node = {"detail": 0, "format": 0, "mode": "normal", "style": "", "text": text,
            "type": "text", "version": 1}
    para = {"children": [node], "direction": "ltr", "format": "", "indent": 0,
            "type": "paragraph", "version": 1}
    return compact_json({"root": {"children": [para], "direction": "ltr", "format": "", "indent": 0,
                            "type": "root", "version": 1}})


def _context(selections: list[dict[str, Any]]) -> dict[str, Any]:
    mentions: dict[str, Any] = {}
    for k in ("notepads", "composers", "quotes", "selectedCommits", "selectedPullRequests"):
        mentions[k] = {}
    mentions.update({"gitDiff": [], "gitDiffFromBranchToMain": [], "selectedImages": {},
                     "useWeb": [], "usePlaywrightMcp": [], "folderSelections": {},
                     "fileSelections": {}, "terminalFiles": {}, "selections": {},
                     "terminalSelections": {}, "selectedDocs": {}, "externalLinks": {},
                     "useLinterErrors": [], "useDiffReview": [], "useGenerateRules": [],
                     "useContextPicking": [], "useRememberThis": [], "diffHistory": [],
                     "cursorRules": {}, "cursorCommands": {}, "autoContext": [],
                     "uiElementSelections": {}, "consoleLogs": {}, "ideEditorsState": []})
    ctx: dict[str, Any] = {k: [] for k in (
        "notepads", "composers", "quotes", "selectedCommits", "selectedPullRequests",
        "selectedImages", "folderSelections")}
    ctx["fileSelections"] = selections
    for k in ("terminalFiles", "selections", "terminalSelections", "selectedDocs",
              "externalLinks", "cursorRules", "cursorCommands", "uiElementSelections",
              "consoleLogs"):
        ctx[k] = []
    ctx["ideEditorsState"] = True
    ctx["mentions"] = mentions
    return ctx


# --------------------------------------------------------------------------- tools


@dataclass
class _ToolSpec:
    name: str
    number: int
    build: Callable[[_Gen, str], tuple[dict[str, Any], dict[str, Any] | None, Any]]


def _t_codebase_search(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    q, ex = g.text(2, 5), g.text(3, 8)
    raw = {"explanation": ex, "query": q, "target_directories": [g.relpath()]}
    params = {"repositoryInfo": {"relativeWorkspacePath": ".", "repoName": g.mark("repo", "-"),
                                 "repoOwner": g.mark("owner", "-"),
                                 "orthogonalTransformSeed": g.rng.getrandbits(50),
                                 "preferredEmbeddingModel": "default"},
              "query": q, "includePattern": g.mark("src/**", "-"), "topK": 15,
              "explanation": ex, "codeResults": []}
    result = {"codeResults": [{"codeBlock": {"relativeWorkspacePath": g.relpath(),
                                             "contents": g.text(5, 20)},
                               "score": round(g.rng.random(), 6)}]}
    return raw, params, result


def _t_grep(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    pat = g.mark(g.rng.choice(SHORT_WORDS))
    raw = {"pattern": pat, "path": ws, "output_mode": "content", "-C": 2, "-i": True}
    params = {"pattern": pat, "path": ws, "outputMode": "content", "context": 2,
              "caseInsensitive": True}
    matches = [{"file": g.relpath(), "line": g.rng.randint(1, 500), "content": g.text(3, 9)}]
    result = {"success": {"pattern": pat, "path": ws, "outputMode": "content",
                          "workspaceResults": {ws: {"content": {
                              "matches": matches, "totalLines": 5, "totalMatchedLines": 1}}}}}
    return raw, params, result


def _t_read_file(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    target = f"{ws}/{g.relpath()}"
    off, lim = g.rng.randint(1, 400), g.rng.randint(20, 120)
    raw = {"target_file": target, "offset": off, "limit": lim}
    params = {"targetFile": target, "offset": off, "limit": lim, "charsLimit": 100000,
              "effectiveUri": f"file://{target}"}
    if g.tool_calls % 3 == 0:  # a whole file: no range (by position, the draws stay)
        del params["offset"], params["limit"]
    result = {"contents": g.text(10, 40), "numCharactersInRequestedRange": g.rng.randint(100, 4000),
              "totalLinesInFile": g.rng.randint(400, 3000)}
    return raw, params, result


def _t_apply_patch(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    rel = g.relpath()
    raw = {"file_path": f"{ws}/{rel}", "patch": g.text(8, 20)}
    params = {"relativeWorkspacePath": rel}
    result = {"diff": {"chunks": [{"diffString": g.text(4, 10), "oldStart": 10, "newStart": 10,
                                   "oldLines": 3, "newLines": 4, "linesRemoved": 1,
                                   "linesAdded": 2}], "editor": "EDITOR_AI"},
              "shouldAutoFixLints": True, "resultForModel": g.text(3, 6)}
    return raw, params, result


def _t_read_lints(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    paths = [g.relpath()]
    result = {"path": paths[0], "linterErrorsByFile": [{"relativeWorkspacePath": paths[0],
                                                         "errors": []}]}
    return {"paths": paths}, {"paths": paths}, result


def _t_terminal(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    cmd = g.mark(f"{g.rng.choice(SHORT_WORDS)} --{g.rng.choice(SHORT_WORDS)}")
    return ({"command": cmd, "is_background": False},
            {"command": cmd, "cwd": ws, "options": {"timeout": 30000}, "privateArg": True, g.mark("./.env", "-"): 1},
            g.text(3, 20))


def _t_glob(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    pat = g.mark("**/*.rs", "-")
    return ({"glob_pattern": pat}, {"globPattern": pat, "targetDirectory": ws},
            {"files": [g.relpath() for _ in range(2)]})


def _t_ask(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    q = g.text(3, 8)
    return {"question": q}, {"question": q, "options": [g.text(1, 3), g.text(1, 3)]}, g.text(1, 3)


def _t_list_dir(g: _Gen, ws: str) -> tuple[dict[str, Any], dict[str, Any] | None, Any]:
    return {"target_directory": ws}, None, {"files": [g.relpath() for _ in range(2)]}


_GREP_TOOLS = ("grep", "ripgrep_raw_search")
TOOLS: tuple[_ToolSpec, ...] = (
    # seen in the real sample
    _ToolSpec("codebase_search", 9, _t_codebase_search),
    _ToolSpec("read_lints", 30, _t_read_lints),
    _ToolSpec("apply_patch", 38, _t_apply_patch),
    _ToolSpec("read_file", 40, _t_read_file),
    _ToolSpec("grep", 41, _t_grep),
    # named by the reference page only
    _ToolSpec("run_terminal_command_v2", 15, _t_terminal),
    _ToolSpec("read_file_v2", 40, _t_read_file),
    _ToolSpec("ripgrep_raw_search", 41, _t_grep),
    _ToolSpec("glob_file_search", 42, _t_glob),
    _ToolSpec("ask_question", 51, _t_ask),
    # invented: a tool whose calls carry no params
    _ToolSpec("list_dir", 39, _t_list_dir),
)


# --------------------------------------------------------------------------- tally


@dataclass
class _Tally:
    key_kinds: Counter[str] = field(default_factory=Counter)
    keysets: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    composer_v: Counter[str] = field(default_factory=Counter)
    bubble_v: Counter[str] = field(default_factory=Counter)
    bubble_types: Counter[str] = field(default_factory=Counter)
    capability_types: Counter[str] = field(default_factory=Counter)
    tool_names: Counter[str] = field(default_factory=Counter)
    tool_numbers: dict[str, int] = field(default_factory=dict)
    tool_statuses: Counter[str] = field(default_factory=Counter)
    tool_former_keysets: Counter[str] = field(default_factory=Counter)
    tool_call_id_with_newline: int = 0
    thinking: Counter[str] = field(default_factory=Counter)
    token_count_all_zero: int = 0
    bubbles: int = 0
    corrupt_cells: int = 0
    ordering: Counter[str] = field(default_factory=Counter)
    rowid_order_differs: int = 0
    drafts: int = 0
    data_keyed_maps: int = 0
    tool_results: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def cell(self, key: str, obj: dict[str, Any] | None) -> None:
        kind = key.split(":", 1)[0]
        self.key_kinds[kind] += 1
        if obj is not None:
            self.keysets[kind][keyset(obj)] += 1

    def bubble(self, obj: dict[str, Any]) -> None:
        self.bubbles += 1
        self.bubble_v[str(obj["_v"])] += 1
        self.bubble_types[str(obj["type"])] += 1
        cap = obj.get("capabilityType")
        self.capability_types["absent" if cap is None else str(cap)] += 1
        if not any(obj["tokenCount"].values()):
            self.token_count_all_zero += 1
        if "thinking" in obj:
            t = obj["thinking"]
            form = "with_text" if t["text"].strip() else (
                "signature_only" if t["signature"] else "blank")
            self.thinking[form] += 1
        tfd = obj.get("toolFormerData")
        if tfd is not None:
            self.tool_names[tfd["name"]] += 1
            self.tool_numbers[tfd["name"]] = tfd["tool"]
            self.tool_statuses[tfd["status"]] += 1
            self.tool_former_keysets[keyset(tfd)] += 1
            self.tool_call_id_with_newline += "\n" in tfd["toolCallId"]
            self.tool_results[tfd["status"]]["calls"] += 1
            self.tool_results[tfd["status"]]["with_result"] += "result" in tfd
            if tfd["name"] in _GREP_TOOLS and tfd["status"] == "completed" and "result" in tfd:
                self.data_keyed_maps += 1  # result.success.workspaceResults is keyed by path


# --------------------------------------------------------------------------- composers


@dataclass
class _Composer:
    cid: str
    workspace: str
    created: int
    composer_v: int
    bubble_v: int
    headers: bool
    shuffle: bool
    corrupt: bool
    showcase: bool
    draft: bool = False
    empty: bool = False  # no bubble ever written, and not marked as a draft
    rows: list[tuple[str, str | bytes]] = field(default_factory=list)
    name: str = ""
    updated: int = 0


def _bubble_skeleton(g: _Gen, btype: int, bid: str, created_iso: str,
                     bubble_v: int) -> dict[str, Any]:
    b: dict[str, Any] = {}
    for k in _BASE_KEYS:
        if k in _BOOL_FALSE:
            b[k] = False
        elif k == "capabilityStatuses":
            b[k] = {s: [] for s in _CAP_STATUS_KEYS}
        else:
            b[k] = []
    b.update({"_v": bubble_v, "type": btype, "bubbleId": bid, "requestId": "",
              "tokenCount": {"inputTokens": 0, "outputTokens": 0}, "unifiedMode": 2,
              "createdAt": created_iso, "text": ""})
    if btype == 1:
        b["isAgentic"] = True
        b["requestId"] = g.uuid()
        b["supportedTools"] = list(_SUPPORTED_TOOLS)
        b["attachedFileCodeChunksMetadataOnly"] = [{
            "relativeWorkspacePath": g.relpath(), "startLineNumber": 1, "lines": [],
            "languageIdentifier": "", "intent": 8, "isOnlyIncludedFromFolder": False}]
    return b


def _make_bubble(g: _Gen, comp: _Composer, profile: str, thinking_form: str | None,
                 created_iso: str, model: str, extra_rows: list[tuple[str, str]],
                 tally: _Tally) -> dict[str, Any]:
    rng = g.rng
    btype = 1 if profile.startswith("user") else 2
    bid = g.id()
    b = _bubble_skeleton(g, btype, bid, created_iso, comp.bubble_v)
    extras: dict[str, Any] = {}
    if btype == 1:
        prompt = g.text(4, 16)
        b["text"] = prompt
        cp_id = g.uuid()
        extras.update({
            "richText": _rich_text(prompt), "editToolSupportsSearchAndReplace": True,
            "modelInfo": {"modelName": model}, "isNudge": False,
            "contextWindowStatusAtCreation": {"percentageRemaining": 88,
                                              "percentageRemainingFloat": 88.5,
                                              "tokensUsed": rng.randint(1000, 90000),
                                              "tokenLimit": 272000},
            "skipRendering": False, "isPlanExecution": False,
            "context": _context([]), "checkpointId": cp_id,
        })
        extra_rows.append((f"checkpointId:{comp.cid}:{cp_id}", compact_json(_checkpoint(g, comp))))
        mrc = _request_context(g, comp, with_chunks=rng.random() < 0.4)
        extra_rows.append((f"messageRequestContext:{comp.cid}:{bid}", compact_json(mrc)))
    else:
        extras.update({"attachedHumanChanges": False, "codeBlocks": [],
                       "modelInfo": {"modelName": model},
                       "timingInfo": {"clientStartTime": round(rng.uniform(1e7, 9e7), 1),
                                      "clientRpcSendTime": comp.created,
                                      "clientSettleTime": comp.created + 1000,
                                      "clientEndTime": comp.created + 1000},
                       "serverBubbleId": g.uuid(), "usageUuid": g.uuid(),
                       "fileLinks": [g.relpath()], "symbolLinks": [g.mark("Sym", "_")]})
        if thinking_form is not None:
            sig = g.b64(60) if thinking_form != "blank" else ""
            extras["capabilityType"] = 30
            extras["thinking"] = {"text": g.text(5, 30) if thinking_form == "with_text" else "",
                                  "signature": sig}
            extras["thinkingDurationMs"] = rng.randint(500, 30000)
        elif profile.startswith("tool"):
            extras["capabilityType"] = 15
            extras["toolFormerData"] = _tool_former(g, comp, extras, extra_rows)
            extras["checkpointId"] = g.uuid()
            if profile == "tool_checkpoint":
                extra_rows.append((f"checkpointId:{comp.cid}:{extras['checkpointId']}",
                                   compact_json(_checkpoint(g, comp))))
        else:
            b["text"] = g.text(6, 30)
            if profile != "text" and rng.random() < 0.5:
                extras["codeBlocks"] = [{"uri": _uri(f"{comp.workspace}/{g.relpath()}"),
                                         "codeblockId": g.uuid(), "codeBlockIdx": 0,
                                         "content": g.text(10, 30), "languageId": "rust"}]
    for k in PROFILES[profile]:
        b[k] = extras[k]
    if btype == 2 and rng.random() < 0.08:
        b["tokenCount"] = {"inputTokens": rng.randint(1, 9000), "outputTokens": rng.randint(1, 900)}
    tally.bubble(b)
    return b


def _tool_former(g: _Gen, comp: _Composer, extras: dict[str, Any],
                 extra_rows: list[tuple[str, str]]) -> dict[str, Any]:
    rng = g.rng
    spec = TOOLS[g.tool_calls % len(TOOLS)]  # round-robin: every tool and status shows up
    status = _STATUS_CYCLE[g.tool_calls % len(_STATUS_CYCLE)]
    flip = g.tool_calls % RESULT_FLIP_EVERY == RESULT_FLIP_EVERY - 1
    g.tool_calls += 1
    raw, params, result = spec.build(g, comp.workspace)
    first = g.mark("call_" + g.alnum(29), "")
    call_id = first + ("\nfc_" + g.alnum(50) if rng.random() < 0.9 else "")
    head: list[tuple[str, Any]] = [("tool", spec.number)]
    order = (("toolCallId", call_id), ("toolIndex", rng.randint(1, 3)),
             ("modelCallId", g.uuid()))
    head += list(order) if rng.random() < 0.5 else [order[1], order[2], order[0]]
    tfd: dict[str, Any] = dict(head)
    tfd.update({"status": status, "rawArgs": compact_json(raw), "name": spec.name})
    if params is not None:
        text = compact_json(params)
        tfd["params"] = text[:-1] if g.tool_calls % PARAMS_NOT_JSON_EVERY == 0 else text
    tfd["additionalData"] = {}
    if spec.name == "apply_patch" and params is not None:
        block_id = g.uuid()
        tfd["additionalData"] = {"codeblockId": block_id, "reviewData": {
            "status": "Done", "selectedOption": "accept", "isShowingInput": False,
            "firstTimeReviewMode": False}}
        tfd["userDecision"] = "accepted"
        extra_rows.append((f"codeBlockDiff:{comp.cid}:{g.uuid()}", compact_json(_code_block_diff(g))))
        extras["codeBlocks"] = [{"uri": {"scheme": "file", "authority": "",
                                         "path": f"{comp.workspace}/{params['relativeWorkspacePath']}",
                                         "query": "", "fragment": "",
                                         "_formatted": f"file://{comp.workspace}",
                                         "_fsPath": comp.workspace},
                                 "codeblockId": block_id, "codeBlockIdx": 0,
                                 "content": g.text(20, 60), "languageId": "rust"}]
    if rng.random() < 0.1:
        tfd["attachments"] = compact_json({"shouldShowTodoWriteReminder": True,
                                     "todoReminderType": "TODO_REMINDER_TYPE_DEFAULT"})
    if status == "completed":
        tfd["result"] = result if isinstance(result, str) else compact_json(result)
    elif status == "error":
        tfd["result"] = g.mark("Error: " + g.words(2, 6))
    if flip:  # the result and the status disagree (drawn either way: the other bytes stay)
        if "result" in tfd:
            del tfd["result"]
        else:
            tfd["result"] = result if isinstance(result, str) else compact_json(result)
    return tfd


def _checkpoint(g: _Gen, comp: _Composer) -> dict[str, Any]:
    f: dict[str, Any] = {"uri": _uri(f"{comp.workspace}/{g.relpath()}", with_fs=False)}
    if g.rng.random() < 0.5:
        f["isNewlyCreated"] = False
    f["originalModelDiffWrtV0"] = [{"original": {"startLineNumber": 3, "endLineNumberExclusive": 4},
                                    "modified": [g.text(2, 6)]}]
    return {"files": [f], "nonExistentFiles": [], "newlyCreatedFolders": [],
            "activeInlineDiffs": [], "inlineDiffNewlyCreatedResources": {"files": [], "folders": []}}


def _code_block_diff(g: _Gen) -> dict[str, Any]:
    def side() -> list[dict[str, Any]]:
        start = g.rng.randint(1, 400)
        return [{"original": {"startLineNumber": start, "endLineNumberExclusive": start + 1},
                 "modified": [g.text(2, 8)]}]
    return {"newModelDiffWrtV0": side(), "originalModelDiffWrtV0": side()}


def _request_context(g: _Gen, comp: _Composer, *, with_chunks: bool) -> dict[str, Any]:
    rel = g.relpath()
    ctx: dict[str, Any] = {
        "multiFileLinterErrors": [], "terminalFiles": [], "cursorRules": [],
        "attachedFoldersListDirResults": [], "summarizedComposers": [],
        "currentFileLocationData": compact_json({"relativeWorkspacePath": rel, "lineNumber": 12,
                                           "text": g.text(2, 6)}),
        "deletedFiles": [], "diffsSinceLastApply": [],
        "gitStatusRaw": g.mark("On branch " + g.rng.choice(SHORT_WORDS)), "todos": [],
    }
    if with_chunks:
        ctx["attachedFileCodeChunksMetadataOnly"] = [{
            "relativeWorkspacePath": rel, "startLineNumber": 1, "lines": [],
            "languageIdentifier": "", "intent": 1, "isOnlyIncludedFromFolder": False}]
    ctx["projectLayouts"] = [compact_json({"rootPath": comp.workspace, "entries": {}})]
    ctx["knowledgeItems"] = []
    ctx["ideEditorsState"] = compact_json({"visibleFiles": [{"relativePath": rel,
                                                       "isCurrentlyFocused": True,
                                                       "absolutePath": f"{comp.workspace}/{rel}"}]})
    return ctx


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _plan(g: _Gen, comp: _Composer) -> list[tuple[str, str | None]]:
    rng = g.rng
    plan: list[tuple[str, str | None]] = []
    turns = rng.randint(1, 3)
    for t in range(turns):
        if comp.showcase and t == 0:
            plan += list(_SHOWCASE)
            continue
        plan.append(("user_ctxwin" if rng.random() < 0.2 else "user", None))
        plan.append(("think_first", rng.choice(("signature_only", "with_text", "with_text"))))
        for _ in range(rng.randint(0, 4)):
            plan.append((rng.choice(("tool", "tool", "tool", "tool_server", "tool_checkpoint")), None))
            if rng.random() < 0.3:
                plan.append(("think", rng.choice(("signature_only", "with_text", "blank"))))
        plan.append((rng.choice(_TEXT_PROFILES), None))
    return plan


def _build_composer(g: _Gen, comp: _Composer, tally: _Tally) -> None:
    rng = g.rng
    model = rng.choice(MODELS[:3])
    comp.name = g.text(2, 6)
    t = comp.created
    bubbles: list[tuple[str, str, dict[str, Any] | None]] = []  # (key, cell, parsed object)
    first_rows: list[tuple[str, str | bytes]] = []
    later_rows: list[tuple[str, str | bytes]] = []
    plan = [] if comp.draft or comp.empty else _plan(g, comp)
    for i, (profile, form) in enumerate(plan):
        t += rng.randint(1500, 90_000)
        extra: list[tuple[str, str]] = []
        b = _make_bubble(g, comp, profile, form, _iso(t), model, extra, tally)
        bubbles.append((f"bubbleId:{comp.cid}:{b['bubbleId']}", compact_json(b), b))
        for k, v in extra:
            tally.cell(k, json.loads(v))
        (first_rows if i == 0 else later_rows).extend(extra)
    comp.updated = t
    if comp.corrupt and bubbles:
        # JSON cut short just after its bubbleId (so a canary-mode cell still holds a token)
        whole = bubbles[len(bubbles) // 2][1]
        cut = whole.index('"userResponsesToSuggestedCodeBlocks"') + rng.randint(0, 200)
        bad = (f"bubbleId:{comp.cid}:{g.id()}", whole[:cut], None)
        bubbles.insert(len(bubbles) // 2 + 1, bad)
        tally.corrupt_cells += 1
    headers: list[dict[str, Any]] = []
    for key, _cell, obj in bubbles:
        tally.cell(key, obj)
        h: dict[str, Any] = {"bubbleId": key.rsplit(":", 1)[1], "type": 2 if obj is None else obj["type"]}
        if obj is not None and "serverBubbleId" in obj:
            h["serverBubbleId"] = obj["serverBubbleId"]
        headers.append(h)
    insert_order = list(bubbles)
    if comp.shuffle and len(insert_order) > 3:
        a, b2 = 1, len(insert_order) - 1
        insert_order[a], insert_order[b2] = insert_order[b2], insert_order[a]
        tally.rowid_order_differs += 1
    data = _composer_data(g, comp, headers, model)
    if not comp.headers:
        del data["fullConversationHeadersOnly"]
    tally.ordering["headers" if comp.headers else "rowid"] += 1
    tally.composer_v[str(comp.composer_v)] += 1
    tally.cell(f"composerData:{comp.cid}", data)
    tally.data_keyed_maps += bool(data["codeBlockData"]) + bool(data["originalFileStates"])
    rows: list[tuple[str, str | bytes]] = list(first_rows)
    if insert_order:
        rows.append((insert_order[0][0], insert_order[0][1]))
    rows.append((f"composerData:{comp.cid}", compact_json(data)))
    rows += [(key, cell) for key, cell, _ in insert_order[1:]]
    rows += later_rows
    if comp.showcase:
        mrc = _request_context(g, comp, with_chunks=False)
        key = f"messageRequestContext:{comp.cid}:WARM_SUBMIT"
        rows.insert(0, (key, compact_json(mrc)))
        tally.cell(key, mrc)
        unknown = {"entries": [{"path": g.relpath(), "note": g.text(2, 5)}], "version": 1}
        key = f"{UNKNOWN_KIND}:{comp.cid}"
        rows.append((key, compact_json(unknown)))
        tally.cell(key, unknown)
    comp.rows = rows


def _composer_data(g: _Gen, comp: _Composer, headers: list[dict[str, Any]],
                   model: str) -> dict[str, Any]:
    rng = g.rng
    file_path = f"{comp.workspace}/{g.relpath()}"
    file_uri = f"file://{file_path}"
    idle = comp.draft or comp.empty
    edited = not idle and rng.random() < 0.7
    code_block_data: dict[str, Any] = {}
    original_states: dict[str, Any] = {}
    if edited:
        block_id = g.uuid()
        code_block_data = {file_uri: {block_id: {
            "_v": 3, "bubbleId": headers[-1]["bubbleId"] if headers else g.uuid(),
            "codeBlockIdx": 0, "uri": _uri(file_path), "codeblockId": block_id,
            "status": "accepted", "languageId": "rust", "codeBlockDisplayPreference": "collapsed",
            "createdAt": comp.created, "diffId": g.uuid(), "lastDiffId": g.uuid(),
            "lastAppliedAt": comp.updated}}}
        original_states = {file_uri: {"content": g.text(20, 60),
                                      "firstEditBubbleId": g.uuid(), "isNewlyCreated": False,
                                      "newlyCreatedFolders": []}}
    caps: list[dict[str, Any]] = [{"type": c, "data": {}} for c in _COMPOSER_CAPS]
    caps[2]["data"] = {"bubbleDataMap": "{}"}
    return {
        "_v": comp.composer_v, "composerId": comp.cid,
        "richText": compact_json({"root": {"children": [{"children": [], "format": "", "indent": 0,
                                                   "type": "paragraph", "version": 1}],
                                     "format": "", "indent": 0, "type": "root", "version": 1}}),
        "hasLoaded": True, "text": "", "fullConversationHeadersOnly": headers,
        "conversationMap": {}, "status": "none" if idle else "completed",
        "context": _context([{"uri": _uri(file_path), "addedWithoutMention": True}]),
        "gitGraphFileSuggestions": [], "generatingBubbleIds": [], "isReadingLongFile": False,
        "codeBlockData": code_block_data, "originalFileStates": original_states,
        "newlyCreatedFiles": [], "newlyCreatedFolders": [], "lastUpdatedAt": comp.updated,
        "createdAt": comp.created, "hasChangedContext": edited,
        "activeTabsShouldBeReactive": True, "capabilities": caps, "name": comp.name,
        "isFileListExpanded": False, "browserChipManuallyDisabled": False,
        "browserChipManuallyEnabled": False, "unifiedMode": "agent", "forceMode": "edit",
        "usageData": {}, "contextUsagePercent": round(rng.uniform(1, 60), 6),
        "contextTokensUsed": rng.randint(1000, 150000), "contextTokenLimit": 272000,
        "allAttachedFileCodeChunksUris": [file_uri],
        "modelConfig": {"modelName": "default" if idle else model, "maxMode": False},
        "subComposerIds": [], "capabilityContexts": [], "todos": [],
        "isTodoListExpanded": False, "isQueueExpanded": True, "hasUnreadMessages": False,
        "gitHubPromptDismissed": False, "totalLinesAdded": rng.randint(0, 40) if edited else 0,
        "totalLinesRemoved": rng.randint(0, 20) if edited else 0, "addedFiles": 0,
        "removedFiles": 0, "isArchived": False, "isCreatingWorktree": False,
        "isApplyingWorktree": False, "pendingCreateWorktree": False, "isSpec": False,
        "isSpecSubagentDone": False, "speculativeSummarizationEncryptionKey": g.b64(32),
        "latestChatGenerationUUID": g.uuid(), "isAgentic": True, "subtitle": g.text(1, 4),
    }


# --------------------------------------------------------------------------- generate


def generate(
    root: Path,
    *,
    seed: int = 7,
    sessions: int | None = None,
    target_bytes: int | None = None,
    canaries: bool = False,
    with_headers: bool = True,
    variant: str | None = None,
) -> dict[str, Any]:
    """Write one ``state.vscdb`` (plus ``workspace.json`` files) under ``root``.

    ``sessions`` is the number of composers with bubbles (default 4; one empty draft composer
    is always added). ``target_bytes`` keeps adding composers until the cells hold that many
    bytes. ``with_headers`` (default True) writes the ``composerHeaders`` table; ``variant``
    names the same choice and wins when given: ``"modern"`` (present) or ``"real_like"``
    (absent, like the real sample).
    """
    if variant not in (None, "modern", "real_like"):
        raise ValueError(f"unknown variant {variant!r}")
    if variant == "modern" and not with_headers:
        raise ValueError("variant='modern' asks for composerHeaders, with_headers=False refuses it")
    headers_table = with_headers if variant is None else variant == "modern"

    root = Path(root)
    g = _Gen(seed, canaries)
    rng = g.rng
    tally = _Tally()
    workspaces = ["/" + "/".join(g.mark(w, "-") for w in ("Users", "dev", rng.choice(SHORT_WORDS)))
                  for _ in range(2)]
    n_target = DEFAULT_COMPOSERS if sessions is None else sessions
    composers: list[_Composer] = []
    not_uuid = 0  # composers given a composerId that is not a UUID
    cell_bytes = 0
    i = 0
    while i < n_target or (target_bytes is not None and cell_bytes < target_bytes):
        when = spread_date(rng, i, step=29, jitter=12, minutes=900)
        cid = g.id()
        if i % NON_UUID_COMPOSER_EVERY == NON_UUID_COMPOSER_EVERY - 1:
            cid = cid.replace("-", "")
            not_uuid += 1
        comp = _Composer(
            cid=cid, workspace=workspaces[i % len(workspaces)],
            created=int(when.timestamp() * 1000),
            composer_v=(10, 17, 3)[i % 3], bubble_v=2 if i % 3 == 2 else 3,
            headers=i % 3 != 2, shuffle=i % 3 == 1, corrupt=i == 1, showcase=i == 0)
        _build_composer(g, comp, tally)
        cell_bytes += sum(len(k) + len(v) for k, v in comp.rows)
        composers.append(comp)
        i += 1
    draft_when = BASE_DATE + timedelta(days=rng.randint(0, 200))
    draft = _Composer(cid=g.id(), workspace=workspaces[0],
                      created=int(draft_when.timestamp() * 1000), composer_v=10, bubble_v=3,
                      headers=True, shuffle=False, corrupt=False, showcase=False, draft=True)
    _build_composer(g, draft, tally)
    tally.drafts += 1
    composers.append(draft)

    # agentKv: content-addressed opaque blobs, commingled across composers
    kv_rows: list[tuple[str, str | bytes]] = []
    for _ in range(2 + len(composers)):
        payload = b"\x0a" + rng.randbytes(rng.randint(40, 400))
        if canaries:
            payload += g.canary().encode()
        key = f"agentKv:blob:{hashlib.sha256(payload).hexdigest()}"
        kv_rows.append((key, payload))
        tally.cell(key, None)

    rows: list[tuple[str, str | bytes]] = []
    for n, comp in enumerate(composers):
        rows += comp.rows
        rows += kv_rows[n::len(composers)]

    item_rows: list[tuple[str, str]] = []
    if headers_table:
        projects = {ws: {"id": g.uuid(), "name": g.text(1, 3), "createdAt": composers[0].created}
                    for ws in workspaces}
        membership = {c.cid: projects[c.workspace]["id"] for c in composers}
        item_rows = [("glass.localAgentProjects.v1", compact_json(projects)),
                     ("glass.localAgentProjectMembership.v1", compact_json(membership))]
        tally.data_keyed_maps += 2
    # an empty composer, not a draft: opened and never used. Built last (its draws move no
    # other byte), it has no header and no sidebar membership
    empty = _Composer(cid=g.id(), workspace=workspaces[1], created=draft.created + 60_000, composer_v=17,
                      bubble_v=3, headers=True, shuffle=False, corrupt=False, showcase=False, empty=True)
    _build_composer(g, empty, tally)
    rows += empty.rows

    db_dir = root / "globalStorage"
    db_dir.mkdir(parents=True, exist_ok=True)
    db_path = db_dir / "state.vscdb"
    if db_path.exists():
        db_path.unlink()
    con = sqlite3.connect(db_path, isolation_level=None)
    con.execute(f"PRAGMA page_size={_PAGE}")
    con.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    tables = ["ItemTable", "cursorDiskKV"]
    con.execute("BEGIN")
    con.executemany("INSERT INTO ItemTable (key, value) VALUES (?, ?)", item_rows)
    con.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", rows)
    header_rows = 0
    if headers_table:
        con.execute("CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT,"
                    " createdAt INTEGER, lastUpdatedAt INTEGER, recency INTEGER, value TEXT)")
        tables.append("composerHeaders")
        for n, comp in enumerate(composers):
            ws_hash = hashlib.md5(f"file://{comp.workspace}".encode()).hexdigest()
            head: dict[str, Any] = {"type": "head", "composerId": comp.cid, "name": comp.name,
                                    "createdAt": comp.created, "lastUpdatedAt": comp.updated,
                                    "unifiedMode": "agent", "isDraft": comp.draft,
                                    "isArchived": False}
            if n % 2 == 0:
                head["workspaceIdentifier"] = {"id": ws_hash, "uri": _uri(comp.workspace)}
            else:
                head["agentLocation"] = {"environment": {"uri": _uri(comp.workspace)}}
            head["trackedGitRepos"] = [{"repoPath": comp.workspace}]
            workspace_id = "empty-window" if comp.draft else ws_hash
            con.execute("INSERT INTO composerHeaders VALUES (?, ?, ?, ?, ?, ?)",
                        (comp.cid, workspace_id, comp.created, comp.updated, comp.updated,
                         compact_json(head)))
            header_rows += 1
    con.execute("COMMIT")
    seen = scan_canaries(*(k for k, _ in rows), *(v for _, v in rows), *(v for _, v in item_rows))
    if headers_table:
        seen |= scan_canaries(*(v for (v,) in con.execute("SELECT value FROM composerHeaders")))
    con.close()

    written: list[tuple[Path, float]] = []
    last = max(c.updated for c in composers) / 1000 + 3600
    written.append((db_path, last))
    for ws in workspaces:
        folder = f"file://{ws}"
        ws_dir = root / "workspaceStorage" / hashlib.md5(folder.encode()).hexdigest()
        ws_dir.mkdir(parents=True, exist_ok=True)
        (ws_dir / "workspace.json").write_text(compact_json({"folder": folder}))
        seen |= scan_canaries(folder)
        first = min((c.created for c in composers if c.workspace == ws),
                    default=int(BASE_DATE.timestamp() * 1000)) / 1000
        written.append((ws_dir / "workspace.json", first))
        os.utime(ws_dir, (first, first))
    stamp(written)
    os.utime(db_dir, (last, last))
    ws_last = max(m for p, m in written[1:])
    os.utime(root / "workspaceStorage", (ws_last, ws_last))

    months = month_counts(written)
    bubble_rows = tally.key_kinds["bubbleId"]
    return {
        "runtime": "cursor-desktop",
        "seed": seed,
        "variant": "modern" if headers_table else "real_like",
        "files": len(written),
        "bytes_total": sum(p.stat().st_size for p, _ in written),
        "tables": sorted(tables),
        "composer_headers_rows": header_rows,
        "item_table_keys": sorted(k for k, _ in item_rows),
        "composers": len(composers) + 1,
        "drafts": tally.drafts,
        # composers with and without bubbleId rows, and those marked isDraft (a header's head
        # marks the draft; composerData does not, so without the header table none is marked)
        "composer_bubbles": {
            "with_bubbles": sum(1 for c in composers if not c.draft),
            "without_bubbles": tally.drafts + 1,
            "drafts": tally.drafts if headers_table else 0,
            "drafts_without_bubbles": tally.drafts if headers_table else 0,
        },
        "composer_ids_not_uuid": not_uuid,
        "tool_results": {k: dict(v) for k, v in sorted(tally.tool_results.items())},
        "key_kinds": dict(sorted(tally.key_kinds.items())),
        "keysets": {k: dict(sorted(v.items())) for k, v in sorted(tally.keysets.items())},
        "unknown_kind": UNKNOWN_KIND,
        "composer_v": dict(sorted(tally.composer_v.items())),
        "bubble_v": dict(sorted(tally.bubble_v.items())),
        "bubble_types": {"1": tally.bubble_types["1"], "2": tally.bubble_types["2"]},
        "capability_types": dict(sorted(tally.capability_types.items())),
        "tool_names": dict(sorted(tally.tool_names.items())),
        "tool_numbers": dict(sorted(tally.tool_numbers.items())),
        "tool_statuses": dict(sorted(tally.tool_statuses.items())),
        "tool_former_keysets": dict(sorted(tally.tool_former_keysets.items())),
        "tool_call_id_with_newline": tally.tool_call_id_with_newline,
        "thinking": {k: tally.thinking[k] for k in ("blank", "signature_only", "with_text")},
        "token_count_all_zero": tally.token_count_all_zero,
        "bubbles": tally.bubbles,
        "bubble_rows": bubble_rows,
        "corrupt_cells": tally.corrupt_cells,
        "ordering": {"headers": tally.ordering["headers"], "rowid": tally.ordering["rowid"]},
        "rowid_order_differs": tally.rowid_order_differs,
        "data_keyed_maps": tally.data_keyed_maps,
        "canaries": [c for c in g.canaries if c in seen],
        "mtime_months": dict(sorted(months.items())),
    }
