-- Question: How did each store.db open: ok (with or without a -wal), or which failure (zero bytes, not a database, truncated, corrupt, locked), and which known tables (and how many others) does it hold?
-- Used by: cursor_chats page: Stores (outcomes)
-- Inputs: inventory, walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/store_outcomes.sql"
WITH inv AS (
    SELECT file_id, size, problem
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'store'
), st AS (
    SELECT file_id, status, wal_present, tables, tables_other FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
)
SELECT
    coalesce(st.status, CASE WHEN inv.size = 0 THEN 'zero_byte' ELSE coalesce(inv.problem, 'not walked') END) AS outcome,
    coalesce(st.wal_present, false)                                                                           AS wal_present,
    coalesce(st.tables, '')                                                                                    AS tables,
    coalesce(st.tables_other, 0)                                                                               AS other_tables,
    count(*)                                                                                                   AS stores,
    sum(inv.size)                                                                                              AS bytes
FROM inv LEFT JOIN st USING (file_id)
GROUP BY ALL
ORDER BY stores DESC, outcome, wal_present;
