-- Question: For each record class: in files of which client versions does it occur (first and last version, by the file's first recorded version)?
-- Used by: claude_code page: Record classes (stratified by version)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/class_versions.sql"
WITH f AS (
    SELECT f.*, i.surface
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
), fv AS (
    SELECT file_id, arg_min(version, line_no) AS file_version
    FROM f WHERE version IS NOT NULL GROUP BY file_id
), per_file AS (   -- records per class and file; the file's version is then parsed once per file
    SELECT rclass, file_id, count(*) AS records FROM f GROUP BY rclass, file_id
), x AS (
    SELECT pf.rclass, pf.records, coalesce(fv.file_version, '(none)') AS v,
           list_transform(string_split(fv.file_version, '.'), lambda p: try_cast(p AS INTEGER)) AS vk
    FROM per_file AS pf LEFT JOIN fv USING (file_id)
)
SELECT
    rclass,
    arg_min(v, vk)             AS first_version,
    arg_max(v, vk)             AS last_version,
    count(DISTINCT v)          AS versions,
    sum(records)               AS records,
    count(*)                   AS files
FROM x
GROUP BY rclass
ORDER BY records DESC, rclass;
