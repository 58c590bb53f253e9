"""The history of a runtime's format across its dated snapshots: ``reports/<runtime>-history.md``.

For each key set, vocabulary value, record class and probe verdict it states the first and
the last snapshot (and client version) that holds it, from the snapshots alone, comparing
consecutive snapshots exactly as ``survey diff`` does."""

from __future__ import annotations

import hashlib
import itertools
import re
from pathlib import Path
from typing import Any

from survey.cachedir import write_atomic
from survey.evidence.claims import fmt
from survey.render.render import code, md_escape
from survey.snapshot.diff import SCOPE_FIELDS, _keysets, _order, _values, scope_of
from survey.snapshot.store import complete, load_json

QUERY = Path(__file__).parent / "queries" / "keysets_by_version.sql"
QUERY_REL = "survey/render/queries/keysets_by_version.sql"
VALUES_QUERY = QUERY.with_name("values_by_version.sql")
VALUES_QUERY_REL = "survey/render/queries/values_by_version.sql"
MARK = "†"
CHART_VERSION = 4  # (raise it when ``chart`` draws differently)
NO_VERSION = "(none)"
KINDS = ("record_classes", "keysets", "values", "versions")
SERIES = {"keysets": "key sets", "values": "vocabulary values", "record_classes": "record classes",
          "versions": "client versions"}


class NoSnapshots(ValueError):
    """No snapshot of the runtime under the folder: nothing to show."""


def snapshots_of(base: Path, runtime: str) -> list[Path]:
    """Every complete snapshot of ``runtime`` under ``base`` (``<date>/<runtime>``), oldest first
    (a same-day suffix, ``<date>.2``, after its day)."""
    if not base.is_dir():
        return []
    out = [d / runtime for d in base.iterdir() if not d.name.startswith(".") and complete(d / runtime)]
    return sorted(out, key=lambda p: tuple((0, int(x), "") if x.isdigit() else (1, 0, x)
                                           for x in re.split(r"[-.]", p.parent.name)))


def version_key(v: str) -> tuple:
    """A dotted version's order (numbers as numbers); ``(none)`` first."""
    if v == NO_VERSION:
        return ((-1, ""),)
    return tuple((int(p), "") if p.isdigit() else (10**9, p) for p in v.split("."))


def by_version(snap: Path, query: Path = QUERY, table: str = "nodes") -> list[dict] | None:
    """``keysets_by_version.sql`` (or ``query`` over ``walk/<table>``) on one snapshot: rows of
    (version, rclass, path, jtype, keyset, occurrences, files); None where the runtime's
    frames record no version."""
    import duckdb

    frames = snap / "walk" / "frames.parquet"
    if not frames.exists() or not (snap / "walk" / f"{table}.parquet").exists():
        return None
    con = duckdb.connect()
    try:
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        cols = {r[0] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(getvariable('snap') || "
                                          "'/walk/frames.parquet')").fetchall()}
        if not cols & {"version", "cli_version"}:
            return None
        cur = con.execute(query.read_text())
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()


def _command(snap: Path, rel: str = QUERY_REL) -> str:
    return f"duckdb -c \"SET VARIABLE snap = '{snap}'\" -c \".read {rel}\""


def _classes(snap: Path) -> dict[str, int]:
    q = (load_json(snap, "census") or {}).get("record_classes") or {}
    out: dict[str, int] = {}
    for r in q.get("rows", []):
        row = dict(zip(q["columns"], r, strict=True))
        out[str(row["rclass"])] = out.get(str(row["rclass"]), 0) + int(row["records"])
    return out


def _verdicts(snap: Path) -> dict[str, dict]:
    ev = load_json(snap, "evidence") or {}
    return {p["id"]: {"verdict": p.get("verdict"), "about": p.get("about", "")} for p in ev.get("probes", [])}


def _read(snap: Path) -> dict[str, Any]:
    m = load_json(snap, "manifest") or {}
    rows = by_version(snap)
    versions: dict[str, dict] = {}
    for r in rows or []:
        if r["path"] == "$" and r["version"] != NO_VERSION:
            v = versions.setdefault(r["version"], {"records": 0, "classes": set()})
            v["records"] += int(r["occurrences"])
            v["classes"].add(r["rclass"])
    return {"path": snap, "name": snap.parent.name, "manifest": m, "scope": scope_of(m),
            "keysets": _keysets(snap), "values": _values(snap), "record_classes": _classes(snap),
            "probes": _verdicts(snap), "by_version": rows, "versions": versions,
            "values_by_version": by_version(snap, VALUES_QUERY, "values") if rows is not None else None}


