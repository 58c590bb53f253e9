"""Declared links, evaluated: one SQL template, one query a runtime, one claim a link.

Each runtime's ``links.sql`` is written from ``census/queries/links/template.sql`` and the
profile's declared links (``render_sql``; ``python -m survey.evidence.links --check`` and a
test hold the files equal), and each link becomes a claim with its rate (``link_claims``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from survey.evidence.claims import as_int, fmt, pct
from survey.evidence.kit import Kit
from survey.runtimes.base import Link, Profile
from survey.shared import sync_files

TEMPLATE = Path(__file__).parents[1] / "census" / "queries" / "links" / "template.sql"
QUERY = "links"

_READER = """
    UNION ALL   -- {name}: compared by the store reader, its per-store counts summed
    SELECT '{name}', '{scope}', '{expect}', 'stores',
           coalesce(sum(link_{name}_matched + link_{name}_unmatched), 0)::BIGINT, coalesce(sum(link_{name}_matched), 0)::BIGINT,
           0::BIGINT, coalesce(sum(link_{name}_unmatched), 0)::BIGINT, NULL::BIGINT, NULL::BIGINT
    FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')"""


def _q(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def render_sql(profile: Profile) -> str:
    """The runtime's ``links.sql``: the template with its declarations written in.

    A profile declares its links (``Profile.declared_links``, :class:`survey.runtimes.base.Link`):
    which id on which record class must find which id on which other record class (or the file's
    own path id), where it is looked for (the file, the store, the corpus) and what is expected
    (every source finds a target; a one-to-one pairing; one value per unit). The census runs one
    query per runtime, ``runtimes/<name>/queries/links.sql``, made from
    ``census/queries/links/template.sql`` with the declarations written into it as a ``VALUES``
    list, so the file a reviewer pastes is the file the census ran. ``python -m
    survey.evidence.links`` writes those files; ``--check`` says which differ (a test holds them
    equal).

    Ids are compared as the walk keeps them, salted 64-bit pseudonyms: only counts leave. Links
    whose two sides the store reader must compare itself (a digest of a path, a blob's id) are
    declared ``compared_by="reader"``: the reader counts ``link_<name>_matched`` /
    ``link_<name>_unmatched`` into its per-store facts and the same query sums them.
    """
    rows: list[str] = []
    for ln in profile.declared_links:
        if ln.compared_by != "sql":
            continue
        dst = ln.target or ("", "")
        # numbered: the ids are grouped by the number, not the name (a string key cost the
        # grouping a fifth of the query's time at 100 MB of Claude Code transcripts)
        rows.append(f"        ({len(rows) + 1}, " + ", ".join(_q(v) for v in (ln.name, *ln.source, *dst, ln.scope, ln.expect)) + ")")
    if not rows:  # (a VALUES list cannot be empty: one blank row, filtered out)
        rows.append("        (0, '', '', '', '', '', '', '')")
    reader = [ln for ln in profile.declared_links if ln.compared_by == "reader"]
    # a file's store is looked up only where a link is looked for within one (the lookup joins
    # every id with the inventory)
    by_store = any(ln.scope == "store" for ln in profile.declared_links if ln.compared_by == "sql")
    return (TEMPLATE.read_text()
            .replace("{runtime}", profile.name)
            .replace("{store_input}", ", walk/stores.parquet" if reader else "")
            .replace("{store_note}", ": the path's id, where the path has one, else the file" if by_store
                     else " (no link is looked for within a store: the file stands for it)")
            .replace("{store}", "coalesce(i.path_ref, x.file_key)" if by_store else "x.file_key")
            .replace("{store_join}", " LEFT JOIN inv AS i ON i.file_key = x.file_key" if by_store else "")
            .replace("{declarations}", ",\n".join(rows))
            .replace("{reader_links}", "".join(_READER.format(name=ln.name, scope=ln.scope, expect=ln.expect)
                                               for ln in reader)))


def query_path(profile: Profile) -> Path:
    return profile.queries_dir / f"{QUERY}.sql"


def reader_fact_names(links: tuple[Link, ...]) -> list[str]:
    """The store facts a reader fills in for its reader-compared links."""
    return [f"link_{ln.name}_{s}" for ln in links if ln.compared_by == "reader" for s in ("matched", "unmatched")]


# -- claims ------------------------------------------------------------------------------

_WHERE = {"file": "within its file", "store": "within its store", "corpus": "anywhere in the corpus"}


def _side(side: tuple[str, str] | None) -> str:
    if side is None:
        return ""
    cls, kind = side
    if cls == "<path>":
        return "the file's path id" if kind == "session" else f"the {kind} name"
    return f"`{kind}`" + ("" if cls == "*" else f" of `{cls}`")


def link_claims(kit: Kit, links: tuple[Link, ...]) -> None:
    """One ``rate`` claim per declared link (``link_<name>``) and a ``links`` claim listing
    them, and after them any ``link_…`` claim the profile's claims stated (a relation its own
    query measures); nothing where there is neither."""
    extra = [c.id for c in kit.claims if c.id.startswith("link_")]
    if not links and not extra:
        return
    rows = {r["link"]: r for r in kit.rows(QUERY)} if links else {}
    ids: list[str] = []
    for ln in links:
        r = rows.get(ln.name, {})
        total, holds = as_int(r.get("total")), as_int(r.get("holds"))
        several, unmatched = as_int(r.get("several")), as_int(r.get("unmatched"))
        unnamed = r.get("targets_unnamed")
        what = ln.about or ln.name
        sides = (f"{_side(ln.source)} → {_side(ln.target)}, {_WHERE[ln.scope]}" if ln.target
                 else f"{_side(ln.source)}, per {ln.scope}")
        if not total:
            text = f"{what} ({sides}): not determined, no source observed."
            prov = "not determined"
        elif ln.expect == "constant":
            text = (f"{what} ({sides}): one value in {fmt(holds)} of {fmt(total)} {r['unit']} ({pct(holds, total)})"
                    + (f"; {fmt(several)} hold several." if several else "."))
            prov = "observed"
        else:
            verb = "pair one to one" if ln.expect == "unique" else "find their target"
            text = (f"{what} ({sides}): {fmt(holds)} of {fmt(total)} {r['unit']} {verb} ({pct(holds, total)})"
                    + (f"; {fmt(several)} share an id with another source or find several targets" if several else "")
                    + f"; {fmt(unmatched)} find none"
                    + (f"; {fmt(as_int(unnamed))} targets are named by no source"
                       if unnamed is not None and ln.expect == "unique" else "")
                    + ".")
            prov = "observed"
        cid = f"link_{ln.name}"
        kit.state(cid, "rate", text,
                  kit.ev(QUERY, f"{ln.name}: holds {holds}/{total}; several {several}; none {unmatched}"
                         + (f"; targets unnamed {unnamed}" if unnamed is not None else "")),
                  value={"total": total, "holds": holds, "several": several, "unmatched": unmatched,
                         "targets_unnamed": unnamed},
                  provenance=prov, link=ln.name, expect=ln.expect, scope=ln.scope)
        ids.append(cid)
    # relations a profile's own claims stated under a ``link_`` id join the section
    ids += [cid for cid in extra if cid not in ids]
    if not links:  # relations only: the section lists them, its summary cites theirs
        first = next(c for c in kit.claims if c.id == extra[0])
        kit.state("links", "census", f"{len(extra)} relations between records and files measured; no id link is declared.",
                  *first.evidence, value=ids)
        return
    broken = [ln.name for ln in links if as_int(rows.get(ln.name, {}).get("holds")) < as_int(rows.get(ln.name, {}).get("total"))]
    kit.state("links", "census",
              f"{len(links)} declared links evaluated as joins over salted ids; "
              + (f"{len(broken)} {'does' if len(broken) == 1 else 'do'} not hold for every source: "
                 f"{', '.join(broken)}." if broken
                 else "each holds for every source observed."),
              kit.ev(QUERY, f"{len(rows)} rows"), value=ids)


# -- writing the queries -------------------------------------------------------------------

def sync_queries(argv: list[str] | None, render: Callable[[Profile], str | None],
                 path_of: Callable[[Profile], Path]) -> int:
    """Write each runtime's query made from a template (``render``: its text, or None where the
    runtime has none, whose file is then removed); with ``--check`` in ``argv``, write nothing
    and exit 1 naming the files that differ."""
    from survey.runtimes import all_profiles

    check = "--check" in (argv if argv is not None else sys.argv[1:])
    return sync_files(((path_of(p), render(p)) for p in all_profiles()), check)


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, compare) each runtime's ``links.sql``."""
    return sync_queries(argv, lambda p: render_sql(p) if p.declared_links else None, query_path)


