-- Question: Which tool names occur on tool_use blocks of transcripts (value map; MCP names withheld)?
-- Used by: claude_code page: Tool calls (names)
-- Inputs: inventory, walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/tool_names.sql"
SELECT
    b.name,
    count(*)                   AS calls,
    count(DISTINCT b.file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') AS b
SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
WHERE b.btype = 'tool_use'
GROUP BY b.name
ORDER BY calls DESC, b.name;
