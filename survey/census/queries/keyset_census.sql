-- Question: Which key sets occur at each JSON path, per record class, in how many records and files?
-- Used by: every page: key-set census appendix; diff
-- Inputs: walk/node_counts.parquet (walk/nodes.parquet rolled up per part of the walk: a group's occurrences, its
--         files (nodes hold one row per file and group, and a file's rows are in one part) and its longest value)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/keyset_census.sql"
SELECT
    rclass,
    path,
    jtype,
    keyset,
    sum(occurrences)         AS occurrences,
    sum(files)               AS files,
    max(max_len)             AS max_len
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
GROUP BY ALL
ORDER BY rclass, path, occurrences DESC, jtype, keyset;
