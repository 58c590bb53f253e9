-- Question: record_classes.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a group's rows in frame_counts are its files, each in one part, so files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/record_classes.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, rclass, keyset, sum(records) AS records, count(*) AS files
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet']))
WHERE frame_status = 'ok'
GROUP BY ALL;

SELECT rclass, keyset, sum(records) AS records, sum(files) AS files
FROM partials
GROUP BY ALL
ORDER BY records DESC, rclass, keyset;
