-- Question: On how many machines was each key seen (a key of a key set, or of a path, of the nodes)?
-- Used by: survey merge's publication threshold: a key seen on fewer than k machines is masked everywhere
-- Inputs: u_nodes (the union of the machines' walk/nodes tables, each row with its machine)
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark; a name beginning
--      with '<' is a mask or a placeholder, not a name the threshold applies to
WITH n AS (
    SELECT DISTINCT machine, keyset, path FROM u_nodes
),
keys AS (
    SELECT machine, unnest(string_split(keyset, ',')) AS k FROM n
    UNION ALL
    SELECT machine, unnest(regexp_extract_all(path, '\.([^.\[\]]+)', 1)) AS k FROM n
)
SELECT k, count(DISTINCT machine) AS machines
FROM keys
WHERE k <> '' AND NOT starts_with(k, '<')
GROUP BY k