def _marks(scope: dict, ref: dict) -> list[dict]:
    return [{"field": f, "what": what, "this": scope[f], "reference": ref[f]}
            for f, what in SCOPE_FIELDS if f != "sample" and scope[f] != ref[f]] + (
        [{"field": "sample", "what": "what was walked", "this": scope["sample"], "reference": ref["sample"]}]
        if scope["sampled"] else [])


def _span(items: dict[tuple, list[int]], names: list[str]) -> list[dict]:
    out = []
    for k in sorted(items, key=_order):
        idx = items[k]
        out.append({"key": list(k), "first": names[min(idx)], "last": names[max(idx)], "snapshots": len(idx),
                    "in_every": len(idx) == len(names)})
    return out


def history(base: Path, runtime: str) -> dict[str, Any]:
    """The timeline of ``runtime``'s snapshots under ``base`` (see the module docstring).

    Reads only snapshots (``snapshots/<date>/<runtime>/``: manifest, census, evidence, and the
    walk's frames and nodes for the client versions). For each key set (per record class, path
    and type), vocabulary value, record class and probe verdict it states the first and the
    last snapshot that holds it, and, where the runtime records a client version, the first and
    last version whose files hold it (a file's version is its first recorded one:
    ``queries/keysets_by_version.sql``). What it compares, it takes from ``survey diff``
    (``scope_of``, the key-set and value tables): consecutive snapshots of the timeline differ
    exactly as ``survey diff`` says.

    Snapshots differ in scope: the reference is the newest snapshot that walked the whole
    corpus. One of another root is another corpus: listed and marked, never in the timeline. One
    that walked a sample, or was taken by another tool, schema, vocabulary or gate, is in the
    timeline and marked (``†``) wherever it is named, with what differs; a shape missing from a
    sample was not seen there, which says nothing of whether it was present. A chart of what
    each snapshot holds (``<runtime>-history.svg``, beside the page) shows the same figures as
    the table under it. Names reach the page only as the snapshots hold them (past the gate).
    """
    snaps = snapshots_of(base, runtime)
    if not snaps:
        raise NoSnapshots(f"no snapshot of {runtime} under {base}")
    got, unreadable = [], []
    for s in snaps:
        try:
            got.append(_read(s))
        except Exception as exc:  # (a damaged snapshot: counted and named by its class, never read out)
            unreadable.append({"snapshot": s.parent.name, "path": str(s), "problem": type(exc).__name__})
    if not got:
        raise NoSnapshots(f"no readable snapshot of {runtime} under {base} ({len(unreadable)} unreadable)")
    whole = [g for g in got if not g["scope"]["sampled"]]
    ref = (whole or got)[-1]
    listed, timeline = [], []
    for g in got:
        marks = _marks(g["scope"], ref["scope"])
        other_root = g["scope"]["root"] != ref["scope"]["root"]
        g["marks"] = marks
        g["in_timeline"] = not other_root
        if not other_root:
            timeline.append(g)
        listed.append({"snapshot": g["name"], "path": str(g["path"]), "scope": g["scope"], "marks": marks,
                       "in_timeline": not other_root,
                       "counts": {k: len(g[k]) for k in KINDS}, "probes": len(g["probes"]),
                       "versions_recorded": g["by_version"] is not None})
    names = [g["name"] for g in timeline]
    per: dict[str, dict[tuple, list[int]]] = {k: {} for k in KINDS}
    verdicts: dict[str, dict] = {}
    for i, g in enumerate(timeline):
        for kind in KINDS:
            for k in g[kind]:
                per[kind].setdefault(k if isinstance(k, tuple) else (k,), []).append(i)
        for pid, p in g["probes"].items():
            v = verdicts.setdefault(pid, {"probe": pid, "about": p["about"], "by_snapshot": {}})
            v["by_snapshot"][g["name"]] = p["verdict"]
    spans = {kind: _span(per[kind], names) for kind in KINDS}
    # per client version: the first and last version whose files hold each key set and class
    vers: dict[tuple, set[str]] = {}
    recorded = any(g["by_version"] is not None for g in timeline)
    for g in timeline:
        for r in g["by_version"] or []:
            if r["version"] == NO_VERSION:
                continue
            vers.setdefault((r["rclass"], r["path"], r["jtype"], r["keyset"]), set()).add(r["version"])
            vers.setdefault((r["rclass"],), set()).add(r["version"])
        for r in g["values_by_version"] or []:
            if r["version"] != NO_VERSION:
                vers.setdefault(("value", r["path"], r["value"]), set()).add(r["version"])
    for kind in ("keysets", "record_classes", "values"):
        for row in spans[kind]:
            vs = sorted(vers.get(("value", *row["key"]) if kind == "values" else tuple(row["key"]), ()),
                        key=version_key)
            row["first_version"], row["last_version"] = (vs[0], vs[-1]) if vs else (None, None)
            row["versions"] = len(vs)
    for row in spans["versions"]:
        v = row["key"][0]
        last = next(g for g in reversed(timeline) if v in g["versions"])
        row["records"] = last["versions"][v]["records"]
        row["classes"] = sorted(last["versions"][v]["classes"])
    spans["versions"].sort(key=lambda r: version_key(r["key"][0]))
    probes = []
    for pid in sorted(verdicts):
        v = verdicts[pid]
        seen: dict[str, list[str]] = {}
        for n in names:
            if n in v["by_snapshot"]:
                seen.setdefault(str(v["by_snapshot"][n]), []).append(n)
        v["verdicts"] = [{"verdict": k, "first": s[0], "last": s[-1], "snapshots": len(s)} for k, s in seen.items()]
        probes.append(v)
    marked = {g["name"] for g in timeline if g["marks"]}
    return {"runtime": runtime, "snapshots_folder": str(base), "reference": ref["name"], "snapshots": listed,
            "unreadable": unreadable,
            "timeline": names, "marked": sorted(marked), "versions_recorded": recorded,
            "record_classes": spans["record_classes"], "keysets": spans["keysets"], "values": spans["values"],
            "versions": spans["versions"], "probes": probes,
            "present": {k: [len(g[k]) for g in timeline] for k in KINDS},
            "commands": {"by_version": {g["name"]: _command(g["path"]) for g in timeline if g["by_version"] is not None},
                         "values_by_version": {g["name"]: _command(g["path"], VALUES_QUERY_REL) for g in timeline
                                               if g["values_by_version"] is not None},
                         "keyset_census": {g["name"]: ((load_json(g["path"], "census") or {}).get("keyset_census") or {})
                                           .get("command", "") for g in timeline},
                         "diff": [f"survey diff {a} {b} -r {runtime} --snapshots {base}"
                                  for a, b in itertools.pairwise(names)]}}


