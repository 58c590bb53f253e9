-- Question: Which input key sets do the MCP wrappers (CallMcpTool, CallDynamicTool) carry?
-- Used by: cursor page: Tool calls (MCP wrappers)
-- Inputs: walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/mcp_wrapper_keysets.sql"
SELECT name, input_type, input_keyset, count(*) AS calls
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
WHERE btype = 'tool_use' AND name IN ('CallMcpTool', 'CallDynamicTool')
GROUP BY ALL
ORDER BY name, calls DESC;
