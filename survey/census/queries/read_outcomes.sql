-- Question: Which files could not be read as expected, by problem class?
-- Used by: every page: Observation basis, Problems
-- Inputs: inventory, walk/files.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/read_outcomes.sql"
SELECT problem, count(*) AS files
FROM (
    SELECT coalesce(inv.problem, f.read_status) AS problem
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS inv
    LEFT JOIN read_parquet(getvariable('snap') || '/walk/files.parquet') AS f USING (file_id)
)
WHERE problem IS NOT NULL AND problem <> 'ok'
GROUP BY problem
ORDER BY files DESC, problem;
