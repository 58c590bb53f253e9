-- Question: How long are block payloads (code points): p50 / p90 / p99 / max, assistant frames and all frames?
-- Used by: cursor page: Payload sizes
-- Inputs: walk/blocks.parquet, walk/frames.parquet
-- Method: exact quantile_disc from a histogram of lengths (a few thousand rows), not from
--   millions of values held in memory: quantile_disc(x, q) is the smallest length whose running
--   count reaches ceil(N * q) (at least 1); a test holds the two equal. Blocks join frames
--   on file_key, the file's id as a number (3x faster than on the file_id string at 5 GB).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/payload_lengths.sql"
WITH a AS (      -- assistant frames' payload lengths (a semi join: no row is widened)
    SELECT b.payload_len AS len
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') AS b
    SEMI JOIN (SELECT file_key, line_no FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
               WHERE role = 'assistant') AS f USING (file_key, line_no)
    WHERE b.payload_len IS NOT NULL
), h AS (      -- a histogram: one row per distinct length
    SELECT len, count(*) AS n_assistant FROM a GROUP BY len
), c AS (
    SELECT len, n_assistant,
           sum(n_assistant) OVER (ORDER BY len) AS below,   -- assistant payloads this long or shorter
           sum(n_assistant) OVER ()             AS total
    FROM h
), everything AS (   -- every frame's payloads
    SELECT max(payload_len) AS max_including_user, count(payload_len) AS payloads
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
)
SELECT
    coalesce(max(total), 0)::BIGINT AS assistant_payloads,
    min(len) FILTER (WHERE below >= greatest(1, ceil(total * 0.5)))  AS p50,
    min(len) FILTER (WHERE below >= greatest(1, ceil(total * 0.9)))  AS p90,
    min(len) FILTER (WHERE below >= greatest(1, ceil(total * 0.99))) AS p99,
    max(len) AS max,
    any_value(e.max_including_user) AS max_including_user,
    any_value(e.payloads)::BIGINT AS payloads
FROM everything AS e LEFT JOIN c ON true;   -- one row even with no assistant payload
