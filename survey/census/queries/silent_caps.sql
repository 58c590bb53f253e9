-- Question: Which string paths reach the same exact maximum length in several files (a probable silent cap)?
-- Used by: every page: Payload sizes (probable caps)
-- Inputs: walk/nodes.parquet
-- Method: rows under 1000 characters are dropped before grouping (a path's maximum can be 1000
--   or more only through such rows); at 1 GB of cursor_stream captures 0.75 -> 0.1 s.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/silent_caps.sql"
WITH s AS (   -- a path's maximum is 1000 or more only if such rows exist: only those are grouped
    SELECT path, max_len, count(DISTINCT file_id) AS files_at_max
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    WHERE jtype = 'string' AND max_len >= 1000
    GROUP BY path, max_len
), top AS (   -- each path's largest length (a file reaches it exactly when one of its rows does)
    SELECT * FROM s QUALIFY max_len = max(max_len) OVER (PARTITION BY path)
)
SELECT path, max_len, files_at_max
FROM top
WHERE files_at_max >= 2
ORDER BY files_at_max DESC, path;
