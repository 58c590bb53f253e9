-- Question: turn_ended.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so each part gives its files' rows; the merge adds the files with no frame.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/turn_ended.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index                                                              AS part,
    file_id,
    count(line_no) FILTER (WHERE type = 'turn_ended')                       AS turn_ended,
    arg_max(coalesce(type, role, '?'), line_no) FILTER (WHERE frame_status = 'ok') AS last_type
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
GROUP BY ALL;

WITH jsonl AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE kind = 'jsonl' AND sampled
), per_file AS (
    SELECT j.file_id, coalesce(p.turn_ended, 0) AS turn_ended, p.last_type
    FROM jsonl AS j LEFT JOIN partials AS p USING (file_id)
)
SELECT
    count(*)                                                         AS files,
    count(*) FILTER (WHERE turn_ended > 0)                           AS files_with_turn_ended,
    count(*) FILTER (WHERE turn_ended = 0)                           AS files_without_turn_ended,
    count(*) FILTER (WHERE turn_ended > 0 AND last_type = 'turn_ended') AS turn_ended_last,
    count(*) FILTER (WHERE turn_ended > 0 AND coalesce(last_type, '') <> 'turn_ended') AS turn_ended_not_last
FROM per_file;
