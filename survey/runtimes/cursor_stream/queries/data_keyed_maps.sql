-- Question: How many data-keyed maps (grep workspaceResults) were counted instead of described?
-- Used by: cursor_stream page: Privacy gate
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/data_keyed_maps.sql"
SELECT path, sum(count) AS maps, max(max_len) AS max_keys, count(DISTINCT file_id) AS captures
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE keyset = '<map>'
GROUP BY path
ORDER BY maps DESC, path;
