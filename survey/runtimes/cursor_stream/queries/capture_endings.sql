-- Question: How does each capture end: with result/success, with another event, or with no JSON event at all (a start-up failure)?
-- Used by: cursor_stream page: Captures
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/capture_endings.sql"
WITH caps AS (
    SELECT ('0x' || substr(file_id, 3))::UBIGINT AS file_key   -- the file's id as a number, as walk tables keep it
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'capture' AND sampled
), per AS (   -- per file first, on its id as a number
    SELECT
        file_key,
        arg_max(rclass, line_no) FILTER (WHERE frame_status = 'ok')   AS last_event,
        bool_or(frame_status = 'partial')                             AS cut_off
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    GROUP BY file_key
)
SELECT
    coalesce(p.last_event, '<no JSON event>')   AS last_event,
    coalesce(p.cut_off, false)                  AS cut_off,
    count(*)                                    AS captures
FROM caps AS c LEFT JOIN per AS p USING (file_key)
GROUP BY ALL
ORDER BY captures DESC, last_event;
