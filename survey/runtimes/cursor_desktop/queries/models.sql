-- Question: Which model names occur on bubbles (modelInfo.modelName) and composers (modelConfig.modelName)?
-- Used by: cursor_desktop page: Models
-- Inputs: walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/models.sql"
SELECT path, value, sum(count) AS occurrences, count(DISTINCT withheld_id) AS distinct_withheld
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
WHERE path IN ('$.modelInfo.modelName', '$.modelConfig.modelName')
GROUP BY ALL
ORDER BY path, occurrences DESC, value;
