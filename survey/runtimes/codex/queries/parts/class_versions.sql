-- Question: class_versions.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its version (its first header's) is known there; records and files per class, version and part add up, and first/last/distinct versions are taken over the merged (class, version) rows.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/class_versions.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), f AS (
    SELECT f.file_index AS part, f.file_id, f.line_no, f.rclass, f.cli_version
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok'
), meta AS (
    SELECT file_id, cli_version, row_number() OVER (PARTITION BY file_id ORDER BY line_no) AS k
    FROM f WHERE rclass = 'session_meta'
), first AS (
    SELECT file_id, cli_version AS version FROM meta WHERE k = 1
), per_file AS (   -- records per class and file (one version per file)
    SELECT part, rclass, file_id, count(*) AS n FROM f GROUP BY part, rclass, file_id
)
SELECT pf.part, pf.rclass, fi.version, sum(pf.n) AS records, count(*) AS files
FROM per_file AS pf LEFT JOIN first AS fi USING (file_id)
GROUP BY ALL;

WITH x AS (
    SELECT rclass, records, files, coalesce(version, '(none)') AS v,
           list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)) AS vk
    FROM partials
)
SELECT
    rclass,
    arg_min(v, vk)             AS first_version,
    arg_max(v, vk)             AS last_version,
    count(DISTINCT v)          AS versions,
    sum(records)               AS records,
    sum(files)                 AS files
FROM x
GROUP BY rclass
ORDER BY records DESC, rclass;
