-- Question: On how many machines of a merged snapshot was each key set (at its record class and path, and at any),
--           each record class, and each vocabulary value (at its path, and at any) seen?
-- Used by: merged pages: the machines column of every table naming a key set, a record class or a value
-- Inputs: inventory/*/*.parquet (each file's pseudonymous machine), walk/nodes.parquet, walk/values.parquet (a
--         merged snapshot's: file ids distinct per machine, names seen on fewer machines than the threshold
--         already masked)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>-merged'" -c ".read survey/merge/queries/machines.sql"
WITH fm AS (
    SELECT DISTINCT file_id, machine
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet')
),
k AS (
    SELECT DISTINCT n.rclass, n.path, n.keyset, fm.machine
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') AS n
    JOIN fm USING (file_id)
),
v AS (
    SELECT DISTINCT x.path, x.value, fm.machine
    FROM read_parquet(getvariable('snap') || '/walk/values.parquet') AS x
    JOIN fm USING (file_id)
)
SELECT 'keyset' AS kind, rclass, path, keyset AS name, count(DISTINCT machine) AS machines
FROM k GROUP BY rclass, path, keyset
UNION ALL
SELECT 'keyset', NULL, NULL, keyset, count(DISTINCT machine) FROM k GROUP BY keyset
UNION ALL
SELECT 'rclass', NULL, NULL, rclass, count(DISTINCT machine) FROM k GROUP BY rclass
UNION ALL
SELECT 'value', NULL, path, value, count(DISTINCT machine) FROM v GROUP BY path, value
UNION ALL
SELECT 'value', NULL, NULL, value, count(DISTINCT machine) FROM v GROUP BY value
ORDER BY kind, name, rclass NULLS FIRST, path NULLS FIRST;
