-- Question: What JSON type does tool_use.input have, per tool name?
-- Used by: cursor page: Tool calls (input carrier)
-- Inputs: walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/input_type_by_tool.sql"
SELECT
    name,
    count(*) FILTER (WHERE input_type = 'object')  AS object,
    count(*) FILTER (WHERE input_type = 'string')  AS string,
    count(*) FILTER (WHERE input_type NOT IN ('object', 'string') OR input_type IS NULL) AS other,
    count(*)                                       AS calls
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
WHERE btype = 'tool_use'
GROUP BY name
ORDER BY calls DESC, name;
