-- Question: How many rows does each known table hold, and are the Agents-sidebar ItemTable keys present?
-- Used by: cursor_desktop page: Tables
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/store_tables.sql"
SELECT
    count(*)                                               AS stores,
    count(*) FILTER (WHERE has_composer_headers)           AS with_composer_headers,
    coalesce(sum(composer_headers_rows), 0)                AS composer_headers_rows,
    coalesce(sum(item_table_rows), 0)                      AS item_table_rows,
    count(*) FILTER (WHERE item_agent_projects)            AS with_agent_projects_key,
    count(*) FILTER (WHERE item_agent_membership)          AS with_agent_membership_key,
    count(*) FILTER (WHERE item_headers_migrated)          AS with_headers_migrated_key,
    coalesce(sum(kv_rows), 0)                              AS cursor_disk_kv_rows,
    coalesce(sum(kv_null), 0)                              AS null_cells
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
WHERE status = 'ok';
