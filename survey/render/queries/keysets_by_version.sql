-- Question: Which key sets occur at each JSON path, per record class and client version (the file's first recorded
--           version), in how many records and files?
-- Used by: history page (key sets and record classes per client version)
-- Inputs: walk/frames.parquet (its version column: `version` or `cli_version`), walk/nodes.parquet
-- Made in part from survey/render/queries/fragments/file_version.sql (its CTE fv: python -m survey.census.fragments writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/render/queries/keysets_by_version.sql"
WITH fv AS (
    SELECT file_id, arg_min(v, line_no) AS version
    FROM (SELECT file_id, line_no, COLUMNS('^(cli_)?version$') AS v
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet'))
    WHERE v IS NOT NULL
    GROUP BY file_id
)
SELECT
    coalesce(fv.version, '(none)')   AS version,
    n.rclass,
    n.path,
    n.jtype,
    n.keyset,
    sum(n.count)                     AS occurrences,
    count(DISTINCT n.file_id)        AS files
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') AS n
LEFT JOIN fv USING (file_id)
GROUP BY ALL
ORDER BY version, rclass, path, jtype, keyset;
