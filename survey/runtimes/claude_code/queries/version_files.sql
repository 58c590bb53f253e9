-- Question: Per surface, how many parsed records carry a client `version`, how many files hold any, and how many
--           files hold more than one (each file counted once, however many versions it holds)?
-- Used by: claude_code page: Observation basis (client version claim)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/version_files.sql"
WITH fv AS (   -- per file and version (NULL: records without one), its records
    SELECT f.file_id, i.surface, f.version, count(*) AS records
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok'
    GROUP BY ALL
), per_file AS (
    SELECT file_id, any_value(surface) AS surface, count(version) AS versions, sum(records) AS records,
           coalesce(sum(records) FILTER (WHERE version IS NOT NULL), 0) AS with_version
    FROM fv GROUP BY file_id
)
SELECT
    surface,
    count(*)                                   AS files,
    count(*) FILTER (WHERE versions > 0)       AS files_with_version,
    count(*) FILTER (WHERE versions > 1)       AS files_mixing_versions,
    sum(records)                               AS records,
    sum(with_version)                          AS records_with_version
FROM per_file
GROUP BY surface
ORDER BY surface;
