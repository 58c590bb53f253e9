-- Question: version_files.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so whether it holds one version or several is known there.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/version_files.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH fv AS (
    SELECT f.file_index AS part, f.file_id, i.surface, f.version, count(*) AS records
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok'
    GROUP BY ALL
), per_file AS (
    SELECT any_value(part) AS part, file_id, any_value(surface) AS surface, count(version) AS versions,
           sum(records) AS records, coalesce(sum(records) FILTER (WHERE version IS NOT NULL), 0) AS with_version
    FROM fv GROUP BY file_id
)
SELECT
    part,
    surface,
    count(*)                                   AS files,
    count(*) FILTER (WHERE versions > 0)       AS files_with_version,
    count(*) FILTER (WHERE versions > 1)       AS files_mixing_versions,
    sum(records)                               AS records,
    sum(with_version)                          AS records_with_version
FROM per_file
GROUP BY part, surface;

SELECT surface, sum(files) AS files, sum(files_with_version) AS files_with_version,
       sum(files_mixing_versions) AS files_mixing_versions, sum(records) AS records,
       sum(records_with_version) AS records_with_version
FROM partials
GROUP BY surface
ORDER BY surface;
