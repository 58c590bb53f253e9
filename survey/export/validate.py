"""Validation as evidence: every record of a corpus held against the schema derived from its
snapshot, in a pass of its own (``jsonschema-rs``).

Records are read as the walk reads them (JSONL frames, whole JSON documents, a store's
records) and each is given its record class as the walk gives it (the profile's class
paths through the privacy gate, or the store reader's class). A record is valid when the
whole schema accepts it. Where it does not, the errors of its class's branch are counted by
schema path and keyword, with the record's place as a gated path (reviewed keys, masked
keys, ``[]``): never a value, never an unreviewed key. The result is written beside the
immutable snapshot, ``<snapshot>.validation.json``, for the page to show.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from survey.corpus.privacy import WITHHELD
from survey.export.schema import dumps, pointer, ref
from survey.runtimes.base import Profile
from survey.snapshot.store import load_json

MAX_ERRORS_PER_RECORD = 8
WALKED_KINDS = ("jsonl", "json", "sqlite")


@dataclass
class Record:
    file_id: str
    surface: str
    line_no: int
    rclass: str
    obj: Any
    nbytes: int


class Classifier:
    """A record's class and gated paths, as the walk writes them."""

    def __init__(self, profile: Profile, salt: bytes) -> None:
        from survey.census.walk import make_walker

        self.walker = make_walker(profile.name, "reviewed", False, salt)
        self.profile = profile

    def rclass(self, obj: Any) -> str:
        from survey.census.walk import _get

        if not isinstance(obj, dict):
            return f"<{'array' if isinstance(obj, list) else type(obj).__name__}>"
        parts = []
        for path in self.profile.record_class:
            v = _get(obj, path)
            if v is not None:
                g = self.walker.gval(path, v) if isinstance(v, str) else None
                parts.append(g if g is not None else WITHHELD)
        return "/".join(parts) if parts else "<none>"

    def gated_path(self, parts: list[Any]) -> str:
        out = "$"
        for p in parts:
            out += "[]" if isinstance(p, int) else "." + self.walker.gkey(str(p))
        return out


@dataclass(frozen=True)
class FileRef:
    """A file on a walked surface: its pseudonym, surface, kind, ids (pseudonyms) and where
    it is (local only: never written)."""

    file_id: str
    surface: str
    kind: str
    path: str
    rel: str
    session_id: str | None
    parent_id: str | None


def walked_files(profile: Profile, root: Path, salt: bytes) -> list[FileRef]:
    """Every file on a surface the walk reads, by pseudonym."""
    from survey.corpus.crawl import crawl

    inv = crawl(root, profile, salt, "month")
    walked = {s.name: s.kind for s in profile.surfaces if s.walk and s.kind in WALKED_KINDS}
    frame = inv.frame.filter(inv.frame["surface"].is_in(list(walked))).sort("file_id")
    ids = frame["file_id"].to_list()
    rels = inv.paths_of(ids)
    return [FileRef(f, s, walked[s], os.path.join(str(root), r), r, sid, pid) for f, s, r, sid, pid in
            zip(ids, frame["surface"].to_list(), rels, frame["session_id"].to_list(), frame["parent_id"].to_list(),
                strict=True) if r is not None]


def read_records(profile: Profile, classify: Classifier, f: FileRef, problems: Counter) -> Iterator[Record]:
    """The parsed records of one file (problems counted by class, never raised)."""
    from survey.corpus.frames import classify as classify_frame
    from survey.corpus.frames import iter_frames

    file_id, surface, kind, path = f.file_id, f.surface, f.kind, f.path
    try:
        if kind == "jsonl":
            with open(path, "rb") as fh:
                for line_no, status, nbytes, obj, _flags in iter_frames(fh):
                    if status != "ok":
                        problems[f"frame:{status}"] += 1
                        continue
                    yield Record(file_id, surface, line_no, classify.rclass(obj), obj, nbytes)
        elif kind == "json":
            with open(path, "rb") as fh:
                data = fh.read()
            status, obj = classify_frame(data, True, len(data), 1 << 62)
            if status == "not_object":
                obj = orjson.loads(data)
            elif status != "ok":
                problems[f"frame:{status}"] += 1
                return
            yield Record(file_id, surface, 0, classify.rclass(obj), obj, len(data))
        elif kind == "sqlite":
            from survey.corpus.stores import UNPARSED

            mod, _, fn = profile.store_reader.rpartition(".")
            reader = getattr(importlib.import_module(mod), fn)
            _facts, records = reader(path)
            parse = getattr(reader, "parse", None)
            for n, (rclass, status, obj, nbytes) in enumerate(records):
                if status == UNPARSED and parse is not None:
                    status, obj = parse(obj)
                if obj is None:
                    problems[f"record:{status}"] += 1
                    continue
                yield Record(file_id, surface, n, rclass, obj, nbytes)
    except (OSError, RecursionError, orjson.JSONDecodeError) as exc:
        problems[f"file:{type(exc).__name__}"] += 1


def schema_sha(schema: dict) -> str:
    return hashlib.sha256(dumps(schema)).hexdigest()


