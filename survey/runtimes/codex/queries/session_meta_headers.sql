-- Question: How many session_meta headers does a rollout hold?
-- Used by: codex page: Headers (resume repeats, a child's parent header)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/session_meta_headers.sql"
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), meta AS (
    SELECT f.file_id, f.line_no, f.cli_version,
           row_number() OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS k
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), per_file AS (
    SELECT i.file_id, count(m.file_id) AS headers FROM inv AS i LEFT JOIN meta AS m USING (file_id) GROUP BY i.file_id
)
SELECT headers, count(*) AS files
FROM per_file
GROUP BY headers
ORDER BY headers;
