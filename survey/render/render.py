"""Render Markdown pages from a snapshot alone (never from a corpus).

A template states sentences only through ``say("claim_id")`` and tables only through
``table("query")``; both register the evidence they rest on, and the page ends with the
numbered evidence list (source, scope, result, pasteable commands). Asking for a claim or a
query that the snapshot does not hold raises :class:`MissingEvidence`: a page with a gap
does not render. Templates use ``StrictUndefined``, so a typo fails loudly too. Nothing here
imports ``survey.corpus``: no corpus byte can reach a page except through the snapshot.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import jinja2
import orjson

from survey.cachedir import cache_base
from survey.evidence.claims import Claim, Evidence, MissingEvidence, fmt, human_bytes
from survey.snapshot.store import load_json

TEMPLATES = Path(__file__).parent / "templates"
# tables whose rows compare (strata) rather than name a key set, class or value: no machines column
NO_MACHINES = frozenset({"strata", "strata_drift"})


class Page:
    """The per-render state: claims by id, and the evidence list in order of first use."""

    def __init__(self, snap: Path, charts_dir: str = "", draw: bool = True) -> None:
        self.snap = snap
        # charts are written beside the page, in a folder of this name (the page links them there)
        self.charts_dir = charts_dir
        # False: each chart's table of figures, no image (matplotlib never imported)
        self.draw = draw
        self.charts: dict[str, str] = {}  # file name -> SVG text, written with the page
        self.manifest = load_json(snap, "manifest") or {}
        self.census = load_json(snap, "census") or {}
        self.evidence = load_json(snap, "evidence") or {"probes": [], "scopes": {}}
        self.claims = {c["id"]: Claim.from_json(dict(c)) for c in (load_json(snap, "claims") or [])}
        side = snap.parent / f"{snap.name}.recheck.json"  # beside the immutable snapshot
        recheck = orjson.loads(side.read_bytes()) if side.exists() else {}
        self.verdicts: dict[str, dict] = {v["claim"]: v for v in recheck.get("verdicts", [])}
        self.recheck = recheck
        # `survey validate`'s counts, beside the snapshot too: {} where it has not run
        side = snap.parent / f"{snap.name}.validation.json"
        self.validation: dict = orjson.loads(side.read_bytes()) if side.exists() else {}
        self.refs: list[Evidence] = []
        self._machines: dict[tuple, int] | None = None  # a merged page's machines per name
        self._ref_ids: dict[tuple, int] = {}

    def ref(self, e: Evidence) -> str:
        # a probe is listed once, however many claims cite it (its first citation's result)
        key = ((e.source, e.command) if e.source.startswith("probe:")
               else (e.source, e.result, e.scope, e.command))
        if key not in self._ref_ids:
            self.refs.append(e)
            self._ref_ids[key] = len(self.refs)
        n = self._ref_ids[key]
        return f"[E{n}](#e{n})"

    def claim(self, cid: str) -> Claim:
        c = self.claims.get(cid)
        if c is None:
            raise MissingEvidence(f"page asks for claim {cid!r}, which the snapshot does not hold")
        if not c.evidence:
            raise MissingEvidence(f"claim {cid!r} has no evidence")
        return c

    def label(self, c: Claim) -> str:
        v = self.verdicts.get(c.id)
        if v is not None:
            if v["verdict"] == "agrees":
                return "verified"
            return "RE-CHECK DISAGREES"
        return c.provenance

    def say(self, cid: str) -> str:
        c = self.claim(cid)
        refs = " ".join(self.ref(e) for e in c.evidence)
        if c.kind == "reference":
            return self.note_text(c, refs)
        lab = self.label(c)
        mark = f" **[{lab}]**" if lab != "observed" else ""
        return f"{md_escape(c.text)}{mark} {refs}"

    def note_text(self, c: Claim, refs: str) -> str:
        """A reference note: the reference's sentence, labelled as such, and where the census
        tested it, whether the data holds or contradicts it (the data wins)."""
        if not c.extra.get("checked"):
            return f"{md_escape(c.text)} **[reference]** {refs}"
        holds = c.extra.get("holds")
        verdict = "holds" if holds is True else "CONTRADICTED" if holds is False else "not determined"
        return f"{md_escape(c.text)} **[reference, {verdict}: {refs}]**"

    def summary(self, limit: int = 8) -> list[str]:
        """The page's opening lines, each a claim already on the page: what the corpus holds
        (the basis claims), what a parser must handle (the headline claims, at most
        ``limit``), and what changed since the previous snapshot of the same root."""
        ids = [cid for cid in ("basis_files", "basis_frames", "basis_lines") if cid in self.claims]
        ids += [cid for cid, c in self.claims.items() if c.headline and cid not in ids][:limit]
        out = [self.say(cid) for cid in ids]
        v = self.validation
        if v.get("claim"):  # ``survey validate``'s counts, kept beside the snapshot
            e = Evidence(source="survey validate", result=f"{v.get('valid')} of {v.get('records')} records valid",
                         scope=str(v.get("scope", "")), command=str(v.get("command", "")))
            fails = v.get("failures") or []
            where = "; failing at " + ", ".join(f"{f['schema_path']} ({f['records']} records)" for f in fails[:3]) \
                if fails else ""
            out.append(f"{md_escape(v['claim'])}{md_escape(where)}. {self.ref(e)}")
        prev = self.since_previous()
        if prev:
            out.append(prev)
        return out

    def previous(self) -> Path | None:
        """The latest earlier snapshot of this runtime of the same root (by root pseudonym),
        under the same snapshots folder, or None."""
        runtime, root, date = self.manifest.get("runtime"), self.manifest.get("root"), self.snap.parent.name
        base = self.snap.parent.parent
        best: Path | None = None
        try:
            dates = sorted(d.name for d in base.iterdir() if d.is_dir() and d.name < date)
        except OSError:
            return None
        for d in dates:
            cand = base / d / str(runtime)
            m = load_json(cand, "manifest") if (cand / "manifest.json").is_file() else None
            if m and m.get("root") == root and m.get("runtime") == runtime:
                best = cand
        return best

    def since_previous(self) -> str:
        prev = self.previous()
        if prev is None:
            return ""
        from survey.snapshot.diff import diff

        d = diff(prev, self.snap)
        parts = [f"{len(d.keysets_appeared)} key sets appeared", f"{len(d.keysets_vanished)} vanished",
                 f"{len(d.values_appeared)} vocabulary values appeared", f"{len(d.values_vanished)} vanished",
                 f"{len(d.flipped_absences)} absence claims flipped", f"{len(d.statements_changed)} statements changed"]
        e = Evidence(source="survey diff", result="; ".join(parts),
                     scope=f"snapshots {prev.parent.name} and {self.snap.parent.name} of one root",
                     command=f"survey diff {prev.parent.name} {self.snap.parent.name} -r {self.manifest.get('runtime')} "
                             f"--snapshots {self.snap.parent.parent}")
        what = "drifted" if d.drifted else "no shape drifted"
        return f"Since the snapshot of {prev.parent.name} of the same root, {what}: {', '.join(parts)}. {self.ref(e)}"

    def table(self, name: str) -> dict[str, Any]:
        q = self.census.get(name)
        if q is None:
            raise MissingEvidence(f"page asks for query {name!r}, which the snapshot does not hold")
        rows = [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]
        e = Evidence(source=q["sql"], result=f"{len(rows)} rows", scope=self.scope(), command=q["command"])
        t = {"rows": rows, "columns": q["columns"], "cite": self.ref(e)}
        if self.manifest.get("merged") and not name.startswith("merge_") and name not in NO_MACHINES:
            self.machines_column(t)
        return t

    def machines_column(self, t: dict[str, Any]) -> None:
        """On a merged page, a table's rows that name a key set, a record class or a value
        get a ``machines`` column (k of M), from the merge's own query (``merge_machines``),
        cited beside the table's own."""
        q = self.census.get("merge_machines")
        if q is None:
            return
        if self._machines is None:
            self._machines = {}
            for r in q["rows"]:
                row = dict(zip(q["columns"], r, strict=True))
                self._machines[(row["kind"], row["rclass"], row["path"], row["name"])] = int(row["machines"])
        of = fmt(self.manifest["merged"].get("machines"))
        hit = False
        for r in t["rows"]:
            key = machines_key(r)
            n = self._machines.get(key) if key is not None else None
            if n is not None:
                r["machines"] = f"{fmt(n)} of {of}"
                hit = True
        if hit:
            t["extra"] = ["machines"]
            e = Evidence(source=q["sql"], result=f"{len(q['rows'])} rows", scope=self.scope(), command=q["command"])
            t["cite"] = f"{t['cite']} {self.ref(e)}"

    def has(self, name: str, *columns: str) -> bool:
        """Does the snapshot hold this census query's rows, with these columns (a chart is
        drawn only where it does)?"""
        q = self.census.get(name)
        return q is not None and set(columns) <= set(q["columns"])

    def chart(self, kind: str) -> str:
        """A chart of the snapshot's census rows (``charts.KINDS``): the image, linked beside
        the page with its figures as alt text, then the table of the figures it draws."""
        from survey.render import charts

        if kind == "payload_lengths":
            b, caps = self.table("payload_buckets"), self.table("silent_caps")
            ch = charts.payload_chart(b["rows"], caps["rows"], f"{b['cite']} {caps['cite']}", self.draw)
        elif kind == "strata":
            t = self.table("strata")
            ch = charts.strata_chart(t["rows"], t["cite"], self.draw)
        elif kind == "class_versions":
            if self.has("classes_by_version"):  # each file under the client version it first records
                t = self.table("classes_by_version")
                ch = charts.versions_chart(t["rows"], t["cite"], "client version (each file under its first)",
                                           self.draw)
            else:  # a version each record carries (kind, v, records)
                t = self.table("versions")
                rows = [{"version": r["v"], "rclass": r["kind"], "records": r["records"]} for r in t["rows"]]
                ch = charts.versions_chart(rows, t["cite"], "the version each record carries", self.draw)
        elif kind == "key_presence":
            t = self.table("record_classes")
            ch = charts.presence_chart(t["rows"], t["cite"], self.draw)
        else:
            raise MissingEvidence(f"page asks for chart {kind!r}, which is not one of {', '.join(charts.KINDS)}")
        if not ch.svg:  # nothing to draw (or not drawn): the table says so
            return ch.table
        name = f"{ch.name}.svg"
        self.charts[name] = ch.svg
        link = f"{self.charts_dir}/{name}" if self.charts_dir else name
        return f"![{ch.alt}]({link})\n\n{ch.table}"

    def scope(self) -> str:
        c = self.manifest.get("counts", {})
        return (f"{fmt(c.get('walked_files'))} walked of {fmt(c.get('files'))} files, "
                f"{human_bytes(c.get('walked_bytes'))}")

    def probe(self, pid: str) -> dict:
        for p in self.evidence.get("probes", []):
            if p["id"] == pid:
                return p
        raise MissingEvidence(f"page asks for probe {pid!r}, which the snapshot does not hold")

    def probe_ref(self, p: dict) -> str:
        e = Evidence(source=f"probe:{p['id']}",
                     result=f"DuckDB {p['duckdb']['files_matched']} files / rg {p['rg']['files_matched']} files",
                     scope=f"{fmt(p['files_scanned'])} files, {human_bytes(p['bytes_scanned'])}",
                     command=p["duckdb_command"], second_command=p["rg_command"])
        return self.ref(e)


