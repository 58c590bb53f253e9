-- Question: How many keys and values did the privacy gate mask or withhold?
-- Used by: every page: Privacy gate
-- Inputs: walk/node_counts.parquet (the paths and key sets of walk/nodes.parquet, rolled up), walk/values.parquet
-- node_counts is read once for all five path counts (a scan costs a little per Parquet part,
-- and a survey of small files has hundreds of parts); each count is over the paths its
-- condition picks, as one query per condition would count them.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/key_gate.sql"
WITH masked AS (
    SELECT DISTINCT path, keyset
    FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
    WHERE path LIKE '%<unreviewed-key>%' OR path LIKE '%<dynamic-key>%' OR path LIKE '%<rare-key>%'
       OR keyset IN ('<map>', '<opaque>')
), n AS MATERIALIZED (
    SELECT
        count(DISTINCT path) FILTER (WHERE path LIKE '%<unreviewed-key>%') AS unreviewed,
        count(DISTINCT path) FILTER (WHERE path LIKE '%<dynamic-key>%')    AS dynamic,
        count(DISTINCT path) FILTER (WHERE path LIKE '%<rare-key>%')       AS rare,
        count(DISTINCT path) FILTER (WHERE keyset = '<map>')               AS maps,
        count(DISTINCT path) FILTER (WHERE keyset = '<opaque>')            AS opaque
    FROM masked
)
SELECT 'unreviewed keys (paths)' AS item, unreviewed AS n FROM n
UNION ALL
SELECT 'dynamic keys (paths)', dynamic FROM n
UNION ALL
SELECT 'rare keys collapsed (paths)', rare FROM n
UNION ALL
SELECT 'data-keyed maps (paths)', maps FROM n
UNION ALL
SELECT 'opaque values (paths)', opaque FROM n
UNION ALL
SELECT 'withheld values (distinct)', count(DISTINCT withheld_id)
FROM read_parquet(getvariable('snap') || '/walk/values.parquet') WHERE value = '<withheld>';
