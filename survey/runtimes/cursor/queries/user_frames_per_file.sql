-- Question: How many files have exactly one user frame (one conversation or one turn?)
-- Used by: cursor page: Subagents (undetermined)
-- Inputs: walk/frames.parquet, inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/user_frames_per_file.sql"
WITH per_file AS (
    SELECT i.file_id, count(f.line_no) FILTER (WHERE f.role = 'user') AS users
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i LEFT JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_id)
    WHERE i.kind = 'jsonl' AND i.sampled
    GROUP BY i.file_id
)
SELECT
    count(*)                                 AS files,
    count(*) FILTER (WHERE users = 1)        AS one_user_frame,
    count(*) FILTER (WHERE users = 0)        AS no_user_frame,
    count(*) FILTER (WHERE users > 1)        AS several_user_frames
FROM per_file;
