-- Question: data_keyed_maps.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's nodes are all in one part, so its captures per part add up to the query's.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/data_keyed_maps.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, path, sum(count) AS maps, max(max_len) AS max_keys, count(DISTINCT file_id) AS captures
FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet']))
WHERE keyset = '<map>'
GROUP BY ALL;

SELECT path, sum(maps) AS maps, max(max_keys) AS max_keys, sum(captures) AS captures
FROM partials
GROUP BY path
ORDER BY maps DESC, path;
