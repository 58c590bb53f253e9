-- Question: meta_join.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: each part keeps the ids its meta files name (and the meta file) and the ids of its tool_use calls, each
--   with its session's 64 bits where the call is a parent transcript's (the inventory names a file's surface and
--   session from its path alone, so a kept row stays true). The calls are every tool_use link (724k at 5 GB of Claude
--   Code sessions: numbers only), so the merge joins a few thousand metas to them instead of reading every link of
--   the snapshot (13M at 5 GB: 0.33 s, the census's third longest query in a re-run). Which metas count (surface,
--   sampled) comes from the inventory at the merge, as in the reference.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/meta_join.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH parents AS (   -- the inventory keeps ids as pseudonyms (i- and 16 hex digits): as 64 bits, numbers to join on
    SELECT file_id, ('0x' || substr(session_id, 3))::UBIGINT AS sess
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface = 'parent'
)
SELECT l.file_index AS part, l.kind = 'meta_tool_use' AS meta,
       CASE WHEN l.kind = 'meta_tool_use' THEN l.file_id END AS file_id, l.ref, p.sess
FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l
LEFT JOIN parents AS p ON l.kind = 'tool_use' AND p.file_id = l.file_id
WHERE l.kind IN ('meta_tool_use', 'tool_use');

WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
), metas AS (
    SELECT i.file_id, i.surface, ('0x' || substr(i.parent_id, 3))::UBIGINT AS parent_key, p.ref
    FROM inv AS i LEFT JOIN (SELECT file_id, ref FROM partials WHERE meta) AS p USING (file_id)
    WHERE i.surface IN ('subagent_meta', 'workflow_meta') AND i.sampled
), calls AS (   -- the calls whose id a meta file names (sess: the parent transcript's session, else NULL)
    SELECT ref, sess FROM partials WHERE NOT meta AND ref IN (SELECT ref FROM metas)
), parent_calls AS (
    SELECT sess, ref FROM calls WHERE sess IS NOT NULL
), any_calls AS (
    SELECT DISTINCT ref FROM calls
)
SELECT
    m.surface,
    count(DISTINCT m.file_id)                                                          AS metas,
    count(DISTINCT m.file_id) FILTER (WHERE m.ref IS NOT NULL)                         AS with_tool_use_id,
    count(DISTINCT m.file_id) FILTER (WHERE EXISTS (
        SELECT 1 FROM parent_calls AS c WHERE c.sess = m.parent_key AND c.ref = m.ref)) AS joined_parent_call,
    count(DISTINCT m.file_id) FILTER (WHERE m.ref IN (SELECT ref FROM any_calls))      AS joined_any_call
FROM metas AS m
GROUP BY m.surface
ORDER BY m.surface;
