-- Question: event_joins.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's links and frames are all in one part, and an event names a call only within its file (file_key), so each part's counts per class add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/event_joins.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH inv AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled),
x AS (
    SELECT l.file_index AS part, l.file_key, l.ref, f.rclass
    FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l SEMI JOIN inv USING (file_id)
    JOIN read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
      USING (file_key, line_no)   -- a file's rows are in one part: its number is the links' (never joined on)
    WHERE l.kind = 'call_id'
), calls AS (
    SELECT DISTINCT file_key, ref FROM x WHERE rclass LIKE 'response_item/%' AND rclass NOT LIKE '%_output'
)
SELECT part, rclass, count(*) AS records,
       count(*) FILTER (WHERE (file_key, ref) IN (SELECT (file_key, ref) FROM calls)) AS joined_call
FROM x WHERE rclass LIKE 'event_msg/%'
GROUP BY part, rclass;

SELECT rclass, sum(records) AS records, sum(joined_call) AS joined_call
FROM partials
GROUP BY rclass
ORDER BY records DESC, rclass;
