-- Question: Do response item ids (payload.id of response_item records) ever equal a call_id (they should not be used as call ids)?
-- Used by: codex page: Tool calls and outputs
-- Inputs: walk/frames.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/item_ids.sql"
WITH items AS (   -- response_item records (a session_meta header's payload.id is the rollout's id, not an item's)
    SELECT file_key, line_no FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok' AND (rclass = 'response_item' OR starts_with(rclass, 'response_item/'))
),
ids AS (SELECT DISTINCT l.ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
        SEMI JOIN items USING (file_key, line_no) WHERE l.kind = 'payload_id'),
calls AS (SELECT DISTINCT ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') WHERE kind = 'call_id')
SELECT
    (SELECT count(*) FROM ids)                                          AS item_ids,
    (SELECT count(*) FROM calls)                                        AS call_ids,
    (SELECT count(*) FROM ids WHERE ref IN (SELECT ref FROM calls))     AS item_ids_equal_to_a_call_id;
