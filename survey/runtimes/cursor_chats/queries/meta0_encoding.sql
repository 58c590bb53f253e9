-- Question: How is meta key "0" encoded per store: hex of JSON, plain JSON, absent, undecodable?
-- Used by: cursor_chats page: Meta "0"
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/meta0_encoding.sql"
SELECT meta0_encoding AS encoding, count(*) AS stores, coalesce(sum(meta_other_keys), 0) AS other_meta_keys
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
WHERE status = 'ok'
GROUP BY ALL
ORDER BY stores DESC, encoding;
