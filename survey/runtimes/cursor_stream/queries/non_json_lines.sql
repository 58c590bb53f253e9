-- Question: Which lines are not JSON events, by class (plain text, a last line cut off, blank), in how many captures?
-- Used by: cursor_stream page: Non-JSON lines
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set); captures
--         counted by file_key, the file's id as a number)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/non_json_lines.sql"
SELECT
    CASE frame_status
        WHEN 'malformed' THEN 'plain text / not JSON'
        WHEN 'partial'   THEN 'cut off (last line, no LF)'
        WHEN 'blank'     THEN 'blank'
        ELSE frame_status
    END                              AS class,
    frame_status,
    sum(records)                     AS lines,
    count(DISTINCT file_key)         AS captures
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet')
WHERE frame_status <> 'ok'
GROUP BY ALL
ORDER BY lines DESC, class;
