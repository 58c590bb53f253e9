-- Question: Each key set of the union (of every table's key set columns) with its keys seen on fewer than
--           {min_machines} machines made '<rare-key>', its keys sorted again (a key set holding none as it was)?
-- Used by: survey merge's publication threshold (the key sets' keys; shapes.sql then counts them whole)
-- Inputs: keysets (machine, s: every key set column of every table), key_machines (keys.sql)
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark
WITH rare AS (
    SELECT coalesce(list(k), []) AS r FROM key_machines WHERE machines < {min_machines}
),
sets AS (
    SELECT DISTINCT s FROM keysets WHERE s IS NOT NULL
)
SELECT
    s AS old,
    CASE WHEN array_length(list_filter(string_split(s, ','), lambda x: list_contains(r, x))) > 0
         THEN array_to_string(list_sort(list_distinct(list_transform(string_split(s, ','),
              lambda x: CASE WHEN list_contains(r, x) THEN '<rare-key>' ELSE x END))), ',')
         ELSE s END AS new
FROM sets, rare