def machines_key(r: dict[str, Any]) -> tuple | None:
    """The ``merge_machines`` row a table's row is counted by: its value (at its path where it
    has one), its key set (at its record class and path where it has both), a tool's name, or
    its record class; None where it names none of these."""
    if "value" in r:
        return ("value", None, r.get("path"), r["value"])
    if "keyset" in r:
        if "rclass" in r:  # (a record class's key set without a path: its top-level one)
            return ("keyset", r["rclass"], r.get("path", "$"), r["keyset"])
        return ("keyset", None, None, r["keyset"])
    if "name" in r and "key" not in r:
        return ("value", None, None, r["name"])
    if "rclass" in r:
        return ("rclass", None, None, r["rclass"])
    return None


def md_escape(s: str) -> str:
    """Placeholders like <withheld> would vanish as HTML tags in rendered Markdown."""
    return s.replace("<", "&lt;").replace(">", "&gt;")


def md_cell(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return fmt(v)
    return md_escape(str(v).replace("|", "\\|").replace("\n", " "))


def md_table(t: dict[str, Any], columns: list[str] | None = None, limit: int | None = None) -> str:
    cols = list(columns or t["columns"])
    cols += [c for c in t.get("extra", []) if c not in cols]  # (a merged page's machines column)
    rows = t["rows"][:limit] if limit else t["rows"]
    if not rows:
        return f"_(no rows)_ {t['cite']}"
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        out.append("| " + " | ".join(md_cell(r.get(c)) for c in cols) + " |")
    more = len(t["rows"]) - len(rows)
    out.append("")
    out.append(f"Source: {t['cite']}" + (f" ({more} more rows in the snapshot)" if more > 0 else ""))
    return "\n".join(out)


def code(s: Any) -> str:
    return "`" + str(s).replace("`", "'") + "`"


class TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between runs (``<cache>/templates``), keyed by each
    template's source: compiling a runtime's page took 0.03 s of every run, up to a tenth
    of a re-run at 100 MB (0.30-0.73 s). A cache that cannot be read or written is no cache: the template is
    compiled, as without one."""

    def __init__(self, folder: Path) -> None:
        super().__init__(str(folder))
        self.folder = folder

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a damaged file (pickle and marshal fail many ways): compiled again, written over
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def registered_homes() -> list[str]:
    from survey.runtimes import REGISTERED  # (profiles are data: no corpus import)

    return [str(p.folder) for p in REGISTERED.values()]


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        # the shipped templates, then those of runtimes registered in this process
        loader=jinja2.FileSystemLoader([str(TEMPLATES), *registered_homes()]),
        bytecode_cache=TemplateCache(cache_base() / "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown, not HTML; every value is a gated figure or vocabulary word
    )
    env.filters.update(fmt=fmt, hb=human_bytes, code=code, cell=md_cell)
    return env


def render_page(snap: Path, out: Path, template: str | None = None, charts: bool = True) -> Path:
    """The page of a committed snapshot, written to ``out`` (its charts in the folder
    ``out.stem`` beside it). ``charts=False``: each chart's table of figures, no image drawn
    or linked, matplotlib not imported (an earlier render's chart files are removed)."""
    page = Page(snap, charts_dir=out.stem, draw=charts)
    runtime = page.manifest["runtime"]
    tpl = environment().get_template(template or f"{runtime}.md.j2")
    text = tpl.render(
        m=page.manifest, say=page.say, claim=page.claim, table=page.table, md_table=md_table,
        note=page.say, probe=page.probe, probe_ref=page.probe_ref, evidence=page.evidence, page=page,
        snapshot=str(snap), recheck=page.recheck, validation=page.validation, chart=page.chart, has=page.has,
    )
    text = text.rstrip() + "\n\n" + evidence_section(page) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_charts(page, out.parent / out.stem)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(out)
    return out


def write_charts(page: Page, folder: Path) -> None:
    """The page's charts, each written whole (a temp file renamed over it); a chart of an
    earlier render that this one did not draw is removed (any other file is left alone)."""
    from survey.render.charts import KINDS

    if not page.charts and not folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    for name, svg in page.charts.items():
        tmp = folder / f".{name}.{os.getpid()}.tmp"
        tmp.write_text(svg)
        tmp.replace(folder / name)
    for kind in KINDS:
        if f"{kind}.svg" not in page.charts:
            (folder / f"{kind}.svg").unlink(missing_ok=True)


def evidence_section(page: Page) -> str:
    lines = ["## Evidence", "",
             "Every figure above cites one of these. Set `ROOT` to the surveyed corpus root to "
             "re-run a grep; the DuckDB census commands run from the repository folder.", ""]
    for i, e in enumerate(page.refs, 1):
        lines.append(f'<a id="e{i}"></a>**E{i}** · {code(e.source)} · scope: {e.scope} · result: {e.result}')
        lines.append("")
        lines.append("```sh")
        lines.append(e.command)
        if e.second_command:
            lines.append(e.second_command)
        lines.append("```")
        lines.append("")
    return "\n".join(lines)
