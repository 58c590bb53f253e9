-- Question: Which top-level key sets does each record class of the JSONL files have (metas excluded)?
-- Used by: claude_code page: Record classes (key sets); round-trip checks
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/jsonl_classes.sql"
SELECT
    f.rclass,
    f.keyset,
    count(*)                   AS records,
    count(DISTINCT f.file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
GROUP BY ALL
ORDER BY f.rclass, records DESC, f.keyset;
