"""A JSON Schema (2020-12) of a runtime's records, derived from a snapshot alone.

From the rows of ``export/queries/schema_nodes.sql`` over the snapshot (per record class and
path: types, key sets, counts, strata, versions) it writes one branch per record class; no
property appears that the census did not show (``Deriver``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from survey.census.sql import MEMORY_LIMIT, command
from survey.corpus.privacy import MASKS, WITHHELD
from survey.snapshot.store import load_json

QUERY = Path(__file__).parent / "queries" / "schema_nodes.sql"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
SPECIAL_KEYSETS = ("<map>", "<opaque>")
UNTYPED = ("<truncated>", "<not-json>")
JSON_TYPES = ("array", "boolean", "null", "number", "object", "string")


@dataclass
class Node:
    """One (record class, path): its aggregate row and its rows per JSON type."""

    agg: dict[str, Any] = field(default_factory=dict)
    types: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def pointer(name: str) -> str:
    """A ``$defs`` name as a JSON Pointer token (RFC 6901)."""
    return name.replace("~", "~0").replace("/", "~1")


def ref(rclass: str) -> str:
    """A ``$ref`` to a class's branch: its pointer token, percent-encoded for a URI fragment."""
    from urllib.parse import quote

    return "#/$defs/" + quote(pointer(rclass), safe="~")


def nodes_rows(snap: Path) -> tuple[list[str], list[list]]:
    """The ``schema_nodes`` rows, by running the query over the snapshot's Parquet (never the
    corpus), and its pasteable command."""
    import duckdb

    from survey.census.sql import fetch

    con = duckdb.connect()
    try:
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        cols, rows = fetch(con, QUERY.read_text())
    finally:
        con.close()
    return cols, rows


def query_command(snap: Path) -> str:
    return command(QUERY, str(snap))


def index(cols: list[str], rows: list[list]) -> dict[tuple[str, str], Node]:
    out: dict[tuple[str, str], Node] = {}
    for r in rows:
        d = dict(zip(cols, r, strict=True))
        n = out.setdefault((d["rclass"], d["path"]), Node())
        if d["jtype"] == "*":
            n.agg = d
        else:
            n.types.setdefault(d["jtype"], []).append(d)
    return out


def version_key(v: str) -> tuple:
    """Dotted versions in numeric order (2.1.2 before 2.1.20, 1.0.111 before 2.0.0)."""
    return tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in v.replace("-", ".").split("."))


def observed(n: Node) -> dict[str, Any]:
    a = n.agg
    o: dict[str, Any] = {"files": a.get("files"), "occurrences": a.get("occurrences"),
                         "first_stratum": a.get("first_stratum"), "last_stratum": a.get("last_stratum")}
    if a.get("versions"):
        o["client_versions"] = sorted(a["versions"], key=version_key)
    if len(n.types) > 1:
        o["by_type"] = {t: sum(r["occurrences"] for r in rs) for t, rs in sorted(n.types.items())}
    return o


