"""Scrubbed fixtures: one real record or file per structural predicate a runtime declares.

Every walked record is held against the profile's predicates and the first match of each is
written scrubbed: strings outside reviewed vocabulary become same-type placeholders that
still join, masked keys stay masked; numbers, booleans and nulls are kept (``make_fixtures``)."""

from __future__ import annotations

import importlib
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from survey.corpus.privacy import DYNAMIC_KEY, UNREVIEWED_KEY, WITHHELD
from survey.export.validate import Classifier, FileRef, Record, read_records, walked_files
from survey.runtimes.base import Profile


@dataclass(frozen=True)
class Predicate:
    """A structural predicate. ``record`` holds for one parsed record; ``file`` for a whole
    file's records (a list); ``with_parent``: a file predicate whose match is written with its
    parent file (the file on another surface whose session id is the child's parent id).
    ``surfaces``: only files on these surfaces (() = every walked surface)."""

    id: str
    about: str
    record: Callable[[Any], bool] | None = None
    file: Callable[[list[Any]], bool] | None = None
    surfaces: tuple[str, ...] = ()
    with_parent: bool = False


# -- helpers for declaring predicates ------------------------------------------------------

def get(obj: Any, *keys: str | int) -> Any:
    """The value at a chain of keys, None where any is missing or of another type."""
    cur = obj
    for k in keys:
        if isinstance(k, int):
            if not isinstance(cur, list) or len(cur) <= k:
                return None
        elif not isinstance(cur, dict):
            return None
        cur = cur[k] if isinstance(k, int) else cur.get(k)
    return cur


def items(obj: Any, *keys: str) -> list[Any]:
    """The elements of the array at a chain of keys ([] where there is none)."""
    v = get(obj, *keys)
    return v if isinstance(v, list) else []


def typed(blocks: Iterable[Any], *types: str) -> list[dict]:
    """The object elements whose ``type`` is one of ``types``."""
    return [b for b in blocks if isinstance(b, dict) and b.get("type") in types]


def json_len(v: Any) -> int:
    """A value's length: a string's characters, anything else its compact JSON's."""
    if isinstance(v, str):
        return len(v)
    try:
        return len(orjson.dumps(v).decode("utf-8", "replace"))
    except TypeError:
        return 0


def predicates(profile: Profile) -> tuple[Predicate, ...]:
    if not profile.fixtures:
        return ()
    mod = importlib.import_module(profile.fixtures)
    return tuple(mod.PREDICATES)


# -- scrubbing -----------------------------------------------------------------------------

def length_class(n: int) -> int:
    """The length a placeholder of a string of ``n`` characters gets: the next power of two."""
    return 0 if n <= 0 else 1 << (n - 1).bit_length()


