-- Question: Which kinds of blob rows do the stores hold (JSON message by role, protobuf, other binary, broken JSON), in how many rows and bytes?
-- Used by: cursor_chats page: Blobs (JSON vs non-JSON)
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set)), inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/blob_classes.sql"
SELECT
    f.rclass,
    f.frame_status                                   AS status,
    f.frame_status = 'ok'                            AS json,
    sum(f.records)                                   AS blobs,
    sum(f.bytes)                                     AS bytes,
    count(DISTINCT f.file_id)                        AS stores
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'store' AND f.rclass <> 'meta:0'
GROUP BY ALL
ORDER BY blobs DESC, f.rclass, status;
