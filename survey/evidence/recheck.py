"""Re-verify a snapshot's headline claims by a path that shares nothing with the census.

The re-check finds files with ``os.walk`` and plain suffix tests, reads lines with the stdlib
``json`` module and counts in plain Python; its verdicts are stored beside the snapshot
(``<snapshot>.recheck.json``) and the page marks each claim verified or shows the disagreement."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey.corpus.privacy import WITHHELD, Gate, pseudonym, pseudonyms

METHOD = "independent: os.walk + stdlib json, plain Python counts"


# -- reading ------------------------------------------------------------------------------
def _files(root: Path, suffix: str = "") -> list[Path]:
    out = []
    for d, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        for n in sorted(names):
            p = Path(d) / n
            if n.endswith(suffix) and p.is_file() and not p.is_symlink():
                out.append(p)
    return out


def _records(path: Path, unreadable: dict[Path, str] | None = None) -> Iterator[Any]:
    """Each line of ``path`` that parses as JSON (lines that do not are skipped, as the
    census counts them apart); a file that cannot be opened or read is counted in
    ``unreadable`` with the error's class (the path is never written)."""
    try:
        with open(path, "rb") as fh:
            for raw in fh:  # iterating a binary file splits on b"\n" only
                try:
                    yield json.loads(raw)
                except (ValueError, RecursionError):
                    continue
    except OSError as exc:
        if unreadable is not None:
            unreadable[path] = type(exc).__name__


def _has_key(obj: Any, key: str) -> bool:
    """Is ``key`` a key of ``obj`` or of any object nested in it (lists included)?"""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if key in x:
                return True
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _at(obj: Any, path: str) -> Any:
    """The value at a ``$.a.b`` path of nested objects, or None."""
    for part in path.removeprefix("$").split(".")[1:]:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return float("-inf")


# -- the snapshot's side ----------------------------------------------------------------------
def _inventory(snap: Path) -> dict[str, tuple[int, int, bool, str]]:
    """file_id -> (size, mtime_ns, walked, kind), from the snapshot's inventory."""
    import polars as pl

    parts = sorted((snap / "inventory").glob("*/*.parquet"))
    if not parts:
        return {}
    inv = pl.concat([pl.read_parquet(p, columns=["file_id", "size", "mtime_ns", "sampled", "kind"]) for p in parts],
                    how="vertical_relaxed")
    return {f: (int(s or 0), int(m or 0), bool(w), str(k)) for f, s, m, w, k in inv.iter_rows()}


def _frame_counts(snap: Path) -> dict[str, Counter[str]] | None:
    """Per file, its ok records per class, from the snapshot's ``walk/frame_counts`` (None
    when the snapshot has no such rows)."""
    import polars as pl

    p = snap / "walk" / "frame_counts.parquet"
    if not p.exists():
        return None
    src = sorted(p.glob("**/*.parquet")) if p.is_dir() else [p]
    out: dict[str, Counter[str]] = {}
    for part in src:
        df = pl.read_parquet(part, columns=["file_id", "frame_status", "rclass", "records"])
        df = df.filter(pl.col("frame_status").cast(pl.String) == "ok")
        for f, c, n in df.select(pl.col("file_id").cast(pl.String), pl.col("rclass").cast(pl.String), "records").iter_rows():
            out.setdefault(f, Counter())[c] += int(n)
    return out


class NoRecheck(ValueError):
    """A runtime with no independent re-check."""


class NotComparable(ValueError):
    """The snapshot walked a sample and the files here cannot be matched to it: no figure of
    the re-check would be about the files the snapshot's figures are about."""


# -- the scope ------------------------------------------------------------------------------
@dataclass
class Scope:
    files: list[Path]  # the files re-read
    ids: list[str] | None  # their pseudonyms (None: they could not be named)
    exact: bool  # the files re-read are all the files the snapshot walked of this kind, unchanged
    text: str


