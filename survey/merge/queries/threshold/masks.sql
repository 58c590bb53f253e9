-- Question: Which names of the union does the threshold replace, by what: each key set (its rare keys masked,
--           or whole '<rare-key>' where seen on fewer than {min_machines} machines), each path (its rare keys
--           masked), each vocabulary value seen on fewer than {min_machines} machines ('<withheld>')?
-- Used by: survey merge's publication threshold: every table is read through it (apply.sql)
-- Inputs: keyset_keys (keysets.sql), shape_machines (shapes.sql), path_keys (paths.sql), value_machines
--         (values.sql)
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark
WITH sets AS (
    SELECT k.old,
           CASE WHEN s.machines < {min_machines} THEN '<rare-key>' ELSE k.new END AS new
    FROM keyset_keys AS k
    LEFT JOIN shape_machines AS s ON s.s = k.new
)
SELECT ':keyset' AS col, old, new FROM sets WHERE new <> old
UNION ALL
SELECT ':path', old, new FROM path_keys
UNION ALL
SELECT col, v, '<withheld>' FROM value_machines WHERE machines < {min_machines}
