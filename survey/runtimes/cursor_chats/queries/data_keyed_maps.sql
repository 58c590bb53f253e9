-- Question: How many data-keyed maps (tool-call env, object-valued tool results) were counted instead of described, per path?
-- Used by: cursor_chats page: Privacy gate
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/data_keyed_maps.sql"
SELECT path, sum(count) AS maps, max(max_len) AS max_keys, count(DISTINCT file_id) AS stores
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE keyset = '<map>'
GROUP BY path
ORDER BY maps DESC, path;
