-- Question: tool_use_result_types.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's nodes are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/tool_use_result_types.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    n.file_index               AS part,
    n.jtype,
    sum(n.count)               AS records,
    count(DISTINCT n.file_id)  AS files
FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet'])) AS n
SEMI JOIN (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
           WHERE surface IN ('parent', 'subagent', 'workflow_agent')) USING (file_id)
WHERE n.path = '$.toolUseResult'
GROUP BY ALL;

SELECT jtype, sum(records) AS records, sum(files) AS files
FROM partials
GROUP BY jtype
ORDER BY records DESC, jtype;
