-- Question: For each record class: in rollouts of which cli_version does it occur (first and last)?
-- Used by: codex page: Record classes (stratified by version)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/class_versions.sql"
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
    SELECT f.rclass, f.file_id, coalesce(fi.version, '(none)') AS v,
           list_transform(string_split(fi.version, '.'), lambda p: try_cast(p AS INTEGER)) AS vk
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    LEFT JOIN first AS fi USING (file_id)
    WHERE f.frame_status = 'ok'
)
SELECT
    rclass,
    arg_min(v, vk)             AS first_version,
    arg_max(v, vk)             AS last_version,
    count(DISTINCT v)          AS versions,
    count(*)                   AS records,
    count(DISTINCT file_id)    AS files
FROM x
GROUP BY rclass
ORDER BY records DESC, rclass;
