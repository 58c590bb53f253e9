-- Question: How many records of each class does each surface hold?
-- Used by: codex page: Record classes
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/surface_classes.sql"
SELECT
    i.surface,
    f.rclass,
    count(*)                   AS records,
    count(DISTINCT f.file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE f.frame_status = 'ok'
GROUP BY ALL
ORDER BY i.surface, records DESC, f.rclass;
