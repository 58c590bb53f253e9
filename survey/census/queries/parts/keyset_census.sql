-- Question: keyset_census.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: node_counts is already rolled up per part; its rows are kept per part and summed.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/keyset_census.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index AS part, rclass, path, jtype, keyset,
    sum(occurrences) AS occurrences, sum(files) AS files, max(max_len) AS max_len
FROM read_parquet(coalesce(getvariable('node_counts_parts'), [getvariable('snap') || '/walk/node_counts.parquet']))
GROUP BY ALL;

SELECT
    rclass,
    path,
    jtype,
    keyset,
    sum(occurrences)         AS occurrences,
    sum(files)               AS files,
    max(max_len)             AS max_len
FROM partials
GROUP BY ALL
ORDER BY rclass, path, occurrences DESC, jtype, keyset;
