-- Question: Of the tool_use calls whose name is withheld, how many carry an MCP name (mcp__<server>__<tool>,
--           withheld by policy unless --allow-mcp-names) and how many a name outside the reviewed vocabulary?
-- Used by: claude_code page: Tool calls (names)
-- Inputs: inventory, walk/blocks.parquet, walk/markers.parquet (marker mcp_tool_name: the name holds mcp__)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/tool_name_reasons.sql"
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface IN ('parent', 'subagent', 'workflow_agent')
), w AS (
    SELECT count(*) AS withheld, count(DISTINCT file_id) AS files
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') SEMI JOIN t USING (file_id)
    WHERE btype = 'tool_use' AND name = '<withheld>'
), m AS (
    SELECT coalesce(sum(count), 0) AS mcp, count(DISTINCT file_id) AS files
    FROM read_parquet(getvariable('snap') || '/walk/markers.parquet') SEMI JOIN t USING (file_id)
    WHERE name = 'mcp_tool_name'
)
SELECT
    w.withheld                    AS withheld_calls,
    m.mcp                         AS mcp_calls,
    w.withheld - m.mcp            AS unreviewed_calls,
    m.files                       AS files_with_mcp
FROM w, m;
