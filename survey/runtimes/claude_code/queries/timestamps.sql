-- Question: Which record classes of the JSONL files carry a top-level timestamp?
-- Used by: claude_code page: Metadata (timestamps)
-- Inputs: inventory, walk/frames.parquet, walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/timestamps.sql"
WITH jsonl AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE kind = 'jsonl'
), recs AS (
    SELECT rclass, count(*) AS records FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    SEMI JOIN jsonl USING (file_id)
    WHERE frame_status = 'ok' GROUP BY rclass
), ts AS (
    SELECT rclass, sum(count) AS with_timestamp FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    SEMI JOIN jsonl USING (file_id)
    WHERE path = '$.timestamp' GROUP BY rclass
)
SELECT rclass, records, coalesce(with_timestamp, 0) AS with_timestamp
FROM recs LEFT JOIN ts USING (rclass)
ORDER BY records DESC, rclass;
