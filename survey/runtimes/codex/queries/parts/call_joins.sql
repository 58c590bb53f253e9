-- Question: call_joins.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's links and frames are all in one part, and calls join outputs only within a file (file_key), so each part's counts per side and class add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/call_joins.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH inv AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled),
x AS (
    SELECT l.file_index AS part, l.file_key, l.ref, f.rclass
    FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l SEMI JOIN inv USING (file_id)
    JOIN read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
      USING (file_key, line_no)   -- a file's rows are in one part: its number is the links' (never joined on)
    WHERE l.kind = 'call_id'
), calls AS (
    SELECT DISTINCT part, file_key, ref, rclass FROM x
    WHERE rclass IN ('response_item/function_call', 'response_item/custom_tool_call', 'response_item/tool_search_call',
                     'response_item/local_shell_call')
), outs AS (
    SELECT part, file_key, ref, rclass FROM x
    WHERE rclass IN ('response_item/function_call_output', 'response_item/custom_tool_call_output',
                     'response_item/tool_search_output')
), outs_d AS (SELECT DISTINCT file_key, ref FROM outs)
SELECT part, 'call' AS side, rclass, count(*) AS records,
       count(*) FILTER (WHERE (file_key, ref) IN (SELECT (file_key, ref) FROM outs_d)) AS joined,
       count(*) FILTER (WHERE (file_key, ref) NOT IN (SELECT (file_key, ref) FROM outs_d)) AS unpaired
FROM calls GROUP BY part, rclass
UNION ALL
SELECT part, 'output', rclass, count(*),
       count(*) FILTER (WHERE (file_key, ref) IN (SELECT (file_key, ref) FROM calls)),
       count(*) FILTER (WHERE (file_key, ref) NOT IN (SELECT (file_key, ref) FROM calls))
FROM outs GROUP BY part, rclass;

SELECT side, rclass, sum(records) AS records, sum(joined) AS joined, sum(unpaired) AS unpaired
FROM partials
GROUP BY side, rclass
ORDER BY side, records DESC, rclass;
