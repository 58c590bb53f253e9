-- Question: On how many machines was each vocabulary value seen, by the name of the column holding it (a record
--           class, a frame field, a block's carrier, type or name, a heading), across the tables?
-- Used by: survey merge's publication threshold: a value seen on fewer than k machines is '<withheld>'
-- Inputs: vocab (col, machine, v: every value column of every table)
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark
SELECT col, v, count(DISTINCT machine) AS machines
FROM vocab
WHERE NOT starts_with(v, '<')
GROUP BY col, v
