-- Question: Which event families carry timestamp_ms, and which do not (per event)?
-- Used by: cursor_stream page: Timestamps
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set))
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/timestamps.sql"
SELECT
    rclass                                                                                               AS family,
    coalesce(sum(records) FILTER (WHERE list_contains(string_split(keyset, ','), 'timestamp_ms')), 0)      AS present,
    coalesce(sum(records) FILTER (WHERE NOT list_contains(string_split(keyset, ','), 'timestamp_ms')), 0)  AS absent
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet')
WHERE frame_status = 'ok'
GROUP BY rclass
ORDER BY family;
