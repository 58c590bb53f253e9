-- Question: Of the walked transcript files of each surface, how many carry an agentId key at the top level of a record, and how many only deeper (in a nested object), at which paths? (the key's presence, from the walk's shapes; never its value)
-- Used by: claude_code page: Links between records and files (agentId)
-- Inputs: inventory, walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/links_agent_id.sql"
WITH inv AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE sampled AND surface IN ('parent', 'subagent', 'workflow_agent')
), carrying AS (   -- each file and path where an agentId key sits
    SELECT DISTINCT n.file_id, n.path
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') AS n SEMI JOIN inv USING (file_id)
    WHERE n.path LIKE '%.agentId'
), per_file AS (
    SELECT file_id, bool_or(path = '$.agentId') AS top_level, list(path ORDER BY path) FILTER (WHERE path <> '$.agentId') AS nested
    FROM carrying GROUP BY file_id
)
SELECT
    i.surface,
    count(*)                                                                 AS walked,
    count(*) FILTER (WHERE f.top_level)                                      AS files_top_level,
    count(*) FILTER (WHERE f.file_id IS NOT NULL AND NOT f.top_level)        AS files_nested_only,
    count(*) FILTER (WHERE len(f.nested) > 0)                                AS files_nested,
    coalesce(list_sort(list_distinct(flatten(list(f.nested) FILTER (WHERE f.nested IS NOT NULL)))), [])
                                                                             AS nested_paths
FROM inv AS i LEFT JOIN per_file AS f USING (file_id)
GROUP BY i.surface
ORDER BY i.surface;
