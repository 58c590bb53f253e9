-- Question: How many agent-tools sidecars are there, and how large (min / p50 / max bytes)?
-- Used by: cursor page: Off-transcript tool output
-- Inputs: inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/agent_tools.sql"
SELECT
    count(*)                          AS files,
    min(size)                         AS min_bytes,
    quantile_disc(size, 0.5)          AS p50_bytes,
    max(size)                         AS max_bytes,
    sum(size)                         AS bytes
FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
WHERE surface = 'agent_tools';
