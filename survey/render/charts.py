"""Charts beside a page, drawn from the snapshot's census rows alone.

Each chart kind gives a deterministic SVG, the Markdown table of the figures it draws and an
alt text stating them; matplotlib is imported only when a chart is drawn."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

import orjson

from survey.evidence.claims import fmt, human_bytes

KINDS = ("payload_lengths", "strata", "class_versions", "key_presence")
# a key present in fewer than this share of a class's records (and in at least one) is rare
RARE_SHARE = 0.05
# at most this many series drawn in one chart; the rest are summed under OTHER
MAX_SERIES = 8
OTHER = "(other)"


@dataclass
class Chart:
    """One chart: its file name (no folder), alt text, Markdown table, SVG text, and the
    figures it draws (``data``: what ``<metadata id="survey-data">`` holds).

    Each chart kind takes census rows the page already cites (gated labels and counts, nothing
    else), and gives three things: the SVG (``render.svg``: deterministic bytes), the Markdown
    table of the figures it draws, and an alt text that states those figures briefly. The SVG
    also carries the figures it draws as JSON in ``<metadata id="survey-data">``, so a test can
    hold every drawn number to the page's table. matplotlib is imported only when a chart is
    drawn (``svg.pyplot``), never by the walk or the census; with ``draw=False`` a kind gives its
    table and alt text and no SVG, and matplotlib is never entered.

    Kinds: ``payload_lengths`` (block payloads per power-of-two length bucket and block type, on
    a log axis, probable silent caps marked), ``strata`` (files and bytes per mtime stratum),
    ``class_versions`` (records of each class by client version), ``key_presence`` (top-level
    keys of each record class present in every record, in some, or in few: under
    ``RARE_SHARE`` of them).
    """

    name: str
    alt: str
    table: str
    data: dict[str, Any] = field(default_factory=dict)
    svg: str = ""


def label(v: Any) -> str:
    """A label as the chart prints it (and the page's tables: placeholders stay text)."""
    return "(none)" if v is None else str(v)


def alt_text(s: str) -> str:
    """Alt text inside ``![...]``: one line, no bracket, no angle bracket."""
    return re.sub(r"\s+", " ", s).replace("[", "(").replace("]", ")").replace("<", "‹").replace(">", "›").strip()


def md_row(cells: list[Any]) -> str:
    def cell(v: Any) -> str:
        if isinstance(v, bool) or v is None:
            return "–" if v is None else ("yes" if v else "no")
        if isinstance(v, int):
            return fmt(v)
        if str(v).startswith("`"):  # code spans show their text as is
            return str(v).replace("|", "\\|")
        return str(v).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")

    return "| " + " | ".join(cell(c) for c in cells) + " |"


def md_grid(head: list[str], rows: list[list[Any]], cite: str) -> str:
    if not rows:
        return f"_(no rows)_ {cite}"
    out = [md_row(list(head)), "|" + "---|" * len(head), *(md_row(r) for r in rows), "", f"Source: {cite}"]
    return "\n".join(out)


def bucket_label(lo: int) -> str:
    return str(lo) if lo <= 1 else f"{fmt(lo)}–{fmt(lo * 2 - 1)}"


def listing(parts: list[str], limit: int = MAX_SERIES) -> str:
    """The first ``limit`` parts, then how many more."""
    more = f"; and {len(parts) - limit} more" if len(parts) > limit else ""
    return "; ".join(parts[:limit]) + more


def as_int(v: Any) -> int:
    try:
        return int(v or 0)
    except (TypeError, ValueError):
        return 0


# ---- the figures each kind draws (pure: rows in, figures out) -------------------------


def block_caps(caps: list[dict], carriers: list[str]) -> list[dict]:
    """The probable caps (``silent_caps`` rows) at a path inside a block carrier's elements:
    those the payload chart marks (a cap elsewhere stays in the page's caps table)."""
    heads = tuple((c if c.startswith("$.") else "$." + c) + "[]" for c in carriers)
    return [c for c in caps if heads and str(c["path"]).startswith(heads)]


def payload_figures(buckets: list[dict], caps: list[dict]) -> dict[str, Any]:
    """Counts per (block type, bucket), block types by payloads (most first), and the caps."""
    per: dict[str, dict[int, int]] = {}
    longest: dict[str, int] = {}
    for r in buckets:
        t = label(r["btype"])
        per.setdefault(t, {})
        b = as_int(r["bucket"])
        per[t][b] = per[t].get(b, 0) + as_int(r["payloads"])
        longest[t] = max(longest.get(t, 0), as_int(r["longest"]))
    order = sorted(per, key=lambda t: (-sum(per[t].values()), t))
    return {"types": order, "counts": {t: {str(b): n for b, n in sorted(per[t].items())} for t in order},
            "longest": {t: longest[t] for t in order},
            "caps": [{"path": label(c["path"]), "max_len": as_int(c["max_len"]), "files": as_int(c["files_at_max"])}
                     for c in caps]}


def strata_figures(rows: list[dict]) -> dict[str, Any]:
    return {"strata": [label(r["stratum"]) for r in rows],
            "files": [as_int(r["files"]) for r in rows], "bytes": [as_int(r.get("bytes")) for r in rows],
            "walked": [as_int(r["walked"]) for r in rows], "walked_bytes": [as_int(r.get("walked_bytes")) for r in rows]}


def version_figures(rows: list[dict]) -> dict[str, Any]:
    """Records per (version, class), versions in the census's order, classes by records."""
    versions: list[str] = []
    per: dict[str, dict[str, int]] = {}
    tot: dict[str, int] = {}
    for r in rows:
        v, c = label(r["version"]), label(r["rclass"])
        if v not in per:
            versions.append(v)
            per[v] = {}
        per[v][c] = per[v].get(c, 0) + as_int(r["records"])
        tot[c] = tot.get(c, 0) + as_int(r["records"])
    classes = sorted(tot, key=lambda c: (-tot[c], c))
    return {"versions": sorted(versions, key=version_key), "classes": classes, "records": per}


def version_key(v: str) -> tuple:
    """Versions in numeric order (2.1.9 before 2.1.10), those with no version last."""
    parts = re.split(r"[.\-+]", v)
    return (v == "(none)", [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts])


def presence_figures(rows: list[dict]) -> dict[str, Any]:
    """Per record class: its records, and each top-level key's records; keys sorted into
    always (every record), sometimes, rare (under ``RARE_SHARE`` of the records)."""
    recs: dict[str, int] = {}
    keys: dict[str, dict[str, int]] = {}
    for r in rows:
        c = label(r["rclass"])
        n = as_int(r["records"])
        recs[c] = recs.get(c, 0) + n
        kk = keys.setdefault(c, {})
        for k in (r["keyset"] or "").split(","):
            if k:
                kk[k] = kk.get(k, 0) + n
    out = []
    for c in sorted(recs, key=lambda c: (-recs[c], c)):
        total, kk = recs[c], keys[c]
        always = sorted(k for k, n in kk.items() if n == total)
        rare = sorted(k for k, n in kk.items() if n < total and n < total * RARE_SHARE)
        sometimes = sorted(k for k, n in kk.items() if n < total and k not in rare)
        out.append({"rclass": c, "records": total, "always": always, "sometimes": sometimes, "rare": rare})
    return {"classes": out, "rare_share": RARE_SHARE}


# ---- the kinds: figures -> table, alt text, SVG ----------------------------------------


def payload_chart(buckets: list[dict], caps: list[dict], cite: str, draw: bool = True) -> Chart:
    f = payload_figures(buckets, block_caps(caps, sorted({str(r["carrier"]) for r in buckets})))
    types = f["types"]
    all_b = sorted({int(b) for t in types for b in f["counts"][t]})
    head = ["Length (code points)", *types]
    rows = [[bucket_label(b), *(f["counts"][t].get(str(b), 0) for t in types)] for b in all_b]
    sums = {t: sum(f["counts"][t].values()) for t in types}
    parts = [f"{t} {fmt(sums[t])} payload{'s' if sums[t] != 1 else ''} up to {fmt(f['longest'][t])}" for t in types]
    capn = (f"; probable caps in blocks marked at {', '.join(fmt(c['max_len']) for c in f['caps'])}" if f["caps"]
            else "; no probable cap in blocks")
    alt = f"Block payload lengths per block type, power-of-two buckets on a log axis: {listing(parts)}{capn}"
    ch = Chart("payload_lengths", alt_text(alt), md_grid(head, rows, cite), f)
    if types and draw:
        ch.svg = draw_payloads(f)
    return ch


def strata_chart(rows: list[dict], cite: str, draw: bool = True) -> Chart:
    f = strata_figures(rows)
    head = ["Stratum", "Files", "Walked files", "Bytes", "Walked bytes"]
    grid = [[s, n, w, human_bytes(b), human_bytes(wb)]
            for s, n, w, b, wb in zip(f["strata"], f["files"], f["walked"], f["bytes"], f["walked_bytes"], strict=True)]
    parts = [f"{s} {fmt(n)} file{'s' if n != 1 else ''}, {human_bytes(b)}" for s, n, b in zip(f["strata"], f["files"], f["bytes"], strict=True)]
    alt = f"Files and bytes per mtime stratum: {listing(parts, 12) or 'no file'}"
    ch = Chart("strata", alt_text(alt), md_grid(head, grid, cite), f)
    if f["strata"] and draw:
        ch.svg = draw_strata(f)
    return ch


def versions_chart(rows: list[dict], cite: str, axis: str, draw: bool = True) -> Chart:
    f = version_figures(rows)
    f["axis"] = axis
    classes, per = f["classes"], f["records"]
    head = ["Record class", *f["versions"]]
    grid = [[c, *(per[v].get(c, 0) for v in f["versions"])] for c in classes]
    parts = [f"{v}: {fmt(sum(per[v].values()))} records in {len(per[v])} class{'es' if len(per[v]) != 1 else ''}"
             for v in f["versions"]]
    alt = f"Records of each class by {axis}: {listing(parts, 12) or 'no record'}"
    ch = Chart("class_versions", alt_text(alt), md_grid(head, grid, cite), f)
    if f["versions"] and draw:
        ch.svg = draw_versions(f)
    return ch


def presence_chart(rows: list[dict], cite: str, draw: bool = True) -> Chart:
    f = presence_figures(rows)
    share = f"{RARE_SHARE:.0%}"
    head = ["Record class", "Records", "Always", "Sometimes", f"Rare (under {share})", "Sometimes present", "Rarely present"]
    grid = [[c["rclass"], c["records"], len(c["always"]), len(c["sometimes"]), len(c["rare"]),
             " ".join(f"`{k}`" for k in c["sometimes"]) or "–", " ".join(f"`{k}`" for k in c["rare"]) or "–"]
            for c in f["classes"]]
    parts = [f"{c['rclass']} {len(c['always'])}/{len(c['sometimes'])}/{len(c['rare'])}" for c in f["classes"]]
    alt = (f"Top-level keys per record class present always / sometimes / rarely (under {share} of records): "
           f"{listing(parts) or 'no record'}")
    ch = Chart("key_presence", alt_text(alt), md_grid(head, grid, cite), f)
    if f["classes"] and draw:
        ch.svg = draw_presence(f)
    return ch


# ---- drawing ------------------------------------------------------------------------------
# Figures are made without pyplot and laid out with fixed margins (no tight_layout, which
# draws every text twice): the four charts of a page draw in a fraction of a second.


def _series(names: list[str]) -> list[str]:
    return names if len(names) <= MAX_SERIES else [*names[: MAX_SERIES - 1], OTHER]


def _short(n: int) -> str:
    """A tick label: 512, 1k, 64k, 1M (powers of two by 1024)."""
    for div, unit in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "k")):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def _ticks(top: float) -> list[float]:
    """At most six round ticks from 0 past ``top`` (1, 2 or 5 times a power of ten)."""
    if top <= 0:
        return [0, 1]
    mag = 10 ** max(0, len(str(int(top))) - 1)
    step = next(m * mag for m in (0.1, 0.2, 0.5, 1, 2, 5, 10) if top / (m * mag) <= 5)
    step = max(1, int(step))
    return [i * step for i in range(int(top // step) + 2)]


def _margin(labels: list[str], width_in: float, floor: float = 0.1) -> float:
    """The left (or bottom) margin, as a fraction, that fits the longest label at 7 pt."""
    longest = max((len(s) for s in labels), default=0)
    return min(0.5, max(floor, (longest * 0.055 + 0.25) / width_in))


def draw_payloads(f: dict[str, Any]) -> str:
    from survey.render.svg import figure, style

    types = f["types"]
    shown = _series(types)
    drawn: dict[str, dict[str, int]] = {}
    for t in types:
        d = drawn.setdefault(t if t in shown else OTHER, {})
        for b, n in f["counts"][t].items():
            d[b] = d.get(b, 0) + n
    with style():
        fig = figure(figsize=(7.5, 3.8))
        fig.subplots_adjust(left=0.09, right=0.78, top=0.95, bottom=0.13)
        ax = fig.subplots()
        top = max((int(b) for d in drawn.values() for b in d), default=1)
        every = [0, *(1 << k for k in range(top.bit_length()))]
        for i, t in enumerate(shown):
            # a bucket with no payload breaks the line (nan), and so does the empty payloads' own
            ys = [float(drawn[t].get(str(b), "nan")) for b in every]
            ax.plot([0.5], ys[:1], marker="o", markersize=3, color=f"C{i % 10}")
            ax.plot(every[1:], ys[1:], marker="o", markersize=3, linewidth=1.2, label=t, color=f"C{i % 10}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.minorticks_off()
        # ticks set here, not found by the locators (which measure many candidate labels)
        step = 1 if top < 1 << 12 else 2
        xt = [0.5, *(1 << k for k in range(0, max(1, top.bit_length()) + 1, step))]
        ax.set_xticks(xt, ["0", *(_short(1 << k) for k in range(0, max(1, top.bit_length()) + 1, step))], fontsize=7)
        most = max((n for d in drawn.values() for n in d.values()), default=1)
        ax.set_yticks([10 ** k for k in range(len(str(most)) + 1)],
                      [_short(10 ** k) for k in range(len(str(most)) + 1)], fontsize=7)
        for c in f["caps"]:
            ax.axvline(c["max_len"], color="0.3", linestyle="--", linewidth=0.8)
            ax.annotate(f"cap {fmt(c['max_len'])}", (c["max_len"], 1), xycoords=("data", "axes fraction"),
                        rotation=90, va="top", ha="right", fontsize=7, color="0.3")
        ax.set_xlabel("payload length (code points, power-of-two buckets; 0 at 1/2)")
        ax.set_ylabel("payloads")
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return finish(fig, "payload_lengths", {"series": drawn, "caps": [c["max_len"] for c in f["caps"]]})


def draw_strata(f: dict[str, Any]) -> str:
    from survey.render.svg import figure, style

    n = len(f["strata"])
    width = max(4.5, min(12.0, 0.5 * n + 2.5))
    xs = list(range(n))
    with style():
        fig = figure(figsize=(width, 4.6))
        longest = max((len(x) for x in f["strata"]), default=0)
        fig.subplots_adjust(left=0.8 / width, right=1 - 1.3 / width, top=0.95, hspace=0.15,
                            bottom=((longest * 0.05 if n > 6 else 0.15) + 0.45) / 4.6)
        a1, a2 = fig.subplots(2, 1, sharex=True)
        for ax, key, walked, name in ((a1, "files", "walked", "files"), (a2, "bytes", "walked_bytes", "bytes")):
            ax.bar(xs, f[key], color="C0", label=name)
            ax.bar(xs, f[walked], color="C1", width=0.5, label=f"walked {name}")
            for x, v in zip(xs, f[key], strict=True):
                ax.text(x, v, fmt(v) if key == "files" else human_bytes(v), ha="center", va="bottom", fontsize=6)
            yt = _ticks(max(f[key], default=0))
            ax.set_yticks(yt, [fmt(v) if key == "files" else human_bytes(v) for v in yt], fontsize=7)
            ax.set_ylabel(name)
            ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        a2.set_xticks(xs, f["strata"], rotation=60 if n > 6 else 0, fontsize=7)
        a2.set_xlabel("mtime stratum")
    return finish(fig, "strata", {k: f[k] for k in ("strata", "files", "walked", "bytes", "walked_bytes")})


def draw_versions(f: dict[str, Any]) -> str:
    from survey.render.svg import figure, style

    versions, classes = f["versions"], f["classes"]
    shown = _series(classes)
    width = max(5.5, min(12.0, 0.6 * len(versions) + 4))
    xs = list(range(len(versions)))
    base = [0] * len(versions)
    drawn: dict[str, list[int]] = {}
    with style():
        fig = figure(figsize=(width, 3.8))
        legend_w = (max(len(c) for c in shown) * 0.055 + 0.5) / width
        fig.subplots_adjust(left=0.6 / width + 0.04, right=max(0.45, 0.98 - legend_w), top=0.95,
                            bottom=((max(len(v) for v in versions) * 0.05 if len(versions) > 5 else 0.15) + 0.45) / 3.8)
        ax = fig.subplots()
        for i, c in enumerate(shown):
            members = [c] if c != OTHER else classes[MAX_SERIES - 1:]
            ys = [sum(f["records"][v].get(m, 0) for m in members) for v in versions]
            drawn[c] = ys
            ax.bar(xs, ys, bottom=base, label=c, color=f"C{i % 10}")
            base = [b + y for b, y in zip(base, ys, strict=True)]
        for x, t in zip(xs, base, strict=True):
            ax.text(x, t, fmt(t), ha="center", va="bottom", fontsize=6)
        ax.set_xticks(xs, versions, rotation=60 if len(versions) > 5 else 0, fontsize=7)
        yt = _ticks(max(base, default=0))
        ax.set_yticks(yt, [fmt(v) for v in yt], fontsize=7)
        ax.set_xlabel(f["axis"])
        ax.set_ylabel("records")
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return finish(fig, "class_versions", {"versions": versions, "series": drawn})


def draw_presence(f: dict[str, Any]) -> str:
    from survey.render.svg import figure, style

    cls = f["classes"]
    names = [c["rclass"] for c in cls]
    height = max(2.0, min(14.0, 0.2 * len(cls) + 1.0))
    ys = list(range(len(cls)))[::-1]
    left = [0] * len(cls)
    drawn: dict[str, list[int]] = {}
    with style():
        fig = figure(figsize=(7.0, height))
        fig.subplots_adjust(left=_margin(names, 7.0), right=0.93, top=1 - 0.4 / height, bottom=0.5 / height)
        ax = fig.subplots()
        for i, part in enumerate(("always", "sometimes", "rare")):
            w = [len(c[part]) for c in cls]
            drawn[part] = w
            ax.barh(ys, w, left=left, label=part, color=f"C{i}")
            left = [a + b for a, b in zip(left, w, strict=True)]
        for y, c, t in zip(ys, cls, left, strict=True):
            ax.text(t, y, f" {len(c['always'])}/{len(c['sometimes'])}/{len(c['rare'])}", va="center", fontsize=6)
        ax.set_yticks(ys, names, fontsize=7)
        ax.set_ylim(-0.6, len(cls) - 0.4)
        xt = _ticks(max(left, default=0))
        ax.set_xticks(xt, [fmt(v) for v in xt], fontsize=7)
        ax.set_xlabel("top-level keys")
        ax.legend(fontsize=7, frameon=False, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3)
    return finish(fig, "key_presence", {"classes": names, "series": drawn})


def finish(fig: Any, name: str, data: dict[str, Any]) -> str:
    """The figure's SVG, with a ``<title>`` and the figures it draws in ``<metadata>``."""
    from survey.render.svg import to_svg

    svg = to_svg(fig)
    blob = orjson.dumps({"chart": name, **data}, option=orjson.OPT_SORT_KEYS).decode()
    extra = f'<title>{escape(name)}</title><metadata id="survey-data">{escape(blob)}</metadata>\n'
    m = re.search(r"<svg\b[^>]*>\s*", svg)
    if m is None:  # (matplotlib always writes one)
        return svg
    return svg[: m.end()] + extra + svg[m.end():]


def read_data(svg: str) -> dict[str, Any]:
    """The figures an SVG of this module draws (its ``<metadata id="survey-data">``)."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    for el in root.iter():
        if el.tag.endswith("metadata") and el.get("id") == "survey-data":
            return dict(orjson.loads(el.text or "{}"))
    raise ValueError("no survey-data metadata in the SVG")