# -- the page and its chart ---------------------------------------------------------------------
def _d(name: str, marked: set[str]) -> str:
    return f"{name}{MARK}" if name in marked else name


def _v(v: str | None) -> str:
    return code(v) if v else "–"


def alt_text(h: dict) -> str:
    names, p = h["timeline"], h["present"]
    parts = [f"{SERIES[k]} {' → '.join(str(x) for x in p[k])}" for k in ("keysets", "values", "record_classes", "versions")]
    return (f"Shapes present in each of {len(names)} snapshots of {h['runtime']}, {names[0]} to {names[-1]}: "
            + "; ".join(parts))


def chart(h: dict) -> str:
    """Two panels over the snapshots (in order): key sets and vocabulary values above, record
    classes and client versions below (each on a log axis where none is 0); a snapshot of
    another scope drawn hollow."""
    from survey.render.svg import pyplot, to_svg

    plt = pyplot()
    from matplotlib import ticker

    names, p, marked = h["timeline"], h["present"], set(h["marked"])
    x = list(range(len(names)))
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 4.6), sharex=True)
    for ax, kinds in zip(axes, (("keysets", "values"), ("record_classes", "versions")), strict=True):
        for kind, style in zip(kinds, ("-o", "--s"), strict=True):
            line = ax.plot(x, p[kind], style, label=SERIES[kind], linewidth=1.4, markersize=5)[0]
            for i, n in enumerate(names):
                if n in marked:
                    ax.plot([i], [p[kind][i]], style[-1], markerfacecolor="white",
                            markeredgecolor=line.get_color(), markersize=7)
        if all(p[k][i] > 0 for k in kinds for i in x):  # a log axis: a small step shows beside a large one
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
            ax.yaxis.set_minor_locator(ticker.LogLocator(subs=(2.0, 5.0)))
            ax.yaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
            ax.set_ylabel("present (log)")
        else:
            ax.set_ylabel("present")
            ax.set_ylim(bottom=0)
        ax.legend(loc="upper left", frameon=False, fontsize=8)
        ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    axes[-1].set_xticks(x, [_d(n, marked) for n in names], rotation=30, ha="right")
    axes[0].set_title(f"{h['runtime']}: shapes present per snapshot")
    fig.tight_layout()
    return to_svg(fig)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(r) + " |" for r in rows)]