class Context:
    """What every runtime's re-check shares: the snapshot's inventory, the choice of files,
    the gate that names record classes."""

    def __init__(self, snap: Path, root: Path, manifest: dict, n: int | None, seed: int, since: str | None,
                 salt: bytes | None) -> None:
        from survey.runtimes import get
        from survey.runtimes.base import load_vocab

        self.snap, self.root, self.manifest = snap, root, manifest
        self.n, self.seed, self.since, self.salt = n, seed, since, salt
        self.profile = get(manifest["runtime"])
        keys, values = load_vocab(self.profile.name)
        self.gate = Gate(keys=keys, values=values, mode=manifest.get("mode", "reviewed"),
                         allow_mcp_names=bool(manifest.get("allow_mcp_names")),
                         withheld_paths=self.profile.withheld_paths)
        self.snapshot_whole = (manifest.get("sample") or {}).get("n") is None
        self.inv = _inventory(snap) if salt is not None else {}
        self.gone = 0
        self.mapped = False
        if self.inv and salt is not None:
            here = set(pseudonyms(salt, [p.relative_to(root).as_posix() for p in _files(root)], "f"))
            self.mapped = bool(here & self.inv.keys())
            self.gone = sum(1 for f, (_s, _m, walked, _k) in self.inv.items() if walked and f not in here)
        self._unreadable: dict[Path, str] = {}
        self.chosen: set[str] = set()
        self._fc: tuple[dict[str, Counter[str]] | None] | None = None

    def records(self, path: Path) -> Iterator[Any]:
        return _records(path, self._unreadable)

    @property
    def unreadable(self) -> Counter[str]:
        """Files that could not be read, counted by the error's class."""
        return Counter(self._unreadable.values())

    def _id(self, p: Path) -> str:
        assert self.salt is not None
        return pseudonym(self.salt, p.relative_to(self.root).as_posix(), "f")

    def frame_counts(self) -> dict[str, Counter[str]] | None:
        if self._fc is None:
            self._fc = (_frame_counts(self.snap),)
        return self._fc[0]

    def rclass(self, rec: dict) -> str:
        """A record's class as the census names it: the gated value at each of the profile's
        class paths, joined by "/" (``<withheld>`` for one the gate refuses, ``<none>`` for none)."""
        parts = []
        for path in self.profile.record_class:
            v = _at(rec, path)
            if v is not None:
                g = self.gate.value(path, v) if isinstance(v, str) else None
                parts.append(g if g is not None else WITHHELD)
        return "/".join(parts) if parts else "<none>"

    def choose(self, candidates: list[Path], what: str) -> Scope:
        left: Counter[str] = Counter()
        ids: list[str] | None = None
        pool = candidates
        if self.mapped:
            assert self.salt is not None
            names = pseudonyms(self.salt, [p.relative_to(self.root).as_posix() for p in candidates], "f")
            pool, ids = [], []
            for p, f in zip(candidates, names, strict=True):
                row = self.inv.get(f)
                try:
                    st = p.stat()
                except OSError:
                    left["gone while re-checked"] += 1
                    continue
                if row is None:
                    left["new since the snapshot"] += 1
                elif not row[2]:
                    left["not walked by the snapshot"] += 1
                elif (row[0], row[1]) != (st.st_size, st.st_mtime_ns):
                    left["changed since the snapshot"] += 1
                else:
                    pool.append(p)
                    ids.append(f)
        population = len(pool)
        if self.since:
            cut = dt.datetime.fromisoformat(self.since).replace(tzinfo=dt.UTC).timestamp()
            keep = [i for i, p in enumerate(pool) if _mtime(p) >= cut]
            pool = [pool[i] for i in keep]
            ids = [ids[i] for i in keep] if ids is not None else None
        if self.n is not None and self.n < len(pool):
            pick = sorted(random.Random(self.seed).sample(range(len(pool)), self.n))
            pool = [pool[i] for i in pick]
            ids = [ids[i] for i in pick] if ids is not None else None
        whole = len(pool) == population and not self.since
        if self.mapped:
            exact = whole and not (left["changed since the snapshot"] or left["gone while re-checked"] or self.gone)
            of = f"{len(pool)} of the {population} {what} the snapshot walked (unchanged since)"
        else:
            exact = whole and self.snapshot_whole
            of = (f"{len(pool)} of {population} {what} found under this root "
                  "(not matched to the snapshot's files: no salt, or another root)")
        extra = [f"{v} {k}" for k, v in sorted(left.items())]
        if self.gone:
            extra.append(f"{self.gone} walked files gone since the snapshot")
        text = of + ", re-read with the stdlib json module" + (f" (left out: {', '.join(extra)})" if extra else "")
        if ids is not None:
            self.chosen.update(ids)
        return Scope(pool, ids, exact, text)


