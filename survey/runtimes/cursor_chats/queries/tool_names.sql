-- Question: Which tool names do tool-call parts carry (value map; unreviewed names withheld)?
-- Used by: cursor_chats page: Tool calls (names)
-- Inputs: walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/tool_names.sql"
SELECT name, count(*) AS calls, count(DISTINCT file_id) AS stores
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
WHERE carrier = '$.content' AND btype = 'tool-call'
GROUP BY name
ORDER BY calls DESC, name;
