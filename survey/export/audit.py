"""Hold a hand-written JSON Schema against a snapshot's census.

The schema is flattened into the walk's path syntax and each documented path is held against
the census (``audit``): properties, types and values it never shows, keys, types and element
types it shows that the schema leaves out, each with its evidence and a pasteable command."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from survey.corpus.privacy import MASKS, WITHHELD
from survey.export.schema import JSON_TYPES, index, nodes_rows
from survey.snapshot.store import load_json

ELEM = r"\[(?:type=[^\]]*)?\]"


@dataclass
class Documented:
    types: set[str] | None = None  # None: the schema does not constrain the type here
    values: set[Any] = field(default_factory=set)
    where: list[str] = field(default_factory=list)  # JSON Pointers into the audited schema
    object_named: bool = False  # the schema names properties here (so it documents an object's keys)
    # per schema here that describes an object: is it closed (additionalProperties or
    # unevaluatedProperties false)? The path is closed where every one is
    closed_votes: list[bool] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        return bool(self.closed_votes) and all(self.closed_votes)


class Flattener:
    def __init__(self, schema: Any) -> None:
        self.root = schema
        self.out: dict[str, Documented] = {}

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return None
        cur = self.root
        for tok in [t for t in ref[1:].split("/") if t]:
            tok = tok.replace("~1", "/").replace("~0", "~")
            from urllib.parse import unquote

            tok = unquote(tok)
            if not isinstance(cur, dict) or tok not in cur:
                return None
            cur = cur[tok]
        return cur

    def walk(self, s: Any, path: str, where: str, seen: frozenset[str] = frozenset()) -> None:
        if not isinstance(s, dict):
            return
        if "$ref" in s and isinstance(s["$ref"], str) and s["$ref"] not in seen:
            target = self.resolve(s["$ref"])
            if target is not None:
                self.walk(target, path, s["$ref"], seen | {s["$ref"]})
        d = self.out.setdefault(path, Documented())
        d.where.append(where or "/")
        t = _types(s)
        if t is not None:
            d.types = (d.types or set()) | t
        if "const" in s:
            d.values.add(_hashable(s["const"]))
        for v in s.get("enum") or []:
            d.values.add(_hashable(v))
        for kw in ("oneOf", "anyOf", "allOf"):
            for i, sub in enumerate(s.get(kw) or []):
                self.walk(sub, path, f"{where}/{kw}/{i}", seen)
        for kw in ("if", "then", "else"):
            if isinstance(s.get(kw), dict) and kw != "if":
                self.walk(s[kw], path, f"{where}/{kw}", seen)
        if "properties" in s or "additionalProperties" in s or s.get("type") == "object":
            d.closed_votes.append(s.get("additionalProperties") is False or s.get("unevaluatedProperties") is False)
        props = s.get("properties")
        if isinstance(props, dict) and props:
            d.object_named = True
            for k, sub in props.items():
                if sub is False:  # "must not occur": documents nothing
                    continue
                self.walk(sub, f"{path}.{k}", f"{where}/properties/{k}", seen)
        for kw in ("additionalProperties",):
            if isinstance(s.get(kw), dict):
                self.walk(s[kw], f"{path}.<map-value>", f"{where}/{kw}", seen)
        for pat, sub in (s.get("patternProperties") or {}).items():
            self.walk(sub, f"{path}.<map-value>", f"{where}/patternProperties/{pat}", seen)
        items = s.get("items")
        branches: list[tuple[Any, str]] = []
        if isinstance(items, dict):
            branches.append((items, f"{where}/items"))
        elif isinstance(items, list):
            branches += [(b, f"{where}/items/{i}") for i, b in enumerate(items)]
        for i, b in enumerate(s.get("prefixItems") or []):
            branches.append((b, f"{where}/prefixItems/{i}"))
        for b, w in branches:
            self.walk_items(b, path, w, seen)

    def walk_items(self, b: Any, path: str, where: str, seen: frozenset[str]) -> None:
        """An array's element schema; a branch whose ``type`` property is one const is the
        walk's ``[type=X]`` element."""
        if not isinstance(b, dict):
            return
        if "$ref" in b and isinstance(b["$ref"], str) and b["$ref"] not in seen and len(b) == 1:
            target = self.resolve(b["$ref"])
            if target is not None:
                self.walk_items(target, path, b["$ref"], seen | {b["$ref"]})
                return
        subs = [(x, f"{where}/{kw}/{i}") for kw in ("oneOf", "anyOf") for i, x in enumerate(b.get(kw) or [])]
        if subs and not b.get("properties"):
            for x, w in subs:
                self.walk_items(x, path, w, seen)
            rest = {k: v for k, v in b.items() if k not in ("oneOf", "anyOf")}
            if rest:
                self.walk(rest, f"{path}[]", where, seen)
            return
        tp = (b.get("properties") or {}).get("type")
        const = None
        if isinstance(tp, dict):
            if isinstance(tp.get("const"), str):
                const = tp["const"]
            elif isinstance(tp.get("enum"), list) and len(tp["enum"]) == 1 and isinstance(tp["enum"][0], str):
                const = tp["enum"][0]
        self.walk(b, f"{path}[type={const}]" if const is not None else f"{path}[]", where, seen)


