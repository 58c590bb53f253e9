-- Question: tool_names.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's blocks are all in one part, so its calls per tool name and whether it made any are counted there, and they add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/tool_names.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT b.file_index AS part, b.name, count(*) AS calls, count(DISTINCT b.file_id) AS files
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) AS b
SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
WHERE b.btype = 'tool_use'
GROUP BY ALL;

SELECT name, sum(calls) AS calls, sum(files) AS files
FROM partials
GROUP BY name
ORDER BY calls DESC, name;
