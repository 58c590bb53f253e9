-- Question: What are the second and later session_meta headers: the same id again (a resume), the parent's header in a child, or other?
-- Used by: codex page: Headers (resume repeats, a child's parent header)
-- Inputs: inventory, walk/frames.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/extra_headers.sql"
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), meta AS (
    SELECT f.file_id, f.line_no, f.cli_version,
           row_number() OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS k
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), meta_ids AS (
    SELECT m.*,
           (SELECT any_value(ref) FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
             WHERE l.file_id = m.file_id AND l.line_no = m.line_no AND l.kind = 'payload_id')  AS id,
           (SELECT any_value(ref) FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
             WHERE l.file_id = m.file_id AND l.line_no = m.line_no AND l.kind = 'session_id')  AS sid
    FROM meta AS m
), first AS (
    SELECT file_id, id AS first_id, sid AS first_sid, cli_version AS version FROM meta_ids WHERE k = 1
), x AS (
    SELECT m.file_id,
           CASE WHEN m.id = fi.first_id THEN 'same id as the first header (resume)'
                WHEN fi.first_sid IS NOT NULL AND fi.first_sid <> fi.first_id AND m.id = fi.first_sid
                     THEN 'the parent''s header (child rollout)'
                ELSE 'another id' END AS kind
    FROM meta_ids AS m JOIN first AS fi USING (file_id)
    WHERE m.k > 1
)
SELECT kind, count(*) AS headers, count(DISTINCT file_id) AS files
FROM x
GROUP BY kind
ORDER BY headers DESC, kind;
