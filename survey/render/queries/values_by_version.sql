-- Question: Which reviewed values occur at each vocabulary path per client version (the file's first recorded
--           version), in how many files (withheld values counted under their placeholder)?
-- Used by: history page (vocabulary values per client version)
-- Inputs: walk/frames.parquet (its version column: `version` or `cli_version`), walk/values.parquet
-- Made in part from survey/render/queries/fragments/file_version.sql (its CTE fv: python -m survey.census.fragments writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/render/queries/values_by_version.sql"
WITH fv AS (
    SELECT file_id, arg_min(v, line_no) AS version
    FROM (SELECT file_id, line_no, COLUMNS('^(cli_)?version$') AS v
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet'))
    WHERE v IS NOT NULL
    GROUP BY file_id
)
SELECT
    coalesce(fv.version, '(none)')   AS version,
    x.path,
    x.value,
    sum(x.count)                     AS occurrences,
    count(DISTINCT x.file_id)        AS files
FROM read_parquet(getvariable('snap') || '/walk/values.parquet') AS x
LEFT JOIN fv USING (file_id)
GROUP BY ALL
ORDER BY version, path, value;
