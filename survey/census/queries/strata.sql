-- Question: How are files spread over mtime strata, and how many of each stratum were walked?
-- Used by: every page: Observation basis (stratification)
-- Inputs: inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/strata.sql"
SELECT
    stratum,
    count(*)                             AS files,
    count(*) FILTER (WHERE sampled)      AS walked,
    sum(size)::BIGINT                    AS bytes,
    coalesce(sum(size) FILTER (WHERE sampled), 0)::BIGINT AS walked_bytes
FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
GROUP BY stratum
ORDER BY stratum;
