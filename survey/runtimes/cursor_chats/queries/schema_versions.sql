-- Question: Which schemaVersion values do meta.json files carry?
-- Used by: cursor_chats page: meta.json
-- Inputs: walk/values.parquet, inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/schema_versions.sql"
SELECT v.value AS schema_version, sum(v.count) AS files
FROM read_parquet(getvariable('snap') || '/walk/values.parquet') AS v
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'meta_json' AND v.path = '$.schemaVersion'
GROUP BY ALL
ORDER BY files DESC, schema_version;
