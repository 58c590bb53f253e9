"""Helpers a profile uses to turn census results and probe results into claims.

A profile's ``claims(kit)`` function states its sentences through this kit; the kit makes
sure each one carries the query or probe it came from, its scope and a pasteable command.
"""

from __future__ import annotations

import re
from typing import Any

from survey.evidence.claims import Claim, Evidence, MissingEvidence, as_int, fmt, human_bytes, pct

FRAME_PROBLEMS = ("malformed", "blank", "partial", "oversized", "not_object", "invalid_utf8", "too_deep")


class Kit:
    def __init__(self, census: dict, evidence: dict, manifest: dict) -> None:
        self.census = census
        self.evidence = evidence
        self.manifest = manifest
        self.claims: list[Claim] = []
        self.walked = manifest["counts"]["walked_files"]
        self.walked_bytes = manifest["counts"]["walked_bytes"]
        self.total = manifest["counts"]["files"]

    # -- census access ----------------------------------------------------------------
    def rows(self, name: str) -> list[dict[str, Any]]:
        q = self.census.get(name)
        if q is None:
            raise MissingEvidence(f"no census query named {name!r}")
        return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]

    def one(self, name: str) -> dict[str, Any]:
        r = self.rows(name)
        return r[0] if r else {}

    def scope_walked(self) -> str:
        return f"{fmt(self.walked)} walked files, {human_bytes(self.walked_bytes)}"

    def ev(self, name: str, result: str, scope: str | None = None) -> Evidence:
        q = self.census[name]
        return Evidence(source=q["sql"], result=result, scope=scope or self.scope_walked(),
                        command=q["command"])

    def probe(self, pid: str) -> dict:
        for p in self.evidence.get("probes", []):
            if p["id"] == pid:
                return p
        raise MissingEvidence(f"no probe named {pid!r}")

    def ev_probe(self, pid: str) -> Evidence:
        p = self.probe(pid)
        res = (f"DuckDB: {fmt(p['duckdb']['files_matched'])} files / {fmt(p['duckdb']['occurrences'])} hits; "
               f"rg: {fmt(p['rg']['files_matched'])} files / {fmt(p['rg']['occurrences'])} hits")
        if p.get("structural"):
            s = p["structural"]
            res += f"; as a key: {fmt(s['files_with_key'])} of {fmt(self.walked)} walked files"
        return Evidence(source=f"probe:{pid}", result=res,
                        scope=f"{fmt(p['files_scanned'])} files, {human_bytes(p['bytes_scanned'])} (every file in scope '{p['scope']}')",
                        command=p["duckdb_command"], second_command=p["rg_command"])

    def surface_counts(self, names: tuple[str, ...]) -> tuple[dict[str, int], int]:
        """Files per named surface (0 when absent) and the corpus total."""
        surf = {r["surface"]: r for r in self.rows("files_by_surface")}
        return ({s: as_int(surf.get(s, {}).get("files")) for s in names},
                sum(as_int(r["files"]) for r in surf.values()))

    def basis_frames(self, unit: str = "frames") -> int:
        """State the walk's basis (frames parsed, and every framing problem); return ok frames."""
        fs = {r["frame_status"]: as_int(r["frames"]) for r in self.rows("frame_status")}
        ok = fs.get("ok", 0)
        bad = {s: fs.get(s, 0) for s in FRAME_PROBLEMS}
        self.state("basis_frames", "census",
                   f"{fmt(self.walked)} files were walked ({human_bytes(self.walked_bytes)}): {fmt(ok)} {unit} parsed; "
                   + ", ".join(f"{s} {fmt(v)}" for s, v in bad.items() if v or s in ("malformed", "blank", "partial"))
                   + ".",
                   self.ev("frame_status", f"ok {fmt(ok)}; " + "; ".join(f"{s} {v}" for s, v in bad.items())),
                   value={"ok": ok, **bad})
        return ok

    def key_gate(self) -> None:
        """Keys outside the reviewed vocabulary: how many key paths hold one (a headline when
        any does: a parser meets keys the page cannot name)."""
        rows = {r["item"]: as_int(r["n"]) for r in self.rows("key_gate")}
        n = rows.get("unreviewed keys (paths)", 0)
        text = (f"{fmt(n)} key path{'s hold' if n != 1 else ' holds'} a key outside the reviewed vocabulary, "
                "withheld as <unreviewed-key>: a parser meets keys this page cannot name "
                "(`survey run --mode discover`, then `survey vocab`, proposes them for review)."
                if n else "Every key met is in the reviewed vocabulary: no key path holds an <unreviewed-key>.")
        self.state("unreviewed_keys", "census", text, self.ev("key_gate", f"unreviewed key paths {n}"),
                   value=n, headline=n > 0)

    def tool_names(self, path: str, withheld_label: str = "unreviewed names",
                   note: str = "Tool names are an open set: a parser must not reject an unknown name.") -> None:
        """The tool-name value map claim: reviewed names, and how many calls carry withheld ones."""
        names = self.rows("tool_names")
        withheld = next((r for r in names if r["name"] == "<withheld>"), None)
        distinct_w = next((r["distinct_withheld"] for r in self.rows("value_maps")
                           if r["path"] == path and r["value"] == "<withheld>"), 0)
        self.state("tool_names", "value_map",
                   f"{len([r for r in names if r['name'] != '<withheld>'])} reviewed tool names observed over "
                   f"{fmt(sum(as_int(r['calls']) for r in names))} calls"
                   + (f"; {fmt(withheld['calls'])} calls carry {fmt(distinct_w)} {withheld_label}, withheld"
                      if withheld else "")
                   + f". {note}",
                   self.ev("tool_names", f"{len(names)} rows"), value={r["name"]: r["calls"] for r in names})

    # -- stating ----------------------------------------------------------------------
    def state(self, id: str, kind: str, text: str, *evidence: Evidence, value: Any = None,
              provenance: str = "observed", headline: bool = False, **extra: Any) -> Claim:
        c = Claim(id=id, kind=kind, text=text, evidence=tuple(evidence), value=value,
                  provenance=provenance, headline=headline, extra=extra)
        self.claims.append(c)
        return c

    def absence(self, id: str, pid: str, what: str, headline: bool = False) -> Claim:
        """An absence claim from a probe: "not observed in N files", never "does not exist"."""
        p = self.probe(pid)
        n = p["files_scanned"]
        if p["verdict"] == "disagreement":
            text = (f"{what}: DuckDB and ripgrep DISAGREE over {fmt(n)} files "
                    f"({fmt(p['duckdb']['files_matched'])} vs {fmt(p['rg']['files_matched'])} files): not determined")
            return self.state(id, "absence", text, self.ev_probe(pid), value=None,
                              provenance="not determined", headline=headline)
        s = p.get("structural")
        if s is not None:
            k = s["files_with_key"]
            t = p["duckdb"]["files_matched"]
            if k == 0:
                text = (f"{what}: not observed as a key in {fmt(self.walked)} walked files; "
                        f"the text occurs in {fmt(t)} of {fmt(n)} files")
            else:
                text = f"{what}: observed as a key in {fmt(k)} of {fmt(self.walked)} walked files ({fmt(t)} of {fmt(n)} files by text)"
            return self.state(id, "absence", text, self.ev_probe(pid), value=k == 0, headline=headline)
        t = p["duckdb"]["files_matched"]
        if t == 0:
            text = f"{what}: not observed in {fmt(n)} files (0 hits by DuckDB and by rg)"
        else:
            text = f"{what}: observed in {fmt(t)} of {fmt(n)} files ({fmt(p['duckdb']['occurrences'])} hits)"
        return self.state(id, "absence", text, self.ev_probe(pid), value=t == 0, headline=headline)

    # -- reference notes ----------------------------------------------------------------
    def notes(self, notes: tuple) -> None:
        """State each reference note as a ``reference`` claim: its text, its source, and where
        the census can test it, whether the data holds or contradicts it."""
        for n in notes:
            ev = Evidence(source=f"reference: {n.source}", result="not checkable from static files",
                          scope="reference note", command=f"# reference note, not a finding: {n.source}")
            holds: bool | None = None
            checked = n.check is not None
            if n.check is not None:
                holds, ev = n.check(self)
            self.state(n.id, "reference", n.text, ev, provenance="reference",
                       value=holds, checked=checked, holds=holds)

    # -- key sets before masking, value formats -------------------------------------------
    def keyset_counts(self, classes: Any = None, path: str = "$", across: bool = False) -> tuple[int, int]:
        """Distinct key sets at ``path`` summed over record classes (``classes``: those only,
        else every class; ``across``: over every class together, a set met in two classes
        counted once): (after masking unreviewed keys, before masking). The second is a
        count of salted pseudonyms of raw key sets (``raw_keysets``), never a key."""
        masked = raw = 0
        for r in self.rows("raw_keysets"):
            if r["path"] != path or (r["rclass"] is None) != across:
                continue
            if across or classes is None or r["rclass"] in classes:
                masked += as_int(r["keysets_masked"])
                raw += as_int(r["keysets_raw"])
        return masked, raw

    def keysets_masking(self) -> Claim:
        """The top-level key sets of every record class, counted after masking unreviewed keys
        and before (distinct raw key sets), with the deepest difference found at any path."""
        rows = [r for r in self.rows("raw_keysets") if r["rclass"] is not None]
        top = [r for r in rows if r["path"] == "$"]
        masked, raw = self.keyset_counts()
        merged = [r for r in rows if as_int(r["keysets_raw"]) > as_int(r["keysets_masked"])]
        text = (f"Top-level key sets over {len(top)} record class{'es' if len(top) != 1 else ''}: {fmt(masked)} after "
                f"masking unreviewed keys; {fmt(raw)} distinct before masking. "
                + (f"At {len(merged)} (class, path) pair{'s' if len(merged) != 1 else ''} masking merged distinct key sets; a count of sets "
                   "elsewhere on this page is after masking unless it says otherwise."
                   if merged else "Masking merged no two key sets at any path."))
        return self.state("keysets_masking", "census", text,
                          self.ev("raw_keysets", f"{len(rows)} (class, path) rows; top level {masked} masked, "
                                  f"{raw} raw; {len(merged)} pairs merged"),
                          value={"masked": masked, "raw": raw, "merged_pairs": len(merged),
                                 "per_class": {r["rclass"]: [as_int(r["keysets_masked"]), as_int(r["keysets_raw"])]
                                               for r in top}})

    def value_formats(self, expected: tuple = (), limit: int = 40) -> Claim:
        """Per leaf path (record classes together): the JSON types of its values and the
        format classes of its strings and numbers, counted (``value_formats``); the table
        lists the paths where a format other than free text or a plain number occurs, most
        values first, up to ``limit``."""
        rows = self.rows("value_formats")
        by_path: dict[str, dict[str, int]] = {}
        for r in rows:
            d = by_path.setdefault(r["path"], {})
            d[r["format"]] = d.get(r["format"], 0) + as_int(r["occurrences"])
        types: dict[str, dict[str, int]] = {}
        for r in self.rows("keyset_census"):
            if r["path"] in by_path and r["jtype"] in ("string", "number", "boolean", "null") and not r["keyset"]:
                t = types.setdefault(r["path"], {})
                t[r["jtype"]] = t.get(r["jtype"], 0) + as_int(r["occurrences"])
        shaped = [p for p, d in by_path.items() if any(f not in ("text", "number") for f in d)]
        shaped.sort(key=lambda p: (-sum(by_path[p].values()), p))
        table = [{"path": p, "values": sum(by_path[p].values()),
                  "types": " · ".join(f"{t} {fmt(n)}" for t, n in sorted(types.get(p, {}).items(), key=lambda kv: (-kv[1], kv[0]))),
                  "formats": " · ".join(f"{f} {fmt(n)}" for f, n in sorted(by_path[p].items(), key=lambda kv: (-kv[1], kv[0])))}
                 for p in shaped[:limit]]
        text = (f"{fmt(len(by_path))} leaf paths hold strings or numbers; at {fmt(len(shaped))} of them some values have "
                "a recognised format (epoch seconds or milliseconds, RFC 3339 / ISO timestamp, UUID, hex digest, URL, "
                "path-like, empty)"
                + (f"; the {len(table)} with the most values are listed" if len(shaped) > len(table) else "")
                + ". Values are classified as read and counted, never kept.")
        checks = [c.id for e in expected
                  if (c := self.format_claim(e.id, e.what, e.path, e.formats, e.label, e.classes)) is not None]
        return self.state("value_formats", "census", text,
                          self.ev("value_formats", f"{len(rows)} rows; {len(by_path)} paths, {len(shaped)} with a format"),
                          self.ev("keyset_census", "JSON types of the same paths"), value=table, checks=checks)

    def format_of(self, path: str, classes: Any = None) -> dict[str, int]:
        """The format classes of the values at ``path`` (of ``classes`` only, if given), counted."""
        out: dict[str, int] = {}
        for r in self.rows("value_formats"):
            if r["path"] == path and (classes is None or r["rclass"] in classes):
                out[r["format"]] = out.get(r["format"], 0) + as_int(r["occurrences"])
        return out

    def format_claim(self, id: str, what: str, path: str, expect: tuple[str, ...], label: str,
                     classes: Any = None) -> Claim | None:
        """A value-format claim: of the values at ``path``, how many are in the ``expect``
        classes (``label`` says what they are) and how many are not; None where no value is
        at the path (the claim is not made)."""
        got = self.format_of(path, set(classes) if classes is not None else None)
        total = sum(got.values())
        if not total:
            return None
        ok = sum(n for f, n in got.items() if f in expect)
        other = {f: n for f, n in got.items() if f not in expect}
        text = (f"{what}: {fmt(ok)} of {fmt(total)} values are {label}"
                + ("." if not other else "; the others: " + ", ".join(f"{f} {fmt(n)}" for f, n in sorted(other.items(), key=lambda kv: (-kv[1], kv[0]))) + "."))
        return self.state(id, "census", text,
                          self.ev("value_formats", f"{path}: " + "; ".join(f"{f} {n}" for f, n in sorted(got.items()))),
                          value={"path": path, "expected": ok, "total": total, "other": other})

    # -- skeletons ----------------------------------------------------------------------
    def skeletons(self, record_class: tuple[str, ...] = (), per_class: int = 2) -> Claim:
        """Skeletons generated from the key-set census: for each record class its most
        frequent top-level key sets (up to ``per_class``), and for each block type under a
        record class its most frequent key set; keys as the gate let them out (sorted),
        values elided, the record class and block type shown where they are vocabulary."""
        rows = self.rows("keyset_census")
        by_path: dict[tuple[str, str], list[dict]] = {}
        for r in rows:
            by_path.setdefault((r["rclass"], r["path"]), []).append(r)
        for v in by_path.values():
            v.sort(key=lambda r: (-as_int(r["occurrences"]), r["jtype"], r["keyset"] or ""))
        out: list[dict] = []
        classes = sorted({r for r, p in by_path if p == "$"},
                         key=lambda c: (-sum(as_int(r["occurrences"]) for r in by_path[(c, "$")]), c))
        for rc in classes:
            for top in [r for r in by_path[(rc, "$")] if r["jtype"] == "object"][:per_class]:
                doc = _skeleton_obj(by_path, rc, "$", top["keyset"] or "", _class_values(rc, record_class, top), 0)
                out.append({"label": rc, "json": doc, "records": as_int(top["occurrences"]),
                            "files": as_int(top["files"])})
            blocks = sorted({(p, by_path[(c, p)][0]["occurrences"]) for c, p in by_path
                             if c == rc and p.endswith("]") and "[type=" in p and _is_block(p)},
                            key=lambda t: (-as_int(t[1]), t[0]))
            for p, _n in blocks:
                objs = [r for r in by_path[(rc, p)] if r["jtype"] == "object"]
                if not objs:
                    continue
                top = objs[0]
                btype = p[p.rindex("[type=") + 6:-1]
                doc = _skeleton_obj(by_path, rc, p, top["keyset"] or "", {f"{p}.type": btype}, 0)
                out.append({"label": f"{rc} · {_short(p)}", "json": doc,
                            "records": as_int(top["occurrences"]), "files": as_int(top["files"])})
        n_cls = len(classes)
        text = (f"{len(out)} skeletons generated from the key-set census: the most frequent top-level key "
                f"set{'s' if per_class > 1 else ''} of each of {n_cls} record class{'es' if n_cls != 1 else ''} "
                "and the most frequent key set of each block type; keys in sorted order, values elided.")
        return self.state("skeletons", "census", text,
                          self.ev("keyset_census", f"{len(rows)} rows; {len(out)} skeletons"), value=out)


