-- Question: Does rowid order (the only ordering a reader has) agree with the blobs' createdAt?
-- Used by: cursor_chats page: Blobs (ordering)
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/row_order.sql"
SELECT
    coalesce(sum(created_out_of_order), 0)                AS rows_created_out_of_order,
    count(*) FILTER (WHERE created_out_of_order > 0)      AS stores_affected,
    count(*)                                              AS stores_read
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
WHERE status = 'ok';
