-- Question: families.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's rows are all in one part, so its captures per part add up to the query's.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/families.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, rclass, sum(records) AS events, count(DISTINCT file_key) AS captures
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet']))
WHERE frame_status = 'ok'
GROUP BY ALL;

SELECT rclass AS family, sum(events) AS events, sum(captures) AS captures
FROM partials
GROUP BY rclass
ORDER BY events DESC, family;