# -- verdicts -------------------------------------------------------------------------------
def _verdict(claim: str, said: Any, found: Any, agrees: bool, scope: Scope, detail: str, how: str) -> dict:
    return {"claim": claim, "verdict": "agrees" if agrees else "disagrees", "snapshot_value": said,
            "recheck_value": found, "comparison": how, "scope": scope.text, "detail": detail}


def _exact(claim: str, said: Any, found: Any, scope: Scope, detail: str) -> dict:
    return _verdict(claim, said, found, said == found, scope, detail, "exact: the same files as the snapshot's figure")


def _bound(claim: str, said: Any, found: Any, pairs: list[tuple[float, float]], scope: Scope, detail: str) -> dict:
    """``pairs``: (found in the subset, the claim's figure for every file) of each count the
    subset can hold no more of."""
    return _verdict(claim, said, found, all(f <= s for f, s in pairs), scope, detail,
                    "bound: a subset of the claim's files holds no more of each count than the claim")


def _classes_verdict(ctx: Context, claims: dict[str, dict], found: Counter[str], scope: Scope) -> list[dict]:
    """Records per class: exactly the claim's on the snapshot's files; on a subset, exactly
    the snapshot's per-file rows of those files (which must total the claim); else no class
    the claim lacks and no more records of one than it counts."""
    c = claims.get("record_classes")
    if not c:
        return []
    said = dict(c["value"]["records"])
    got = dict(sorted(found.items()))
    detail = f"{sum(found.values())} records in {len(found)} classes"
    if scope.exact:
        return [_exact("record_classes", said, got, scope, detail)]
    fc = ctx.frame_counts() if scope.ids is not None else None
    if fc is not None and scope.ids is not None:
        jsonl = {f for f, row in ctx.inv.items() if row[3] == "jsonl" and row[2]}
        total: Counter[str] = Counter()
        for f in jsonl:
            total.update(fc.get(f, Counter()))
        rows: Counter[str] = Counter()
        for f in scope.ids:
            rows.update(fc.get(f, Counter()))
        rows_d = dict(sorted((k, v) for k, v in rows.items() if v))
        consistent = dict(sorted((k, v) for k, v in total.items() if v)) == said
        return [_verdict("record_classes", said, got, consistent and rows_d == got, scope,
                         detail + ("" if consistent else "; the snapshot's per-file rows do not total the claim"),
                         "exact: the snapshot's per-file rows of the same files")]
    unknown = sorted(set(found) - set(said))
    return [_bound("record_classes", said, got, [(n, said.get(k, 0)) for k, n in found.items()], scope,
                   detail + f"; classes the snapshot does not name: {len(unknown)}")]


def _class_counts(ctx: Context, files: list[Path]) -> Counter[str]:
    out: Counter[str] = Counter()
    for f in files:
        for rec in ctx.records(f):
            if isinstance(rec, dict):
                out[ctx.rclass(rec)] += 1
    return out


