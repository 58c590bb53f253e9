"""A subagent file's schema against its parent's: one SQL template, one query a runtime, one claim.

Each runtime's ``links_subagent_schema.sql`` is written from ``census/queries/subagents/template.sql``
and the profile's declared pairing (``render_sql``; ``--check`` and a test hold the files
equal), and compared shapes become one claim (``subagent_schema_claim``)."""

from __future__ import annotations

from pathlib import Path

from survey.evidence.claims import as_int, fmt, pct
from survey.evidence.kit import Kit
from survey.evidence.links import sync_queries
from survey.runtimes.base import Profile, SubagentPairs

TEMPLATE = Path(__file__).parents[1] / "census" / "queries" / "subagents" / "template.sql"
QUERY = "links_subagent_schema"
CLAIM = "link_subagent_schema"
SHOWN = 8  # paths named in the sentence (the census row holds them all)

_BY_PATH = """kids AS (   -- each walked subagent file (by its surface) and its path's parent id
    SELECT file_id, parent_id FROM inv WHERE surface IN ({children})
), tops AS (
    SELECT file_id, session_id FROM inv WHERE surface IN ({tops})
), pairs AS (   -- each walked child and its walked parent (lineage by directory: the path's ids)
    SELECT k.file_id AS child, t.file_id AS parent FROM kids AS k JOIN tops AS t ON k.parent_id = t.session_id
),"""

_BY_HEADER = """heads AS (   -- each walked file's first {rclass} record, with its own id and its parent's
    SELECT h.file_id,
           any_value(l.ref) FILTER (WHERE l.kind = '{own}') AS own,
           any_value(l.ref) FILTER (WHERE l.kind = '{up}')  AS up
    FROM (SELECT f.file_id, min(f.line_no) AS line_no
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
          SEMI JOIN (SELECT file_id FROM inv WHERE surface IN ({tops})) AS i USING (file_id)
          WHERE f.frame_status = 'ok' AND f.rclass = '{rclass}' GROUP BY f.file_id) AS h
    LEFT JOIN read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
      ON l.file_id = h.file_id AND l.line_no = h.line_no AND l.kind IN ('{own}', '{up}')
    GROUP BY h.file_id
), kids AS (   -- a child: its first header names a parent other than itself
    SELECT file_id, up FROM heads WHERE up IS NOT NULL AND own IS NOT NULL AND up <> own
), tops AS (
    SELECT file_id FROM inv WHERE surface IN ({tops}) AND file_id NOT IN (SELECT file_id FROM kids)
), pairs AS (   -- each walked child and the walked top-level file whose own id it names
    SELECT k.file_id AS child, h.file_id AS parent
    FROM kids AS k JOIN heads AS h ON h.own = k.up SEMI JOIN tops AS t ON t.file_id = h.file_id
),"""


def _q(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _names(xs: tuple[str, ...]) -> str:
    return ", ".join(_q(x) for x in xs)


def pairs_sql(sp: SubagentPairs) -> str:
    if sp.header is not None:
        rclass, up, own = sp.header
        return _BY_HEADER.format(rclass=rclass.replace("'", "''"), up=up, own=own, tops=_names(sp.tops))
    return _BY_PATH.format(children=_names(sp.children), tops=_names(sp.tops))


def render_sql(profile: Profile) -> str:
    """The runtime's ``links_subagent_schema.sql``: the template with its pairing written in.

    A profile declares how its subagent files pair with their parents
    (``Profile.subagent_pairs``, :class:`survey.runtimes.base.SubagentPairs`): by path (a child
    surface whose path names its parent's path id) or by its first header (a record whose parent
    id differs from its own id). The census runs ``runtimes/<name>/queries/links_subagent_schema.sql``,
    made from ``census/queries/subagents/template.sql`` with the pairing written in, so the file
    a reviewer pastes is the file the census ran. ``python -m survey.evidence.subagents`` writes
    those files; ``--check`` says which differ (a test holds them equal).

    Shapes are the walk's (record class, path, JSON type, key set), after the privacy gate; the
    comparison is made twice, with key sets and without (paths and types alone), since a child
    may carry keys its parent never does (its own agent id) on records otherwise alike. Only
    counts and gated paths leave.
    """
    sp = profile.subagent_pairs
    assert sp is not None
    return (TEMPLATE.read_text()
            .replace("{runtime}", profile.name)
            .replace("{inputs}", ", walk/frames.parquet, walk/links.parquet" if sp.header else "")
            .replace("{pairs}", pairs_sql(sp)))


def query_path(profile: Profile) -> Path:
    return profile.queries_dir / f"{QUERY}.sql"


# -- the claim -----------------------------------------------------------------------------

def subagent_schema_claim(k: Kit) -> None:
    """``link_subagent_schema``: how many walked subagent files use only shapes top-level
    transcripts use, and how many pairs have every child shape in the parent; the same by
    paths and types alone, and the paths no top-level transcript holds."""
    ss = k.one(QUERY)
    subs, pairs = as_int(ss.get("subagent_files")), as_int(ss.get("pairs"))
    in_top = as_int(ss.get("subagents_all_shapes_in_transcripts"))
    in_parent = as_int(ss.get("pairs_all_shapes_in_parent"))
    paths_parent = as_int(ss.get("pairs_all_paths_in_parent"))
    paths_top = as_int(ss.get("subagents_all_paths_in_transcripts"))
    alone = [str(p) for p in (ss.get("paths_in_no_transcript") or [])]
    named = ", ".join(f"`{p}`" for p in alone[:SHOWN]) + (f" and {len(alone) - SHOWN} more" if len(alone) > SHOWN else "")
    text = (f"{fmt(in_top)} of {fmt(subs)} walked subagent files ({pct(in_top, subs)}) use only shapes (record class, "
            f"path, JSON type, key set) that top-level transcripts use; "
            f"{fmt(as_int(ss.get('subagent_shapes_in_no_transcript')))} shapes occur in subagent files alone. "
            f"Against its own parent: {fmt(in_parent)} of {fmt(pairs)} walked pairs have every child shape in the "
            f"parent ({fmt(as_int(ss.get('child_shapes_not_in_parent')))} child shapes are not). "
            f"By path and JSON type alone: {fmt(paths_top)} of {fmt(subs)} subagent files use only paths of "
            f"top-level transcripts and {fmt(paths_parent)} of {fmt(pairs)} pairs every path of the parent"
            + (f"; {fmt(len(alone))} paths occur in subagent files alone: {named}." if alone else
               "; no path occurs in subagent files alone.")
            if subs else "No subagent file was walked: whether subagents share the transcripts' schema is not determined.")
    k.state(CLAIM, "rate", text,
            k.ev(QUERY, f"{in_top}/{subs} in transcripts; {in_parent}/{pairs} in parent; paths {paths_top}/{subs} "
                        f"in transcripts, {paths_parent}/{pairs} in parent; {len(alone)} paths in subagents alone"),
            value={key: (as_int(v) if key != "paths_in_no_transcript" else alone) for key, v in ss.items()},
            provenance="observed" if subs else "not determined")


# -- writing the queries -------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, compare) each runtime's ``links_subagent_schema.sql``."""
    return sync_queries(argv, lambda p: render_sql(p) if p.subagent_pairs is not None else None, query_path)


if __name__ == "__main__":
    raise SystemExit(main())
