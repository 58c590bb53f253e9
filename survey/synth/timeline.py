"""A Codex store written as a client writes one over time: a seeded sequence of client versions.

Each version (an *epoch*) is released on a date and writes rollouts until the next one; each
drifts the format from the one before in the ways real clients have: a payload field added,
renamed or dropped, a new record class. The plan (``plan``) is drawn from the seed alone:
which changes, in which order, at which versions and dates. ``generate`` writes the epochs'
rollouts in the native layout (``YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``, ``cli_version`` in
each file's ``session_meta`` header), with file mtimes spread across each epoch's days;
``upto`` stops after that epoch, so a corpus can be written as it stood at each epoch's end
(``snapshot`` in the plan: the last day of the epoch), then continued.

The epochs come before the dates ``survey.synth.codex`` writes (2026-03 on), with older
versions: the demo corpus holds both, the history of the old versions first.

``planted`` is the ground truth, exact by construction: per epoch its version, dates, files
and records per class, the payload key set of every class it writes (``payload_keysets``)
and the changes it made (``changes``: kind, record class, field, and the old name of a
renamed field). Every key written is in the Codex profile's reviewed vocabulary, every
record class a reviewed value, so the pages name them. Like every generator, this module
never imports the census, the walk or the evidence code.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from survey.synth.common import (
    CODE_WORDS,
    PROSE_WORDS,
    TokenStream,
    ensure_root,
    scan_canaries,
    stamp,
)

# the base format (the first epoch): record class -> payload keys, in writing order
BASE: dict[str, tuple[str, ...]] = {
    "session_meta": ("id", "timestamp", "cwd", "originator", "cli_version", "instructions"),
    "response_item/message": ("type", "role", "content"),
    "response_item/function_call": ("type", "name", "arguments", "call_id"),
    "response_item/function_call_output": ("type", "call_id", "output"),
    "event_msg/user_message": ("type", "message", "kind"),
    "event_msg/agent_message": ("type", "message"),
}
# the changes a version may make (kinds as real clients made them); each names fields of the
# base format or fresh ones, so any order of them is consistent
POOL: dict[str, list[tuple[str, ...]]] = {
    "added": [("session_meta", "git"), ("session_meta", "source"), ("event_msg/user_message", "images"),
              ("response_item/function_call", "status")],
    "renamed": [("session_meta", "instructions", "base_instructions"),
                ("response_item/function_call", "call_id", "id")],
    "dropped": [("event_msg/user_message", "kind"), ("session_meta", "originator")],
    "new_class": [("turn_context",), ("event_msg/token_count",), ("response_item/reasoning",)],
}
NEW_CLASSES: dict[str, tuple[str, ...]] = {
    "turn_context": ("cwd", "approval_policy", "sandbox_policy", "model", "effort"),
    "event_msg/token_count": ("type", "info", "rate_limits"),
    "response_item/reasoning": ("type", "summary", "encrypted_content"),
}
FIRST_RELEASE = date(2025, 6, 2)
EPOCHS = 4
SESSIONS = 5  # rollouts per epoch


@dataclass
class Epoch:
    version: str
    released: str  # first day a rollout of this version is written (YYYY-MM-DD)
    snapshot: str  # the epoch's last day: the corpus "as it stood" then holds it whole
    changes: list[dict[str, str]] = field(default_factory=list)
    formats: dict[str, tuple[str, ...]] = field(default_factory=dict)  # class -> payload keys

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "released": self.released, "snapshot": self.snapshot,
                "changes": self.changes, "payload_keysets": {c: ",".join(sorted(k)) for c, k in self.formats.items()}}


def plan(seed: int = 7, epochs: int = EPOCHS) -> list[Epoch]:
    """The seeded sequence of versions: at least one change of each kind (added, renamed,
    dropped, new record class) over the epochs after the first, one or two per epoch."""
    if epochs < 2:
        raise ValueError("a timeline has at least two epochs")
    rng = random.Random(f"timeline:{seed}")
    picked = [(kind, rng.choice(POOL[kind])) for kind in POOL]
    rest = [(k, c) for k in POOL for c in POOL[k] if (k, c) not in picked]
    rng.shuffle(rest)
    picked += rest[: max(0, epochs - 1 - len(picked)) + rng.randint(0, 1)]
    # a field is renamed or dropped once at most, and never both
    seen: set[tuple[str, str]] = set()
    changes = []
    for kind, c in picked:
        key = (c[0], c[1]) if kind in ("renamed", "dropped") else (kind, ",".join(c))
        if key in seen:
            continue
        seen.add(key)
        changes.append((kind, c))
    rng.shuffle(changes)
    slots: list[list[tuple[str, tuple[str, ...]]]] = [[] for _ in range(epochs - 1)]
    for i, ch in enumerate(changes):  # every later epoch changes something
        slots[i % (epochs - 1) if i < epochs - 1 else rng.randrange(epochs - 1)].append(ch)
    minor, out = rng.randint(10, 20), []
    day = FIRST_RELEASE
    formats = {c: tuple(k) for c, k in BASE.items()}
    for e in range(epochs):
        span = rng.randint(35, 55)
        ep = Epoch(version=f"0.{minor}.{rng.randint(0, 3)}", released=day.isoformat(),
                   snapshot=(day + timedelta(days=span - 1)).isoformat())
        for kind, c in (slots[e - 1] if e else []):
            formats = dict(formats)
            if kind == "added":
                formats[c[0]] = (*formats[c[0]], c[1])
                ep.changes.append({"kind": kind, "rclass": c[0], "field": c[1]})
            elif kind == "renamed":
                formats[c[0]] = tuple(c[2] if k == c[1] else k for k in formats[c[0]])
                ep.changes.append({"kind": kind, "rclass": c[0], "field": c[2], "was": c[1]})
            elif kind == "dropped":
                formats[c[0]] = tuple(k for k in formats[c[0]] if k != c[1])
                ep.changes.append({"kind": kind, "rclass": c[0], "field": c[1]})
            else:
                formats[c[0]] = NEW_CLASSES[c[0]]
                ep.changes.append({"kind": kind, "rclass": c[0], "field": ""})
        ep.formats = formats
        out.append(ep)
        minor += rng.randint(3, 9)
        day += timedelta(days=span)
    return out


class _Writer:
    def __init__(self, seed: int, canaries: bool) -> None:
        self.rng = random.Random(f"timeline-records:{seed}")
        self.tokens = TokenStream(f"timeline-canaries:{seed}")
        self.canaries = canaries

    def text(self, lo: int = 3, hi: int = 14) -> str:
        words = [self.rng.choice(PROSE_WORDS if self.rng.random() < 0.6 else CODE_WORDS)
                 for _ in range(self.rng.randint(lo, hi))]
        if self.canaries:
            words.insert(self.rng.randrange(len(words) + 1), self.tokens())
        return " ".join(words)

    def uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{h[16:20]}-{h[20:]}"

    def value(self, rclass: str, key: str, ep: Epoch, ctx: dict[str, Any]) -> Any:
        """A value for ``key`` of a record of ``rclass``: the shape real clients write."""
        r = self.rng
        if key == "type":
            return rclass.split("/", 1)[1]
        if key in ("id", "call_id"):
            return ctx["call"] if rclass != "session_meta" else ctx["session"]
        simple: dict[str, Any] = {
            "timestamp": ctx["ts"], "cli_version": ep.version, "originator": "codex_cli_rs",
            "cwd": f"/home/dev/src/{self.text(1, 1).split()[-1]}", "role": ctx.get("role", "user"),
            "name": r.choice(("shell", "apply_patch", "update_plan")), "kind": "plain", "source": "cli",
            "status": "completed", "approval_policy": r.choice(("on-request", "never")), "model": "gpt-5",
            "effort": r.choice(("low", "medium", "high")), "encrypted_content": f"gAAA{r.getrandbits(64):x}",
        }
        if key in simple:
            return simple[key]
        if key in ("instructions", "base_instructions"):
            return self.text(20, 40) if key == "instructions" else {"text": self.text(20, 40)}
        if key == "message":
            return self.text()
        if key == "content":
            kind = "input_text" if ctx.get("role") == "user" else "output_text"
            return [{"type": kind, "text": self.text()}]
        if key == "arguments":
            return json.dumps({"command": ["bash", "-lc", self.text(2, 5)]})
        if key == "output":
            return self.text(4, 20)
        if key == "git":
            return {"commit_hash": f"{r.getrandbits(160):040x}", "branch": f"feat/{self.text(1, 1).split()[-1]}"}
        if key == "images":
            return []
        if key == "sandbox_policy":
            return {"type": r.choice(("workspace-write", "read-only"))}
        if key == "info":
            return {"total_token_usage": {"input_tokens": r.randint(900, 90000), "output_tokens": r.randint(50, 9000)}}
        if key == "rate_limits":
            return {"primary": {"used_percent": round(r.random() * 100, 1)}}
        if key == "summary":
            return [{"type": "summary_text", "text": self.text()}]
        raise KeyError(key)

    def record(self, rclass: str, ep: Epoch, ctx: dict[str, Any]) -> dict[str, Any]:
        top = rclass.split("/", 1)[0]
        payload = {k: self.value(rclass, k, ep, ctx) for k in ep.formats[rclass]}
        return {"timestamp": ctx["ts"], "type": top, "payload": payload}


def _rollout(w: _Writer, ep: Epoch, start: datetime) -> tuple[list[dict[str, Any]], datetime]:
    """One rollout's records, in the order a client writes them, and its last record's time."""
    session = w.uuid()
    t = start
    recs: list[dict[str, Any]] = []

    def add(rclass: str, **ctx: Any) -> None:
        nonlocal t
        t += timedelta(seconds=w.rng.randint(1, 40))
        if rclass in ep.formats:
            recs.append(w.record(rclass, ep, {"ts": t.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "session": session, **ctx}))

    add("session_meta")
    for _turn in range(w.rng.randint(1, 3)):
        add("turn_context")
        add("response_item/message", role="user")
        add("event_msg/user_message")
        for _step in range(w.rng.randint(1, 3)):
            add("response_item/reasoning")
            call = f"call_{w.rng.getrandbits(64):016x}"
            add("response_item/function_call", call=call)
            add("response_item/function_call_output", call=call)
            add("event_msg/token_count")
        add("event_msg/agent_message")
        add("response_item/message", role="assistant")
    return recs, t


def generate(root: Path, *, seed: int = 7, sessions: int | None = None, target_bytes: int | None = None,
             canaries: bool = False, epochs: int = EPOCHS, upto: int | None = None) -> dict[str, Any]:
    """Write the timeline's rollouts under ``root`` (epochs 0..``upto``, default all; an
    epoch written before is written again the same, byte for byte and mtime for mtime).
    ``sessions``: rollouts per epoch; ``target_bytes`` is not used (the size follows the plan)."""
    del target_bytes
    root = ensure_root(root)
    eps = plan(seed, epochs)
    last = len(eps) - 1 if upto is None else upto
    w = _Writer(seed, canaries)
    per = sessions or SESSIONS
    written: list[tuple[Path, float]] = []
    out_eps = []
    total = 0
    planted_tokens: set[str] = set()
    for i, ep in enumerate(eps):  # every epoch is drawn (same rng sequence), only some written
        first = datetime.fromisoformat(ep.released).replace(tzinfo=UTC)
        days = (date.fromisoformat(ep.snapshot) - date.fromisoformat(ep.released)).days
        files: list[tuple[Path, bytes, float]] = []
        counts: dict[str, int] = {}
        for s in range(per):
            start = first + timedelta(days=(days * s) // per, hours=w.rng.randint(8, 18), minutes=w.rng.randint(0, 59))
            recs, end = _rollout(w, ep, start)
            for r in recs:
                c = r["type"] + ("/" + r["payload"]["type"] if "type" in r["payload"] else "")
                counts[c] = counts.get(c, 0) + 1
            name = (f"{start:%Y/%m/%d}/rollout-{start:%Y-%m-%dT%H-%M-%S}-"
                    f"{recs[0]['payload']['id']}.jsonl")
            body = "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in recs).encode()
            files.append((root / name, body, end.timestamp()))
        if i <= last:
            for path, body, mtime in files:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(body)
                written.append((path, mtime))
                total += len(body)
                if canaries:
                    planted_tokens |= scan_canaries(body)
        out_eps.append({**ep.to_json(), "files": per, "records": counts, "written": i <= last})
    stamp(written)
    return {"generator": "timeline", "seed": seed, "epochs": out_eps, "files": {"rollout": len(written)},
            "bytes_total": total, "canaries": sorted(planted_tokens)}
