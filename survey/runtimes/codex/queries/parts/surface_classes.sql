-- Question: surface_classes.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/surface_classes.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT f.file_index AS part, i.surface, f.rclass, count(*) AS records, count(DISTINCT f.file_id) AS files
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE f.frame_status = 'ok'
GROUP BY ALL;

SELECT surface, rclass, sum(records) AS records, sum(files) AS files
FROM partials
GROUP BY ALL
ORDER BY surface, records DESC, rclass;
