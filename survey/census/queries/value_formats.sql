-- Question: At each leaf path, per record class, how many string and number values fall in each format class
--           (epoch seconds or milliseconds, other number; empty, UUID, 32/40/64 hex digits, RFC 3339 / ISO
--           timestamp, URL, path-like, free text)?
-- Used by: every page: value formats
-- Inputs: walk/formats.parquet (one row per file and (class, path, format class): the walk classifies each value
--         as it reads it and keeps only the counts, never a value; a row per file, so count(*) counts files)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/value_formats.sql"
SELECT
    rclass,
    path,
    format,
    sum(count)                   AS occurrences,
    count(*)                     AS files
FROM read_parquet(getvariable('snap') || '/walk/formats.parquet')
GROUP BY ALL
ORDER BY rclass, path, occurrences DESC, format;
