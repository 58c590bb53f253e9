-- Question: value_maps.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a value's files per part add up (each file is in one part); withheld ids may recur across parts,
--        so each part lists its own (withheld_id rows) and the merge counts them distinct.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/value_maps.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH v AS (
    SELECT file_index AS part, * FROM read_parquet(coalesce(getvariable('values_parts'), [getvariable('snap') || '/walk/values.parquet']))
)
SELECT part, path, value, false AS withheld, NULL::VARCHAR AS withheld_id, sum(count) AS occurrences, count(*) AS files
FROM v
WHERE withheld_id IS NULL
GROUP BY ALL
UNION ALL   -- withheld values: a file may hold several withheld ids, so its files are counted distinct
SELECT part, path, value, true, NULL, sum(count), count(DISTINCT file_id)
FROM v
WHERE withheld_id IS NOT NULL
GROUP BY ALL
UNION ALL   -- the withheld ids of each part, each once
SELECT DISTINCT part, path, value, true, withheld_id, 0, 0
FROM v
WHERE withheld_id IS NOT NULL;

SELECT path, value, sum(occurrences) AS occurrences, sum(files) AS files, 0 AS distinct_withheld
FROM partials
WHERE NOT withheld
GROUP BY path, value
UNION ALL
SELECT path, value, sum(occurrences) AS occurrences, sum(files) AS files, count(DISTINCT withheld_id) AS distinct_withheld
FROM partials
WHERE withheld
GROUP BY path, value
ORDER BY path, occurrences DESC, value;
