"""Seeded generator of Cursor CLI stream-json captures.

``root`` is a folder of ``.jsonl`` files, each one the stdout of one
``cursor-agent --print --output-format stream-json`` run (LF-separated, one event a line).

Design
------
*Shapes from the real captures first.* Every (family, key set) pair of the four real captures
is reproduced exactly: ``system/init`` and ``user`` and the closing ``assistant`` and
``result/success`` carry no ``timestamp_ms``; ``thinking/delta``, ``thinking/completed``,
``tool_call/*`` and the mid-turn ``assistant`` segments do, and those segments also carry a
``model_call_id`` (``<request_id>-<n>-<4 chars>``). The closing ``assistant`` line is the last
text segment, and ``result.result`` is the concatenation of all segments. ``call_id`` (echoed as
``args.toolCallId``) is two ids joined by a newline, as in every real call. Shell calls carry
the full real argument object (``parsingResult``, ``timeoutBehavior`` …) and the
``result.success`` + ``isBackground`` shape.

*Where the real captures are silent* the reference page fills in, and those parts are
synthetic in their details: the other tool variants (``readToolCall``, ``editToolCall``,
``writeToolCall``, ``grepToolCall``, ``globToolCall``) with invented argument/result key sets,
``failure`` and ``rejected`` outcomes, ``connection/*`` and ``retry/*`` events, a few call ids
without a newline, and non-JSON lines: a plain-text warning, a blank line, a capture cut off
mid-line, and a start-up failure that wrote only plain text.

*Ground truth.* ``planted`` is tallied from the event objects as they are built; a test that
parses the files independently must find the same figures. ``tool_call_variants`` counts
``tool_call/started`` lines per variant; ``result_outcomes`` counts ``tool_call/completed``
lines per outcome; ``call_id_with_newline`` counts ``tool_call`` lines; a file's final LF does
not make a blank line.

*Links, and their violations at known rates* (a separate seeded stream, so the other bytes
do not move): a ``tool_call/completed`` event names its started event's ``call_id``, except
that ``ORPHAN_RATE`` of them name an id no event of the capture started (that started event
then has no completed one); ``session_id`` is one value a capture, except that in
``SECOND_SESSION_RATE`` of the captures one event after ``system/init`` carries another.

*Value formats, and their violations at known rates* (a stream of their own as well):
``timestamp_ms`` is a millisecond epoch, except that ``SECONDS_RATE`` of the events carrying
it hold epoch seconds; ``duration_ms`` is a number, except that ``DURATION_TEXT_RATE`` of the
``result`` events hold it as a string of digits.

*Canaries.* With ``canaries=True`` every free text (prompts, thinking deltas, assistant text,
results, warnings), tool argument/result string value, data-keyed map key (grep
``workspaceResults``), ``cwd`` and every file name carries a unique ``cnry<12 hex>z`` token
from a separate seeded stream. Enumerations, numbers and the session/request uuids are exempt.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey.synth.common import (
    ALNUM,
    SHORT_WORDS,
    STORE_BASE_DATE,
    SeededText,
    compact_json,
    ensure_root,
    keyset,
    month_counts,
    scan_canaries,
    spread_date,
    stamp,
)

BASE_DATE = STORE_BASE_DATE
DEFAULT_CAPTURES = 10
VARIANTS = ("shellToolCall", "readToolCall", "editToolCall", "writeToolCall", "grepToolCall",
            "globToolCall")
# edge captures, by position in the default run
_EDGE_AT = {1: "warning", 3: "blank", 5: "connection", 6: "truncated", 8: "startup_failure"}
ORPHAN_RATE = 0.06  # completed events whose call_id names no started event of the capture
SECOND_SESSION_RATE = 0.2  # captures with one event carrying a second session_id
SECONDS_RATE = 0.03  # events whose timestamp_ms is written in epoch seconds
DURATION_TEXT_RATE = 0.2  # result events whose duration_ms is a string of digits


def _uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _family(obj: dict[str, Any]) -> str:
    sub = obj.get("subtype")
    return f"{obj['type']}/{sub}" if isinstance(sub, str) else str(obj["type"])


class _Gen(SeededText):
    def __init__(self, seed: int, canaries: bool) -> None:
        super().__init__(seed, canaries, f"cursor-stream-canary-{seed}")
        self.other_calls = 0
        # link violations draw from a stream of their own: the rest of a capture is the same
        # bytes with or without them
        self.links_rng = random.Random(f"cursor-stream-links-{seed}")
        self.formats_rng = random.Random(f"cursor-stream-formats-{seed}")  # format violations, likewise

    def path(self, base: str) -> str:
        return f"{base}/{self.mark(self.rng.choice(SHORT_WORDS), '-')}.py"


_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"


@dataclass
class _Tally:
    families: Counter[str] = field(default_factory=Counter)
    keysets: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    tool_call_variants: Counter[str] = field(default_factory=Counter)
    result_outcomes: Counter[str] = field(default_factory=Counter)
    call_id_with_newline: int = 0
    non_json_lines: Counter[str] = field(default_factory=Counter)
    timestamps: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    json_lines: int = 0
    orphan_completed: int = 0
    second_session_captures: int = 0
    timestamp_ms: Counter[str] = field(default_factory=Counter)  # epoch_ms / epoch_s
    duration_ms: Counter[str] = field(default_factory=Counter)  # number / string

    def event(self, obj: dict[str, Any]) -> None:
        fam = _family(obj)
        self.json_lines += 1
        self.families[fam] += 1
        self.keysets[fam][keyset(obj)] += 1
        self.timestamps[fam]["present" if "timestamp_ms" in obj else "absent"] += 1
        if obj["type"] == "tool_call":
            (variant, body), = obj["tool_call"].items()
            self.call_id_with_newline += "\n" in obj["call_id"]
            if obj["subtype"] == "started":
                self.tool_call_variants[variant] += 1
            else:
                outcome = next(k for k in body["result"] if k != "isBackground")
                self.result_outcomes[outcome] += 1


# --------------------------------------------------------------------------- tool calls


def _shell(g: _Gen, cwd: str, call_id: str, outcome: str) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = g.rng
    exe = rng.choice(("sleep", "ls", "echo", "make", "pytest"))
    arg = g.mark(str(rng.randint(1, 9)) if exe == "sleep" else rng.choice(SHORT_WORDS), "-")
    command = f"{exe} {arg}"
    program = g.mark(exe, "-")
    workdir = rng.choice(("", cwd))
    args = {
        "command": command, "workingDirectory": workdir, "timeout": rng.choice((10000, 20000, 30000)),
        "toolCallId": call_id, "simpleCommands": [program], "hasInputRedirect": False,
        "hasOutputRedirect": False,
        "parsingResult": {"parsingFailed": False, "executableCommands": [{
            "name": program, "args": [{"type": "number" if exe == "sleep" else "word", "value": arg}],
            "fullText": command}], "hasRedirects": False, "hasCommandSubstitution": False},
        "fileOutputThresholdBytes": "0", "isBackground": False, "skipApproval": False,
        "timeoutBehavior": "TIMEOUT_BEHAVIOR_BACKGROUND",
    }
    out = "" if exe == "sleep" else g.text(2, 12)
    if outcome == "rejected":
        result: dict[str, Any] = {"rejected": {"command": command, "workingDirectory": workdir,
                                               "reason": g.text(2, 6)}}
    else:
        body = {"command": command, "workingDirectory": workdir,
                "exitCode": 0 if outcome == "success" else rng.randint(1, 127), "signal": "",
                "stdout": out, "stderr": "" if outcome == "success" else g.text(2, 8),
                "executionTime": rng.randint(5, 9000), "interleavedOutput": out}
        result = {outcome: body}
    result["isBackground"] = False
    return args, result


def _other(g: _Gen, variant: str, cwd: str, call_id: str,
           outcome: str) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = g.rng
    path = g.path(cwd)
    if variant == "readToolCall":
        args: dict[str, Any] = {"path": path, "toolCallId": call_id}
        ok: dict[str, Any] = {"content": g.text(5, 30), "isEmpty": False, "exceededLimit": False,
                              "totalLines": rng.randint(5, 900), "fileSize": rng.randint(100, 50000),
                              "path": path}
    elif variant == "editToolCall":
        args = {"path": path, "toolCallId": call_id, "streamContent": g.text(5, 20)}
        ok = {"path": path, "linesAdded": rng.randint(0, 9), "linesRemoved": rng.randint(0, 9),
              "diffString": g.text(5, 20)}
    elif variant == "writeToolCall":
        args = {"path": path, "fileText": g.text(5, 30), "toolCallId": call_id}
        ok = {"path": path, "linesCreated": rng.randint(1, 90), "fileSize": rng.randint(10, 9000)}
    elif variant == "grepToolCall":
        pattern = g.mark(rng.choice(SHORT_WORDS))
        args = {"pattern": pattern, "path": cwd, "outputMode": "content", "caseInsensitive": False,
                "toolCallId": call_id}
        ok = {"pattern": pattern, "path": cwd, "outputMode": "content",
              "workspaceResults": {cwd: {"content": {"matches": [{"file": path, "line": 3,
                                                                  "content": g.text(2, 6)}],
                                                     "totalLines": 1, "totalMatchedLines": 1}}}}
    else:
        pattern = g.mark("**/*.py", "-")
        args = {"globPattern": pattern, "targetDirectory": cwd, "toolCallId": call_id}
        ok = {"files": [g.path(cwd) for _ in range(rng.randint(1, 3))], "totalFiles": 3}
    if outcome == "success":
        return args, {"success": ok}
    if outcome == "failure":
        return args, {"failure": {"path": path, "error": g.text(2, 6)}}
    return args, {"rejected": {"path": path, "reason": g.text(2, 6)}}


# --------------------------------------------------------------------------- one capture


def _capture(g: _Gen, tally: _Tally, edge: str | None, start_ms: int) -> tuple[str, int]:
    """Return the capture text and the number of planned data-keyed maps in it."""
    rng = g.rng
    lines: list[str] = []
    maps = 0

    emitted = [0]

    def emit(obj: dict[str, Any]) -> None:
        if obj.get("type") != "system" and "session_id" in obj:
            if emitted[0] == stray_at:
                obj["session_id"] = stray_sid
                tally.second_session_captures += 1
            emitted[0] += 1
        if "timestamp_ms" in obj:
            if g.formats_rng.random() < SECONDS_RATE:
                obj["timestamp_ms"] //= 1000
            tally.timestamp_ms["epoch_s" if obj["timestamp_ms"] < 10_000_000_000 else "epoch_ms"] += 1
        if "duration_ms" in obj:
            if g.formats_rng.random() < DURATION_TEXT_RATE:
                obj["duration_ms"] = str(obj["duration_ms"])
            tally.duration_ms["string" if isinstance(obj["duration_ms"], str) else "number"] += 1
        tally.event(obj)
        lines.append(compact_json(obj))

    def raw(line: str, kind: str) -> None:
        tally.non_json_lines[kind] += 1
        lines.append(line)

    if edge == "startup_failure":
        raw(g.mark("Warning: could not reach the model service, retrying"), "plain_text")
        raw(g.mark("Error: the requested model is not available"), "plain_text")
        return "\n".join(lines) + "\n", 0
    if edge == "warning":
        raw(g.mark("Warning: a newer version of the agent is available"), "plain_text")

    sid, request_id = g.uuid(), g.uuid()
    # the event (counted from the user event on) that carries another session_id, if any
    stray_at = g.links_rng.randint(0, 5) if g.links_rng.random() < SECOND_SESSION_RATE else -1
    stray_sid = _uuid4(g.links_rng) if stray_at >= 0 else ""
    cwd = "/" + "/".join(g.mark(w, "-") for w in ("home", "user", rng.choice(SHORT_WORDS)))
    now = start_ms
    emit({"type": "system", "subtype": "init", "apiKeySource": rng.choice(("login", "login", "env")),
          "cwd": cwd, "session_id": sid, "model": rng.choice(("Auto", "Auto", "gpt-5", "sonnet-4.5")),
          "permissionMode": "default"})
    emit({"type": "user", "message": {"role": "user", "content": [{"type": "text",
                                                                   "text": g.text(8, 30)}]},
          "session_id": sid})
    segments: list[str] = []

    def ts() -> int:
        nonlocal now
        now += rng.randint(5, 3000)
        return now

    for n in range(rng.randint(1, 3)):
        mci = f"{request_id}-{n}-{g.chars(4, _LOWER)}"
        if rng.random() < 0.6:
            for _ in range(rng.randint(2, 25)):
                emit({"type": "thinking", "subtype": "delta", "text": g.text(1, 3),
                      "session_id": sid, "timestamp_ms": ts()})
            emit({"type": "thinking", "subtype": "completed", "session_id": sid, "timestamp_ms": ts()})
        if edge == "blank" and n == 0:
            raw("", "blank")
        if edge == "connection" and n == 0:
            for typ, sub in (("connection", "reconnecting"), ("retry", "starting"),
                             ("retry", "resuming"), ("connection", "reconnected")):
                emit({"type": typ, "subtype": sub, "session_id": sid})
        if rng.random() < 0.8 or n == 0:
            seg = g.text(5, 20)
            segments.append(seg)
            emit({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": seg}]}, "session_id": sid, "model_call_id": mci,
                "timestamp_ms": ts()})
        k = rng.choice((0, 1, 1, 2, 3))
        pending: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = []
        for _ in range(k):
            if rng.random() < 0.5:
                variant = VARIANTS[0]
            else:  # the others in turn, so every variant shows up in a default run
                variant = VARIANTS[1 + g.other_calls % (len(VARIANTS) - 1)]
                g.other_calls += 1
            first = g.chars(29, ALNUM)
            if g.canaries_on:  # same rng draws either way: structure must not depend on canaries
                first = g.canary() + first[17:]
            first = "call_" + first
            call_id = first + ("\nfc_" + g.chars(80, _LOWER) if rng.random() < 0.9 else "")
            outcome = rng.choice(("success",) * 6 + ("failure", "rejected"))
            if variant == "shellToolCall":
                args, result = _shell(g, cwd, call_id, outcome)
            else:
                args, result = _other(g, variant, cwd, call_id, outcome)
                maps += variant == "grepToolCall" and outcome == "success"
            pending.append((variant, call_id, args, result))
        parallel = rng.random() < 0.5
        order: list[tuple[str, int]] = (
            [("started", i) for i in range(k)] + [("completed", i) for i in range(k)]
            if parallel else [(s, i) for i in range(k) for s in ("started", "completed")]
        )
        for sub, i in order:
            variant, call_id, args, result = pending[i]
            body: dict[str, Any] = {"args": args}
            if sub == "completed":
                body["result"] = result
                if g.links_rng.random() < ORPHAN_RATE:  # an id no started event of the capture names
                    orphan = "".join(g.links_rng.choice(ALNUM) for _ in range(29))
                    head = "call_" + (g.canary() + orphan[17:] if g.canaries_on else orphan)
                    call_id = head + call_id[len(head):]  # a new first id, the same second one (if any)
                    body["args"] = {**args, "toolCallId": call_id}  # (the args echo the id they carry)
                    tally.orphan_completed += 1
            emit({"type": "tool_call", "subtype": sub, "call_id": call_id,
                  "tool_call": {variant: body}, "model_call_id": mci, "session_id": sid,
                  "timestamp_ms": ts()})
            if edge == "truncated" and sub == "started":
                cut = compact_json({"type": "tool_call", "subtype": "completed", "call_id": call_id,
                              "tool_call": {variant: {"args": args, "result": result}}})
                raw(cut[: rng.randint(40, len(cut) - 10)], "truncated_json")
                return "\n".join(lines), maps  # the process died mid-write: no final LF
    if edge == "truncated":  # no tool call happened to be cut: cut the result line instead
        cut = compact_json({"type": "result", "subtype": "success", "session_id": sid})
        raw(cut[:30], "truncated_json")
        return "\n".join(lines), maps
    closing = g.text(3, 12)
    segments.append(closing)
    emit({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": closing}]}, "session_id": sid})
    duration = now - start_ms + rng.randint(500, 4000)
    emit({"type": "result", "subtype": "success", "duration_ms": duration,
          "duration_api_ms": duration - rng.randint(0, 400), "is_error": False,
          "result": "".join(segments), "session_id": sid, "request_id": request_id})
    return "\n".join(lines) + "\n", maps


# --------------------------------------------------------------------------- generate


def generate(
    root: Path,
    *,
    seed: int = 7,
    sessions: int | None = None,
    target_bytes: int | None = None,
    canaries: bool = False,
) -> dict[str, Any]:
    """Write ``sessions`` captures (default 10) under ``root``; with ``target_bytes``, keep
    adding ordinary captures until the folder holds that many bytes."""
    root = ensure_root(root)
    g = _Gen(seed, canaries)
    rng = g.rng
    tally = _Tally()
    n = DEFAULT_CAPTURES if sessions is None else sessions
    if n > max(_EDGE_AT):
        edges = dict(_EDGE_AT)
    else:  # fewer captures: as many edge cases as fit, capture 0 stays ordinary
        edges = dict(zip(range(1, n), _EDGE_AT.values(), strict=False))
    written: list[tuple[Path, float]] = []
    total = 0
    maps = 0
    seen: set[str] = set()
    i = 0
    while i < n or (target_bytes is not None and total < target_bytes):
        when = spread_date(rng, i, step=19, jitter=9, minutes=900)
        text, m = _capture(g, tally, edges.get(i), int(when.timestamp() * 1000))
        maps += m
        stem = f"{rng.choice(SHORT_WORDS)}-{rng.choice(SHORT_WORDS)}-{i:03d}"
        name = g.mark(stem, "-") + ".jsonl"
        path = root / name
        path.write_bytes(text.encode())
        seen.update(scan_canaries(name + text))  # a token cut by a truncated line is not listed
        mtime = when.timestamp() + rng.randint(10, 900)
        written.append((path, mtime))
        total += len(text.encode())
        i += 1
    stamp(written)

    months = month_counts(written)
    return {
        "runtime": "cursor-stream-json",
        "seed": seed,
        "files": len(written),
        "bytes_total": total,
        "edge_captures": {written[k][0].name: v for k, v in sorted(edges.items()) if k < len(written)},
        "json_lines": tally.json_lines,
        "families": dict(sorted(tally.families.items())),
        "keysets": {k: dict(sorted(v.items())) for k, v in sorted(tally.keysets.items())},
        "tool_call_variants": dict(sorted(tally.tool_call_variants.items())),
        "result_outcomes": dict(sorted(tally.result_outcomes.items())),
        "call_id_with_newline": tally.call_id_with_newline,
        "orphan_completed": tally.orphan_completed,
        "second_session_captures": tally.second_session_captures,
        "timestamp_ms": dict(sorted(tally.timestamp_ms.items())),
        "duration_ms": dict(sorted(tally.duration_ms.items())),
        "non_json_lines": dict(sorted(tally.non_json_lines.items())),
        "timestamps": {k: {"present": v["present"], "absent": v["absent"]}
                       for k, v in sorted(tally.timestamps.items())},
        "data_keyed_maps": maps,
        "canaries": [c for c in g.canaries if c in seen],
        "mtime_months": dict(sorted(months.items())),
    }
