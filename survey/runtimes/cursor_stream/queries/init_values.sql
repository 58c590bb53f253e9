-- Question: Which values do system/init events carry (model, apiKeySource, permissionMode) and result events (is_error)?
-- Used by: cursor_stream page: Session start and result
-- Inputs: walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/init_values.sql"
SELECT path, value, sum(count) AS events, count(DISTINCT withheld_id) AS distinct_withheld
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
WHERE path IN ('$.model', '$.apiKeySource', '$.permissionMode', '$.is_error')
GROUP BY ALL
ORDER BY path, events DESC, value;
