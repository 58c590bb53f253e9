-- Question: Which block types occur in message.content, with which key sets?
-- Used by: cursor page: Frame taxonomy (blocks), Tool calls
-- Inputs: walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/block_keysets.sql"
SELECT
    btype,
    keyset,
    count(*)                  AS blocks,
    count(DISTINCT file_id)   AS files
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
GROUP BY ALL
ORDER BY blocks DESC, btype, keyset;
