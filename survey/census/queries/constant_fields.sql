-- Question: Which vocabulary paths hold one single value across all files (a constant, not evidence of success)?
-- Used by: every page: Constant fields
-- Inputs: walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/constant_fields.sql"
SELECT
    path,
    any_value(value)         AS value,
    sum(count)               AS occurrences,
    count(DISTINCT file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
GROUP BY path
HAVING count(DISTINCT coalesce(withheld_id, value)) = 1
   AND count(DISTINCT file_id) >= 2
   AND any_value(value) <> '<withheld>'
ORDER BY files DESC, path;
