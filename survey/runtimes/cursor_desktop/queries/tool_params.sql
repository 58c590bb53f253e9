-- Question: Per tool name, how many toolFormerData calls carry params that parse as a JSON object, none at all, text that is not JSON, or JSON of another type?
-- Used by: cursor_desktop page: Tool calls (params, a JSON object carried in a string, parsed by the walk)
-- Inputs: walk/blocks.parquet (one row per toolFormerData object: its gated tool name and its params' type)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/tool_params.sql"
SELECT
    coalesce(name, '<none>')                                                          AS tool_name,
    count(*)                                                                          AS calls,
    count(*) FILTER (WHERE input_type = 'object')                                     AS object_params,
    count(*) FILTER (WHERE input_type IS NULL)                                        AS no_params,
    count(*) FILTER (WHERE input_type = '<not-json>')                                 AS not_json,
    count(*) FILTER (WHERE input_type IS NOT NULL AND input_type NOT IN ('object', '<not-json>')) AS other_type
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
WHERE carrier = '$.toolFormerData'
GROUP BY ALL
ORDER BY calls DESC, tool_name;
