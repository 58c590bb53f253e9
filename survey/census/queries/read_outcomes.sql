-- Question: Which files could not be read as expected, by problem class?
-- Used by: every page: Observation basis, Problems
-- Inputs: inventory, walk/files.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/read_outcomes.sql"
WITH inv AS (
    SELECT file_id, problem
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
), unread AS (   -- the walk's outcomes other than ok: few rows, so the join below probes with them
    SELECT file_id, read_status
    FROM read_parquet(getvariable('snap') || '/walk/files.parquet')
    WHERE read_status <> 'ok'
)
SELECT problem, count(*) AS files
FROM (
    SELECT problem FROM inv WHERE problem IS NOT NULL AND problem <> 'ok'   -- the crawl's own outcome first
    UNION ALL
    SELECT u.read_status FROM unread AS u JOIN inv USING (file_id) WHERE inv.problem IS NULL
)
GROUP BY problem
ORDER BY files DESC, problem;
