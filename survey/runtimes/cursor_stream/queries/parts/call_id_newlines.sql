-- Question: call_id_newlines.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames and markers are in parts of the same label (file_index: the same place in each list).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/call_id_newlines.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH f AS (
    SELECT file_index AS part, file_key, line_no, rclass, keyset
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
    WHERE frame_status = 'ok' AND rclass LIKE 'tool_call%'
), m AS (
    SELECT DISTINCT file_key, line_no
    FROM read_parquet(coalesce(getvariable('markers_parts'), [getvariable('snap') || '/walk/markers.parquet']))
    WHERE name = 'call_id_newline'
)
SELECT f.part, f.rclass, f.keyset, count(*) AS events, count(m.line_no) AS with_newline
FROM f LEFT JOIN m USING (file_key, line_no)
GROUP BY ALL;

SELECT
    rclass                                                                               AS family,
    sum(events)                                                                          AS events,
    coalesce(sum(events) FILTER (WHERE list_contains(string_split(keyset, ','), 'call_id')), 0) AS with_call_id,
    sum(with_newline)                                                                    AS call_id_with_newline
FROM partials
GROUP BY rclass
ORDER BY family;
