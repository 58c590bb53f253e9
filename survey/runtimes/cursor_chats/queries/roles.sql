-- Question: Which roles do the JSON message blobs carry (unknown roles and role-less JSON as placeholders)?
-- Used by: cursor_chats page: Messages (roles)
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set)), inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/roles.sql"
SELECT f.rclass AS role, sum(f.records) AS blobs, count(DISTINCT f.file_id) AS stores
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'store' AND f.frame_status = 'ok' AND f.rclass <> 'meta:0'
GROUP BY f.rclass
ORDER BY blobs DESC, role;
