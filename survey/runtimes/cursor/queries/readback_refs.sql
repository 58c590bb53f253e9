-- Question: How many tool calls reference an agent-tools sidecar, via input.path or input.command?
-- Used by: cursor page: Off-transcript tool output (read-backs)
-- Inputs: walk/markers.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/readback_refs.sql"
SELECT name AS via, sum(count) AS calls, count(DISTINCT file_id) AS files
FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
WHERE name IN ('agent_tools_path', 'agent_tools_command')
GROUP BY name
ORDER BY name DESC;