def _is_block(path: str) -> bool:
    """A block path: ``…[type=X]`` with nothing after the closing bracket."""
    i = path.rfind("[type=")
    return i > 0 and path.index("]", i) == len(path) - 1


def _short(path: str) -> str:
    return path[2:] if path.startswith("$.") else path


def _class_values(rclass: str, record_class: tuple[str, ...], top: dict) -> dict[str, str]:
    """Where each part of a record class name came from: the walk names a class by the gated
    values of the profile's class paths that a record carries, joined by ``/``."""
    keys = set((top.get("keyset") or "").split(","))
    present = [p for p in record_class if p.count(".") == 1 and p[2:] in keys]
    parts = rclass.split("/")
    return dict(zip(present, parts, strict=False)) if len(present) == len(parts) else {}


_PLACEHOLDER = {"string": '"…"', "number": "0", "integer": "0", "boolean": "false", "null": "null"}


def _skeleton_value(by_path: dict, rc: str, path: str, known: dict[str, str], depth: int) -> str:
    if path in known:
        v = known[path]
        return '"…"' if v.startswith("<") else '"' + v + '"'
    rows = by_path.get((rc, path))
    if not rows:
        # an array's elements: plain ([]) or typed ([type=X]); the most frequent one shown
        return "…"
    top = rows[0]
    jt = top["jtype"]
    if jt == "object":
        ks = top["keyset"] or ""
        if ks.startswith("<") and "," not in ks:  # <map>, <opaque>: a data-keyed map or an opaque value
            return "{" + ks + "}"
        if depth >= 6:
            return "{…}"
        return _skeleton_obj(by_path, rc, path, ks, known, depth + 1)
    if jt == "array":
        elems = [(p, r) for (c, p), rr in by_path.items() if c == rc for r in rr[:1]
                 if p.startswith(path + "[") and p.endswith("]") and "." not in p[len(path):]]
        if not elems:
            return "[]"
        p, _r = max(elems, key=lambda t: (as_int(t[1]["occurrences"]), t[0]))
        inner = dict(known)
        if "[type=" in p[len(path):]:
            inner[f"{p}.type"] = p[p.rindex("[type=") + 6:-1]
        more = ", …" if len(elems) > 1 else ""
        return "[" + _skeleton_value(by_path, rc, p, inner, depth + 1) + more + "]"
    return _PLACEHOLDER.get(jt, '"…"')


