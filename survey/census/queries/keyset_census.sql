-- Question: Which key sets occur at each JSON path, per record class, in how many records and files?
-- Used by: every page: key-set census appendix; diff
-- Inputs: walk/nodes.parquet (one row per file and (class, path, type, key set): the walk aggregates per file,
--         so the rows of a group are its files and count(file_id) counts them, without a distinct pass)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/keyset_census.sql"
SELECT
    rclass,
    path,
    jtype,
    keyset,
    sum(count)               AS occurrences,
    count(file_id)           AS files,
    max(max_len)             AS max_len
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
GROUP BY ALL
ORDER BY rclass, path, occurrences DESC, jtype, keyset;
