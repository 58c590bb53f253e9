-- Fragment: each file's first recorded client version (the frames' version column: `version` or `cli_version`).
-- Written into keysets_by_version.sql and values_by_version.sql by python -m survey.census.fragments; a test holds them equal.
fv AS (
    SELECT file_id, arg_min(v, line_no) AS version
    FROM (SELECT file_id, line_no, COLUMNS('^(cli_)?version$') AS v
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet'))
    WHERE v IS NOT NULL
    GROUP BY file_id
)
