-- Question: How many records of each class, with which top-level key sets?
-- Used by: every page: record/frame taxonomy; independent checks
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set) as the walk
--         writes them: a group's rows are its files, so count(*) counts them without a distinct pass)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/record_classes.sql"
SELECT
    rclass,
    keyset,
    sum(records)             AS records,
    count(*)                 AS files
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet')
WHERE frame_status = 'ok'
GROUP BY ALL
ORDER BY records DESC, rclass, keyset;
