-- Question: Which tool names do legacy plain-text transcripts name in their [Tool call] headings?
-- Used by: cursor page: Legacy plain-text transcripts
-- Inputs: walk/headings.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/legacy_headings.sql"
SELECT value AS name, sum(count) AS headings, count(DISTINCT file_id) AS files
FROM read_parquet(getvariable('snap') || '/walk/headings.parquet')
WHERE name = 'tool_call'
GROUP BY value
ORDER BY headings DESC, value;
