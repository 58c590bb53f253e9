-- Question: How many tool_call events carry a call_id containing a newline (counted by a marker, never printed)?
-- Used by: cursor_stream page: Tool calls (call ids)
-- Inputs: walk/markers.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/call_id_newlines.sql"
WITH f AS (
    SELECT file_key, line_no, rclass, keyset FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok' AND rclass LIKE 'tool_call%'
), m AS (
    SELECT DISTINCT file_key, line_no FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
    WHERE name = 'call_id_newline'
), g AS (   -- per (family, key set) first: the key set's string work below runs once per distinct pair
    SELECT f.rclass, f.keyset, count(*) AS events, count(m.line_no) AS with_newline
    FROM f LEFT JOIN m USING (file_key, line_no)
    GROUP BY ALL
)
SELECT
    rclass                                                                               AS family,
    sum(events)                                                                          AS events,
    coalesce(sum(events) FILTER (WHERE list_contains(string_split(keyset, ','), 'call_id')), 0) AS with_call_id,
    sum(with_newline)                                                                    AS call_id_with_newline
FROM g
GROUP BY rclass
ORDER BY family;
