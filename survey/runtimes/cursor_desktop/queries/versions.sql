-- Question: Which _v values do the documents of each key kind carry (composerData, bubbles, …)?
-- Used by: cursor_desktop page: Versions
-- Inputs: walk/numbers.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/versions.sql"
SELECT
    f.rclass                                                        AS kind,
    CASE WHEN n.value = round(n.value) THEN CAST(CAST(n.value AS BIGINT) AS VARCHAR)
         ELSE CAST(n.value AS VARCHAR) END                          AS v,
    count(*)                                                        AS records
FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet') AS n
JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_key, line_no)   -- file_key: the file's id as a number (a join on it hashes no string)
WHERE n.name = 'v'
GROUP BY ALL
ORDER BY kind, records DESC, v;
