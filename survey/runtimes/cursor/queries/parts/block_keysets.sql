-- Question: block_keysets.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's blocks are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/block_keysets.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, btype, keyset, count(*) AS blocks, count(DISTINCT file_id) AS files
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
GROUP BY ALL;

SELECT btype, keyset, sum(blocks) AS blocks, sum(files) AS files
FROM partials
GROUP BY ALL
ORDER BY blocks DESC, btype, keyset;
