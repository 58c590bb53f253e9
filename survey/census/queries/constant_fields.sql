-- Question: Which vocabulary paths hold one single value across all files (a constant, not evidence of success)?
-- Used by: every page: Constant fields
-- Inputs: walk/values.parquet (one row per file and (path, value, withheld id), so a value's rows are its files:
--         a path is constant when it has one value, and that value's rows count its files)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/constant_fields.sql"
WITH per_value AS (   -- a withheld value is told apart by its withheld id
    SELECT
        path,
        coalesce(withheld_id, value)  AS v,
        any_value(value)              AS value,
        sum(count)                    AS occurrences,
        count(*)                      AS files
    FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
    GROUP BY path, v
)
SELECT
    path,
    any_value(value)         AS value,
    sum(occurrences)         AS occurrences,
    sum(files)               AS files
FROM per_value
GROUP BY path
HAVING count(*) = 1
   AND sum(files) >= 2
   AND any_value(value) <> '<withheld>'
ORDER BY files DESC, path;
