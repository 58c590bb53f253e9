-- Question: How many files of each surface, how many bytes, how many were walked?
-- Used by: every page: Observation basis
-- Inputs: inventory/stratum=*/ (hive), walk/files.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/files_by_surface.sql"
SELECT
    inv.surface,
    count(*)                                   AS files,
    sum(inv.size)                              AS bytes,
    count(*) FILTER (WHERE inv.sampled)        AS walked,
    sum(inv.size) FILTER (WHERE inv.sampled)   AS walked_bytes,
    count(*) FILTER (WHERE inv.problem IS NOT NULL AND inv.problem <> 'empty') AS with_problem
FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS inv
GROUP BY inv.surface
ORDER BY files DESC, inv.surface;
