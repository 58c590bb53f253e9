-- Question: Which top-level key sets does each event family have?
-- Used by: cursor_stream page: Event families (key sets)
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set): a group's
--         rows are its captures, so count(*) counts them without a distinct pass)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/family_keysets.sql"
SELECT rclass AS family, keyset, sum(records) AS events, count(*) AS captures
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet')
WHERE frame_status = 'ok'
GROUP BY ALL
ORDER BY family, events DESC, keyset;
