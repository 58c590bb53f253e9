-- Question: Which outcomes do completed tool calls carry (the key of …result beside isBackground), per variant?
-- Used by: cursor_stream page: Tool calls (outcomes)
-- Inputs: walk/node_counts.parquet (walk/nodes.parquet rolled up per part: only occurrences are summed here)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/result_outcomes.sql"
WITH r AS (   -- summed per (path, key set) first: the string work below runs once per distinct pair
    SELECT path, keyset, sum(occurrences) AS n
    FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
    WHERE rclass = 'tool_call/completed' AND jtype = 'object'
    GROUP BY path, keyset
)
SELECT
    split_part(path, '.', 3)                                                                 AS variant,
    array_to_string(list_filter(string_split(keyset, ','), lambda k: k <> 'isBackground'), ',')   AS outcome,
    list_contains(string_split(keyset, ','), 'isBackground')                                 AS has_is_background,
    sum(n)                                                                                   AS events
FROM r
WHERE regexp_full_match(path, '\$\.tool_call\.[^.]+\.result')
GROUP BY ALL
ORDER BY variant, events DESC, outcome, has_is_background;
