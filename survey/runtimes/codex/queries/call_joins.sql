-- Question: Do calls and their outputs join by call_id within a rollout (unpaired both ways), per call class?
-- Used by: codex page: Tool calls and outputs
-- Inputs: inventory, walk/frames.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/call_joins.sql"
WITH inv AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled),
x AS (
    SELECT l.file_key, l.ref, f.rclass
    FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l SEMI JOIN inv USING (file_id)
    JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_key, line_no)   -- file_key: the file's id as a number (a join on it hashes no string)
    WHERE l.kind = 'call_id'
), calls AS (
    SELECT DISTINCT file_key, ref, rclass FROM x
    WHERE rclass IN ('response_item/function_call', 'response_item/custom_tool_call', 'response_item/tool_search_call',
                     'response_item/local_shell_call')
), outs AS (
    SELECT file_key, ref, rclass FROM x
    WHERE rclass IN ('response_item/function_call_output', 'response_item/custom_tool_call_output',
                     'response_item/tool_search_output')
), outs_d AS (SELECT DISTINCT file_key, ref FROM outs)
SELECT 'call' AS side, rclass, count(*) AS records,
       count(*) FILTER (WHERE (file_key, ref) IN (SELECT (file_key, ref) FROM outs_d)) AS joined,
       count(*) FILTER (WHERE (file_key, ref) NOT IN (SELECT (file_key, ref) FROM outs_d)) AS unpaired
FROM calls GROUP BY rclass
UNION ALL
SELECT 'output', rclass, count(*),
       count(*) FILTER (WHERE (file_key, ref) IN (SELECT (file_key, ref) FROM calls)),
       count(*) FILTER (WHERE (file_key, ref) NOT IN (SELECT (file_key, ref) FROM calls))
FROM (SELECT o.file_key, o.ref, o.rclass FROM outs AS o) GROUP BY rclass
ORDER BY side, records DESC, rclass;
