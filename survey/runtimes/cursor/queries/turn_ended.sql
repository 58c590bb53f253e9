-- Question: How many files end a turn with turn_ended, is it the last frame, and how many files have none?
-- Used by: cursor page: Lifecycle and outcome
-- Inputs: walk/frames.parquet, inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/turn_ended.sql"
WITH jsonl AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE kind = 'jsonl' AND sampled
), per_file AS (
    SELECT
        j.file_id,
        count(f.line_no) FILTER (WHERE f.type = 'turn_ended')                    AS turn_ended,
        arg_max(coalesce(f.type, f.role, '?'), f.line_no) FILTER (WHERE f.frame_status = 'ok') AS last_type
    FROM jsonl AS j LEFT JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_id)
    GROUP BY j.file_id
)
SELECT
    count(*)                                                         AS files,
    count(*) FILTER (WHERE turn_ended > 0)                           AS files_with_turn_ended,
    count(*) FILTER (WHERE turn_ended = 0)                           AS files_without_turn_ended,
    count(*) FILTER (WHERE turn_ended > 0 AND last_type = 'turn_ended') AS turn_ended_last,
    count(*) FILTER (WHERE turn_ended > 0 AND coalesce(last_type, '') <> 'turn_ended') AS turn_ended_not_last
FROM per_file;