def _scope_text(s: dict) -> str:
    walked = f"{fmt(s['walked_files'])} of {fmt(s['files'])} files walked"
    return f"{s['sample']} ({walked}); root {code(s['root'])}; tool {code(s['tool_version'])}"


def to_markdown(h: dict, svg_name: str | None) -> str:
    rt, names, marked = h["runtime"], h["timeline"], set(h["marked"])
    d = lambda n: _d(n, marked)  # noqa: E731
    lines = [f"# History: {rt}", "",
             f"{len(names)} dated snapshots of {code(rt)} in the timeline, {names[0]} to {names[-1]}; "
             f"the reference scope is that of {h['reference']}, the newest that walked the whole corpus "
             f"(or the newest). Re-run: `survey history -r {rt} --snapshots {h['snapshots_folder']}`.", ""]
    lines += ["## Snapshots", ""]
    rows = []
    for s in h["snapshots"]:
        where = "in the timeline" if s["in_timeline"] else "**not in the timeline** (another root)"
        marks = "; ".join(f"{m['what']}: {md_escape(str(m['this']))} (reference: {md_escape(str(m['reference']))})"
                          for m in s["marks"]) or "same scope"
        c = s["counts"]
        rows.append([d(s["snapshot"]) if s["in_timeline"] else s["snapshot"], md_escape(_scope_text(s["scope"])),
                     fmt(c["keysets"]), fmt(c["values"]), fmt(c["record_classes"]),
                     fmt(c["versions"]) if s["versions_recorded"] else "not recorded", where, marks])
    lines += _table(["Snapshot", "Scope", "Key sets", "Values", "Record classes", "Client versions", "Timeline",
                     "Scope differences"], rows)
    if h["unreadable"]:
        lines += ["", f"**{len(h['unreadable'])} snapshot(s) could not be read**, and are not in the timeline: "
                  + ", ".join(f"{u['snapshot']} ({u['problem']})" for u in h["unreadable"]) + "."]
    if marked:
        lines += ["", f"{MARK} a snapshot of another scope than the reference: a shape missing from a sample was not "
                      "seen in it, which is not evidence that it was absent."]
    lines += ["", "## Shapes present over time", ""]
    if svg_name:
        lines += [f"![{md_escape(alt_text(h))}]({svg_name})", ""]
    p = h["present"]
    lines += _table(["Snapshot", "Key sets", "Values", "Record classes", "Client versions"],
                    [[d(n), fmt(p["keysets"][i]), fmt(p["values"][i]), fmt(p["record_classes"][i]),
                      fmt(p["versions"][i])] for i, n in enumerate(names)])
    per_v = h["versions_recorded"]
    lines += ["", "## Client versions", ""]
    if per_v and h["versions"]:
        lines += _table(["Version", "First snapshot", "Last snapshot", "Records (last snapshot)", "Record classes"],
                        [[code(r["key"][0]), d(r["first"]), d(r["last"]), fmt(r["records"]),
                          ", ".join(code(c) for c in r["classes"])] for r in h["versions"]])
    else:
        lines.append("- none recorded in these snapshots")
    lines += ["", "## Record classes", ""]
    lines += _table(["Record class", "First snapshot", "Last snapshot", "Snapshots", "First version", "Last version"],
                    [[code(r["key"][0]), d(r["first"]), d(r["last"]), f"{r['snapshots']} of {len(names)}",
                      _v(r["first_version"]), _v(r["last_version"])] for r in h["record_classes"]])
    changed = [r for r in h["keysets"] if not r["in_every"] or (per_v and _not_all(r, h))]
    lines += ["", "## Key sets that came or went", "",
              "Each key set (record class, path, type, keys) not in every snapshot, or not written by every client "
              "version that wrote its record class.", ""]
    lines += _table(["Record class", "Path", "Type", "Key set", "First snapshot", "Last snapshot", "First version",
                     "Last version"],
                    [[code(r["key"][0]), code(r["key"][1]), r["key"][2],
                      code("{" + str(r["key"][3]) + "}") if r["key"][3] else "", d(r["first"]), d(r["last"]),
                      _v(r.get("first_version")), _v(r.get("last_version"))] for r in changed]) if changed \
        else ["- none"]
    steady = len(h["keysets"]) - len(changed)
    lines += ["", f"{fmt(steady)} other key sets are in every snapshot of the timeline, written by every version that "
                  "wrote their record class.", ""]
    all_versions = len(h["versions"])
    vals = [r for r in h["values"] if not r["in_every"] or (per_v and r.get("versions") and r["versions"] < all_versions)]
    lines += ["## Vocabulary values that came or went", "",
              "Each value not in every snapshot, or not written by every client version.", ""]
    lines += _table(["Path", "Value", "First snapshot", "Last snapshot", "First version", "Last version"],
                    [[code(r["key"][0]), code(r["key"][1]), d(r["first"]), d(r["last"]),
                      _v(r.get("first_version")), _v(r.get("last_version"))] for r in vals]) if vals \
        else ["- none"]
    lines += ["", f"{fmt(len(h['values']) - len(vals))} other values are in every snapshot, written by every version.",
              ""]
    lines += ["## Probe verdicts", ""]
    if h["probes"]:
        lines += _table(["Probe", *[d(n) for n in names], "First and last of each verdict"],
                        [[f"{code(p['probe'])} ({md_escape(p['about'])})",
                          *[str(p["by_snapshot"].get(n, "–")) for n in names],
                          "; ".join(f"{v['verdict']} {d(v['first'])}–{d(v['last'])}" for v in p["verdicts"])]
                         for p in h["probes"]])
    else:
        lines.append("- no probe in these snapshots")
    lines += ["", "## Evidence", "",
              "Each snapshot's key sets and values are its census (`keyset_census`, `value_maps`), its record "
              "classes `record_classes`, its probe verdicts its evidence; the versions per key set come from "
              f"`{QUERY_REL}`, per value from `{VALUES_QUERY_REL}`. Consecutive snapshots compare as `survey diff` says:", "", "```sh"]
    for n in names:
        for which in ("by_version", "values_by_version"):
            if n in h["commands"][which]:
                lines.append(h["commands"][which][n])
    lines += h["commands"]["diff"]
    lines += ["```"]
    return "\n".join(lines) + "\n"


