-- Question: Which tool names occur on tool_use blocks (value map), in how many blocks and files?
-- Used by: cursor page: Tool calls (observed native tool names)
-- Inputs: walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/tool_names.sql"
SELECT
    name,
    count(*)                 AS calls,
    count(DISTINCT file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
WHERE btype = 'tool_use'
GROUP BY name
ORDER BY calls DESC, name;
