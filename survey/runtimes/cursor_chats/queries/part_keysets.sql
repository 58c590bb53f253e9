-- Question: Which content part types occur, with which key sets, under which roles?
-- Used by: cursor_chats page: Content parts
-- Inputs: walk/blocks.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/part_keysets.sql"
SELECT f.rclass AS role, b.btype AS part_type, b.keyset, count(*) AS parts, count(DISTINCT b.file_key) AS stores
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') AS b
JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_key, line_no)   -- file_key: the file's id as a number (a join on it hashes no string)
WHERE b.carrier = '$.content'
GROUP BY ALL
ORDER BY part_type, parts DESC, b.keyset, role;
