-- Question: Which string paths reach the same exact maximum length in several files (a probable silent cap)?
-- Used by: every page: Payload sizes (probable caps)
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/silent_caps.sql"
WITH s AS (
    SELECT path, file_id, max_len
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    WHERE jtype = 'string'
), top AS (
    SELECT path, max(max_len) AS max_len FROM s GROUP BY path HAVING max(max_len) >= 1000
)
-- a file reaches the path's maximum exactly when one of its rows does
SELECT t.path, t.max_len, count(DISTINCT s.file_id) AS files_at_max
FROM top AS t JOIN s ON s.path = t.path AND s.max_len = t.max_len
GROUP BY t.path, t.max_len
HAVING count(DISTINCT s.file_id) >= 2
ORDER BY files_at_max DESC, t.path;
