-- Question: surface_classes.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/surface_classes.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH per_file AS (   -- a file's records per class (two groupings: less than count(DISTINCT file_id))
    SELECT f.file_index AS part, i.surface, f.rclass, f.file_id, count(*) AS records
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok'
    GROUP BY ALL
)
SELECT part, surface, rclass, sum(records) AS records, count(*) AS files
FROM per_file
GROUP BY ALL;

SELECT surface, rclass, sum(records) AS records, sum(files) AS files
FROM partials
GROUP BY ALL
ORDER BY surface, records DESC, rclass;