def _hashable(v: Any) -> Any:
    return v if isinstance(v, (str, int, float, bool)) or v is None else orjson.dumps(v).decode()


def _types(s: dict) -> set[str] | None:
    t = s.get("type")
    if isinstance(t, str):
        got = {t}
    elif isinstance(t, list):
        got = {x for x in t if isinstance(x, str)}
    elif "const" in s:
        got = {_jtype(s["const"])}
    elif isinstance(s.get("enum"), list) and s["enum"]:
        got = {_jtype(v) for v in s["enum"]}
    else:
        return None
    return {"number" if x == "integer" else x for x in got}


def _jtype(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def path_regex(path: str) -> str:
    """A documented path as an RE2 pattern over the walk's paths: ``[]`` takes any element."""
    out = []
    for part in re.split(r"(\[\])", path):
        out.append(ELEM if part == "[]" else re.escape(part))
    return "^" + "".join(out) + "$"


def sh(sql: str) -> str:
    """``sql`` as one double-quoted shell argument (it reaches DuckDB unchanged)."""
    return '"' + sql.replace("\\", "\\\\").replace("$", "\\$").replace('"', '\\"').replace("`", "\\`") + '"'


def _cmd(snap: Path, sql: str) -> str:
    return "duckdb -c " + sh(sql.replace("{snap}", str(snap)))


def audit(schema: Any, snap: Path) -> dict[str, Any]:
    """Findings of a hand-written ``schema`` against the snapshot ``snap``.

    The schema is flattened into the walk's path syntax (``$``, ``.key``, ``[]``; an array
    branch whose ``type`` is a ``const`` becomes ``[type=X]``), following ``properties``,
    ``items``/``prefixItems``, ``additionalProperties``/``patternProperties`` (a map's values),
    ``oneOf``/``anyOf``/``allOf``, ``if``/``then``/``else`` and local ``$ref``s. Each documented
    path is then held against the census (``schema_nodes``, every record class at once):

    - ``never_observed``: a property the corpus never shows;
    - ``type_never_observed``: a type the schema allows that never occurs there;
    - ``value_never_observed``: an ``enum``/``const`` value never seen at a reviewed vocabulary
      path where no value was withheld (elsewhere values are not known and not judged);
    - ``missing_key``: a key the corpus shows in an object the schema documents but does not
      name (a masked key, reported by its mask and never by name, only where the object is closed);
    - ``missing_type``: a type the corpus shows at a documented path that the schema does not allow;
    - ``missing_element``: an element type (``[type=X]``) the corpus shows in an array whose
      element branches the schema names by ``const``, none of them open.

    Each finding carries its evidence (files, occurrences) and a pasteable DuckDB command over
    the snapshot. A documented path under an opaque or data-keyed object of the census is not
    judged (its keys were never described) and is counted as such.
    """
    f = Flattener(schema)
    f.walk(schema, "$", "")
    cols, rows = nodes_rows(snap)
    idx = index(cols, rows)
    # observed, over every record class: path -> jtype -> [occurrences, files]; keys per object path
    seen: dict[str, dict[str, list[int]]] = {}
    files_at: dict[str, int] = {}
    keys_at: dict[str, dict[str, int]] = {}
    special: set[str] = set()
    for (_rc, p), n in idx.items():
        files_at[p] = files_at.get(p, 0) + int(n.agg.get("files") or 0)
        for jt, rs in n.types.items():
            a = seen.setdefault(p, {}).setdefault(jt, [0, 0])
            for r in rs:
                a[0] += r["occurrences"]
                a[1] += r["files"]
                if jt == "object":
                    if r["keyset"] in ("<map>", "<opaque>"):
                        special.add(p)
                    elif r["keyset"]:
                        for k in r["keyset"].split(","):
                            keys_at.setdefault(p, {})[k] = keys_at.setdefault(p, {}).get(k, 0) + r["occurrences"]
    census = load_json(snap, "census") or {}
    vm = census.get("value_maps") or {"columns": [], "rows": []}
    values: dict[str, dict[str, int]] = {}
    withheld: set[str] = set()
    for r in vm["rows"]:
        d = dict(zip(vm["columns"], r, strict=True))
        if d["value"] == WITHHELD or d.get("distinct_withheld"):
            withheld.add(d["path"])
        else:
            values.setdefault(d["path"], {})[d["value"]] = values.setdefault(d["path"], {}).get(d["value"], 0) + d["occurrences"]

    findings: list[dict[str, Any]] = []
    not_judged = 0
    matched_paths: set[str] = set()
    for path, doc in sorted(f.out.items()):
        rx = re.compile(path_regex(path))
        obs = [p for p in seen if rx.match(p)]
        matched_paths.update(obs)
        where = sorted(set(doc.where))[:3]
        if not obs:
            if _under_special(path, special):
                not_judged += 1
                continue
            if path == "$":
                continue
            findings.append({"kind": "never_observed", "path": path, "schema_at": where,
                             "evidence": {"occurrences": 0, "files": 0},
                             "command": _cmd(snap, "SELECT count(*) AS occurrences, count(DISTINCT file_id) AS files "
                                                   "FROM read_parquet('{snap}/walk/nodes.parquet') "
                                                   f"WHERE regexp_matches(path, '{path_regex(path)}')")})
            continue
        got: dict[str, list[int]] = {}
        for p in obs:
            for jt, (o, fl) in seen[p].items():
                a = got.setdefault(jt, [0, 0])
                a[0] += o
                a[1] += fl
        type_cmd = _cmd(snap, "SELECT jtype, sum(count) AS occurrences, count(DISTINCT file_id) AS files "
                              "FROM read_parquet('{snap}/walk/nodes.parquet') "
                              f"WHERE regexp_matches(path, '{path_regex(path)}') GROUP BY jtype ORDER BY jtype")
        if doc.types is not None:
            for t in sorted(doc.types - set(got)):
                if t in JSON_TYPES:
                    findings.append({"kind": "type_never_observed", "path": path, "type": t, "schema_at": where,
                                     "evidence": {"observed_types": {k: v[0] for k, v in sorted(got.items())}},
                                     "command": type_cmd})
            for t in sorted(set(got) - doc.types):
                if t in JSON_TYPES:
                    findings.append({"kind": "missing_type", "path": path, "type": t, "schema_at": where,
                                     "evidence": {"occurrences": got[t][0], "files": got[t][1]}, "command": type_cmd})
        vals = {v for v in doc.values if isinstance(v, str)}
        if vals:
            vpaths = [p for p in values if rx.match(p)]
            if vpaths and not any(p in withheld for p in vpaths if rx.match(p)):
                have = {v for p in vpaths for v in values[p]}
                for v in sorted(vals - have):
                    findings.append({
                        "kind": "value_never_observed", "path": path, "value": v, "schema_at": where,
                        "evidence": {"observed_values": sorted(have)},
                        "command": _cmd(snap, "SELECT value, sum(count) AS occurrences, count(DISTINCT file_id) AS files "
                                              "FROM read_parquet('{snap}/walk/values.parquet') "
                                              f"WHERE regexp_matches(path, '{path_regex(path)}') GROUP BY value ORDER BY value")})
        if doc.object_named and not any(p in special for p in obs):
            named = {p2.rsplit(".", 1)[1] for p2 in f.out if p2.startswith(path + ".") and "." not in p2[len(path) + 1:]
                     and "[" not in p2[len(path) + 1:]}
            have_keys: dict[str, int] = {}
            for op in obs:
                for k, cnt in keys_at.get(op, {}).items():
                    have_keys[k] = have_keys.get(k, 0) + cnt
            for k in sorted(set(have_keys) - named):
                if k in MASKS and not doc.closed:  # an open object takes keys it cannot name
                    continue
                findings.append({
                    "kind": "missing_key", "path": f"{path}.{k}", "masked": k in MASKS, "schema_at": where,
                    "evidence": {"occurrences": have_keys[k]},
                    "command": _cmd(snap, "SELECT path, jtype, sum(count) AS occurrences, count(DISTINCT file_id) AS files "
                                          "FROM read_parquet('{snap}/walk/nodes.parquet') "
                                          f"WHERE regexp_matches(path, '{path_regex(path + '.' + k)}') GROUP BY ALL")})
        elem = [p2 for p2 in f.out if p2.startswith(path + "[")
                and re.fullmatch(r"\[(?:type=[^\]]*)?\]", p2[len(path):])]
        if elem and path + "[]" not in f.out:  # typed branches only: each observed element type named?
            named_types = {p2[len(path) + 6:-1] for p2 in elem}
            for op in obs:
                for seen_path in seen:
                    mt = re.fullmatch(r"\[type=([^\]]*)\]", seen_path[len(op):]) if seen_path.startswith(op + "[type=") else None
                    if mt and mt.group(1) not in named_types:
                        jts = seen[seen_path]
                        findings.append({
                            "kind": "missing_element", "path": f"{path}[type={mt.group(1)}]", "schema_at": where,
                            "evidence": {"occurrences": sum(v[0] for v in jts.values())},
                            "command": _cmd(snap, "SELECT path, jtype, keyset, sum(count) AS occurrences, "
                                                  "count(DISTINCT file_id) AS files FROM read_parquet('{snap}/walk/nodes.parquet') "
                                                  f"WHERE path = '{seen_path}' GROUP BY ALL")})
    order = {"never_observed": 0, "type_never_observed": 1, "value_never_observed": 2, "missing_key": 3, "missing_type": 4,
             "missing_element": 5}
    findings.sort(key=lambda x: (order[x["kind"]], x["path"], str(x.get("type", x.get("value", "")))))
    counts: dict[str, int] = {}
    for x in findings:
        counts[x["kind"]] = counts.get(x["kind"], 0) + 1
    manifest = load_json(snap, "manifest") or {}
    return {"snapshot": str(snap), "runtime": manifest.get("runtime"), "documented_paths": len(f.out),
            "not_judged_under_opaque_or_map": not_judged, "findings": findings, "counts": counts,
            "ok": not findings}


def _under_special(path: str, special: set[str]) -> bool:
    return any(re.match(path_regex(_loose(s)).rstrip("$"), path) for s in special)


def _loose(p: str) -> str:
    return re.sub(r"\[type=[^\]]*\]", "[]", p)


def load_schema(path: Path) -> Any:
    return orjson.loads(path.read_bytes())


def iter_lines(result: dict[str, Any]) -> Iterator[str]:
    for x in result["findings"]:
        what = {"never_observed": "documented, never observed",
                "type_never_observed": f"type {x.get('type')} allowed, never observed",
                "value_never_observed": f"value {x.get('value')!r} allowed, never observed",
                "missing_key": "observed key the schema does not name" + (" (masked)" if x.get("masked") else ""),
                "missing_type": f"observed type {x.get('type')} the schema does not allow",
                "missing_element": "observed element type the schema does not name"}[x["kind"]]
        yield f"{x['path']}: {what} {orjson.dumps(x['evidence']).decode()}"
