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
), first AS (   -- the file's first header (its version; the ids are not needed here)
    SELECT file_id, cli_version AS version FROM meta WHERE k = 1
), per_file AS (   -- records per class and file (one version per file)
    SELECT f.rclass, f.file_id, count(*) AS n
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok'
    GROUP BY f.rclass, f.file_id
)
SELECT version, rclass, records, files
FROM (
    SELECT coalesce(fi.version, '(none)') AS version, pf.rclass,
           sum(pf.n) AS records, count(*) AS files
    FROM per_file AS pf LEFT JOIN first AS fi USING (file_id)
    GROUP BY ALL
)
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version, records DESC, rclass;
