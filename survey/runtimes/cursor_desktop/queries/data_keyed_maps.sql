-- Question: How many data-keyed maps (codeBlockData, originalFileStates, context.mentions.* …) were counted instead of described, per path?
-- Used by: cursor_desktop page: Privacy gate
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/data_keyed_maps.sql"
SELECT rclass AS kind, path, sum(count) AS maps, max(max_len) AS max_keys
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE keyset = '<map>'
GROUP BY ALL
ORDER BY max_keys DESC, maps DESC, kind, path;
