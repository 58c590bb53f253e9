-- Question: Each path of the union whose keys include one seen on fewer than {min_machines} machines, with those
--           keys made '<rare-key>' (the rest of the path as it was)?
-- Used by: survey merge's publication threshold (every table's path column)
-- Inputs: paths (p: every path of every table), key_machines (keys.sql)
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark. A path is cut into
--      its keys ('.' and a key) and every other character between them, so that joined again it is the path
WITH rare AS (
    SELECT coalesce(list(k), []) AS r FROM key_machines WHERE machines < {min_machines}
),
masked AS (
    SELECT p AS old,
           array_to_string(list_transform(regexp_extract_all(p, '(\.[^.\[\]]+|(?s:.))', 1),
               lambda t: CASE WHEN starts_with(t, '.') AND list_contains(r, substr(t, 2)) THEN '.<rare-key>'
                              ELSE t END), '') AS new
    FROM (SELECT DISTINCT p FROM paths WHERE p IS NOT NULL), rare
)
SELECT old, new FROM masked WHERE new <> old
