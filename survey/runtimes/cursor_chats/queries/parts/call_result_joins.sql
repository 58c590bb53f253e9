-- Question: call_result_joins.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a call and its result are joined within their store, whose links are all in one part: per
--   (store, id) the calls and results counted, so every figure per part adds up (a NULL id joins nothing).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/call_result_joins.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH ids AS (   -- per store and id: its calls and its results
    SELECT file_index AS part, file_key, ref,
           count(*) FILTER (WHERE kind = 'call_id')         AS calls,
           count(*) FILTER (WHERE kind = 'result_call_id')  AS results
    FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet']))
    WHERE kind IN ('call_id', 'result_call_id')
    GROUP BY ALL
)
SELECT
    part,
    sum(calls)                                                                   AS calls_with_id,
    sum(results)                                                                 AS results_with_id,
    sum(results) FILTER (WHERE calls > 0 AND ref IS NOT NULL)                    AS results_joined,
    sum(results) FILTER (WHERE calls = 0 OR ref IS NULL)                         AS results_without_call,
    count(*) FILTER (WHERE calls > 0 AND (results = 0 OR ref IS NULL))           AS calls_without_result
FROM ids
GROUP BY part;

SELECT
    coalesce(sum(calls_with_id), 0)         AS calls_with_id,
    coalesce(sum(results_with_id), 0)       AS results_with_id,
    coalesce(sum(results_joined), 0)        AS results_joined,
    coalesce(sum(results_without_call), 0)  AS results_without_call,
    coalesce(sum(calls_without_result), 0)  AS calls_without_result
FROM partials;
