-- Question: parallel_calls.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a frame's blocks are all in one part, so frames are counted per part and summed, and the largest is the largest of the parts'.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/parallel_calls.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH per_frame AS (
    SELECT file_index AS part, file_key, line_no, count(*) AS calls
    FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
    WHERE btype = 'tool_use'
    GROUP BY ALL
)
SELECT
    part,
    max(calls)                                 AS max_calls_in_frame,
    count(*) FILTER (WHERE calls > 1)          AS frames_with_parallel_calls,
    count(*) FILTER (WHERE calls > 3)          AS frames_over_3,
    count(*)                                   AS frames_with_calls
FROM per_frame
GROUP BY part;

SELECT
    coalesce(max(max_calls_in_frame), 0)                   AS max_calls_in_frame,
    coalesce(sum(frames_with_parallel_calls), 0)::BIGINT   AS frames_with_parallel_calls,
    coalesce(sum(frames_over_3), 0)::BIGINT                AS frames_over_3,
    coalesce(sum(frames_with_calls), 0)::BIGINT            AS frames_with_calls
FROM partials;
