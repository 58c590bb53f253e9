-- Question: What JSON type is a transcript user record's toolUseResult (it is polymorphic)?
-- Used by: claude_code page: Tool calls and results (toolUseResult)
-- Inputs: inventory, walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/tool_use_result_types.sql"
SELECT
    n.jtype,
    sum(n.count)               AS records,
    count(DISTINCT n.file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') AS n
SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
           WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
WHERE n.path = '$.toolUseResult'
GROUP BY n.jtype
ORDER BY records DESC, n.jtype;
