"""Compare two snapshots of one runtime: what drifted between two dates.

Reads only the two snapshots (census.json, claims.json, evidence.json). Reports, most
important first: absence claims that flipped; key sets that appeared or vanished (per record
class and path, with counts); vocabulary values that appeared or vanished; percentile
shifts; stratum counts. Counts that merely grew with the corpus are not drift; a shape or a
value that was absent and is now present (or the reverse) is.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from survey.snapshot.store import load_json


@dataclass
class Drift:
    old: str
    new: str
    runtime: str
    flipped_absences: list[dict] = field(default_factory=list)
    keysets_appeared: list[dict] = field(default_factory=list)
    keysets_vanished: list[dict] = field(default_factory=list)
    values_appeared: list[dict] = field(default_factory=list)
    values_vanished: list[dict] = field(default_factory=list)
    percentile_shifts: list[dict] = field(default_factory=list)
    strata: dict[str, list] = field(default_factory=dict)

    @property
    def drifted(self) -> bool:
        return bool(self.flipped_absences or self.keysets_appeared or self.keysets_vanished
                    or self.values_appeared or self.values_vanished)

    def to_json(self) -> dict:
        return {**asdict(self), "drifted": self.drifted}


def _rows(snap: Path, name: str) -> list[dict]:
    q = (load_json(snap, "census") or {}).get(name)
    if not q:
        return []
    return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]


def _keysets(snap: Path) -> dict[tuple, int]:
    return {(r["rclass"], r["path"], r["jtype"], r["keyset"]): int(r["occurrences"]) for r in _rows(snap, "keyset_census")}


def _values(snap: Path) -> dict[tuple, int]:
    return {(r["path"], r["value"]): int(r["occurrences"]) for r in _rows(snap, "value_maps")}


def diff(old: Path, new: Path) -> Drift:
    mo, mn = load_json(old, "manifest"), load_json(new, "manifest")
    if mo["runtime"] != mn["runtime"]:
        raise ValueError(f"cannot compare {mo['runtime']} with {mn['runtime']}")
    d = Drift(old=str(old), new=str(new), runtime=mn["runtime"])
    co = {c["id"]: c for c in load_json(old, "claims") or []}
    cn = {c["id"]: c for c in load_json(new, "claims") or []}
    for cid, c in cn.items():
        o = co.get(cid)
        if c["kind"] == "absence" and o is not None and o["value"] != c["value"]:
            d.flipped_absences.append({"claim": cid, "old": o["text"], "new": c["text"]})
        if c["kind"] == "percentile" and o is not None and o["value"] != c["value"]:
            d.percentile_shifts.append({"claim": cid, "old": o["value"], "new": c["value"]})
    ko, kn = _keysets(old), _keysets(new)
    for k in sorted(set(kn) - set(ko)):
        d.keysets_appeared.append({"rclass": k[0], "path": k[1], "jtype": k[2], "keyset": k[3], "count": kn[k]})
    for k in sorted(set(ko) - set(kn)):
        d.keysets_vanished.append({"rclass": k[0], "path": k[1], "jtype": k[2], "keyset": k[3], "count": ko[k]})
    vo, vn = _values(old), _values(new)
    for k in sorted(set(vn) - set(vo)):
        d.values_appeared.append({"path": k[0], "value": k[1], "count": vn[k]})
    for k in sorted(set(vo) - set(vn)):
        d.values_vanished.append({"path": k[0], "value": k[1], "count": vo[k]})
    so = {r["stratum"]: r["files"] for r in _rows(old, "strata")}
    sn = {r["stratum"]: r["files"] for r in _rows(new, "strata")}
    d.strata = {s: [so.get(s, 0), sn.get(s, 0)] for s in sorted(set(so) | set(sn))}
    return d


def _ks(r: dict[str, Any]) -> str:
    return f"`{r['rclass']}` `{r['path']}` {r['jtype']} {{{r['keyset']}}} ×{r['count']:,}"


def to_markdown(d: Drift) -> str:
    lines = [f"# Drift: {d.runtime}", "", f"From `{d.old}` to `{d.new}`.", ""]
    lines.append("## Absence claims that flipped")
    lines += [f"- **{f['claim']}**: {f['old']} → {f['new']}" for f in d.flipped_absences] or ["- none"]
    lines += ["", "## Key sets that appeared"]
    lines += [f"- {_ks(r)}" for r in d.keysets_appeared] or ["- none"]
    lines += ["", "## Key sets that vanished"]
    lines += [f"- {_ks(r)}" for r in d.keysets_vanished] or ["- none"]
    lines += ["", "## Vocabulary values that appeared"]
    lines += [f"- `{r['path']}` = `{r['value']}` ×{r['count']:,}" for r in d.values_appeared] or ["- none"]
    lines += ["", "## Vocabulary values that vanished"]
    lines += [f"- `{r['path']}` = `{r['value']}` ×{r['count']:,}" for r in d.values_vanished] or ["- none"]
    lines += ["", "## Percentile shifts"]
    lines += [f"- {p['claim']}: {p['old']} → {p['new']}" for p in d.percentile_shifts] or ["- none"]
    lines += ["", "## Files per mtime stratum (old → new)", ""]
    lines += [f"- {s}: {a:,} → {b:,}" for s, (a, b) in d.strata.items()] or ["- none"]
    return "\n".join(lines) + "\n"
