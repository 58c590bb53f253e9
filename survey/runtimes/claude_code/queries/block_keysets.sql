-- Question: Which block types occur in message.content of transcripts, with which key sets?
-- Used by: claude_code page: Record classes (blocks)
-- Inputs: inventory, walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/block_keysets.sql"
SELECT
    b.btype,
    b.keyset,
    count(*)                   AS blocks,
    count(DISTINCT b.file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') AS b
SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
GROUP BY ALL
ORDER BY blocks DESC, b.btype, b.keyset;
