-- Question: How does each capture end: with result/success, with another event, or with no JSON event at all (a start-up failure)?
-- Used by: cursor_stream page: Captures
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/capture_endings.sql"
WITH caps AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'capture' AND sampled
), per AS (
    SELECT
        c.file_id,
        arg_max(f.rclass, f.line_no) FILTER (WHERE f.frame_status = 'ok')   AS last_event,
        count(f.line_no) FILTER (WHERE f.frame_status = 'ok')               AS events,
        bool_or(f.frame_status = 'partial')                                 AS cut_off
    FROM caps AS c LEFT JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_id)
    GROUP BY c.file_id
)
SELECT
    coalesce(last_event, '<no JSON event>')   AS last_event,
    coalesce(cut_off, false)                  AS cut_off,
    count(*)                                  AS captures
FROM per
GROUP BY ALL
ORDER BY captures DESC, last_event;
