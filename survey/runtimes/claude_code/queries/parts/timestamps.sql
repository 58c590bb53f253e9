-- Question: timestamps.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: records per class and part (frames), and timestamps per class and part (nodes), each summed.
-- Chunk: 32 MB (first censuses of 5 GB of Claude Code: 0.48 -> 0.35 s against runs of 8 MB; census/partials.py)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/timestamps.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH jsonl AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE kind = 'jsonl'
)
SELECT file_index AS part, 'frames' AS src, rclass, count(*) AS n
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
SEMI JOIN jsonl USING (file_id)
WHERE frame_status = 'ok'
GROUP BY ALL
UNION ALL
SELECT file_index, 'nodes', rclass, sum(count)
FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet']))
SEMI JOIN jsonl USING (file_id)
WHERE path = '$.timestamp'
GROUP BY ALL;

WITH recs AS (
    SELECT rclass, sum(n) AS records FROM partials WHERE src = 'frames' GROUP BY rclass
), ts AS (
    SELECT rclass, sum(n) AS with_timestamp FROM partials WHERE src = 'nodes' GROUP BY rclass
)
SELECT rclass, records, coalesce(with_timestamp, 0) AS with_timestamp
FROM recs LEFT JOIN ts USING (rclass)
ORDER BY records DESC, rclass;