def validate(snap: Path, root: Path, salt: bytes, schema: dict | None = None, write: bool = True) -> dict[str, Any]:
    """Hold every record under ``root`` against the schema derived from ``snap`` (or the one
    given); counts, written beside the snapshot unless ``write`` is False."""
    import jsonschema_rs

    from survey.evidence.recheck import root_matches
    from survey.export.schema import derive
    from survey.runtimes import get

    manifest = load_json(snap, "manifest") or {}
    profile = get(manifest["runtime"])
    schema = schema if schema is not None else derive(snap)
    whole = jsonschema_rs.validator_for(schema)
    branch: dict[str, Any] = {}

    def branch_of(rc: str) -> Any:
        v = branch.get(rc)
        if v is None:
            v = branch[rc] = jsonschema_rs.validator_for(
                {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": ref(rc)})
        return v

    classify = Classifier(profile, salt)
    problems: Counter = Counter()
    by_class: dict[str, Counter] = {}
    failures: Counter = Counter()
    failure_files: dict[tuple, set[str]] = {}
    unseen: Counter = Counter()
    files = records = valid = nbytes = 0
    t0 = time.perf_counter()
    spent = 0.0
    for f in walked_files(profile, root, salt):
        files += 1
        fid = f.file_id
        for rec in read_records(profile, classify, f, problems):
            records += 1
            nbytes += rec.nbytes
            c = by_class.setdefault(rec.rclass, Counter())
            c["records"] += 1
            t = time.perf_counter()
            ok = whole.is_valid(rec.obj)
            spent += time.perf_counter() - t
            if ok:
                valid += 1
                c["valid"] += 1
                continue
            if rec.rclass not in schema["$defs"]:
                unseen[rec.rclass] += 1
                key: tuple = (rec.rclass, "(record class not in the schema)", "UnseenClass", "$")
                failures[key] += 1
                failure_files.setdefault(key, set()).add(fid)
                continue
            errs = list(_errors(branch_of(rec.rclass), rec.obj, classify))
            if not errs:  # its branch takes it, the whole schema does not: another branch does too
                errs = [("(more than one class branch)", "OneOfMultipleValid", "$")]
            for sp, kw, ip in errs:
                key = (rec.rclass, sp, kw, ip)
                failures[key] += 1
                failure_files.setdefault(key, set()).add(fid)
    total = time.perf_counter() - t0
    result: dict[str, Any] = {
        "snapshot": str(snap),
        "runtime": profile.name,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "validator": f"jsonschema-rs {getattr(jsonschema_rs, '__version__', '')}".strip(),
        "schema_sha256": schema_sha(schema),
        "method": "every parsed record of every file on a walked surface, against the whole derived schema; "
                  "a failure is counted by its class branch's schema path and keyword",
        "root_matches_snapshot": root_matches(manifest, root, salt),
        "files": files, "records": records, "valid": valid, "invalid": records - valid,
        "bytes": nbytes, "seconds": round(total, 3), "validate_seconds": round(spent, 3),
        "by_class": {rc: {"records": c["records"], "valid": c["valid"]} for rc, c in sorted(by_class.items())},
        "unseen_classes": dict(sorted(unseen.items())),
        "unread": dict(sorted(problems.items())),
        "failures": [{"class": k[0], "schema_path": k[1], "keyword": k[2], "at": k[3], "records": n,
                      "files": len(failure_files[k])}
                     for k, n in sorted(failures.items(), key=lambda kv: (-kv[1], kv[0]))],
        "claim": f"{valid:,} of {records:,} records validate against the derived schema",
        "scope": f"{files:,} files on the walked surfaces, {nbytes / 1e6:,.1f} MB of records",
        "command": f'survey validate {snap} --root "$ROOT" --json',
    }
    if write:
        out = snap.parent / f"{snap.name}.validation.json"
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        tmp.replace(out)
        result["written"] = str(out)
    return result


def _errors(validator: Any, obj: Any, classify: Classifier) -> Iterator[tuple[str, str, str]]:
    """(schema path, keyword, gated place) of a record's errors: never a message (it quotes
    values), never an instance key unless the gate lets it through. A ``oneOf`` that no branch
    takes is reported inside the branch its discriminator picks (the one whose errors hold no
    ``const``/``enum``/``not`` miss), where there is one."""
    n = 0
    for e in validator.iter_errors(obj):
        for sp, kw, ip in _flat(e):
            if n >= MAX_ERRORS_PER_RECORD:
                return
            n += 1
            yield "/" + "/".join(pointer(str(p)) for p in sp), kw, classify.gated_path(ip)


DISCRIMINATING = ("Constant", "Enum", "Not", "FalseSchema")


def _flat(e: Any) -> Iterator[tuple[list, str, list]]:
    kw = type(e.kind).__name__
    ctx = getattr(e.kind, "context", None) if kw in ("OneOfNotValid", "AnyOf") else None
    if ctx:
        picked = [b for b in ctx if not any(type(x.kind).__name__ in DISCRIMINATING for x in b)]
        if len(picked) == 1:
            for x in picked[0]:
                yield from _flat(x)
            return
    yield list(e.schema_path), kw, list(e.instance_path)


def load(snap: Path) -> dict | None:
    side = snap.parent / f"{snap.name}.validation.json"
    return orjson.loads(side.read_bytes()) if side.exists() else None
