-- Question: Which isSidechain values do records carry, by surface?
-- Used by: claude_code page: Subagents
-- Inputs: inventory, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/sidechain.sql"
SELECT
    i.surface,
    coalesce(f.is_sidechain, '(absent)')  AS is_sidechain,
    count(*)                              AS records,
    count(DISTINCT f.file_id)             AS files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
GROUP BY ALL
ORDER BY i.surface, is_sidechain;
