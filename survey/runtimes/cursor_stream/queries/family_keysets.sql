-- Question: Which top-level key sets does each event family have?
-- Used by: cursor_stream page: Event families (key sets)
-- Inputs: walk/frames.parquet (files counted by file_key, the file's id as a number: a distinct pass hashes it faster than the id string)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/family_keysets.sql"
SELECT rclass AS family, keyset, count(*) AS events, count(DISTINCT file_key) AS captures
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY ALL
ORDER BY family, events DESC, keyset;
