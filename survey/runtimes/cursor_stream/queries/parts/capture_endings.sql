-- Question: capture_endings.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: each capture's ending, read from the part that holds all its frames, counted per part; the merge adds the captures with no frame at all (every capture the inventory lists, less those counted), so no row per file is kept.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/capture_endings.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH caps AS (
    SELECT ('0x' || substr(file_id, 3))::UBIGINT AS file_key   -- the file's id as a number, as walk tables keep it
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'capture' AND sampled
), per AS (
    SELECT
        file_index                                                    AS part,
        file_key,
        arg_max(rclass, line_no) FILTER (WHERE frame_status = 'ok')   AS last_event,
        bool_or(frame_status = 'partial')                             AS cut_off
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
    SEMI JOIN caps USING (file_key)
    GROUP BY ALL
)
SELECT part, last_event, cut_off, count(*) AS captures
FROM per
GROUP BY ALL;

WITH caps AS (
    SELECT count(*) AS n
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'capture' AND sampled
), g AS (
    SELECT last_event, cut_off, captures FROM partials
    UNION ALL   -- the captures with no frame
    SELECT NULL, NULL, (SELECT n FROM caps) - (SELECT coalesce(sum(captures), 0) FROM partials)
)
SELECT
    coalesce(last_event, '<no JSON event>')   AS last_event,
    coalesce(cut_off, false)                  AS cut_off,
    sum(captures)::BIGINT                     AS captures
FROM g
GROUP BY ALL
HAVING sum(captures) > 0
ORDER BY captures DESC, last_event;
