-- Question: Which reviewed values occur at each vocabulary path, and how many values were withheld (distinct)?
-- Used by: every page: value maps
-- Inputs: walk/values.parquet (one row per file and (path, value, withheld id): the walk aggregates per file, so
--         a shown value's rows are its files and count(*) counts them; only withheld values, one row per
--         withheld id, need a distinct pass, over their few rows)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/value_maps.sql"
SELECT
    path,
    value,
    sum(count)                   AS occurrences,
    count(*)                     AS files,
    0                            AS distinct_withheld
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
WHERE withheld_id IS NULL
GROUP BY path, value
UNION ALL
SELECT
    path,
    value,
    sum(count)                   AS occurrences,
    count(DISTINCT file_id)      AS files,
    count(DISTINCT withheld_id)  AS distinct_withheld
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
WHERE withheld_id IS NOT NULL
GROUP BY path, value
ORDER BY path, occurrences DESC, value;
