-- Question: In captures where a tool call failed or was rejected, does the run still end with result/success (and with is_error true)?
-- Used by: cursor_stream page: Links between records and files (relations)
-- Inputs: walk/nodes.parquet, walk/frames.parquet, walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/links_failed_turns.sql"
WITH bad AS (   -- per capture: completed calls whose outcome (the key of …result) is failure or rejected
    SELECT file_id,
           sum(count) FILTER (WHERE list_contains(string_split(keyset, ','), 'failure'))  AS failed,
           sum(count) FILTER (WHERE list_contains(string_split(keyset, ','), 'rejected')) AS rejected
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    WHERE rclass = 'tool_call/completed' AND jtype = 'object' AND regexp_full_match(path, '\$\.tool_call\.[^.]+\.result')
    GROUP BY file_id
    HAVING coalesce(failed, 0) + coalesce(rejected, 0) > 0
), res AS (
    SELECT file_id, count(*) FILTER (WHERE rclass = 'result/success') AS success,
           count(*) FILTER (WHERE rclass = 'result' OR rclass LIKE 'result/%') AS results
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok'
    GROUP BY file_id
), err AS (
    SELECT DISTINCT file_id FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
    WHERE path = '$.is_error' AND value = 'true'
)
SELECT
    count(*)                                                       AS captures_with_failed_calls,
    coalesce(sum(b.failed), 0)::BIGINT                             AS failed_calls,
    coalesce(sum(b.rejected), 0)::BIGINT                           AS rejected_calls,
    count(*) FILTER (WHERE r.success > 0)                          AS ending_result_success,
    count(*) FILTER (WHERE coalesce(r.results, 0) = 0)             AS without_result_event,
    count(*) FILTER (WHERE e.file_id IS NOT NULL)                  AS with_is_error_true
FROM bad AS b LEFT JOIN res AS r USING (file_id) LEFT JOIN err AS e USING (file_id);
