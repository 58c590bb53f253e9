-- Question: Does a subagent .meta.json toolUseId name a tool_use call in its session's parent file?
-- Used by: claude_code page: Subagents (meta join)
-- Inputs: inventory, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/meta_join.sql"
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
), l AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/walk/links.parquet')
), metas AS (
    SELECT i.file_id, i.surface, i.parent_id, l.ref
    FROM inv AS i LEFT JOIN l ON l.file_id = i.file_id AND l.kind = 'meta_tool_use'
    WHERE i.surface IN ('subagent_meta', 'workflow_meta') AND i.sampled
), calls AS (   -- the calls whose id a meta file names (few: the links hashed are the metas', not every call)
    SELECT l.file_id, l.ref FROM l WHERE l.kind = 'tool_use' AND l.ref IN (SELECT ref FROM metas)
), parent_calls AS (
    SELECT i.session_id, c.ref
    FROM inv AS i JOIN calls AS c USING (file_id)
    WHERE i.surface = 'parent'
), any_calls AS (
    SELECT DISTINCT ref FROM calls
)
SELECT
    m.surface,
    count(DISTINCT m.file_id)                                                          AS metas,
    count(DISTINCT m.file_id) FILTER (WHERE m.ref IS NOT NULL)                         AS with_tool_use_id,
    count(DISTINCT m.file_id) FILTER (WHERE EXISTS (
        SELECT 1 FROM parent_calls AS c WHERE c.session_id = m.parent_id AND c.ref = m.ref)) AS joined_parent_call,
    count(DISTINCT m.file_id) FILTER (WHERE m.ref IN (SELECT ref FROM any_calls))      AS joined_any_call
FROM metas AS m
GROUP BY m.surface
ORDER BY m.surface;
