"""Compare two snapshots of one runtime: what drifted between two dates.

Reads only the two snapshots (manifest.json, census.json, claims.json) and reports, most
important first, scope differences, flipped absences, changed statements, key sets and
vocabulary values that came or went, and figures that moved (which are not drift)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from survey.evidence.claims import fmt
from survey.render.render import code, md_escape
from survey.snapshot.store import load_json

# manifest fields whose difference changes what the two snapshots can be compared on,
# with what the report says of each ("vocab": a vocabulary version, where the manifest has one)
SCOPE_FIELDS: tuple[tuple[str, str], ...] = (
    ("sample", "what was walked"),
    ("root", "root pseudonym"),
    ("tool_version", "tool version"),
    ("snapshot_schema", "snapshot schema"),
    ("vocab", "vocabulary version"),
    ("mode", "gate mode"),
    ("allow_mcp_names", "MCP names let through"),
    ("min_files", "rare-key threshold (files)"),
)


class RuntimeMismatch(ValueError):
    """Two snapshots of different runtimes: nothing in them is comparable."""


@dataclass
class Drift:
    old: str
    new: str
    runtime: str
    scope: dict[str, dict] = field(default_factory=dict)  # {"old": {...}, "new": {...}}
    scope_differences: list[dict] = field(default_factory=list)
    flipped_absences: list[dict] = field(default_factory=list)
    statements_changed: list[dict] = field(default_factory=list)
    keysets_appeared: list[dict] = field(default_factory=list)
    keysets_vanished: list[dict] = field(default_factory=list)
    values_appeared: list[dict] = field(default_factory=list)
    values_vanished: list[dict] = field(default_factory=list)
    figures_moved: list[dict] = field(default_factory=list)
    percentile_shifts: list[dict] = field(default_factory=list)
    strata: dict[str, list] = field(default_factory=dict)

    @property
    def old_sampled(self) -> bool:
        return bool(self.scope.get("old", {}).get("sampled"))

    @property
    def new_sampled(self) -> bool:
        return bool(self.scope.get("new", {}).get("sampled"))

    def _kinds(self) -> dict[str, tuple[str, bool]]:
        """Each list, what the report calls it and whether it is drift: a shape missing from
        a sample was not seen there, which is no evidence that it went (or came)."""
        came = ("not seen in the older sample", False) if self.old_sampled else ("appeared", True)
        gone = ("not seen in the newer sample", False) if self.new_sampled else ("vanished", True)
        sampled = self.old_sampled or self.new_sampled
        return {"flipped_absences": ("absence claims flipped", True),
                "statements_changed": ("statements that differ where a sample was walked", False) if sampled
                else ("statements changed", True),
                "keysets_appeared": (f"key sets {came[0]}", came[1]),
                "keysets_vanished": (f"key sets {gone[0]}", gone[1]),
                "values_appeared": (f"vocabulary values {came[0]}", came[1]),
                "values_vanished": (f"vocabulary values {gone[0]}", gone[1])}

    def drift_counts(self) -> dict[str, int]:
        """What drifted, counted per kind (the kinds that ``drifted`` rests on)."""
        return {k: len(getattr(self, k)) for k, (_w, drift) in self._kinds().items() if drift and getattr(self, k)}

    @property
    def drifted(self) -> bool:
        return bool(self.drift_counts())

    def summary(self) -> str:
        """One line naming what drifted (``--fail-on-drift``'s message), and what a sample
        did not show (not drift)."""
        kinds = self._kinds()
        n = self.drift_counts()
        unseen = {k: len(getattr(self, k)) for k, (_w, drift) in kinds.items() if not drift and getattr(self, k)}
        line = ("drift: " + ", ".join(f"{v} {kinds[k][0]}" for k, v in n.items())) if n else "no drift"
        if unseen:
            line += "; not drift: " + ", ".join(f"{v} {kinds[k][0]}" for k, v in unseen.items())
        return line

    def to_json(self) -> dict:
        return {**asdict(self), "drifted": self.drifted, "drift_counts": self.drift_counts(), "summary": self.summary(),
                "vanished_means": "not seen in the newer snapshot's sample" if self.new_sampled else "vanished",
                "appeared_means": "not seen in the older snapshot's sample" if self.old_sampled else "appeared"}


def _rows(snap: Path, name: str) -> list[dict]:
    q = (load_json(snap, "census") or {}).get(name)
    if not q:
        return []
    return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]


def _keysets(snap: Path) -> dict[tuple, int]:
    return {(r["rclass"], r["path"], r["jtype"], r["keyset"]): int(r["occurrences"]) for r in _rows(snap, "keyset_census")}


def _values(snap: Path) -> dict[tuple, int]:
    return {(r["path"], r["value"]): int(r["occurrences"]) for r in _rows(snap, "value_maps")}


def _order(k: tuple) -> tuple:
    """Rows in a stable order, a NULL cell first (None and str do not compare)."""
    return tuple((x is not None, str(x) if x is not None else "") for x in k)


def scope_of(manifest: dict) -> dict[str, Any]:
    """What a snapshot walked and under what: the manifest fields ``SCOPE_FIELDS`` names."""
    s = manifest.get("sample") or {}
    c = manifest.get("counts") or {}
    sampled = s.get("n") is not None
    return {
        "sampled": sampled,
        "sample": f"sample of {s.get('n')} (seed {s.get('seed')})" if sampled else "whole corpus",
        "walked_files": c.get("walked_files"),
        "files": c.get("files"),
        "root": manifest.get("root"),
        "tool_version": manifest.get("tool_version"),
        "snapshot_schema": manifest.get("snapshot_schema"),
        "vocab": manifest.get("vocab"),
        "mode": manifest.get("mode"),
        "allow_mcp_names": manifest.get("allow_mcp_names"),
        "min_files": (manifest.get("privacy") or {}).get("min_files"),
    }


def diff(old: Path, new: Path) -> Drift:
    """What drifted from snapshot ``old`` to ``new`` (two of one runtime).

    Reads only the two snapshots (manifest.json, census.json, claims.json). Reports, most
    important first: how the two snapshots differ in scope (a sample against a whole corpus,
    another root, another tool, schema or vocabulary), absence claims that flipped; statements
    that changed (every other claim whose computed result says something else: a verdict
    flipped, a count crossed zero or stopped covering all, an entry came or went, a claim came
    or went); key sets that appeared or vanished (per record class and path, with counts);
    vocabulary values that appeared or vanished; figures that moved; percentile shifts; stratum
    counts. Counts that merely grew with the corpus are not drift (they are listed as figures
    that moved); a shape, a value or a statement that was absent and is now present (or the
    reverse) is.

    A shape missing from a snapshot that walked a sample was not seen in that sample: it is
    listed under that name, never as "vanished" (or, for the older one, as new) in a corpus
    nobody read whole.
    """
    mo, mn = load_json(old, "manifest") or {}, load_json(new, "manifest") or {}
    if mo.get("runtime") != mn.get("runtime"):
        raise RuntimeMismatch(f"cannot compare a snapshot of {mo.get('runtime')} with one of {mn.get('runtime')}: "
                              "diff compares two snapshots of one runtime")
    so, sn = scope_of(mo), scope_of(mn)
    d = Drift(old=str(old), new=str(new), runtime=mn["runtime"], scope={"old": so, "new": sn})
    for name, what in SCOPE_FIELDS:
        if so[name] != sn[name]:
            d.scope_differences.append({"field": name, "what": what, "old": so[name], "new": sn[name]})
    co = {c["id"]: c for c in load_json(old, "claims") or []}
    cn = {c["id"]: c for c in load_json(new, "claims") or []}
    for cid in sorted(set(co) | set(cn), key=lambda i: (i not in cn, i)):
        o, c = co.get(cid), cn.get(cid)
        if o is None or c is None:  # a claim stated on one side only
            d.statements_changed.append({"claim": cid, "old": o["text"] if o else None, "new": c["text"] if c else None,
                                         "changed": ["stated on one side only"]})
            continue
        if (o["value"], o["text"], o.get("provenance"), o.get("extra")) == (c["value"], c["text"], c.get("provenance"),
                                                                           c.get("extra")):
            continue
        if c["kind"] == "percentile":
            if o["value"] != c["value"]:
                d.percentile_shifts.append({"claim": cid, "old": o["value"], "new": c["value"]})
        elif c["kind"] == "absence" and o["value"] != c["value"]:
            d.flipped_absences.append({"claim": cid, "old": o["text"], "new": c["text"]})
        elif statement(o) != statement(c):
            d.statements_changed.append({"claim": cid, "old": o["text"], "new": c["text"],
                                         "changed": statement_changes(statement(o), statement(c))})
        else:
            d.figures_moved.append({"claim": cid, "figures": figure_changes(o, c)})
    ko, kn = _keysets(old), _keysets(new)
    for k in sorted(set(kn) - set(ko), key=_order):
        d.keysets_appeared.append({"rclass": k[0], "path": k[1], "jtype": k[2], "keyset": k[3], "count": kn[k]})
    for k in sorted(set(ko) - set(kn), key=_order):
        d.keysets_vanished.append({"rclass": k[0], "path": k[1], "jtype": k[2], "keyset": k[3], "count": ko[k]})
    vo, vn = _values(old), _values(new)
    for k in sorted(set(vn) - set(vo), key=_order):
        d.values_appeared.append({"path": k[0], "value": k[1], "count": vn[k]})
    for k in sorted(set(vo) - set(vn), key=_order):
        d.values_vanished.append({"path": k[0], "value": k[1], "count": vo[k]})
    st_o = {r["stratum"]: r["files"] for r in _rows(old, "strata")}
    st_n = {r["stratum"]: r["files"] for r in _rows(new, "strata")}
    d.strata = {s: [st_o.get(s, 0), st_n.get(s, 0)] for s in sorted(set(st_o) | set(st_n))}
    return d


# -- what a claim states, figures aside ------------------------------------------------------
# a figure as the pages print one (1,234.5), never part of a name or a version (v2, 1.2.3); a comma
# or a full stop after it is the sentence's (``3, 4``, ``in 7.``)
_FIGURE = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?!\w|[.,]\d)")


def _sign(n: float) -> str:
    return "0" if n == 0 else ("+" if n > 0 else "-")


def _verdict(v: Any, rate: bool = False, in_list: bool = False) -> Any:
    """What a computed result states once its figures are set aside: a number only as zero or
    not (a count that crosses zero changes the statement), a rate ``[part, whole, ...]`` also as
    whether the part is all of the whole, a string with its standalone figures as ``#``, a
    map's keys and a list's items (as a multiset: an order by frequency is a figure; a list
    inside a list, a tuple such as ``[name, count]``, keeps its order) kept."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return _sign(v)
    if isinstance(v, str):
        return _FIGURE.sub("#", v)
    if isinstance(v, dict):
        return {str(k): _verdict(x, rate) for k, x in v.items()}
    if isinstance(v, list):
        if rate and len(v) >= 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            return {**{f"#{i + 1}": _sign(x) for i, x in enumerate(v)}, "#1 of #2": "all" if v[0] == v[1] else "not all"}
        items = [_verdict(x, rate, True) for x in v]
        return items if in_list else sorted(items, key=_canon)
    return repr(v)


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, ensure_ascii=False, default=str)


