-- Question: Which top-level key sets does each key kind's JSON have (number of keys, records)?
-- Used by: cursor_desktop page: Key kinds (key sets)
-- Inputs: walk/frames.parquet, inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/kind_keysets.sql"
SELECT
    f.rclass                                    AS kind,
    len(string_split(f.keyset, ','))            AS keys,
    f.keyset,
    count(*)                                    AS records
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'state' AND f.frame_status = 'ok'
GROUP BY ALL
ORDER BY kind, records DESC, f.keyset;
