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
), first AS (
    SELECT file_id, cli_version AS version FROM meta WHERE k = 1
), per_file AS (   -- records per class and file, then the file's version once per file
    SELECT f.rclass, f.file_id, count(*) AS records
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok'
    GROUP BY f.rclass, f.file_id
), x AS (
    SELECT pf.rclass, pf.records, coalesce(fi.version, '(none)') AS v,
           list_transform(string_split(fi.version, '.'), lambda p: try_cast(p AS INTEGER)) AS vk
    FROM per_file AS pf LEFT JOIN first AS fi USING (file_id)
)
SELECT
    rclass,
    arg_min(v, vk)             AS first_version,
    arg_max(v, vk)             AS last_version,
    count(DISTINCT v)          AS versions,
    sum(records)               AS records,
    count(*)                   AS files
FROM x
GROUP BY rclass
ORDER BY records DESC, rclass;