def _skeleton_obj(by_path: dict, rc: str, path: str, keyset: str, known: dict[str, str], depth: int) -> str:
    keys = [k for k in keyset.split(",") if k]
    parts = [f'"{k}": {_skeleton_value(by_path, rc, f"{path}.{k}", known, depth)}' for k in keys]
    return "{" + ", ".join(parts) + "}"

# -- keyed absences over several probes (any path, paths named) ---------------------------


def key_absence(kit: Kit, id: str, pids: tuple[str, ...], what: str, headline: bool = False) -> Claim:
    """An absence claim over probes that each name a key: whether the walk saw any of the
    keys as a key, at any path (the paths where it did are named), beside the text figure.
    A key outside the reviewed vocabulary is masked by the walk, so in reviewed mode its
    structural figure cannot show it: the claim is then not determined, never "holds"."""
    from survey.runtimes.base import load_vocab

    ps = [kit.probe(p) for p in pids]
    evs = tuple(kit.ev_probe(p) for p in pids)
    n = max((p["files_scanned"] for p in ps), default=0)
    text_files = {p["structural"]["key"] if p.get("structural") else p["id"]: p["duckdb"]["files_matched"] for p in ps}
    if any(p["verdict"] == "disagreement" for p in ps):
        return kit.state(id, "absence", f"{what}: DuckDB and ripgrep DISAGREE over {fmt(n)} files: not determined",
                         *evs, value=None, provenance="not determined", headline=headline, seen={})
    reviewed, _ = load_vocab(kit.manifest.get("runtime", "")) if kit.manifest.get("mode", "reviewed") == "reviewed" \
        else (None, None)
    seen: dict[str, dict] = {}
    blind: list[str] = []
    for p in ps:
        s = p.get("structural")
        if not s:
            continue
        if reviewed is not None and s["key"] not in reviewed:
            blind.append(s["key"])
        if s["files_with_key"]:
            seen[s["key"]] = {"files": s["files_with_key"], "paths": list(s.get("paths_seen") or [])}
    keys = ", ".join(f"`{p['structural']['key']}`" for p in ps if p.get("structural"))
    by_text = "; by text: " + ", ".join(f"{k} in {fmt(v)}" for k, v in text_files.items()) + f" of {fmt(n)} files."
    if seen:
        parts = [f"`{k}` in {fmt(v['files'])} of {fmt(kit.walked)} walked files, at "
                 + ", ".join(f"`{p}`" for p in v["paths"]) for k, v in seen.items()]
        text = f"{what}: observed as a key: " + "; ".join(parts) + by_text
        return kit.state(id, "absence", text, *evs, value=False, headline=headline, seen=seen)
    if blind:
        text = (f"{what}: not determined as a key ({', '.join(f'`{b}`' for b in blind)} outside the reviewed "
                f"vocabulary is masked by the walk){by_text}")
        return kit.state(id, "absence", text, *evs, value=None, provenance="not determined", headline=headline,
                         seen={})
    text = f"{what}: not observed as a key ({keys}) at any path in {fmt(kit.walked)} walked files{by_text}"
    return kit.state(id, "absence", text, *evs, value=True, headline=headline, seen={})


