-- Question: roles.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a group's rows in frame_counts are its stores, each in one part, so blobs and stores per part
--   add up (the inventory, one table for the snapshot, read whole).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/roles.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT f.file_index AS part, f.rclass AS role, sum(f.records) AS blobs, count(DISTINCT f.file_id) AS stores
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet'])) AS f
JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
WHERE i.surface = 'store' AND f.frame_status = 'ok' AND f.rclass <> 'meta:0'
GROUP BY ALL;

SELECT role, sum(blobs) AS blobs, sum(stores) AS stores
FROM partials
GROUP BY ALL
ORDER BY blobs DESC, role;
