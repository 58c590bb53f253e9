-- Question: What shape do prompt_history.json files have (top-level type, entry count, entry types), counted and never read out?
-- Used by: cursor_chats page: prompt_history.json
-- Inputs: inventory, walk/frames.parquet, walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/prompt_history.sql"
WITH ph AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'prompt_history'
), n AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') WHERE file_id IN (SELECT file_id FROM ph)
)
SELECT
    (SELECT count(*) FROM ph)                                                           AS files,
    (SELECT count(DISTINCT file_id) FROM n WHERE path = '$' AND jtype = 'array')        AS array_files,
    (SELECT count(DISTINCT file_id) FROM n WHERE path = '$' AND jtype = 'array' AND max_len = 0) AS empty_arrays,
    (SELECT coalesce(sum(count), 0) FROM n WHERE path = '$[]')                          AS entries,
    (SELECT coalesce(sum(count), 0) FROM n WHERE path = '$[]' AND jtype = 'string')     AS string_entries,
    (SELECT coalesce(max(max_len), 0) FROM n WHERE path = '$' AND jtype = 'array')     AS max_entries_in_file;
