-- Question: family_keysets.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a group's rows in frame_counts are its captures, each in one part, so captures per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/family_keysets.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, rclass, keyset, sum(records) AS events, count(*) AS captures
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet']))
WHERE frame_status = 'ok'
GROUP BY ALL;

SELECT rclass AS family, keyset, sum(events) AS events, sum(captures) AS captures
FROM partials
GROUP BY ALL
ORDER BY family, events DESC, keyset;
