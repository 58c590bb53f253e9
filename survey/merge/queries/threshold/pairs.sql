-- Question: On how many machines was each value of a value path seen (the path's rare keys already masked,
--           paths.sql; values a machine withheld itself left out)?
-- Used by: survey merge's publication threshold: a pair seen on fewer than k machines is '<withheld>', its
--          withheld id a pseudonym of path and value under the merging machine's salt
-- Inputs: u_values (the union of the machines' walk/values tables), path_keys (paths.sql)
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark
WITH v AS (
    SELECT DISTINCT x.machine, coalesce(m.new, x.path) AS path, x.value
    FROM u_values AS x
    LEFT JOIN path_keys AS m ON m.old = x.path
    WHERE x.withheld_id IS NULL AND x.path IS NOT NULL AND x.value IS NOT NULL
)
SELECT path, value, count(DISTINCT machine) AS machines
FROM v
WHERE NOT starts_with(path, '<')
GROUP BY path, value
