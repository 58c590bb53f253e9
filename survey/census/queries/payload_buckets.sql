-- Question: How many block payloads of each carrier and block type fall in each power-of-two length bucket (code points)?
-- Used by: every page with block carriers: Charts (payload length distribution, log axis)
-- Inputs: walk/blocks.parquet
-- Method: a payload of length L counts in the bucket [2^k, 2^(k+1)) with k = floor(log2 L), and
--   empty payloads in bucket 0; exact (log2 of an integer under 2^40 never rounds across a
--   power of two) and mergeable: counts per (type, bucket) add up over files.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/payload_buckets.sql"
SELECT
    carrier,
    btype,
    CASE WHEN payload_len = 0 THEN 0 ELSE (1::BIGINT << floor(log2(payload_len))::INTEGER) END AS bucket,
    count(*)                AS payloads,
    max(payload_len)        AS longest
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
WHERE payload_len IS NOT NULL
GROUP BY ALL
ORDER BY carrier, btype, bucket;
