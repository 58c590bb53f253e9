-- Question: Which event families (type/subtype) occur, in how many events and captures?
-- Used by: cursor_stream page: Event families
-- Inputs: walk/frames.parquet (files counted by file_key, the file's id as a number: a distinct pass hashes it faster than the id string)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/families.sql"
SELECT rclass AS family, count(*) AS events, count(DISTINCT file_key) AS captures
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY rclass
ORDER BY events DESC, family;
