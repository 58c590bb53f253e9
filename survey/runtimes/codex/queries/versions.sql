-- Question: Which cli_version does each rollout's first session_meta carry (the file's version stratum)?
-- Used by: codex page: Observation basis (version strata)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/versions.sql"
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), meta AS (
    SELECT f.file_id, f.line_no, f.cli_version,
           row_number() OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS k
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), first AS (   -- the file's first header (its version; the ids are not needed here)
    SELECT file_id, coalesce(cli_version, '(no cli_version)') AS version FROM meta WHERE k = 1
), ok AS (   -- records per file
    SELECT file_id, count(line_no) AS n
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') WHERE frame_status = 'ok'
    GROUP BY file_id
)
SELECT version, files, records
FROM (
    SELECT v.version, count(DISTINCT v.file_id) AS files, coalesce(sum(ok.n), 0) AS records
    FROM (SELECT i.file_id, coalesce(fi.version, '(no session_meta)') AS version
          FROM inv AS i LEFT JOIN first AS fi USING (file_id)) AS v
    LEFT JOIN ok USING (file_id)
    GROUP BY v.version
)
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version;
