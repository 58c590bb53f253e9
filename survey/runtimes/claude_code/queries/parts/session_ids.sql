-- Question: session_ids.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's links are all in one part, so its distinct session ids are counted there (a row per file that has any); the merge joins them to the inventory.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/session_ids.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, file_id, count(DISTINCT ref) AS n, any_value(ref) AS ref
FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) WHERE kind = 'session'
GROUP BY ALL;

WITH t AS (   -- the inventory keeps ids as pseudonyms (i- and 16 hex digits), the links their 64 bits
    SELECT file_id, surface,
           ('0x' || substr(session_id, 3))::UBIGINT  AS session_key,
           ('0x' || substr(parent_id, 3))::UBIGINT   AS parent_key
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), s AS (
    SELECT file_id, n, ref FROM partials
)
SELECT
    t.surface,
    count(*)                                                      AS files,
    count(*) FILTER (WHERE s.n = 1)                               AS one_session_id,
    count(*) FILTER (WHERE s.n > 1)                               AS several_session_ids,
    count(*) FILTER (WHERE s.n IS NULL)                           AS no_session_id,
    count(*) FILTER (WHERE s.n = 1 AND s.ref = t.session_key)     AS equals_file_name_id,
    count(*) FILTER (WHERE s.n = 1 AND s.ref = t.parent_key)      AS equals_parent_folder_id
FROM t LEFT JOIN s USING (file_id)
GROUP BY t.surface
ORDER BY t.surface;