class Scrubber:
    """Scrubs records (see the module's docstring). One scrubber per fixture: its mapping
    keeps joins inside the fixture and nothing outside it."""

    def __init__(self, classify: Classifier) -> None:
        self.w = classify.walker
        self.p = classify.profile
        self.strings: dict[str, str] = {}
        self.keys: dict[tuple[str, str], str] = {}

    def string(self, s: str) -> str:
        got = self.strings.get(s)
        if got is None:
            tag = f"s{len(self.strings) + 1}"
            n = max(length_class(len(s)), len(tag)) if s else 0
            got = self.strings[s] = (tag + "x" * n)[:n] if s else ""
        return got

    def key(self, k: str, mask: str) -> str:
        got = self.keys.get((k, mask))
        if got is None:
            n = len(self.keys) + 1
            # a placeholder the gate masks as it masked the key: identifier-shaped but not
            # reviewed (<unreviewed-key>), or not identifier-shaped (<dynamic-key>)
            got = f"key_{n}_x" if mask == UNREVIEWED_KEY else f"{n}-key"
            self.keys[(k, mask)] = got
        return got

    def record(self, obj: Any) -> Any:
        return self.value(obj, "$", 0)

    def value(self, v: Any, path: str, depth: int, opaque: bool = False) -> Any:
        if isinstance(v, dict):
            return self.obj(v, path, depth, opaque)
        if isinstance(v, list):
            return self.arr(v, path, depth, opaque)
        if isinstance(v, str):
            return self.leaf(v, path, opaque)
        return v

    def obj(self, v: dict, path: str, depth: int, opaque: bool) -> dict:
        w = self.w
        whole = opaque or path in w.opaque_paths
        keyed_by_data = whole or path in w.dict_paths or len(v) > w.max_keys
        out = {}
        for k, val in v.items():
            if keyed_by_data:
                nk, cp = self.key(k, DYNAMIC_KEY), path + ".<map-value>"
            else:
                g = w.gkey(k)
                nk = k if g == k else self.key(k, g)
                cp = f"{path}.{g}"
            out[nk] = self.value(val, cp, depth + 1, keyed_by_data)
        return out

    def arr(self, v: list, path: str, depth: int, opaque: bool) -> list:
        ep = path + "[]"
        discriminated = not opaque and ep + ".type" in self.w.vocab_paths
        out = []
        for el in v:
            if discriminated and isinstance(el, dict) and isinstance(el.get("type"), str):
                g = self.w.gval(ep + ".type", el["type"])
                tp = f"{path}[type={g if g is not None else WITHHELD}]"
                sc = self.obj(el, tp, 0, False)
                if g is not None and "type" in sc:
                    sc["type"] = el["type"]
                out.append(sc)
            else:
                out.append(self.value(el, ep, 0, opaque or path in self.w.opaque_paths))
        return out

    def leaf(self, s: str, path: str, opaque: bool) -> str:
        if not opaque and path in self.w.vocab_paths and self.w.gval(path, s) is not None:
            return s
        if not opaque and path in self.p.json_carriers and s.lstrip()[:1] in ("{", "["):
            try:
                inner = orjson.loads(s)
            except orjson.JSONDecodeError:
                return self.string(s)
            return orjson.dumps(self.value(inner, path + ".<json>", 0)).decode()
        return self.string(s)


# -- the pass ------------------------------------------------------------------------------

SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _name(s: str) -> str:
    return SAFE.sub("_", s).strip("_") or "none"


@dataclass
class Found:
    matches: int = 0
    first: tuple[FileRef, list[Record]] | None = None


def make_fixtures(profile: Profile, root: Path, salt: bytes, out: Path) -> dict[str, Any]:
    """Write ``out/<runtime>/`` and ``out/MANIFEST.json`` (its runtime entry replaced).

    A runtime's profile names a module (``Profile.fixtures``) whose ``PREDICATES`` say what a
    representative fixture set holds (a user frame, a frame with more than three parallel calls,
    a file with no ``turn_ended``, a child file with its parent ...). Every walked record is held
    against every predicate; each predicate reports how many records (or files) match, and the
    first match (files by pseudonym, records in file order) is written, scrubbed:

    - every string that is not reviewed vocabulary at its path (the walk's gate decides) becomes
      a placeholder of the same JSON type and length class (the next power of two at least as
      long), the same string always the same placeholder within a fixture, so ids still join
      (a call id to its result, a child's parent id to the parent's session id);
    - a key the gate masks becomes a placeholder that the gate masks the same way, and every key
      of a data-keyed map or opaque object a placeholder; structure and key order are kept;
    - a string the profile decodes as JSON (``json_carriers``) is scrubbed inside and encoded again.

    Numbers, booleans and nulls are kept. A predicate with no match is reported as not observed.
    Besides the declared predicates, one record of every record class met is written
    (``class:<class>``). ``MANIFEST.json`` lists each predicate, its source pseudonym and counts.
    """
    classify = Classifier(profile, salt)
    preds = predicates(profile)
    files = walked_files(profile, root, salt)
    by_session: dict[str, list[FileRef]] = {}
    for f in files:
        if f.session_id:
            by_session.setdefault(f.session_id, []).append(f)
    found: dict[str, Found] = {p.id: Found() for p in preds}
    classes: dict[str, Found] = {}
    problems: Counter = Counter()
    records_seen = 0
    for f in files:
        recs = list(read_records(profile, classify, f, problems))
        records_seen += len(recs)
        for rec in recs:
            c = classes.setdefault(rec.rclass, Found())
            c.matches += 1
            if c.first is None:
                c.first = (f, [rec])
        for p in preds:
            if p.surfaces and f.surface not in p.surfaces:
                continue
            fd = found[p.id]
            if p.record is not None:
                for rec in recs:
                    if _holds(p.record, rec.obj):
                        fd.matches += 1
                        if fd.first is None:
                            fd.first = (f, [rec])
            elif p.file is not None and _holds(p.file, [r.obj for r in recs]):
                if p.with_parent and _parent(f, by_session) is None:
                    continue
                fd.matches += 1
                if fd.first is None:
                    fd.first = (f, recs)
    dest = out / profile.name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    entries = []
    for p in preds:
        fd = found[p.id]
        entries.append(_write(p.id, p.about, "file" if p.file else "record", fd, dest, classify, profile,
                               by_session if p.with_parent else None))
    for rc in sorted(classes):
        entries.append(_write(f"class:{rc}", f"one record of class {rc}", "record", classes[rc], dest, classify,
                              profile, None))
    section = {
        "runtime": profile.name, "files": len(files), "records": records_seen,
        "unread": dict(sorted(problems.items())), "predicates": entries,
        "not_observed": [e["predicate"] for e in entries if not e["matches"]],
        "scrub": "strings not reviewed vocabulary -> same-type placeholders of the next power-of-two length, "
                 "one per distinct string within a fixture; masked and data-keyed keys -> placeholders; "
                 "numbers, booleans, nulls, structure and key order kept",
    }
    manifest_path = out / "MANIFEST.json"
    manifest: dict[str, Any] = {}
    if manifest_path.exists():
        try:
            manifest = orjson.loads(manifest_path.read_bytes())
        except orjson.JSONDecodeError:
            manifest = {}
    manifest.setdefault("runtimes", {})[profile.name] = section
    manifest_path.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return {**section, "out": str(dest), "manifest": str(manifest_path)}


