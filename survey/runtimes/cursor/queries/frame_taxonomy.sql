-- Question: Which top-level key sets do transcript frames have, with which role/type/status values?
-- Used by: cursor page: Frame taxonomy
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/frame_taxonomy.sql"
SELECT
    keyset,
    count(*)                                              AS frames,
    count(*) FILTER (WHERE role = 'assistant')            AS assistant,
    count(*) FILTER (WHERE role = 'user')                 AS "user",
    count(*) FILTER (WHERE type = 'turn_ended')           AS turn_ended,
    count(*) FILTER (WHERE status = 'success')            AS success,
    count(*) FILTER (WHERE status = 'error')              AS error,
    count(*) FILTER (WHERE status = 'aborted')            AS aborted,
    count(*) FILTER (WHERE status = 'cancelled')          AS cancelled,
    string_agg(DISTINCT rclass, ', ' ORDER BY rclass)     AS classes
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY keyset
ORDER BY frames DESC, keyset;
