-- Question: How many call and output records carry a `call_id` (a call id link), per record class?
-- Used by: codex page: Tool calls (native call id)
-- Inputs: walk/frames.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/call_ids.sql"
WITH f AS (
    SELECT file_key, line_no, rclass FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok'
      AND rclass IN ('response_item/function_call', 'response_item/custom_tool_call', 'response_item/tool_search_call',
                     'response_item/local_shell_call', 'response_item/function_call_output',
                     'response_item/custom_tool_call_output', 'response_item/tool_search_output')
), l AS (
    SELECT DISTINCT file_key, line_no FROM read_parquet(getvariable('snap') || '/walk/links.parquet') WHERE kind = 'call_id'
)
SELECT
    CASE WHEN f.rclass LIKE '%output' THEN 'output' ELSE 'call' END  AS side,
    f.rclass,
    count(*)                                                          AS records,
    count(l.line_no)                                                  AS with_call_id
FROM f LEFT JOIN l USING (file_key, line_no)
GROUP BY ALL
ORDER BY side, records DESC, f.rclass;