# -- per runtime ----------------------------------------------------------------------------
def _cursor(ctx: Context, claims: dict[str, dict]) -> list[dict]:
    transcripts = [p for p in _files(ctx.root, ".jsonl") if "agent-transcripts" in p.relative_to(ctx.root).parts]
    scope = ctx.choose(transcripts, "transcripts")
    blocks = exact = results = 0
    for f in scope.files:
        for rec in ctx.records(f):
            if not isinstance(rec, dict):
                continue
            msg = rec.get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    blocks += 1
                    exact += set(b) == {"input", "name", "type"}
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    results += 1
            if _has_key(rec, "tool_use_id") or _has_key(rec, "is_error"):
                results += 1
    out = []
    c = claims.get("no_tool_results")
    if c:
        said_none = bool(c["value"])
        # "none" must hold in any subset of the claim's files; "some" rests on the literal,
        # which the re-check need not see as structure: only a "none" it contradicts disagrees
        out.append(_verdict("no_tool_results", said_none, results, not (said_none and results), scope,
                            f"{results} result blocks or result keys", "none must hold in any subset of the claim's files"))
    c = claims.get("tool_use_keyset")
    if c:
        s_exact, s_blocks = c["value"][0], c["value"][1]
        detail = f"{exact}/{blocks} blocks exactly {{input,name,type}}"
        if scope.exact:
            out.append(_exact("tool_use_keyset", [s_exact, s_blocks], [exact, blocks], scope, detail))
        else:
            out.append(_bound("tool_use_keyset", [s_exact, s_blocks], [exact, blocks],
                              [(exact, s_exact), (blocks, s_blocks), (blocks - exact, s_blocks - s_exact)], scope, detail))
    c = claims.get("agent_tools_count")
    if c:
        sidecars = [p for p in _files(ctx.root, ".txt") if p.parent.name == "agent-tools"]
        new = 0
        if ctx.mapped:
            new = sum(1 for p in sidecars if ctx._id(p) not in ctx.inv)
        whole = Scope(sidecars, None, True, "every file under */agent-tools/ (os.walk), stat only")
        out.append(_verdict("agent_tools_count", c["value"], len(sidecars), c["value"] == len(sidecars), whole,
                            f"{len(sidecars)} files" + (f", {new} of them new since the snapshot" if ctx.mapped else ""),
                            "exact: the files on disk now against the snapshot's count (a file added since disagrees)"))
    return out


def _claude_code(ctx: Context, claims: dict[str, dict]) -> list[dict]:
    jsonl = _files(ctx.root, ".jsonl")
    scope = ctx.choose(jsonl, ".jsonl files")
    out = _classes_verdict(ctx, claims, _class_counts(ctx, scope.files), scope)

    # identity: a parent <cwd>/<sid>.jsonl carries one sessionId, its file name; a child
    # <sid>/subagents/…/agent-<id>.jsonl carries its session folder's name
    parents = parents_eq = kids = kids_eq = several = 0
    naive = 0.0
    last: dict[tuple[Any, Any], float] = {}
    for f in scope.files:
        rel = f.relative_to(ctx.root).parts
        is_parent = len(rel) == 2
        is_kid = len(rel) >= 4 and rel[2] == "subagents" and f.name.startswith("agent-")
        if not (is_parent or is_kid):
            continue
        ids = set()
        for rec in ctx.records(f):
            if not isinstance(rec, dict):
                continue
            if isinstance(rec.get("sessionId"), str):
                ids.add(rec["sessionId"])
            msg = rec.get("message")
            usage = msg.get("usage") if isinstance(msg, dict) else None
            ot = usage.get("output_tokens") if isinstance(usage, dict) else None
            if isinstance(msg, dict) and isinstance(msg.get("id"), str) and isinstance(ot, (int, float)) \
                    and not isinstance(ot, bool):
                naive += ot
                key = (rec.get("sessionId"), msg["id"])
                last[key] = max(last.get(key, ot), ot)
        several += len(ids) > 1
        if is_parent:
            parents += 1
            parents_eq += ids == {f.name[: -len(".jsonl")]}
        else:
            kids += 1
            kids_eq += ids == {rel[1]}
    c = claims.get("file_identity")
    if c:
        s = c["value"]
        got = [parents_eq, parents, kids_eq, kids, several]
        detail = f"parents {parents_eq}/{parents}, children {kids_eq}/{kids}, several ids {several}"
        if scope.exact:
            out.append(_exact("file_identity", s, got, scope, detail))
        else:
            out.append(_bound("file_identity", s, got, [
                (parents_eq, s[0]), (parents, s[1]), (parents - parents_eq, s[1] - s[0]),
                (kids_eq, s[2]), (kids, s[3]), (kids - kids_eq, s[3] - s[2]), (several, s[4])], scope, detail))
    c = claims.get("usage")
    if c:
        got_u = {"naive_output_tokens": int(naive), "dedup_output_tokens": int(sum(last.values()))}
        said_u = {k: c["value"][k] for k in got_u}
        detail = f"naive {got_u['naive_output_tokens']}, per (sessionId, message.id) {got_u['dedup_output_tokens']}"
        if scope.exact:
            out.append(_exact("usage", said_u, got_u, scope, detail))
        else:
            out.append(_bound("usage", said_u, got_u, [(got_u[k], said_u[k] or 0) for k in got_u], scope, detail))
    return out