class Deriver:
    """The schema of one snapshot (``derive``).

    The query ``export/queries/schema_nodes.sql``, run over the snapshot's Parquet (not in every
    run's census: see its header), gives, per record class and path (the walk's path syntax:
    ``$``, ``.key``, ``[]``, ``[type=X]``, ``.<map-value>``, ``.<json>``), the JSON types and key
    sets seen, in how many records and files, the first and last mtime stratum and the
    client versions. From those rows alone:

    - one ``$defs`` branch per record class, discriminated by ``const`` on the profile's
      record-class paths that make up the class name (``oneOf`` where every class has one);
    - per path a ``type`` (a list where several occur);
    - ``required`` only for a key present in every occurrence of its object;
    - ``enum`` only at the profile's reviewed vocabulary paths where no value was withheld;
    - ``additionalProperties: false`` only where at least two files hold the object and every
      file shows its whole key set, with no masked key, map or opaque occurrence; a data-keyed
      map (``<map>``) is ``additionalProperties`` with its value types; masked keys
      (``<unreviewed-key>``, ``<dynamic-key>``, ``<rare-key>``) are never named;
    - every node carries ``x-observed`` (files, occurrences, strata, client versions).

    No property appears that the census did not show. The only other property names are
    ``false`` schemas that keep record classes apart (a record-class key a class never has).
    Output is deterministic (sorted keys and lists).
    """

    def __init__(self, snap: Path) -> None:
        from survey.runtimes import get

        self.snap = snap
        self.manifest = load_json(snap, "manifest") or {}
        self.runtime = self.manifest.get("runtime", snap.name)
        self.profile = get(self.runtime)
        cols, rows = nodes_rows(snap)
        self.command = query_command(snap)
        self.idx = index(cols, rows)
        census = load_json(snap, "census") or {}
        vm = census.get("value_maps") or {"columns": [], "rows": []}
        self.values: dict[str, set[str]] = {}
        self.withheld_at: set[str] = set()
        for r in vm["rows"]:
            d = dict(zip(vm["columns"], r, strict=True))
            if d["value"] == WITHHELD or d.get("distinct_withheld"):
                self.withheld_at.add(d["path"])
            else:
                self.values.setdefault(d["path"], set()).add(d["value"])
        # per (class, array path): its typed element paths
        self.typed: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for rc, p in self.idx:
            if p.endswith("]") and "[type=" in p:
                base, _, rest = p.rpartition("[type=")
                if "]" not in rest[:-1]:
                    self.typed.setdefault((rc, base), []).append((rest[:-1], p))

    # -- nodes ---------------------------------------------------------------------------
    def node(self, rc: str, path: str) -> dict[str, Any]:
        n = self.idx.get((rc, path))
        if n is None:
            return {}
        out: dict[str, Any] = {"x-observed": observed(n)}
        types = sorted(t for t in n.types if t in JSON_TYPES)
        if "<truncated>" in n.types:  # below the walk's depth limit: its type was not seen
            out["x-observed"]["below_depth_limit"] = sum(r["occurrences"] for r in n.types["<truncated>"])
        else:
            out["type"] = types[0] if len(types) == 1 else types
        if path.endswith(".<map-value>"):  # a map's values are typed, never entered
            return out
        if "object" in types:
            self._object(rc, path, n, out)
        if "array" in types:
            self._array(rc, path, n, out)
        if "string" in types:
            self._string(rc, path, types, out)
        return out

    def _object(self, rc: str, path: str, n: Node, out: dict[str, Any]) -> None:
        rows = n.types["object"]
        special = sorted({r["keyset"] for r in rows if r["keyset"] in SPECIAL_KEYSETS})
        named = [set(r["keyset"].split(",")) if r["keyset"] else set() for r in rows
                 if r["keyset"] not in SPECIAL_KEYSETS]
        keys = set().union(*named) if named else set()
        masked = keys & MASKS
        real = sorted(keys - MASKS)
        if real:
            out["properties"] = {k: self.node(rc, f"{path}.{k}") for k in real}
        req = [k for k in real if all(k in ks for ks in named)] if named and not special else []
        if req:
            out["required"] = req
        if masked:
            out["x-observed"]["masked_key_objects"] = sum(
                r["occurrences"] for r in rows if r["keyset"] not in SPECIAL_KEYSETS and set(r["keyset"].split(",")) & MASKS)
        if "<opaque>" in special:
            out["x-opaque"] = True  # typed, never entered
        if "<map>" in special:
            out["x-data-keyed"] = True
            if not named and (rc, path + ".<map-value>") in self.idx:
                out["additionalProperties"] = self.node(rc, path + ".<map-value>")
            return
        a = n.agg
        files, full = a.get("object_files") or 0, a.get("files_with_every_key") or 0
        if not special and not masked and files >= 2 and full == files:
            out["additionalProperties"] = False

    def _array(self, rc: str, path: str, n: Node, out: dict[str, Any]) -> None:
        if all(r["keyset"] == "<opaque>" for r in n.types["array"]):
            out["x-opaque"] = True
            return
        typed = sorted(self.typed.get((rc, path), []))
        known = sorted(x for x, _ in typed if x != WITHHELD)
        branches = []
        for x, p in typed:
            s = self.node(rc, p)
            props = s.setdefault("properties", {})
            if x == WITHHELD:  # a type value the vocabulary has not reviewed: any other string
                props["type"] = {**props.get("type", {}), "type": "string", "not": {"enum": known}}
            else:
                props["type"] = {**props.get("type", {}), "const": x}
            branches.append(s)
        if (rc, path + "[]") in self.idx:
            s = self.node(rc, path + "[]")
            if typed:  # not an element a typed branch takes
                s["not"] = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}
            branches.append(s)
        if len(branches) == 1:
            out["items"] = branches[0]
        elif branches:
            out["items"] = {"oneOf": branches}

    def _string(self, rc: str, path: str, types: list[str], out: dict[str, Any]) -> None:
        if types == ["string"] and path in self.profile.vocab_paths and path not in self.withheld_at \
                and self.values.get(path):
            out["enum"] = sorted(self.values[path])
        inner = (rc, path + ".<json>")
        if inner in self.idx:
            out["contentMediaType"] = "application/json"
            s = self.node(rc, path + ".<json>")
            if "type" in s or "x-observed" in s:
                out["contentSchema"] = s

    # -- classes -------------------------------------------------------------------------
    def discriminators(self, rc: str) -> list[tuple[str, str]]:
        """The (record-class path, value) pairs the class name is made of, where the census
        shows each such path in every record of the class; [] where none can be said."""
        rcp = list(self.profile.record_class)
        if not rcp or (rc.startswith("<") and rc.endswith(">") and rc != WITHHELD):
            return []
        parts = rc.split("/")
        top = self.idx.get((rc, "$"))
        total = top.agg.get("occurrences") if top else None
        present = [p for p in rcp if (n := self.idx.get((rc, p))) is not None
                   and n.agg.get("occurrences") == total and "null" not in n.types]
        if len(present) != len(parts):
            return []
        return list(zip(present, parts, strict=True))

    def class_schema(self, rc: str) -> dict[str, Any]:
        s = self.node(rc, "$")
        disc = self.discriminators(rc)
        for p, v in disc:
            target = s
            for k in p[2:].split(".")[:-1]:
                target = target.setdefault("properties", {}).setdefault(k, {})
            key = p.rsplit(".", 1)[1]
            prop = target.setdefault("properties", {}).setdefault(key, {})
            if v == WITHHELD:
                prop["not"] = {"enum": sorted(self.values.get(p, set()))}
            else:
                prop["const"] = v
        used = {p for p, _ in disc}
        for p in self.profile.record_class:  # a class-making key this class never has: kept apart
            if p in used or (rc, p) in self.idx:
                continue
            parent = p.rsplit(".", 1)[0]
            target = s
            for k in (parent[2:].split(".") if parent != "$" else []):
                target = (target.get("properties") or {}).get(k)  # type: ignore[assignment]
                if target is None:
                    break
            if target is not None and "object" in str(target.get("type")):
                target.setdefault("properties", {})[p.rsplit(".", 1)[1]] = False
        s["x-discriminator"] = {p: v for p, v in disc}
        if rc == "<none>" and self.profile.record_class and all(
                (s.get("properties") or {}).get(p[2:]) is False for p in self.profile.record_class if p.count(".") == 1):
            # no class-making key at all (each one a false property here, and required in every other class)
            s["x-discriminator"] = {p: "(absent)" for p in self.profile.record_class if p.count(".") == 1}
        return s

    def derive(self) -> dict[str, Any]:
        classes = sorted(rc for rc, p in self.idx if p == "$")
        defs = {rc: self.class_schema(rc) for rc in classes}
        every = all(defs[rc]["x-discriminator"] for rc in classes)
        refs = [{"$ref": ref(rc)} for rc in classes]
        m = self.manifest
        c = m.get("counts", {})
        versions = sorted({v for n in self.idx.values() if n.agg.get("path") == "$" for v in n.agg.get("versions") or []},
                          key=version_key)
        root: dict[str, Any] = {
            "$schema": DRAFT,
            "title": f"{m.get('title', self.runtime)}: records as observed",
            "description": ("Derived from a survey snapshot's census alone: every property, type and "
                            "required key was seen in the walked corpus; absence here means not observed."),
            "$defs": defs,
            "x-observed": {
                "runtime": self.runtime, "snapshot": m.get("date"), "snapshot_schema": m.get("snapshot_schema"),
                "fingerprint": m.get("fingerprint"), "walked_files": c.get("walked_files"),
                "files": c.get("files"), "records": c.get("frames_ok"), "classes": len(classes),
                "client_versions": versions if versions else "not recorded",
                "sample": m.get("sample"), "query": "survey/export/queries/schema_nodes.sql", "command": self.command,
            },
            "x-discriminated": every,
        }
        if refs:
            root["oneOf" if every else "anyOf"] = refs
        return root


