-- Question: Which status values do turn_ended frames carry?
-- Used by: cursor page: Lifecycle and outcome (status table)
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/turn_status.sql"
SELECT status, count(*) AS frames, count(DISTINCT file_id) AS files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok' AND type = 'turn_ended'
GROUP BY status
ORDER BY frames DESC, status;
