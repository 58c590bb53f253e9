-- Question: part_keysets.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a store's blocks and frames are all in one part (joined on file_key, the part taken from the
--   blocks' side), so parts and stores per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/parts/part_keysets.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT b.file_index AS part, f.rclass AS role, b.btype AS part_type, b.keyset,
       count(*) AS parts, count(DISTINCT b.file_key) AS stores
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) AS b
JOIN read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
    USING (file_key, line_no)
WHERE b.carrier = '$.content'
GROUP BY ALL;

SELECT role, part_type, keyset, sum(parts) AS parts, sum(stores) AS stores
FROM partials
GROUP BY ALL
ORDER BY part_type, parts DESC, keyset, role;
