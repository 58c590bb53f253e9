-- Question: frame_taxonomy.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: frames counted per part, key set and class; the merge sums them per key set and lists its classes.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/frame_taxonomy.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index                                            AS part,
    keyset,
    rclass,
    count(*)                                              AS frames,
    count(*) FILTER (WHERE role = 'assistant')            AS assistant,
    count(*) FILTER (WHERE role = 'user')                 AS "user",
    count(*) FILTER (WHERE type = 'turn_ended')           AS turn_ended,
    count(*) FILTER (WHERE status = 'success')            AS success,
    count(*) FILTER (WHERE status = 'error')              AS error,
    count(*) FILTER (WHERE status = 'aborted')            AS aborted,
    count(*) FILTER (WHERE status = 'cancelled')          AS cancelled
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
WHERE frame_status = 'ok'
GROUP BY ALL;

SELECT
    keyset,
    sum(frames)                                           AS frames,
    sum(assistant)                                        AS assistant,
    sum("user")                                           AS "user",
    sum(turn_ended)                                       AS turn_ended,
    sum(success)                                          AS success,
    sum(error)                                            AS error,
    sum(aborted)                                          AS aborted,
    sum(cancelled)                                        AS cancelled,
    string_agg(DISTINCT rclass, ', ' ORDER BY rclass)     AS classes
FROM partials
GROUP BY keyset
ORDER BY frames DESC, keyset;
