-- Question: How many tool-call and tool-result parts carry a toolCallId, and how many results carry isError (true / false)?
-- Used by: cursor_chats page: Tool calls and results
-- Inputs: walk/blocks.parquet, walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/tool_call_ids.sql"
WITH b AS (
    SELECT btype, list_contains(string_split(keyset, ','), 'toolCallId') AS has_id,
           list_contains(string_split(keyset, ','), 'isError') AS has_is_error
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE carrier = '$.content' AND btype IN ('tool-call', 'tool-result')
), ie AS (
    SELECT
        coalesce(sum(count) FILTER (WHERE value = 'true'), 0)  AS is_error_true,
        coalesce(sum(count) FILTER (WHERE value = 'false'), 0) AS is_error_false
    FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
    WHERE path = '$.content[type=tool-result].isError'
)
SELECT
    count(*) FILTER (WHERE btype = 'tool-call')                        AS calls,
    count(*) FILTER (WHERE btype = 'tool-call' AND NOT has_id)         AS calls_without_id,
    count(*) FILTER (WHERE btype = 'tool-result')                      AS results,
    count(*) FILTER (WHERE btype = 'tool-result' AND NOT has_id)       AS results_without_id,
    count(*) FILTER (WHERE btype = 'tool-result' AND has_is_error)     AS results_with_is_error,
    any_value(ie.is_error_true)                                        AS is_error_true,
    any_value(ie.is_error_false)                                       AS is_error_false
FROM b, ie;
