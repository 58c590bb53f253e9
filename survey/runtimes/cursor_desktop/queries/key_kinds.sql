-- Question: How many cursorDiskKV cells (and composerHeaders rows) of each kind, by read status, and how large?
-- Used by: cursor_desktop page: Key kinds
-- Inputs: walk/frames.parquet, inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/key_kinds.sql"
SELECT
    f.rclass                     AS kind,
    f.frame_status               AS status,
    count(*)                     AS cells,
    sum(f.nbytes)                AS bytes,
    max(f.nbytes)                AS max_bytes
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'state'
GROUP BY ALL
ORDER BY cells DESC, kind, status;
