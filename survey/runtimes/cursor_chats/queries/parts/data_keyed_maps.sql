-- Question: data_keyed_maps.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a store's node rows are all in one part, so maps and stores per part add up, and the largest
--   map is the largest part's.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/data_keyed_maps.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, path, sum(count) AS maps, max(max_len) AS max_keys, count(DISTINCT file_id) AS stores
FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet']))
WHERE keyset = '<map>'
GROUP BY ALL;

SELECT path, sum(maps) AS maps, max(max_keys) AS max_keys, sum(stores) AS stores
FROM partials
GROUP BY path
ORDER BY maps DESC, path;
