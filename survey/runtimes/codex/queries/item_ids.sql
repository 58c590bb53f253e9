-- Question: Do response item ids (payload.id) ever equal a call_id (they should not be used as call ids)?
-- Used by: codex page: Tool calls and outputs
-- Inputs: walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/item_ids.sql"
WITH ids AS (SELECT DISTINCT ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') WHERE kind = 'payload_id'),
calls AS (SELECT DISTINCT ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') WHERE kind = 'call_id')
SELECT
    (SELECT count(*) FROM ids)                                          AS item_ids,
    (SELECT count(*) FROM calls)                                        AS call_ids,
    (SELECT count(*) FROM ids WHERE ref IN (SELECT ref FROM calls))     AS item_ids_equal_to_a_call_id;
