-- Question: How many records of each class per cli_version (of the file's first header)?
-- Used by: codex page: Record classes (stratified by version); snapshot only
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/classes_by_version.sql"
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
)
SELECT version, rclass, records, files
FROM (
    SELECT coalesce(fi.version, '(none)') AS version, f.rclass,
           count(*) AS records, count(DISTINCT f.file_id) AS files
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    LEFT JOIN first AS fi USING (file_id)
    WHERE f.frame_status = 'ok'
    GROUP BY ALL
)
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version, records DESC, rclass;
