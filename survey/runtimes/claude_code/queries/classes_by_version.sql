-- Question: How many records of each class per client version (the file's first recorded version)?
-- Used by: claude_code page: Record classes (stratified by version); snapshot only
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/classes_by_version.sql"
WITH f AS (
    SELECT f.*
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
), fv AS (
    SELECT file_id, arg_min(version, line_no) AS file_version
    FROM f WHERE version IS NOT NULL GROUP BY file_id
), per_file AS (   -- records per class and file (one version per file)
    SELECT rclass, file_id, count(*) AS n FROM f GROUP BY rclass, file_id
)
SELECT version, rclass, records, files
FROM (
    SELECT
        coalesce(fv.file_version, '(none)')  AS version,
        pf.rclass,
        sum(pf.n)                            AS records,
        count(*)                             AS files
    FROM per_file AS pf LEFT JOIN fv USING (file_id)
    GROUP BY ALL
)
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version, records DESC, rclass;