def derive(snap: Path) -> dict[str, Any]:
    return Deriver(snap).derive()


def dumps(schema: dict[str, Any]) -> bytes:
    return orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def write_schema(snap: Path, reports: Path) -> dict[str, Any]:
    """Derive and write ``reports/<runtime>.schema.json``; a summary of what it holds."""
    schema = derive(snap)
    rt = schema["x-observed"]["runtime"]
    reports.mkdir(parents=True, exist_ok=True)
    out = reports / f"{rt}.schema.json"
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(dumps(schema))
    tmp.replace(out)
    return {"runtime": rt, "snapshot": str(snap), "schema": str(out), "classes": sorted(schema["$defs"]),
            "discriminated": schema["x-discriminated"], "properties": count_properties(schema)}


def count_properties(schema: Any) -> int:
    if isinstance(schema, dict):
        return len(schema.get("properties") or {}) + sum(count_properties(v) for v in schema.values())
    if isinstance(schema, list):
        return sum(count_properties(v) for v in schema)
    return 0


def latest(base: Path, runtime: str) -> Path:
    """The newest snapshot of ``runtime`` under ``base`` (by folder name)."""
    held = sorted(d for d in base.iterdir() if (d / runtime / "manifest.json").exists()) if base.is_dir() else []
    if not held:
        raise FileNotFoundError(f"no snapshot of {runtime} under {base}: run `survey run -r {runtime}` first")
    return held[-1] / runtime
