-- Question: capture_endings.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: each capture's ending, read from the part that holds all its frames; the merge adds the captures with none.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/capture_endings.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index                                                    AS part,
    file_key,
    arg_max(rclass, line_no) FILTER (WHERE frame_status = 'ok')   AS last_event,
    bool_or(frame_status = 'partial')                             AS cut_off
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
GROUP BY ALL;

WITH caps AS (
    SELECT ('0x' || substr(file_id, 3))::UBIGINT AS file_key   -- the file's id as a number, as walk tables keep it
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'capture' AND sampled
)
SELECT
    coalesce(p.last_event, '<no JSON event>')   AS last_event,
    coalesce(p.cut_off, false)                  AS cut_off,
    count(*)                                    AS captures
FROM caps AS c LEFT JOIN partials AS p USING (file_key)
GROUP BY ALL
ORDER BY captures DESC, last_event;
