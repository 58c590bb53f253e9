-- Question: non_json_lines.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frame counts are all in one part, so its captures per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/non_json_lines.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, frame_status, sum(records) AS lines, count(DISTINCT file_key) AS captures
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet']))
WHERE frame_status <> 'ok'
GROUP BY ALL;

SELECT
    CASE frame_status
        WHEN 'malformed' THEN 'plain text / not JSON'
        WHEN 'partial'   THEN 'cut off (last line, no LF)'
        WHEN 'blank'     THEN 'blank'
        ELSE frame_status
    END                              AS class,
    frame_status,
    sum(lines)                       AS lines,
    sum(captures)                    AS captures
FROM partials
GROUP BY ALL
ORDER BY lines DESC, class;
