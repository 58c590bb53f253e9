-- Question: Which event families (type/subtype) occur, in how many events and captures?
-- Used by: cursor_stream page: Event families
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set); captures
--         counted by file_key, the file's id as a number)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/families.sql"
SELECT rclass AS family, sum(records) AS events, count(DISTINCT file_key) AS captures
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet')
WHERE frame_status = 'ok'
GROUP BY rclass
ORDER BY events DESC, family;
