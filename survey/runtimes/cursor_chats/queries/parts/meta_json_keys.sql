-- Question: meta_json_keys.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a meta.json file is one frame, counted in its part's frame_counts, so files per part add up
--   (the inventory, one table for the snapshot, read whole).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/meta_json_keys.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT f.file_index AS part, f.keyset, f.frame_status AS status, sum(f.records) AS files
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet'])) AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'meta_json'
GROUP BY ALL;

SELECT keyset, status, sum(files) AS files
FROM partials
GROUP BY ALL
ORDER BY files DESC, keyset, status;
