-- Question: Do the event_msg records that carry a call_id (exec_command_end, patch_apply_end, mcp_tool_call_end …) name a call of the same rollout?
-- Used by: codex page: Tool calls and outputs (events)
-- Inputs: inventory, walk/frames.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/event_joins.sql"
WITH inv AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled),
x AS (
    SELECT l.file_key, l.ref, f.rclass
    FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l SEMI JOIN inv USING (file_id)
    JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_key, line_no)   -- file_key: the file's id as a number (a join on it hashes no string)
    WHERE l.kind = 'call_id'
), calls AS (
    SELECT DISTINCT file_key, ref FROM x WHERE rclass LIKE 'response_item/%' AND rclass NOT LIKE '%_output'
)
SELECT rclass, count(*) AS records,
       count(*) FILTER (WHERE (file_key, ref) IN (SELECT (file_key, ref) FROM calls)) AS joined_call
FROM x WHERE rclass LIKE 'event_msg/%'
GROUP BY rclass
ORDER BY records DESC, rclass;
