-- Question: Which event families carry timestamp_ms, and which do not (per event)?
-- Used by: cursor_stream page: Timestamps
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/timestamps.sql"
SELECT
    rclass                                                                                  AS family,
    count(*) FILTER (WHERE list_contains(string_split(keyset, ','), 'timestamp_ms'))        AS present,
    count(*) FILTER (WHERE NOT list_contains(string_split(keyset, ','), 'timestamp_ms'))    AS absent
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY rclass
ORDER BY family;