if __name__ == "__main__":
    raise SystemExit(main())


# -- shape drift across strata -------------------------------------------------------------

DRIFT = "strata_drift"


def drift_claims(kit: Kit, shown: int = 5) -> None:
    """``strata_drift``: per record class and pair of adjacent mtime strata where it occurs, the
    top-level key sets that came (in the later, not the earlier) and went."""
    rows = kit.rows(DRIFT)
    moved = [r for r in rows if as_int(r["keysets_came"]) or as_int(r["keysets_went"])]
    classes = {r["rclass"] for r in rows}
    came = sum(as_int(r["keysets_came"]) for r in rows)
    went = sum(as_int(r["keysets_went"]) for r in rows)
    if not rows:
        text = ("Shape drift across mtime strata: not determined, no record class occurs in two strata "
                "of the walked files.")
        prov = "not determined"
    else:
        text = (f"Shape drift across mtime strata: of {fmt(len(rows))} comparisons of a record class with its "
                f"previous stratum ({len(classes)} classes), {fmt(len(moved))} show top-level key sets that came or went "
                f"({fmt(came)} came, {fmt(went)} went)"
                + ("; most: " + "; ".join(
                    f"{r['rclass']} {r['earlier']}→{r['later']} +{fmt(as_int(r['keysets_came']))}/−{fmt(as_int(r['keysets_went']))} "
                    f"({fmt(as_int(r['later_records_in_new_keysets']))} of {fmt(as_int(r['later_records']))} later records in new key sets)"
                    for r in moved[:shown]) if moved else "")
                + ".")
        prov = "observed"
    kit.state(DRIFT, "census", text,
              kit.ev(DRIFT, f"{len(rows)} comparisons; {len(moved)} drifted; came {came}, went {went}"),
              value={"comparisons": len(rows), "drifted": len(moved), "came": came, "went": went,
                     "classes": len(classes)},
              provenance=prov)
