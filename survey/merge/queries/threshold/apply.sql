-- One table of the union through the threshold's masks: each key set, path and value column read through
-- masks.sql (a name it holds replaced, every other as it was); in the values table a pair seen on too few
-- machines '<withheld>' with its withheld id (withheld_ids: pairs.sql's rare pairs, each with its pseudonym
-- under the merging machine's salt, made in Python). The columns and joins below are the table's own, in order:
-- threshold.table_sql writes them.
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark
SELECT {columns}
FROM {table} AS t
{joins}
