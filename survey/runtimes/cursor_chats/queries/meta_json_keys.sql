-- Question: Which key sets do meta.json files have?
-- Used by: cursor_chats page: meta.json
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set)), inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/meta_json_keys.sql"
SELECT f.keyset, f.frame_status AS status, sum(f.records) AS files
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'meta_json'
GROUP BY ALL
ORDER BY files DESC, f.keyset, status;
