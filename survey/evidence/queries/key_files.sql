-- Question: In how many walked files does the census see a given key as a key
--           (optionally only at given paths), and at which paths? The structural figure beside a text hit.
-- Used by: every page: "Not observed" table (text hit vs key hit)
-- Inputs: variables snap (snapshot folder), key (the key), paths (list of paths; [] = any)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c "SET VARIABLE key = 'tool_use_id'" \
--             -c "SET VARIABLE paths = []::VARCHAR[]" -c ".read survey/evidence/queries/key_files.sql"
SELECT
    count(DISTINCT file_id)  AS files_with_key,
    coalesce(sum(count), 0)  AS objects_with_key,
    coalesce(list(DISTINCT path ORDER BY path), []) AS paths_seen
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE jtype = 'object'
  AND list_contains(string_split(keyset, ','), getvariable('key'))
  AND (len(getvariable('paths')) = 0 OR list_contains(getvariable('paths'), path));
