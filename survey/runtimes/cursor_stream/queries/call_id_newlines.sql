-- Question: How many tool_call events carry a call_id containing a newline (counted by a marker, never printed)?
-- Used by: cursor_stream page: Tool calls (call ids)
-- Inputs: walk/markers.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/call_id_newlines.sql"
WITH f AS (
    SELECT file_id, line_no, rclass, keyset FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok' AND rclass LIKE 'tool_call%'
), m AS (
    SELECT file_id, line_no, sum(count) AS n FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
    WHERE name = 'call_id_newline' GROUP BY ALL
)
SELECT
    f.rclass                                                                   AS family,
    count(*)                                                                   AS events,
    count(*) FILTER (WHERE list_contains(string_split(f.keyset, ','), 'call_id')) AS with_call_id,
    count(m.n)                                                                 AS call_id_with_newline
FROM f LEFT JOIN m USING (file_id, line_no)
GROUP BY f.rclass
ORDER BY family;
