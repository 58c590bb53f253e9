-- Question: tool_call_ids.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: every figure is a count or a sum over blocks or value rows, which add up over parts (the
--   blocks' and the values' parts taken apart: nothing here joins them).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/tool_call_ids.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH b AS (
    SELECT file_index AS part, btype, list_contains(string_split(keyset, ','), 'toolCallId') AS has_id,
           list_contains(string_split(keyset, ','), 'isError') AS has_is_error
    FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
    WHERE carrier = '$.content' AND btype IN ('tool-call', 'tool-result')
)
SELECT
    part,
    count(*) FILTER (WHERE btype = 'tool-call')                        AS calls,
    count(*) FILTER (WHERE btype = 'tool-call' AND NOT has_id)         AS calls_without_id,
    count(*) FILTER (WHERE btype = 'tool-result')                      AS results,
    count(*) FILTER (WHERE btype = 'tool-result' AND NOT has_id)       AS results_without_id,
    count(*) FILTER (WHERE btype = 'tool-result' AND has_is_error)     AS results_with_is_error,
    0                                                                  AS is_error_true,
    0                                                                  AS is_error_false
FROM b
GROUP BY part
UNION ALL BY NAME
SELECT
    file_index AS part,
    coalesce(sum(count) FILTER (WHERE value = 'true'), 0)              AS is_error_true,
    coalesce(sum(count) FILTER (WHERE value = 'false'), 0)             AS is_error_false
FROM read_parquet(coalesce(getvariable('values_parts'), [getvariable('snap') || '/walk/values.parquet']))
WHERE path = '$.content[type=tool-result].isError'
GROUP BY part;

SELECT
    coalesce(sum(calls), 0)                  AS calls,
    coalesce(sum(calls_without_id), 0)       AS calls_without_id,
    coalesce(sum(results), 0)                AS results,
    coalesce(sum(results_without_id), 0)     AS results_without_id,
    coalesce(sum(results_with_is_error), 0)  AS results_with_is_error,
    coalesce(sum(is_error_true), 0)          AS is_error_true,
    coalesce(sum(is_error_false), 0)         AS is_error_false
FROM partials;
