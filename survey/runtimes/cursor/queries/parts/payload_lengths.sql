-- Question: payload_lengths.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a frame and its blocks are in parts of one label; each part keeps its histogram of assistant payload lengths (len, count) and one row (len NULL) of its count and longest over all frames; the merge sums the histograms and reads the quantiles off them as the reference does.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/payload_lengths.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH b AS (
    SELECT file_index AS part, file_key, line_no, payload_len
    FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
), a AS (
    SELECT b.part, b.payload_len AS len
    FROM b
    SEMI JOIN (SELECT file_key, line_no
               FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet']))
               WHERE role = 'assistant') AS f USING (file_key, line_no)
    WHERE b.payload_len IS NOT NULL
)
SELECT part, len, count(*) AS n_assistant, NULL AS max_including_user, NULL::BIGINT AS payloads
FROM a GROUP BY part, len
UNION ALL
SELECT part, NULL, NULL, max(payload_len), count(payload_len)
FROM b GROUP BY part;

WITH h AS (
    SELECT len, sum(n_assistant) AS n_assistant FROM partials WHERE len IS NOT NULL GROUP BY len
), c AS (
    SELECT len, n_assistant,
           sum(n_assistant) OVER (ORDER BY len) AS below,
           sum(n_assistant) OVER ()             AS total
    FROM h
), everything AS (
    SELECT max(max_including_user) AS max_including_user, coalesce(sum(payloads), 0) AS payloads
    FROM partials WHERE len IS NULL
)
SELECT
    coalesce(max(total), 0)::BIGINT AS assistant_payloads,
    min(len) FILTER (WHERE below >= greatest(1, ceil(total * 0.5)))  AS p50,
    min(len) FILTER (WHERE below >= greatest(1, ceil(total * 0.9)))  AS p90,
    min(len) FILTER (WHERE below >= greatest(1, ceil(total * 0.99))) AS p99,
    max(len) AS max,
    any_value(e.max_including_user) AS max_including_user,
    any_value(e.payloads)::BIGINT AS payloads
FROM everything AS e LEFT JOIN c ON true;
