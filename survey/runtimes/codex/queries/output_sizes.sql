-- Question: How large are output records (bytes of the whole record, JSON-escaped), per tool of the call they answer: p50 / p90 / p99 / max?
-- Used by: codex page: Payload sizes
-- Inputs: inventory, walk/frames.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/output_sizes.sql"
WITH inv AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled),
f AS (SELECT f.* FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id) WHERE f.frame_status = 'ok'),
l AS (SELECT * FROM read_parquet(getvariable('snap') || '/walk/links.parquet') WHERE kind = 'call_id'),
calls AS (
    SELECT l.file_key, l.ref,
           any_value(CASE WHEN f.namespace IS NOT NULL THEN '(MCP) ' || coalesce(f.name, '?') ELSE coalesce(f.name, f.ptype) END) AS tool
    FROM l JOIN f USING (file_key, line_no)   -- file_key: the file's id as a number (a join on it hashes no string)
    WHERE f.rclass IN ('response_item/function_call', 'response_item/custom_tool_call', 'response_item/tool_search_call')
    GROUP BY ALL
), outs AS (
    SELECT f.nbytes, coalesce(c.tool, '(no call in this file)') AS tool
    FROM f JOIN l USING (file_key, line_no)
    LEFT JOIN calls AS c ON c.file_key = l.file_key AND c.ref = l.ref
    WHERE f.rclass IN ('response_item/function_call_output', 'response_item/custom_tool_call_output',
                       'response_item/tool_search_output')
), x AS (SELECT * FROM outs UNION ALL SELECT nbytes, '(all tools)' FROM outs)
SELECT tool, count(*) AS outputs,
       quantile_disc(nbytes, 0.5) AS p50, quantile_disc(nbytes, 0.9) AS p90,
       quantile_disc(nbytes, 0.99) AS p99, max(nbytes) AS max
FROM x
GROUP BY tool
ORDER BY tool = '(all tools)' DESC, outputs DESC, tool;
