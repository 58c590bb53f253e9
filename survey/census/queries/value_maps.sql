-- Question: Which reviewed values occur at each vocabulary path, and how many values were withheld (distinct)?
-- Used by: every page: value maps
-- Inputs: walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/value_maps.sql"
SELECT
    path,
    value,
    sum(count)                   AS occurrences,
    count(DISTINCT file_id)      AS files,
    count(DISTINCT withheld_id)  AS distinct_withheld
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
GROUP BY path, value
ORDER BY path, occurrences DESC, value;
