-- Question: Which record classes carry a top-level timestamp?
-- Used by: codex page: Metadata (timestamps)
-- Inputs: walk/frames.parquet, walk/node_counts.parquet (walk/nodes.parquet rolled up per part)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/timestamps.sql"
WITH recs AS (
    SELECT rclass, count(*) AS records FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') WHERE frame_status = 'ok' GROUP BY rclass
), ts AS (
    SELECT rclass, sum(occurrences) AS with_timestamp FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet') WHERE path = '$.timestamp' GROUP BY rclass
)
SELECT rclass, records, coalesce(with_timestamp, 0) AS with_timestamp
FROM recs LEFT JOIN ts USING (rclass)
ORDER BY records DESC, rclass;