_ROLLOUT_UUID = re.compile(r"-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$")
_CALLS = ("function_call", "custom_tool_call", "tool_search_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


def _codex(ctx: Context, claims: dict[str, dict]) -> list[dict]:
    rollouts = [p for p in _files(ctx.root, ".jsonl") if p.name.startswith("rollout-")]
    scope = ctx.choose(rollouts, "rollouts")
    out = _classes_verdict(ctx, claims, _class_counts(ctx, scope.files), scope)

    matches = with_meta = 0
    paired = unpaired_calls = unpaired_outputs = 0
    for f in scope.files:
        first_id = None
        calls: set[Any] = set()
        outputs: list[Any] = []
        for rec in ctx.records(f):
            if not isinstance(rec, dict) or not isinstance(rec.get("payload"), dict):
                continue
            p = rec["payload"]
            if rec.get("type") == "session_meta" and first_id is None:
                first_id = p.get("id", "")
            if rec.get("type") == "response_item" and p.get("type") in _CALLS and "call_id" in p:
                calls.add(p["call_id"])
            if rec.get("type") == "response_item" and p.get("type") in _OUTPUTS and "call_id" in p:
                outputs.append(p["call_id"])
        m = _ROLLOUT_UUID.search(f.name)
        if first_id is not None:
            with_meta += 1
            matches += bool(m) and first_id == m.group(1)  # type: ignore[union-attr]
        paired += sum(1 for c in outputs if c in calls)
        unpaired_outputs += sum(1 for c in outputs if c not in calls)
        unpaired_calls += len(calls - set(outputs))
    c = claims.get("file_identity")
    if c:
        s = c["value"][:2]
        detail = f"first session_meta id = filename uuid in {matches}/{with_meta}"
        if scope.exact:
            out.append(_exact("file_identity", s, [matches, with_meta], scope, detail))
        else:
            out.append(_bound("file_identity", s, [matches, with_meta],
                              [(matches, s[0]), (with_meta, s[1]), (with_meta - matches, s[1] - s[0])], scope, detail))
    c = claims.get("native_call_id")
    if c:
        got = {"paired": paired, "unpaired_calls": unpaired_calls, "unpaired_outputs": unpaired_outputs}
        said = {k: c["value"].get(k) for k in got}
        detail = f"paired {paired}, unpaired calls {unpaired_calls}, unpaired outputs {unpaired_outputs}"
        if scope.exact:
            out.append(_exact("native_call_id", said, got, scope, detail))
        else:
            out.append(_bound("native_call_id", said, got, [(got[k], said[k] or 0) for k in got], scope, detail))
    return out


RECHECKS: dict[str, Callable[[Context, dict[str, dict]], list[dict]]] = {
    "cursor": _cursor, "claude_code": _claude_code, "codex": _codex}


def root_matches(manifest: dict, root: Path, salt: bytes) -> bool:
    """Does ``root`` pseudonymise to the snapshot's root? (same machine, same salt)"""
    return manifest.get("root") == pseudonym(salt, str(root.resolve()), "r")


def command(snap: Path, sample: int | None, seed: int, since: str | None) -> str:
    """The command that reproduces a re-check (the corpus root as ``$ROOT``: never written)."""
    return (f'survey recheck {shlex.quote(str(snap))} --root "$ROOT"' + (f" --sample {sample} --seed {seed}" if sample is not None else "")
            + (f" --since {since}" if since else ""))


def recheck(snap: Path, root: Path, *, sample: int | None = None, seed: int | None = None,
            since: str | None = None, salt: bytes | None = None) -> dict:
    """Re-check ``snap``'s headline claims on ``root``: every file the snapshot walked by
    default, ``sample`` of them (drawn with ``seed``), or those modified ``since`` a date.
    Writes ``<snapshot>.recheck.json`` beside the snapshot and returns what it wrote.

    Like with like. With the machine's salt, each file found is named as the crawl names it
    (``privacy.pseudonym``) and looked up in the snapshot's inventory: the re-check reads only
    files the snapshot walked and that are unchanged since (same size and mtime); files new
    since, changed since or not walked by a sampled snapshot are left out and counted. By
    default it reads all of them, so its totals compare exactly with the snapshot's. With
    ``sample`` (or ``since``) it reads a subset, and then

    - records per class compare exactly with the snapshot's per-file rows of the same files
      (``walk/frame_counts``), and those rows must total the claim's figures;
    - a figure with no per-file rows is checked as a bound: a subset of the files the claim
      counted can hold no more of anything than the claim says, and an "all" or "none" claim
      must hold in the subset. A sample cannot show that a total is too high: the whole scope can.

    Nothing read is kept: only verdicts and counts. A record class is named through the
    privacy gate exactly as the census names it (the runtime's reviewed vocabulary, else
    ``<withheld>``), so no value outside that vocabulary reaches ``recheck.json``, the
    terminal or the page. Each verdict carries the command that reproduces it (``$ROOT`` for
    the corpus root, which is never written).
    """
    manifest = json.loads((snap / "manifest.json").read_text())
    claims = {c["id"]: c for c in json.loads((snap / "claims.json").read_text())}
    runtime = manifest["runtime"]
    fn = RECHECKS.get(runtime)
    if fn is None:
        raise NoRecheck(f"no independent re-check for runtime {runtime!r} (there is one for {', '.join(RECHECKS)})")
    seed = seed if seed is not None else int((manifest.get("sample") or {}).get("seed") or 0) + 1
    ctx = Context(snap, root, manifest, sample, seed, since, salt)
    if not ctx.mapped and not ctx.snapshot_whole:
        raise NotComparable("the snapshot walked a sample, and the files under this root cannot be matched to its "
                            "files (another root, or another machine's salt): no re-checked figure would be comparable")
    verdicts = fn(ctx, claims)
    cmd = command(snap, sample, seed, since)
    bad = sum(ctx.unreadable.values())
    for v in verdicts:
        v["command"] = cmd
        if bad:
            v["scope"] += f"; {bad} files could not be read ({', '.join(sorted(ctx.unreadable))})"
    result = {
        "snapshot": str(snap),
        "runtime": runtime,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "method": METHOD,
        "sample": {"n": sample, "seed": seed, "since": since,
                   # the files re-read, by the crawl's pseudonyms, when they are a subset
                   **({"files": sorted(ctx.chosen)} if (sample is not None or since) and ctx.chosen else {})},
        "unreadable": dict(ctx.unreadable),
        "matched_to_snapshot": ctx.mapped,
        "root_matches_snapshot": root_matches(manifest, root, salt) if salt else None,
        "command": cmd,
        "verdicts": verdicts,
        "disagreements": [v["claim"] for v in verdicts if v["verdict"] != "agrees"],
    }
    out = snap.parent / f"{snap.name}.recheck.json"
    # a temp name of this process's own (rechecks of one snapshot at once), renamed into place
    tmp = out.with_name(f".{out.name}.{os.getpid()}-{random.SystemRandom().getrandbits(32):08x}.tmp")
    try:
        tmp.write_text(json.dumps(result, indent=2, sort_keys=True))
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return result
