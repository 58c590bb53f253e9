-- Question: thinking.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's blocks are all in one part, so its thinking blocks and whether it has any are counted there, and they add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/thinking.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    b.file_index                                                                    AS part,
    count(*) FILTER (WHERE b.btype = 'thinking')                                    AS thinking_blocks,
    count(*) FILTER (WHERE b.btype = 'thinking' AND coalesce(b.payload_len, 0) = 0) AS signature_only,
    count(*) FILTER (WHERE b.btype = 'thinking' AND b.payload_len > 0)              AS with_text,
    count(*) FILTER (WHERE b.btype = 'redacted_thinking')                           AS redacted,
    count(DISTINCT b.file_id) FILTER (WHERE b.btype = 'thinking')                   AS files
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) AS b
SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
GROUP BY b.file_index;

SELECT
    coalesce(sum(thinking_blocks), 0)  AS thinking_blocks,
    coalesce(sum(signature_only), 0)   AS signature_only,
    coalesce(sum(with_text), 0)        AS with_text,
    coalesce(sum(redacted), 0)         AS redacted,
    coalesce(sum(files), 0)            AS files
FROM partials;
