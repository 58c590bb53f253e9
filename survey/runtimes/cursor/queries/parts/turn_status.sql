-- Question: turn_status.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/turn_status.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, status, count(*) AS frames, count(DISTINCT file_id) AS files
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
WHERE frame_status = 'ok' AND type = 'turn_ended'
GROUP BY ALL;

SELECT status, sum(frames) AS frames, sum(files) AS files
FROM partials
GROUP BY status
ORDER BY frames DESC, status;