def _holds(fn: Callable[[Any], bool], arg: Any) -> bool:
    """A predicate's verdict; one that fails on a shape it did not expect does not hold."""
    try:
        return bool(fn(arg))
    except (TypeError, KeyError, AttributeError, ValueError, IndexError):
        return False


def _parent(child: FileRef, by_session: dict[str, list[FileRef]]) -> FileRef | None:
    for f in by_session.get(child.parent_id or "", []):
        if f.surface != child.surface and f.file_id != child.file_id and f.kind == child.kind:
            return f
    return None


def _write(pid: str, about: str, scope: str, fd: Found, dest: Path, classify: Classifier, profile: Profile,
           by_session: dict[str, list[FileRef]] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"predicate": pid, "about": about, "scope": scope, "matches": fd.matches}
    if fd.first is None:
        entry["status"] = "not observed"
        return entry
    f, recs = fd.first
    sc = Scrubber(classify)
    name = _name(pid)
    if by_session is not None:
        parent = _parent(f, by_session)
        assert parent is not None
        precs = list(read_records(profile, classify, parent, Counter()))
        folder = dest / name
        folder.mkdir()
        _lines(folder / "parent.jsonl", (sc.record(r.obj) for r in precs))
        _lines(folder / "child.jsonl", (sc.record(r.obj) for r in recs))
        entry.update(status="written", fixture=f"{profile.name}/{name}/",
                     source={"child": f.file_id, "child_surface": f.surface, "parent": parent.file_id,
                             "parent_surface": parent.surface},
                     records={"parent": len(precs), "child": len(recs)})
        return entry
    _lines(dest / f"{name}.jsonl", (sc.record(r.obj) for r in recs))
    entry.update(status="written", fixture=f"{profile.name}/{name}.jsonl",
                 source={"file": f.file_id, "surface": f.surface,
                         **({"record": recs[0].line_no} if scope == "record" else {})},
                 records=len(recs))
    return entry


def _lines(path: Path, objs: Iterable[Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        for o in objs:
            fh.write(orjson.dumps(o) + b"\n")
    tmp.replace(path)


def fixture_records(path: Path) -> list[Any]:
    """A fixture's records (one JSON value a line)."""
    return [orjson.loads(ln) for ln in path.read_bytes().splitlines() if ln.strip()]
