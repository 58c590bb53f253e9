-- Question: Is a blob's id the sha256 of its data (content addressing), row by row?
-- Used by: cursor_chats page: Blobs (content addressing)
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/blob_ids.sql"
SELECT
    coalesce(sum(blob_rows), 0)                                  AS blob_rows,
    coalesce(sum(id_is_sha256_true), 0)                          AS id_is_sha256,
    coalesce(sum(id_is_sha256_false), 0)                         AS id_not_sha256,
    count(*) FILTER (WHERE id_is_sha256_false > 0)               AS stores_with_exceptions
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet');
