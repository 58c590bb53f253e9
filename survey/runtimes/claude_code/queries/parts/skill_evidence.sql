-- Question: skill_evidence.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: each figure is a count or sum over one table, and a file's rows are all in one part of it, so each table's part gives its own row (the merge adds them up, whatever the part).
-- Chunk: 128 MB (first censuses of 5 GB of Claude Code: 0.41-0.48 -> 0.17-0.18 s against runs of 8 MB; census/partials.py)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/skill_evidence.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH t AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent'))
SELECT file_index AS part, count(*) AS skill_calls, count(DISTINCT file_id) AS files_with_skill_calls,
       NULL::HUGEINT AS injected_records, NULL::HUGEINT AS skill_attachments
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) SEMI JOIN t USING (file_id)
WHERE btype = 'tool_use' AND name = 'Skill'
GROUP BY file_index
UNION ALL BY NAME
SELECT file_index AS part, sum(count) AS injected_records
FROM read_parquet(coalesce(getvariable('nodes_parts'), [getvariable('snap') || '/walk/nodes.parquet'])) SEMI JOIN t USING (file_id)
WHERE path = '$.sourceToolUseID'
GROUP BY file_index
UNION ALL BY NAME
SELECT file_index AS part, sum(count) AS skill_attachments
FROM read_parquet(coalesce(getvariable('values_parts'), [getvariable('snap') || '/walk/values.parquet'])) SEMI JOIN t USING (file_id)
WHERE path = '$.attachment.type' AND value IN ('invoked_skills', 'skill_listing', 'dynamic_skill')
GROUP BY file_index;

SELECT
    coalesce(sum(skill_calls), 0)             AS skill_calls,
    coalesce(sum(files_with_skill_calls), 0)  AS files_with_skill_calls,
    coalesce(sum(injected_records), 0)        AS injected_records,
    coalesce(sum(skill_attachments), 0)       AS skill_attachments
FROM partials;
