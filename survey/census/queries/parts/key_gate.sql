-- Question: key_gate.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: each part's masked (path, key set) pairs and withheld ids, each once; the merge counts them
--        distinct over all parts, as the query does over the whole tables.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/key_gate.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT DISTINCT file_index AS part, path, keyset, NULL::VARCHAR AS withheld_id
FROM read_parquet(coalesce(getvariable('node_counts_parts'), [getvariable('snap') || '/walk/node_counts.parquet']))
WHERE path LIKE '%<unreviewed-key>%' OR path LIKE '%<dynamic-key>%' OR path LIKE '%<rare-key>%'
   OR keyset IN ('<map>', '<opaque>')
UNION ALL
SELECT DISTINCT file_index, NULL, NULL, withheld_id
FROM read_parquet(coalesce(getvariable('values_parts'), [getvariable('snap') || '/walk/values.parquet']))
WHERE value = '<withheld>';

WITH n AS MATERIALIZED (
    SELECT
        count(DISTINCT path) FILTER (WHERE path LIKE '%<unreviewed-key>%') AS unreviewed,
        count(DISTINCT path) FILTER (WHERE path LIKE '%<dynamic-key>%')    AS dynamic,
        count(DISTINCT path) FILTER (WHERE path LIKE '%<rare-key>%')       AS rare,
        count(DISTINCT path) FILTER (WHERE keyset = '<map>')               AS maps,
        count(DISTINCT path) FILTER (WHERE keyset = '<opaque>')            AS opaque,
        count(DISTINCT withheld_id)                                        AS withheld
    FROM partials
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
SELECT 'withheld values (distinct)', withheld FROM n;
