-- Question: How many values were cut off by the depth limit (counted, never described)?
-- Used by: every page: Privacy gate
-- Inputs: walk/files.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/truncations.sql"
SELECT
    coalesce(sum(truncations), 0)                    AS truncated_values,
    count(*) FILTER (WHERE truncations > 0)          AS files
FROM read_parquet(getvariable('snap') || '/walk/files.parquet');
