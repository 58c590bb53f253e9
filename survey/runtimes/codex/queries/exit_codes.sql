-- Question: Where do exit codes live: as a number (exec_command_end.exit_code, item_completed.item.exit_code) or as text inside an output?
-- Used by: codex page: Outcomes (exit codes)
-- Inputs: walk/numbers.parquet, walk/markers.parquet, walk/frames.parquet
-- Records are joined on file_key, the file's id as a number (faster than the file_id string).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/exit_codes.sql"
WITH f AS (SELECT file_key, line_no, rclass FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') WHERE frame_status = 'ok'),
num AS (
    SELECT f.rclass, CASE n.name WHEN 'exit_code' THEN 'payload.exit_code' ELSE 'payload.item.exit_code' END AS field,
           n.file_id, n.value
    FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet') AS n JOIN f USING (file_key, line_no)
    WHERE n.name IN ('exit_code', 'item_exit_code')
), txt AS (
    SELECT f.rclass, m.file_id, m.line_no,
           bool_or(m.name IN ('exit_text', 'exit_prefix'))            AS stated,
           bool_or(m.name IN ('exit_text_zero', 'exit_prefix_zero'))  AS zero
    FROM read_parquet(getvariable('snap') || '/walk/markers.parquet') AS m JOIN f USING (file_key, line_no)
    WHERE m.name IN ('exit_text', 'exit_text_zero', 'exit_prefix', 'exit_prefix_zero')
    GROUP BY ALL
)
SELECT rclass, field, count(*) AS records, count(*) FILTER (WHERE value <> 0) AS nonzero,
       count(DISTINCT file_id) AS files
FROM num GROUP BY ALL
UNION ALL
SELECT rclass, 'payload.output (text)', count(*), count(*) FILTER (WHERE NOT zero), count(DISTINCT file_id)
FROM txt WHERE stated GROUP BY ALL
ORDER BY records DESC, rclass, field;
