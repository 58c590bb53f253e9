-- Question: How many session_meta headers carry `cli_version`, in how many rollouts, and how many rollouts hold
--           headers of more than one version (each rollout counted once)?
-- Used by: codex page: Observation basis (client version claim)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/header_versions.sql"
WITH inv AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), h AS (
    SELECT f.file_id, f.cli_version
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), per_file AS (
    SELECT file_id, count(*) AS headers, count(cli_version) AS with_version, count(DISTINCT cli_version) AS versions
    FROM h GROUP BY file_id
)
SELECT
    coalesce(sum(headers), 0)                     AS headers,
    coalesce(sum(with_version), 0)                AS headers_with_version,
    count(*)                                      AS files_with_header,
    count(*) FILTER (WHERE with_version > 0)      AS files_with_version,
    count(*) FILTER (WHERE versions > 1)          AS files_mixing_versions
FROM per_file;
