-- Question: How many stores carry a -wal / -shm / -journal, and how many rows exist only through the WAL (or were deleted by it)?
-- Used by: cursor_desktop page: Tables (WAL)
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/wal_rows.sql"
SELECT
    count(*)                                       AS stores_walked,
    count(*) FILTER (WHERE wal_present)            AS with_wal,
    count(*) FILTER (WHERE shm_present)            AS with_shm,
    count(*) FILTER (WHERE journal_present)        AS with_journal,
    count(*) FILTER (WHERE journal_mode_wal)       AS wal_mode_header,
    coalesce(sum(rows_seen), 0)                    AS rows_seen,
    coalesce(sum(rows_wal_only), 0)                AS rows_wal_only,
    coalesce(sum(rows_wal_deleted), 0)             AS rows_wal_deleted,
    count(*) FILTER (WHERE changed_during_read)    AS changed_during_read
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet');
