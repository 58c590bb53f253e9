-- Question: user_frames_per_file.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so each part gives its files' user frames; the merge adds the files with no frame.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/user_frames_per_file.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, file_id, count(line_no) FILTER (WHERE role = 'user') AS users
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
GROUP BY ALL;

WITH per_file AS (
    SELECT i.file_id, coalesce(p.users, 0) AS users
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i
    LEFT JOIN partials AS p USING (file_id)
    WHERE i.kind = 'jsonl' AND i.sampled
)
SELECT
    count(*)                                 AS files,
    count(*) FILTER (WHERE users = 1)        AS one_user_frame,
    count(*) FILTER (WHERE users = 0)        AS no_user_frame,
    count(*) FILTER (WHERE users > 1)        AS several_user_frames
FROM per_file;
