-- Question: Is a message's content a string or an array of parts, per role?
-- Used by: cursor_chats page: Messages (content)
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/content_types.sql"
SELECT rclass AS role, jtype, sum(count) AS blobs, count(DISTINCT file_id) AS stores
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path = '$.content' AND rclass <> 'meta:0'
GROUP BY ALL
ORDER BY role, blobs DESC, jtype;
