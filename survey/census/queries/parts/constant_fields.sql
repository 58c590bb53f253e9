-- Question: constant_fields.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a value's rows are its files, each in one part, so its files and occurrences per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/constant_fields.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index                    AS part,
    path,
    coalesce(withheld_id, value)  AS v,
    any_value(value)              AS value,
    sum(count)                    AS occurrences,
    count(*)                      AS files
FROM read_parquet(coalesce(getvariable('values_parts'), [getvariable('snap') || '/walk/values.parquet']))
GROUP BY ALL;

WITH per_value AS (   -- a withheld value is told apart by its withheld id
    SELECT path, v, any_value(value) AS value, sum(occurrences) AS occurrences, sum(files) AS files
    FROM partials
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
