-- Question: How long are block payloads (code points): p50 / p90 / p99 / max, assistant frames and all frames?
-- Used by: cursor page: Payload sizes
-- Inputs: walk/blocks.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/payload_lengths.sql"
WITH b AS (
    SELECT b.payload_len, f.role
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') AS b
    JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_id, line_no)
    WHERE b.payload_len IS NOT NULL
)
SELECT
    count(*) FILTER (WHERE role = 'assistant')                          AS assistant_payloads,
    quantile_disc(payload_len, 0.5)  FILTER (WHERE role = 'assistant')  AS p50,
    quantile_disc(payload_len, 0.9)  FILTER (WHERE role = 'assistant')  AS p90,
    quantile_disc(payload_len, 0.99) FILTER (WHERE role = 'assistant')  AS p99,
    max(payload_len) FILTER (WHERE role = 'assistant')                  AS max,
    max(payload_len)                                                    AS max_including_user,
    count(*)                                                            AS payloads
FROM b;