# -- declared shapes: nested key sets and text markers (any runtime, from its profile) ------


def _path_glob(glob: str) -> re.Pattern[str]:
    """A key-census path glob: ``*`` matches any run of characters, everything else itself
    (``[type=X]`` is literal, not a character class)."""
    return re.compile(".*".join(re.escape(part) for part in glob.split("*")) + r"\Z")


def nested_keysets(kit: Kit, declared: dict[str, tuple[str, ...]]) -> None:
    """One claim per declared entry: at each matching object path, per record class, how many
    objects, how many distinct key sets, and each key with the share of objects carrying it
    (keys as the gate let them out; ``<map>`` / ``<opaque>`` objects are not described)."""
    if not declared or "nested_keysets" not in kit.census:
        return
    rows = kit.rows("nested_keysets")
    for cid, globs in declared.items():
        # a glob is ``path`` or ``record class|path``
        rxs = [(_path_glob(g.split("|", 1)[0]) if "|" in g else None, _path_glob(g.rsplit("|", 1)[-1]))
               for g in globs]
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in rows:
            if any((cx is None or cx.match(r["rclass"] or "")) and px.match(r["path"]) for cx, px in rxs):
                groups.setdefault((r["rclass"] or "<none>", r["path"]), []).append(r)
        where = ", ".join(f"`{g}`" for g in globs)
        if not groups:
            kit.state(cid, "census", f"Key sets at {where}: no object was observed there in {fmt(kit.walked)} walked files.",
                      kit.ev("nested_keysets", "0 rows at the declared paths"), value={}, section="declared")
            continue
        parts, value = [], {}
        for (rc, path), rr in sorted(groups.items(), key=lambda t: (-as_int(t[1][0]["objects"]), t[0])):
            n = as_int(rr[0]["objects"])
            keys = {r["key"]: as_int(r["objects_with_key"]) for r in rr}
            always = [k for k, v in keys.items() if v == n]
            some = [f"{k} {pct(v, n)}" for k, v in keys.items() if v != n]
            parts.append(f"`{_short(path)}` ({rc}) in {fmt(n)} objects, {fmt(rr[0]['keysets'])} key set"
                         f"{'s' if as_int(rr[0]['keysets']) != 1 else ''}: "
                         + (f"always {{{', '.join(sorted(always))}}}" if always else "no key in every object")
                         + (f"; sometimes {', '.join(some)}" if some else ""))
            value[f"{rc}|{path}"] = {"objects": n, "keysets": as_int(rr[0]["keysets"]), "keys": keys}
        kit.state(cid, "census", f"Key sets at {where}: " + "; ".join(parts) + ".",
                  kit.ev("nested_keysets", f"{len(groups)} (record class, path) groups: "
                         + "; ".join(f"{k} {v['objects']}" for k, v in value.items())),
                  value=value, section="declared")


