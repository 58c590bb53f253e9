-- Question: Oversized output: how many tool results point at a persisted file (toolUseResult.persistedOutputPath), and does the target exist?
-- Used by: claude_code page: Oversized output (tool-results/)
-- Inputs: inventory, walk/markers.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/persisted.sql"
WITH m AS (
    SELECT m.* FROM read_parquet(getvariable('snap') || '/walk/markers.parquet') AS m
    SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
)
SELECT
    coalesce(sum(count) FILTER (WHERE name = 'persisted:present'), 0)         AS target_present,
    coalesce(sum(count) FILTER (WHERE name = 'persisted:missing'), 0)         AS target_missing,
    count(DISTINCT file_id) FILTER (WHERE name LIKE 'persisted:%')            AS files,
    coalesce(sum(count) FILTER (WHERE name = 'persisted_marker'), 0)          AS results_with_marker,
    (SELECT count(*) FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface = 'tool_result_txt')             AS tool_result_files,
    (SELECT coalesce(max(size), 0) FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface = 'tool_result_txt') AS max_tool_result_file_bytes
FROM m;
