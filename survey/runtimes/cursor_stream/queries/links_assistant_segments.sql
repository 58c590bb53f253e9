-- Question: Which key sets do a capture's assistant events carry before its last one (chunks) and as its last one, and do chunks end in a key set no chunk carries (a final message)?
-- Used by: cursor_stream page: Links between records and files (relations)
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/links_assistant_segments.sql"
WITH a AS (   -- each assistant event; the last of its capture marked
    SELECT file_id, keyset, line_no = max(line_no) OVER (PARTITION BY file_id) AS is_last
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok' AND rclass = 'assistant'
), chunk_keysets AS (SELECT DISTINCT keyset FROM a WHERE NOT is_last),
per AS (   -- per capture: chunks before the last event, and whether the last one's key set is one no chunk carries
    SELECT file_id, count(*) FILTER (WHERE NOT is_last) AS chunks,
           bool_or(is_last AND keyset NOT IN (SELECT keyset FROM chunk_keysets)) AS final_keyset
    FROM a GROUP BY file_id
)
SELECT 'keyset' AS row_kind, CASE WHEN is_last THEN 'last' ELSE 'before the last' END AS position, keyset,
       count(*) AS events, count(DISTINCT file_id) AS captures
FROM a GROUP BY ALL
UNION ALL
SELECT 'captures', CASE WHEN chunks = 0 THEN 'one assistant event'
                        WHEN final_keyset THEN 'chunks, then a final key set'
                        ELSE 'chunks, the last in a chunk key set' END, NULL, sum(chunks)::BIGINT, count(*)
FROM per GROUP BY ALL
ORDER BY row_kind DESC, position, events DESC, keyset;
