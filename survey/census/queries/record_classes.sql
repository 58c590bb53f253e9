-- Question: How many records of each class, with which top-level key sets?
-- Used by: every page: record/frame taxonomy; independent checks
-- Inputs: walk/frames.parquet (files counted by file_key, the file's id as a number: a distinct pass hashes it faster than the id string)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/record_classes.sql"
SELECT
    rclass,
    keyset,
    count(*)                 AS records,
    count(DISTINCT file_key) AS files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY ALL
ORDER BY records DESC, rclass, keyset;
