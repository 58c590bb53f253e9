-- Question: Which type values do bubbles carry (1 user, 2 assistant)?
-- Used by: cursor_desktop page: Bubbles
-- Inputs: walk/values.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/bubble_types.sql"
-- $.type holds numbers only on bubbles (composerHeaders values carry the string "head").
SELECT value AS type, sum(count) AS bubbles
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
WHERE path = '$.type' AND value <> 'head'
GROUP BY value
ORDER BY type;
