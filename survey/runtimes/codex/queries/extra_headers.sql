-- Question: What are the second and later session_meta headers: the same id again (a resume), the parent's header in a child, or other?
-- Used by: codex page: Headers (resume repeats, a child's parent header)
-- Inputs: inventory, walk/frames.parquet, walk/links.parquet
-- Made in part from survey/runtimes/codex/queries/fragments/headers.sql (its CTEs meta to first: python -m survey.census.fragments writes them; a test holds them equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/extra_headers.sql"
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), meta AS (
    SELECT f.file_id, f.line_no, f.cli_version,
           row_number() OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS k
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), meta_ids AS (   -- each header's payload.id and session_id (one scan of the links, joined to the headers)
    SELECT m.file_id, m.line_no, m.cli_version, m.k,
           any_value(l.ref) FILTER (WHERE l.kind = 'payload_id')  AS id,
           any_value(l.ref) FILTER (WHERE l.kind = 'session_id')  AS sid
    FROM meta AS m
    LEFT JOIN read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
      ON l.file_id = m.file_id AND l.line_no = m.line_no AND l.kind IN ('payload_id', 'session_id')
    GROUP BY m.file_id, m.line_no, m.cli_version, m.k
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
