-- Question: Which tool names do calls carry, per call class (MCP calls: namespace and name withheld)?
-- Used by: codex page: Tool calls (names)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/tool_names.sql"
SELECT
    f.rclass,
    CASE WHEN f.namespace IS NOT NULL THEN 'MCP (namespace withheld)' ELSE '' END AS kind,
    coalesce(f.name, '(none)')  AS name,
    count(*)                    AS calls,
    count(DISTINCT f.file_id)   AS files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
WHERE f.frame_status = 'ok'
  AND f.rclass IN ('response_item/function_call', 'response_item/custom_tool_call', 'response_item/local_shell_call')
GROUP BY ALL
ORDER BY calls DESC, f.rclass, name;