def _not_all(row: dict, h: dict) -> bool:
    """Is a key set written by fewer client versions than its record class?"""
    cls = next((r for r in h["record_classes"] if r["key"][0] == row["key"][0]), None)
    return cls is not None and cls.get("versions", 0) > row["versions"]


def render_history(base: Path, runtime: str, reports: Path) -> dict[str, Any]:
    """Write ``reports/<runtime>-history.md`` and its chart (``<runtime>-history.svg``, where
    the timeline holds a snapshot); the history (``history``) with the two paths."""
    h = history(base, runtime)
    reports.mkdir(parents=True, exist_ok=True)
    svg = reports / f"{runtime}-history.svg"
    # the chart drawn again only where what it shows changed (drawing it takes matplotlib:
    # about 1.3 s of CPU, most of a re-run's history); its figures' digest is kept inside it
    digest = hashlib.sha256(repr((h["runtime"], h["timeline"], h["marked"], h["present"], CHART_VERSION))
                            .encode()).hexdigest()[:16]
    tag = f"<!-- survey-history {digest} -->"
    try:
        kept = tag in svg.read_text(errors="replace")[:400]
    except OSError:
        kept = False
    if not kept:
        drawn = chart(h)
        head, sep, rest = drawn.partition("?>\n")
        write_atomic(svg, (f"{head}{sep}{tag}\n{rest}" if sep else f"{tag}\n{drawn}").encode())
    page = reports / f"{runtime}-history.md"
    write_atomic(page, to_markdown(h, svg.name).encode())
    return {**h, "page": str(page), "chart": str(svg)}
