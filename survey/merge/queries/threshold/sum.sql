-- A table whose rows are one per file and name (nodes, values, frame_counts, rawsets, formats, headings),
-- masked (apply.sql, below), summed again per its names where masking made two rows one: counts summed,
-- lengths their maximum (threshold.SUMS).
-- Run: by survey merge (threshold.py), as written on DuckDB, transpiled by sqlglot on Spark
SELECT {keys}, {aggregates}
FROM (
{masked}
) AS m
GROUP BY {keys}
