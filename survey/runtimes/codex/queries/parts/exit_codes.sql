-- Question: exit_codes.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's numbers, markers and frames are all in one part, so records, nonzero and distinct files per class, field and part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/exit_codes.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH f AS (SELECT file_index AS part, file_key, line_no, rclass FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) WHERE frame_status = 'ok'),
num AS (
    SELECT f.part, f.rclass, CASE n.name WHEN 'exit_code' THEN 'payload.exit_code' ELSE 'payload.item.exit_code' END AS field,
           n.file_id, n.value
    FROM read_parquet(coalesce(getvariable('numbers_parts'), [getvariable('snap') || '/walk/numbers.parquet'])) AS n
    JOIN f USING (file_key, line_no)
    WHERE n.name IN ('exit_code', 'item_exit_code')
), txt AS (
    SELECT f.part, f.rclass, m.file_id, m.line_no,
           bool_or(m.name IN ('exit_text', 'exit_prefix'))            AS stated,
           bool_or(m.name IN ('exit_text_zero', 'exit_prefix_zero'))  AS zero
    FROM read_parquet(coalesce(getvariable('markers_parts'), [getvariable('snap') || '/walk/markers.parquet'])) AS m
    JOIN f USING (file_key, line_no)
    WHERE m.name IN ('exit_text', 'exit_text_zero', 'exit_prefix', 'exit_prefix_zero')
    GROUP BY ALL
)
SELECT part, rclass, field, count(*) AS records, count(*) FILTER (WHERE value <> 0) AS nonzero,
       count(DISTINCT file_id) AS files
FROM num GROUP BY ALL
UNION ALL
SELECT part, rclass, 'payload.output (text)', count(*), count(*) FILTER (WHERE NOT zero), count(DISTINCT file_id)
FROM txt WHERE stated GROUP BY ALL;

SELECT rclass, field, sum(records) AS records, sum(nonzero) AS nonzero, sum(files) AS files
FROM partials
GROUP BY rclass, field
ORDER BY records DESC, rclass, field;
