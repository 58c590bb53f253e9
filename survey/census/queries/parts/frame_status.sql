-- Question: frame_status.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frame counts are all in one part, so its files per part add up to the query's.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/frame_status.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, frame_status, sum(records) AS frames, count(DISTINCT file_key) AS files, sum(bytes) AS bytes
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet']))
GROUP BY ALL;

SELECT frame_status, sum(frames) AS frames, sum(files) AS files, sum(bytes) AS bytes
FROM partials
GROUP BY frame_status
ORDER BY frames DESC, frame_status;
