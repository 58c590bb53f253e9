-- Question: class_versions.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its version (its first) is known there; each part keeps records and files per class and version, the merge adds them and takes the first and last of the versions seen.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/class_versions.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH f AS (
    SELECT f.file_index AS part, f.file_id, f.rclass, f.version, f.line_no
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
), fv AS (
    SELECT file_id, arg_min(version, line_no) AS file_version
    FROM f WHERE version IS NOT NULL GROUP BY file_id
), per_file AS (   -- records per class and file; the file's version is then parsed once per file
    SELECT part, rclass, file_id, count(*) AS records FROM f GROUP BY part, rclass, file_id
)
SELECT pf.part, pf.rclass, fv.file_version, sum(pf.records) AS records, count(*) AS files
FROM per_file AS pf LEFT JOIN fv USING (file_id)
GROUP BY ALL;

WITH x AS (
    SELECT rclass, coalesce(file_version, '(none)') AS v,
           list_transform(string_split(file_version, '.'), lambda p: try_cast(p AS INTEGER)) AS vk,
           sum(records) AS records, sum(files) AS files
    FROM partials GROUP BY rclass, file_version
)
SELECT
    rclass,
    arg_min(v, vk)             AS first_version,
    arg_max(v, vk)             AS last_version,
    count(DISTINCT v)          AS versions,
    sum(records)               AS records,
    sum(files)                 AS files
FROM x
GROUP BY rclass
ORDER BY records DESC, rclass;
