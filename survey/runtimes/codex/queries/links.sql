-- Question: Do the links the codex profile declares hold? Per link: how many sources (records, or scope units for a constant) find their target, how many find several or none, and how many targets no source names; ids compared as salted 64-bit pseudonyms, never printed
-- Used by: codex page: Links between records and files
-- Inputs: inventory, walk/links.parquet
-- Made from survey/census/queries/links/template.sql and the profile's declared links (python -m survey.evidence.links writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/links.sql"
WITH decl AS (   -- number (the ids' grouping key), link, source (record class, id kind), target (record class, id kind),
                 -- scope, expectation
    SELECT * FROM (VALUES
        (1, 'function_output_pairing', 'response_item/function_call_output', 'call_id', 'response_item/function_call', 'call_id', 'file', 'unique'),
        (2, 'custom_output_pairing', 'response_item/custom_tool_call_output', 'call_id', 'response_item/custom_tool_call', 'call_id', 'file', 'unique'),
        (3, 'child_names_parent', 'session_meta', 'parent_thread', 'session_meta', 'payload_id', 'corpus', 'all'),
        (4, 'spawn_names_child', '*', 'new_thread', 'session_meta', 'payload_id', 'corpus', 'all')
    ) AS v(n, link, src_class, src_kind, dst_class, dst_kind, scope, expect) WHERE link <> ''
),
inv AS (   -- each walked file as the walk tables key it (its id as a number), its store (the path's id, where
           -- the path has one, else the file) and the path's id as the links keep ids
    SELECT ('0x' || substr(file_id, 3))::UBIGINT AS file_key,
           CASE WHEN session_id IS NOT NULL THEN ('0x' || substr(session_id, 3))::UBIGINT END AS path_ref
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE sampled
),
ids_of AS (   -- every id of a declared kind, with its record's class (the walk keeps it on each id)
    SELECT file_key, kind, ref, rclass FROM read_parquet(getvariable('snap') || '/walk/links.parquet')
    WHERE kind IN (SELECT src_kind FROM decl UNION SELECT dst_kind FROM decl)
),
l AS (   -- with its file's store (no link is looked for within a store: the file stands for it)
    SELECT x.file_key, x.kind, x.ref, x.rclass, x.file_key AS store
    FROM ids_of AS x
),
side AS (   -- each id on each side of each link, with the unit its target is looked for in (0: the corpus)
    SELECT d.n, true AS is_source, CASE d.scope WHEN 'file' THEN l.file_key WHEN 'store' THEN l.store ELSE 0 END AS grp, l.ref
    FROM l JOIN decl AS d ON l.kind = d.src_kind
    WHERE d.src_class = '*' OR l.rclass = d.src_class
    UNION ALL
    SELECT d.n, false, CASE d.scope WHEN 'file' THEN l.file_key WHEN 'store' THEN l.store ELSE 0 END, l.ref
    FROM l JOIN decl AS d ON l.kind = d.dst_kind
    WHERE d.dst_class = '*' OR l.rclass = d.dst_class
    UNION ALL   -- a target that is a file's own path id (files holding a source id only)
    SELECT d.n, false, CASE d.scope WHEN 'file' THEN i.file_key WHEN 'store' THEN i.path_ref ELSE 0 END, i.path_ref
    FROM inv AS i JOIN (SELECT DISTINCT file_key, kind FROM l WHERE kind IN (SELECT src_kind FROM decl WHERE dst_class = '<path>')) AS h
      ON h.file_key = i.file_key
    JOIN decl AS d ON d.src_kind = h.kind AND d.dst_class = '<path>' AND d.dst_kind = 'session'
    WHERE i.path_ref IS NOT NULL
),
ids AS (   -- per link, unit and id: how often it is a source, how often a target
    SELECT n, grp, ref, count(*) FILTER (WHERE is_source) AS s, count(*) FILTER (WHERE NOT is_source) AS t
    FROM side GROUP BY n, grp, ref
),
joined AS (
    SELECT n,
           sum(s)                                   AS sources,
           sum(s) FILTER (WHERE t > 0)              AS found,
           sum(s) FILTER (WHERE t = 1 AND s = 1)    AS paired,
           sum(s) FILTER (WHERE t = 0)              AS unmatched,
           sum(t)                                   AS targets,
           sum(t) FILTER (WHERE s = 0)              AS targets_unnamed
    FROM ids GROUP BY n
),
const AS (   -- a constant: the units whose source ids are one value
    SELECT n, count(*) AS units, count(*) FILTER (WHERE k = 1) AS one, count(*) FILTER (WHERE k > 1) AS several
    FROM (SELECT n, grp, count(*) AS k FROM ids
          WHERE s > 0 AND n IN (SELECT n FROM decl WHERE expect = 'constant') GROUP BY n, grp)
    GROUP BY n
)
SELECT link, scope, expect, unit, total, holds, several, unmatched, targets, targets_unnamed,
       round(100.0 * holds / nullif(total, 0), 1) AS rate_pct
FROM (
    SELECT d.link, d.scope, d.expect,
           CASE WHEN d.expect <> 'constant' THEN 'records' WHEN d.scope = 'file' THEN 'files'
                WHEN d.scope = 'store' THEN 'stores' ELSE 'corpus' END                                       AS unit,
           coalesce(CASE WHEN d.expect = 'constant' THEN c.units ELSE j.sources END, 0)::BIGINT               AS total,
           coalesce(CASE d.expect WHEN 'all' THEN j.found WHEN 'unique' THEN j.paired ELSE c.one END, 0)::BIGINT AS holds,
           coalesce(CASE d.expect WHEN 'unique' THEN j.found - j.paired WHEN 'constant' THEN c.several ELSE 0 END, 0)::BIGINT AS several,
           coalesce(CASE WHEN d.expect = 'constant' THEN 0 ELSE j.unmatched END, 0)::BIGINT                  AS unmatched,
           CASE WHEN d.expect <> 'constant' THEN coalesce(j.targets, 0) END::BIGINT                          AS targets,
           CASE WHEN d.expect <> 'constant' AND d.dst_class <> '<path>' THEN coalesce(j.targets_unnamed, 0) END::BIGINT AS targets_unnamed
    FROM decl AS d LEFT JOIN joined AS j USING (n) LEFT JOIN const AS c USING (n)
)
ORDER BY link;
