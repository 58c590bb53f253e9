-- Question: Which frame fields hold one single value for a record class across all its files (a constant, not evidence)?
-- Used by: codex page: Constant fields
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/class_constants.sql"
WITH u AS (
    UNPIVOT (SELECT file_id, rclass, status, phase, role FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') WHERE frame_status = 'ok')
    ON status, phase, role INTO NAME field VALUE value
)
SELECT rclass, field, any_value(value) AS value, count(*) AS records, count(DISTINCT file_id) AS files
FROM u
GROUP BY rclass, field
HAVING count(DISTINCT value) = 1 AND count(DISTINCT file_id) >= 2 AND any_value(value) NOT LIKE '<%'
ORDER BY files DESC, rclass, field;
