-- Question: class_constants.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so records and distinct files per class, field and part add up; one value across parts is the least equal to the greatest.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/class_constants.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH u AS (
    UNPIVOT (SELECT file_index AS part, file_id, rclass, status, phase, role FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) WHERE frame_status = 'ok')
    ON status, phase, role INTO NAME field VALUE value
)
SELECT part, rclass, field, min(value) AS least, max(value) AS greatest, count(*) AS records, count(DISTINCT file_id) AS files
FROM u
GROUP BY part, rclass, field;

SELECT rclass, field, min(least) AS value, sum(records) AS records, sum(files) AS files
FROM partials
GROUP BY rclass, field
HAVING min(least) = max(greatest) AND sum(files) >= 2 AND min(least) NOT LIKE '<%'
ORDER BY files DESC, rclass, field;