# words whose form follows a count (agreement), not what a sentence says
# and units of a size (``~3.2 MB``), which follow the figure
_AGREEMENT = frozenset({"is", "are", "was", "were", "has", "have", "do", "does", "a", "an", "it", "they", "s",
                        "b", "kb", "mb", "gb"})


def _words(text: str) -> list[str]:
    """A sentence as the multiset of what it says: its words, figures and word order aside (a
    list ordered by frequency reorders as figures move), plural endings folded."""
    out = []
    for w in re.findall(r"[A-Za-z_][A-Za-z_-]*", _FIGURE.sub(" ", text).lower()):
        if w in _AGREEMENT:
            continue
        out.append(w[:-3] + "y" if len(w) > 4 and w.endswith("ies") else w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return sorted(out)


def statement(c: dict) -> dict:
    """A stored claim's statement: its provenance, its extra fields (a reference note's
    ``holds``), the verdict of its value and the words of its sentence. Two claims with one
    statement differ in figures only."""
    return {"provenance": c.get("provenance"), "extra": _verdict(c.get("extra") or {}),
            "value": _verdict(c.get("value"), c.get("kind") == "rate"), "words": _words(c.get("text") or "")}


def _where(path: tuple) -> str:
    return " · ".join(p if p.startswith("#") or (i == 0 and p in ("value", "extra")) else _c(p)
                      for i, p in enumerate(path)) or "value"


def _item(x: Any) -> str:
    """A list item of a verdict, compact: a map by its string entries (its figures set aside)."""
    if isinstance(x, dict):
        parts = [f"{k} {md_escape(str(v))}" for k, v in x.items() if isinstance(v, str) and v not in ("0", "+", "-")]
        return "; ".join(parts) or md_escape(_canon(x))
    return _say(x)


def _compare(a: Any, b: Any, at: tuple, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append(f"{_where((*at, k))}: new")
            elif k not in b:
                out.append(f"{_where((*at, k))}: gone")
            else:
                _compare(a[k], b[k], (*at, k), out)
    elif isinstance(a, list) and isinstance(b, list):
        ca, cb = Counter(_canon(x) for x in a), Counter(_canon(x) for x in b)
        items = {_canon(x): x for x in (*a, *b)}
        out += [f"{_where(at)}: new item {_item(items[k])}" for k in sorted(cb - ca)]
        out += [f"{_where(at)}: item gone {_item(items[k])}" for k in sorted(ca - cb)]
    elif a != b:
        out.append(f"{_where(at)}: {_say(a)} → {_say(b)}")


def statement_changes(a: dict, b: dict) -> list[str]:
    """What differs between two statements, named by where (a key path of the claim's
    value, its provenance or a reference note's verdict), never by the figures."""
    out: list[str] = []
    if a["provenance"] != b["provenance"]:
        out.append(f"provenance: {md_escape(str(a['provenance']))} → {md_escape(str(b['provenance']))}")
    _compare(a["extra"], b["extra"], ("extra",), out)
    _compare(a["value"], b["value"], ("value",), out)
    if a["words"] != b["words"] and not out:  # (a sentence that changed with its value: the value says where)
        wa, wb = Counter(a["words"]), Counter(b["words"])
        said = [f"no longer: {md_escape(' '.join(sorted(wa - wb)))}" if wa - wb else "",
                f"now: {md_escape(' '.join(sorted(wb - wa)))}" if wb - wa else ""]
        out.append("sentence words " + "; ".join(x for x in said if x))
    return out


def _say(x: Any) -> str:
    """A verdict leaf as words (a list or a map, which a list item can be, as compact JSON)."""
    if isinstance(x, str):
        return {"0": "zero", "+": "non-zero", "-": "negative"}.get(x, md_escape(x))
    if isinstance(x, bool) or x is None:
        return md_escape(str(x).lower())
    return md_escape(_canon(x))


def _leaves(v: Any, at: tuple = ()) -> dict[tuple, Any]:
    """Every scalar of a claim's value, by its path of keys and positions (``#1``...)."""
    if isinstance(v, dict):
        return {p: x for k, y in v.items() for p, x in _leaves(y, (*at, str(k))).items()}
    if isinstance(v, list):
        return {p: x for i, y in enumerate(v) for p, x in _leaves(y, (*at, f"#{i + 1}")).items()}
    return {at: v}


def figure_changes(o: dict, c: dict) -> list[str]:
    """The figures of a claim that moved while its statement held: each changed number of
    its value by key path, formatted as the pages print figures; for a sentence whose value
    did not change, the figures of the sentence that did."""
    la, lb = _leaves(o["value"]), _leaves(c["value"])
    out = [f"{_where(p)}: {_num(la[p])} → {_num(lb[p])}" for p in sorted(set(la) & set(lb), key=_order)
           if la[p] != lb[p] and isinstance(la[p], (int, float)) and not isinstance(la[p], bool)]
    if not out:
        fa, fb = _FIGURE.findall(o["text"]), _FIGURE.findall(c["text"])
        pairs = [(x, y) for x, y in zip(fa, fb, strict=False) if x != y]
        if pairs:
            out.append("in its sentence: " + " / ".join(x for x, _ in pairs) + " → " + " / ".join(y for _, y in pairs))
    return out

# -- the report ------------------------------------------------------------------------------
def _c(s: Any) -> str:
    """A gated name as the pages print one: in backticks (``<withheld>`` stays visible)."""
    return code(s)


def _ks(r: dict[str, Any]) -> str:
    ks = f" {_c('{' + str(r['keyset']) + '}')}" if r["keyset"] else ""
    return f"{_c(r['rclass'])} {_c(r['path'])} {r['jtype']}{ks} ×{fmt(r['count'])}"


def _num(v: Any) -> str:
    """A claim's value as the pages print figures: numbers with thousands separators, lists
    as ``a / b / c``, maps as ``k: v; …``."""
    if isinstance(v, bool) or v is None:
        return md_escape(str(v).lower() if v is not None else "n/a")
    if isinstance(v, (int, float)):
        return fmt(v)
    if isinstance(v, list):
        return " / ".join(_num(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{md_escape(str(k))} {_num(x)}" for k, x in v.items())
    return md_escape(str(v))


def shift_lines(p: dict) -> list[str]:
    """One line per changed part of a percentile claim: a map's entries that changed (one
    that is new or gone shows ``–`` on that side), else the whole value."""
    o, n = p["old"], p["new"]
    if isinstance(o, dict) and isinstance(n, dict):
        out = []
        for k in sorted(set(o) | set(n), key=str):
            if (k in o) != (k in n) or o.get(k) != n.get(k):
                a = _num(o[k]) if k in o else "–"
                b = _num(n[k]) if k in n else "–"
                out.append(f"- {p['claim']} · {_c(k)}: {a} → {b}")
        return out
    return [f"- {p['claim']}: {_num(o)} → {_num(n)}"]


SHOWN = 6  # changes listed per claim in the report (the JSON holds them all)


def statement_lines(c: dict) -> list[str]:
    """A changed statement: its claim id, the sentence each snapshot printed (``–`` where it
    printed none) and, indented, where its computed result changed."""
    a = md_escape(c["old"]) if c["old"] is not None else "–"
    b = md_escape(c["new"]) if c["new"] is not None else "–"
    more = len(c["changed"]) - SHOWN
    return ([f"- **{c['claim']}**: {a} → {b}"] + [f"  - {w}" for w in c["changed"][:SHOWN]]
            + ([f"  - … {fmt(more)} more"] if more > 0 else []))


def _scope_line(s: dict) -> str:
    walked = f"{fmt(s['walked_files'])} of {fmt(s['files'])} files walked"
    return (f"{s['sample']}, {walked}; root {_c(s['root'])}; tool {_c(s['tool_version'])}, "
            f"schema {_c(s['snapshot_schema'])}, vocabulary {_c(s['vocab']) if s['vocab'] else 'version not recorded'}")


def to_markdown(d: Drift) -> str:
    gone = "not seen in the newer snapshot's sample" if d.new_sampled else "that vanished"
    came = "in the newer snapshot only (not seen in the older one's sample)" if d.old_sampled else "that appeared"
    lines = [f"# Drift: {d.runtime}", "", f"From `{d.old}` to `{d.new}`.", "", "## Scope", ""]
    if d.scope:
        lines.append(f"- older: {_scope_line(d.scope['old'])}")
        lines.append(f"- newer: {_scope_line(d.scope['new'])}")
        lines.append("")
    if d.scope_differences:
        lines.append("**The two snapshots differ in scope**; read what follows with that in mind:")
        lines.append("")
        lines += [f"- {s['what']}: {_c(s['old'])} → {_c(s['new'])}" for s in d.scope_differences]
        if d.new_sampled:
            w = d.scope["new"]
            lines.append(f"- the newer snapshot walked {fmt(w['walked_files'])} of {fmt(w['files'])} files: a shape "
                         "missing from it was not seen in its sample, which is not evidence that it is gone")
        if d.old_sampled:
            w = d.scope["old"]
            lines.append(f"- the older snapshot walked {fmt(w['walked_files'])} of {fmt(w['files'])} files: a shape "
                         "missing from it was not seen in its sample, which is not evidence that it is new")
    else:
        lines.append("Same scope: same sampling, root, tool, schema and vocabulary.")
    lines += ["", "## Summary", "", d.summary(), ""]
    lines.append("## Absence claims that flipped")
    lines += [f"- **{f['claim']}**: {md_escape(f['old'])} → {md_escape(f['new'])}" for f in d.flipped_absences] or ["- none"]
    what = "Statements changed" if d._kinds()["statements_changed"][1] else \
        "Statements that differ where a sample was walked (not evidence of drift)"
    lines += ["", f"## {what}"]
    lines += [ln for c in d.statements_changed for ln in statement_lines(c)] or ["- none"]
    lines += ["", f"## Key sets {came}"]
    lines += [f"- {_ks(r)}" for r in d.keysets_appeared] or ["- none"]
    lines += ["", f"## Key sets {gone}"]
    lines += [f"- {_ks(r)}" for r in d.keysets_vanished] or ["- none"]
    lines += ["", f"## Vocabulary values {came}"]
    lines += [f"- {_c(r['path'])} = {_c(r['value'])} ×{fmt(r['count'])}" for r in d.values_appeared] or ["- none"]
    lines += ["", f"## Vocabulary values {gone}"]
    lines += [f"- {_c(r['path'])} = {_c(r['value'])} ×{fmt(r['count'])}" for r in d.values_vanished] or ["- none"]
    lines += ["", "## Figures that moved (the statement holds: not drift)"]
    lines += [f"- {f['claim']}: " + "; ".join(f["figures"][:SHOWN])
              + (f"; … {fmt(len(f['figures']) - SHOWN)} more" if len(f["figures"]) > SHOWN else "")
              for f in d.figures_moved] or ["- none"]
    lines += ["", "## Percentile shifts"]
    lines += [ln for p in d.percentile_shifts for ln in shift_lines(p)] or ["- none"]
    lines += ["", "## Files per mtime stratum (old → new)", ""]
    lines += [f"- {s}: {fmt(a)} → {fmt(b)}" for s, (a, b) in d.strata.items()] or ["- none"]
    return "\n".join(lines) + "\n"
