-- Question: classes_by_version.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its version (its first header's) is known there, and its records and files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/classes_by_version.sql"
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
), first AS (   -- the file's first header (its version; the ids are not needed here)
    SELECT file_id, cli_version AS version FROM meta WHERE k = 1
), per_file AS (   -- records per class and file (one version per file)
    SELECT part, rclass, file_id, count(*) AS n FROM f GROUP BY part, rclass, file_id
)
SELECT pf.part, coalesce(fi.version, '(none)') AS version, pf.rclass, sum(pf.n) AS records, count(*) AS files
FROM per_file AS pf LEFT JOIN first AS fi USING (file_id)
GROUP BY ALL;

SELECT version, rclass, sum(records) AS records, sum(files) AS files
FROM partials
GROUP BY version, rclass
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version, records DESC, rclass;
