-- Question: silent_caps.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's nodes are all in one part, so its files per part and (path, length) add up to the query's.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/silent_caps.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, path, max_len, count(DISTINCT file_id) AS files_at_max
FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet']))
WHERE jtype = 'string' AND max_len >= 1000
GROUP BY ALL;

WITH s AS (
    SELECT path, max_len, sum(files_at_max) AS files_at_max FROM partials GROUP BY path, max_len
), top AS (   -- each path's largest length (a file reaches it exactly when one of its rows does)
    SELECT * FROM s QUALIFY max_len = max(max_len) OVER (PARTITION BY path)
)
SELECT path, max_len, files_at_max
FROM top
WHERE files_at_max >= 2
ORDER BY files_at_max DESC, path;
