-- Question: Which client versions do parsed records carry (any surface), in how many records and files; of those
--           files, how many also hold another version?
-- Used by: claude_code page: Observation basis (version strata)
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/versions.sql"
WITH t AS (
    SELECT f.file_id, f.version
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok'
), per_file AS (
    SELECT file_id, count(DISTINCT version) AS n FROM t WHERE version IS NOT NULL GROUP BY file_id
)
SELECT
    t.version,
    count(*)                                                            AS records,
    count(DISTINCT t.file_id)                                           AS files,
    count(DISTINCT t.file_id) FILTER (WHERE p.n > 1)                    AS files_mixing_versions
FROM t LEFT JOIN per_file AS p USING (file_id)
WHERE t.version IS NOT NULL
GROUP BY t.version
ORDER BY list_transform(string_split(any_value(t.version), '.'), lambda x: try_cast(x AS INTEGER)), t.version;
