-- Question: What JSON type does the top-level error key hold, per record class?
-- Used by: cursor page: Lifecycle and outcome (the error key's type)
-- Inputs: walk/node_counts.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/error_types.sql"
SELECT rclass, jtype, sum(occurrences) AS occurrences, sum(files) AS files
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
WHERE path = '$.error'
GROUP BY ALL
ORDER BY occurrences DESC, rclass, jtype;
