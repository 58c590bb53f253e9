-- Question: block_keysets.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's blocks are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/block_keysets.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH per_file AS (   -- a file's blocks per type and key set (two groupings: less than count(DISTINCT file_id))
    SELECT b.file_index AS part, b.btype, b.keyset, b.file_id, count(*) AS blocks
    FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) AS b
    SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
    GROUP BY ALL
)
SELECT part, btype, keyset, sum(blocks) AS blocks, count(*) AS files
FROM per_file
GROUP BY ALL;

SELECT btype, keyset, sum(blocks) AS blocks, sum(files) AS files
FROM partials
GROUP BY ALL
ORDER BY blocks DESC, btype, keyset;