def text_markers(kit: Kit, markers: dict[str, tuple[str, str]], probes: tuple = ()) -> None:
    """One claim per declared text marker (``markers`` named ``text:<label>``): the records and
    walked files holding it at its declared paths and, where a probe greps the same literal,
    the files holding it by text. Labelled as a marker in text; nothing around it is quoted."""
    decl: dict[str, tuple[str, list[str]]] = {}
    for name, (path, sub) in markers.items():
        if name.startswith("text:"):
            label = name.split("@", 1)[0]
            decl.setdefault(label, (sub, []))[1].append(path)
    if not decl or "text_markers" not in kit.census:
        return
    found = {r["name"]: r for r in kit.rows("text_markers")}
    for label, (sub, paths) in decl.items():
        r = found.get(label, {})
        recs, files = as_int(r.get("records")), as_int(r.get("files"))
        evs = [kit.ev("text_markers", f"{label}: {recs} records, {files} files")]
        text = (f"The text marker {sub} (a marker in text, counted, never quoted beyond it) is held by "
                f"{fmt(recs)} records in {fmt(files)} of {fmt(kit.walked)} walked files, at "
                + ", ".join(f"`{_short(p)}`" for p in paths))
        probe = next((p for p in probes if sub in p.literals), None)
        if probe is not None:
            p = kit.probe(probe.id)
            evs.append(kit.ev_probe(probe.id))
            text += f"; by raw text in {fmt(p['duckdb']['files_matched'])} of {fmt(p['files_scanned'])} files"
        kit.state(f"text_marker_{label[5:]}", "census", text + ".", *evs,
                  value={"records": recs, "files": files}, section="declared")


