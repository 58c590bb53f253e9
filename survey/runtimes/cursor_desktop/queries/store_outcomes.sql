-- Question: How did each state.vscdb open (ok, with or without a -wal, or which failure), and which known tables does it hold?
-- Used by: cursor_desktop page: Observation basis, Tables
-- Inputs: inventory, walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/store_outcomes.sql"
WITH inv AS (
    SELECT file_id, size, problem
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'state'
), st AS (
    SELECT file_id, status, wal_present, tables, tables_other, has_composer_headers
    FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
)
SELECT
    coalesce(st.status, CASE WHEN inv.size = 0 THEN 'zero_byte' ELSE coalesce(inv.problem, 'not walked') END) AS outcome,
    coalesce(st.wal_present, false)           AS wal_present,
    coalesce(st.tables, '')                   AS tables,
    coalesce(st.tables_other, 0)              AS other_tables,
    coalesce(st.has_composer_headers, false)  AS composer_headers,
    count(*)                                  AS stores,
    sum(inv.size)                             AS bytes
FROM inv LEFT JOIN st USING (file_id)
GROUP BY ALL
ORDER BY stores DESC, outcome;
