-- Question: How many tool_use blocks share one frame (parallel calls)?
-- Used by: cursor page: Tool calls (parallel calls)
-- Inputs: walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parallel_calls.sql"
WITH per_frame AS (
    SELECT file_key, line_no, count(*) AS calls
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE btype = 'tool_use'
    GROUP BY file_key, line_no
)
SELECT
    coalesce(max(calls), 0)                    AS max_calls_in_frame,
    count(*) FILTER (WHERE calls > 1)          AS frames_with_parallel_calls,
    count(*) FILTER (WHERE calls > 3)          AS frames_over_3,
    count(*)                                   AS frames_with_calls
FROM per_frame;