def tool_input_keysets(kit: Kit) -> None:
    """Where blocks name a tool and carry an input object: per tool name, its calls, distinct
    input key sets, the keys in every call and each other key with its share of calls."""
    if "tool_input_keys" not in kit.census:
        return
    rows = kit.rows("tool_input_keys")
    if not rows:
        return
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["name"], []).append(r)
    parts: list[str] = []
    value: dict[str, dict[str, Any]] = {}
    total = 0
    for name, rr in sorted(by.items(), key=lambda t: (-as_int(t[1][0]["calls"]), t[0])):
        n = as_int(rr[0]["calls"])
        keys = {r["key"]: as_int(r["calls_with_key"]) for r in rr}
        always = sorted(k for k, v in keys.items() if v == n)
        some = [f"{k} {pct(v, n)}" for k, v in keys.items() if v != n]
        parts.append(f"{name} ({fmt(n)} calls, {fmt(rr[0]['keysets'])} key set{'s' if as_int(rr[0]['keysets']) != 1 else ''}): "
                     + (f"{{{', '.join(always)}}}" if always else "no key in every call")
                     + (f", sometimes {', '.join(some)}" if some else ""))
        value[name] = {"calls": n, "keysets": as_int(rr[0]["keysets"]), "keys": keys}
        total += n
    kit.state("nested_tool_input", "census",
              f"Input key sets per tool name over {fmt(total)} calls with an "
              "object input: " + "; ".join(parts) + ".",
              kit.ev("tool_input_keys", f"{len(rows)} (tool, key) rows over {len(value)} tool names"),
              value=value, section="declared")
