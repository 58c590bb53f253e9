-- Question: Which string paths reach the same exact maximum length in several files (a probable silent cap)?
-- Used by: every page: Payload sizes (probable caps)
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/silent_caps.sql"
WITH per_file AS (
    SELECT path, file_id, max(max_len) AS file_max
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    WHERE jtype = 'string'
    GROUP BY path, file_id
), top AS (
    SELECT path, max(file_max) AS max_len FROM per_file GROUP BY path
)
SELECT t.path, t.max_len, count(*) AS files_at_max
FROM top AS t JOIN per_file AS p ON p.path = t.path AND p.file_max = t.max_len
WHERE t.max_len >= 1000
GROUP BY t.path, t.max_len
HAVING count(*) >= 2
ORDER BY files_at_max DESC, t.path;
