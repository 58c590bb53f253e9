-- Question: content_types.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a store's node rows are all in one part, so blobs and stores per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/content_types.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, rclass AS role, jtype, sum(count) AS blobs, count(DISTINCT file_id) AS stores
FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet']))
WHERE path = '$.content' AND rclass <> 'meta:0'
GROUP BY ALL;

SELECT role, jtype, sum(blobs) AS blobs, sum(stores) AS stores
FROM partials
GROUP BY ALL
ORDER BY role, blobs DESC, jtype;
