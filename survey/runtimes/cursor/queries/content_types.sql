-- Question: What JSON type does message.content have?
-- Used by: cursor page: Frame taxonomy
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/content_types.sql"
SELECT jtype, sum(count) AS frames, count(DISTINCT file_id) AS files
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path = '$.message.content'
GROUP BY jtype
ORDER BY frames DESC;
