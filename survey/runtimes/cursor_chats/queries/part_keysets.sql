-- Question: Which content part types occur, with which key sets, under which roles?
-- Used by: cursor_chats page: Content parts
-- Inputs: walk/blocks.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/part_keysets.sql"
SELECT f.rclass AS role, b.btype AS part_type, b.keyset, count(*) AS parts, count(DISTINCT b.file_id) AS stores
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') AS b
JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_id, line_no)
WHERE b.carrier = '$.content'
GROUP BY ALL
ORDER BY part_type, parts DESC, b.keyset, role;
