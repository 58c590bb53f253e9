-- Question: How many keys and values did the privacy gate mask or withhold?
-- Used by: every page: Privacy gate
-- Inputs: walk/node_counts.parquet (the paths and key sets of walk/nodes.parquet, rolled up), walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/key_gate.sql"
SELECT 'unreviewed keys (paths)' AS item, count(DISTINCT path) AS n
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet') WHERE path LIKE '%<unreviewed-key>%'
UNION ALL
SELECT 'dynamic keys (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet') WHERE path LIKE '%<dynamic-key>%'
UNION ALL
SELECT 'rare keys collapsed (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet') WHERE path LIKE '%<rare-key>%'
UNION ALL
SELECT 'data-keyed maps (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet') WHERE keyset = '<map>'
UNION ALL
SELECT 'opaque values (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet') WHERE keyset = '<opaque>'
UNION ALL
SELECT 'withheld values (distinct)', count(DISTINCT withheld_id)
FROM read_parquet(getvariable('snap') || '/walk/values.parquet') WHERE value = '<withheld>';
