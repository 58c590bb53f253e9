-- Question: Which files match no surface of the runtime, by extension?
-- Used by: every page: Other files
-- Inputs: inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/other_files.sql"
SELECT ext, count(*) AS files, sum(size) AS bytes
FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
WHERE surface = 'other'
GROUP BY ext
ORDER BY files DESC, ext;
