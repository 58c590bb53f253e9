-- Question: prompt_history.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's node rows are all in one part, so its files, entries and largest entry count per part
--   add up (the files themselves counted from the inventory, read whole).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/prompt_history.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH ph AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'prompt_history'
), n AS (
    SELECT file_index AS part, *
    FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet']))
    WHERE file_id IN (SELECT file_id FROM ph)
)
SELECT
    part,
    count(DISTINCT file_id) FILTER (WHERE path = '$' AND jtype = 'array')                 AS array_files,
    count(DISTINCT file_id) FILTER (WHERE path = '$' AND jtype = 'array' AND max_len = 0) AS empty_arrays,
    sum(count) FILTER (WHERE path = '$[]')                                                AS entries,
    sum(count) FILTER (WHERE path = '$[]' AND jtype = 'string')                           AS string_entries,
    max(max_len) FILTER (WHERE path = '$')                                                AS max_entries_in_file
FROM n
GROUP BY part;

SELECT
    (SELECT count(*) FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
     WHERE surface = 'prompt_history')                  AS files,
    coalesce(sum(array_files), 0)                       AS array_files,
    coalesce(sum(empty_arrays), 0)                      AS empty_arrays,
    coalesce(sum(entries), 0)                           AS entries,
    coalesce(sum(string_entries), 0)                    AS string_entries,
    coalesce(max(max_entries_in_file), 0)               AS max_entries_in_file
FROM partials;
