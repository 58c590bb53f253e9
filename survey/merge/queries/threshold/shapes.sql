-- Question: On how many machines was each key set seen whole (its rare keys already masked, keysets.sql)?
-- Used by: survey merge's publication threshold: a key set seen on fewer than k machines is '<rare-key>'
-- Inputs: keysets (machine, s: every key set column of every table), keyset_keys (keysets.sql)
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark
SELECT m.new AS s, count(DISTINCT k.machine) AS machines
FROM keysets AS k
JOIN keyset_keys AS m ON m.old = k.s
WHERE m.new <> '' AND NOT starts_with(m.new, '<')
GROUP BY m.new
