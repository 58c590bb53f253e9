-- Question: init_values.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: events per part add up; withheld ids may recur across parts, so the merge counts them distinct.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/init_values.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, path, value, withheld_id, sum(count) AS events
FROM read_parquet(coalesce(getvariable('values_parts'), [getvariable('snap') || '/walk/values.parquet']))
WHERE path IN ('$.model', '$.apiKeySource', '$.permissionMode', '$.is_error')
GROUP BY ALL;

SELECT path, value, sum(events) AS events, count(DISTINCT withheld_id) AS distinct_withheld
FROM partials
GROUP BY ALL
ORDER BY path, events DESC, value;
