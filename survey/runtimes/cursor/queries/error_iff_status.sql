-- Question: Is the error key present exactly when status is not success?
-- Used by: cursor page: Frame taxonomy, Lifecycle (iff claim)
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/error_iff_status.sql"
SELECT
    status,
    list_contains(string_split(keyset, ','), 'error')  AS has_error_key,
    count(*)                                           AS frames
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok' AND status IS NOT NULL
GROUP BY ALL
ORDER BY status, has_error_key;
