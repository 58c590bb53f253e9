-- Question: timestamps.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: records per class and part (frames), and timestamps per class and part (node_counts), each summed.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/timestamps.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, 'frames' AS src, rclass, count(*) AS n
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
WHERE frame_status = 'ok'
GROUP BY ALL
UNION ALL
SELECT file_index, 'node_counts', rclass, sum(occurrences)
FROM read_parquet(coalesce(getvariable('node_counts_parts'), [getvariable('snap') || '/walk/node_counts.parquet']))
WHERE path = '$.timestamp'
GROUP BY ALL;

WITH recs AS (
    SELECT rclass, sum(n) AS records FROM partials WHERE src = 'frames' GROUP BY rclass
), ts AS (
    SELECT rclass, sum(n) AS with_timestamp FROM partials WHERE src = 'node_counts' GROUP BY rclass
)
SELECT rclass, records, coalesce(with_timestamp, 0) AS with_timestamp
FROM recs LEFT JOIN ts USING (rclass)
ORDER BY records DESC, rclass;
