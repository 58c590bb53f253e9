-- Question: How can a reader discover sessions and order bubbles: is there a composerHeaders table, does each composerData list its bubbles (fullConversationHeadersOnly), and does rowid order agree with that list?
-- Used by: cursor_desktop page: Ordering
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/ordering.sql"
SELECT
    count(*)                                              AS stores,
    count(*) FILTER (WHERE has_composer_headers)          AS with_composer_headers,
    coalesce(sum(composers), 0)                           AS composers,
    coalesce(sum(composers_ordered_by_headers), 0)        AS ordered_by_header_list,
    coalesce(sum(composers_ordered_by_rowid), 0)          AS ordered_by_rowid,
    coalesce(sum(composers_rowid_order_differs), 0)       AS rowid_order_differs,
    coalesce(sum(composers_header_set_differs), 0)        AS header_set_differs
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
WHERE status = 'ok';
