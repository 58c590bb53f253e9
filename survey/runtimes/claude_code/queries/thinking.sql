-- Question: How many thinking blocks carry text, and how many only a signature?
-- Used by: claude_code page: Thinking
-- Inputs: inventory, walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/thinking.sql"
SELECT
    count(*) FILTER (WHERE b.btype = 'thinking')                                    AS thinking_blocks,
    count(*) FILTER (WHERE b.btype = 'thinking' AND coalesce(b.payload_len, 0) = 0) AS signature_only,
    count(*) FILTER (WHERE b.btype = 'thinking' AND b.payload_len > 0)              AS with_text,
    count(*) FILTER (WHERE b.btype = 'redacted_thinking')                           AS redacted,
    count(DISTINCT b.file_id) FILTER (WHERE b.btype = 'thinking')                   AS files
FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') AS b
SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id);
