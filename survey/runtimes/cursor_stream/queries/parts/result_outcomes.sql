-- Question: result_outcomes.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: occurrences per (path, key set) and part, summed.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/result_outcomes.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, path, keyset, sum(occurrences) AS n
FROM read_parquet(coalesce(getvariable('node_counts_parts'), [getvariable('snap') || '/walk/node_counts.parquet']))
WHERE rclass = 'tool_call/completed' AND jtype = 'object'
GROUP BY ALL;

WITH r AS (   -- summed per (path, key set) first: the string work below runs once per distinct pair
    SELECT path, keyset, sum(n) AS n FROM partials GROUP BY path, keyset
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
