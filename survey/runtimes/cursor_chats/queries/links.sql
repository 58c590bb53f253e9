-- Question: Do the links the cursor_chats profile declares hold? Per link: how many sources (records, or scope units for a constant) find their target, how many find several or none, and how many targets no source names; ids compared as salted 64-bit pseudonyms, never printed
-- Used by: cursor_chats page: Links between records and files
-- Inputs: inventory, walk/links.parquet, walk/frames.parquet, walk/stores.parquet
-- Made from survey/census/queries/links/template.sql and the profile's declared links (python -m survey.evidence.links writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/links.sql"
WITH decl AS (   -- link, source (record class, id kind), target (record class, id kind), scope, expectation
    SELECT * FROM (VALUES
        ('agent_id_is_folder', 'meta:0', 'agent_id', '<path>', 'session', 'file', 'all'),
        ('result_names_call', '*', 'result_call_id', '*', 'call_id', 'file', 'all')
    ) AS v(link, src_class, src_kind, dst_class, dst_kind, scope, expect) WHERE link <> ''
),
inv AS (   -- each walked file, its store (the path's id, where the path has one) and that id as the links keep ids
    SELECT file_id, coalesce(session_id, file_id) AS store,
           CASE WHEN session_id IS NOT NULL THEN ('0x' || substr(session_id, 3))::UBIGINT END AS path_ref
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE sampled
),
l AS (   -- every id of a declared kind, with its record's class and its file's store
    SELECT l.file_id, l.kind, l.ref, f.rclass, i.store
    FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
    JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f ON f.file_key = l.file_key AND f.line_no = l.line_no
    JOIN inv AS i ON i.file_id = l.file_id
    WHERE l.kind IN (SELECT src_kind FROM decl UNION SELECT dst_kind FROM decl)
),
side AS (   -- each id on each side of each link, with the unit its target is looked for in
    SELECT d.link, true AS is_source, CASE d.scope WHEN 'file' THEN l.file_id WHEN 'store' THEN l.store ELSE '' END AS grp, l.ref
    FROM l JOIN decl AS d ON l.kind = d.src_kind AND (d.src_class = '*' OR l.rclass = d.src_class)
    UNION ALL
    SELECT d.link, false, CASE d.scope WHEN 'file' THEN l.file_id WHEN 'store' THEN l.store ELSE '' END, l.ref
    FROM l JOIN decl AS d ON l.kind = d.dst_kind AND (d.dst_class = '*' OR l.rclass = d.dst_class)
    UNION ALL   -- a target that is a file's own path id (files holding a source id only)
    SELECT d.link, false, CASE d.scope WHEN 'file' THEN i.file_id WHEN 'store' THEN i.store ELSE '' END, i.path_ref
    FROM inv AS i JOIN decl AS d ON d.dst_class = '<path>' AND d.dst_kind = 'session'
    WHERE i.path_ref IS NOT NULL AND i.file_id IN (SELECT file_id FROM l WHERE l.kind = d.src_kind)
),
ids AS (   -- per link, unit and id: how often it is a source, how often a target
    SELECT link, grp, ref, count(*) FILTER (WHERE is_source) AS s, count(*) FILTER (WHERE NOT is_source) AS t
    FROM side GROUP BY link, grp, ref
),
joined AS (
    SELECT link,
           sum(s)                                   AS sources,
           sum(s) FILTER (WHERE t > 0)              AS found,
           sum(s) FILTER (WHERE t = 1 AND s = 1)    AS paired,
           sum(s) FILTER (WHERE t = 0)              AS unmatched,
           sum(t)                                   AS targets,
           sum(t) FILTER (WHERE s = 0)              AS targets_unnamed
    FROM ids GROUP BY link
),
const AS (   -- a constant: the units whose source ids are one value
    SELECT link, count(*) AS units, count(*) FILTER (WHERE n = 1) AS one, count(*) FILTER (WHERE n > 1) AS several
    FROM (SELECT link, grp, count(DISTINCT ref) AS n FROM side WHERE is_source GROUP BY link, grp)
    GROUP BY link
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
    FROM decl AS d LEFT JOIN joined AS j USING (link) LEFT JOIN const AS c USING (link)
    UNION ALL   -- root_blob: compared by the store reader, its per-store counts summed
    SELECT 'root_blob', 'store', 'all', 'stores',
           coalesce(sum(link_root_blob_matched + link_root_blob_unmatched), 0)::BIGINT, coalesce(sum(link_root_blob_matched), 0)::BIGINT,
           0::BIGINT, coalesce(sum(link_root_blob_unmatched), 0)::BIGINT, NULL::BIGINT, NULL::BIGINT
    FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
    UNION ALL   -- workspace_md5: compared by the store reader, its per-store counts summed
    SELECT 'workspace_md5', 'store', 'all', 'stores',
           coalesce(sum(link_workspace_md5_matched + link_workspace_md5_unmatched), 0)::BIGINT, coalesce(sum(link_workspace_md5_matched), 0)::BIGINT,
           0::BIGINT, coalesce(sum(link_workspace_md5_unmatched), 0)::BIGINT, NULL::BIGINT, NULL::BIGINT
    FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
)
ORDER BY link;
