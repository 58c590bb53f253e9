-- Question: payload_buckets.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a block's row is in one part; counts per (type, bucket) add up and the longest is the parts' maximum.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/payload_buckets.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index AS part,
    carrier,
    btype,
    CASE WHEN payload_len = 0 THEN 0 ELSE (1::BIGINT << floor(log2(payload_len))::INTEGER) END AS bucket,
    count(*)                AS payloads,
    max(payload_len)        AS longest
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
WHERE payload_len IS NOT NULL
GROUP BY ALL;

SELECT carrier, btype, bucket, sum(payloads)::BIGINT AS payloads, max(longest) AS longest
FROM partials
GROUP BY ALL
ORDER BY carrier, btype, bucket;
