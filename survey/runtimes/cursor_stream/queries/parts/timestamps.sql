-- Question: timestamps.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: events per part and key set add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/timestamps.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, rclass, keyset, sum(records) AS events
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet']))
WHERE frame_status = 'ok'
GROUP BY ALL;

SELECT
    rclass                                                                                              AS family,
    coalesce(sum(events) FILTER (WHERE list_contains(string_split(keyset, ','), 'timestamp_ms')), 0)      AS present,
    coalesce(sum(events) FILTER (WHERE NOT list_contains(string_split(keyset, ','), 'timestamp_ms')), 0)  AS absent
FROM partials
GROUP BY rclass
ORDER BY family;
