-- Question: classes_by_version.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its version (its first) is known there, and its records and files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/classes_by_version.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH f AS (
    SELECT f.file_index AS part, f.file_id, f.rclass, f.version, f.line_no
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
), fv AS (
    SELECT file_id, arg_min(version, line_no) AS file_version
    FROM f WHERE version IS NOT NULL GROUP BY file_id
), per_file AS (   -- records per class and file (one version per file)
    SELECT part, rclass, file_id, count(*) AS n FROM f GROUP BY part, rclass, file_id
)
SELECT
    pf.part,
    coalesce(fv.file_version, '(none)')  AS version,
    pf.rclass,
    sum(pf.n)                            AS records,
    count(*)                             AS files
FROM per_file AS pf LEFT JOIN fv USING (file_id)
GROUP BY ALL;

SELECT version, rclass, sum(records) AS records, sum(files) AS files
FROM partials
GROUP BY version, rclass
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version, records DESC, rclass;
