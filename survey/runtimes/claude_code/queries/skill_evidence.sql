-- Question: What records a skill's use: Skill tool calls, the skill text injected after them (sourceToolUseID), skill attachments?
-- Used by: claude_code page: Skills
-- Inputs: inventory, walk/blocks.parquet, walk/nodes.parquet, walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/skill_evidence.sql"
WITH t AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent'))
SELECT
    (SELECT count(*) FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') SEMI JOIN t USING (file_id)
      WHERE btype = 'tool_use' AND name = 'Skill')                                   AS skill_calls,
    (SELECT count(DISTINCT file_id) FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') SEMI JOIN t USING (file_id)
      WHERE btype = 'tool_use' AND name = 'Skill')                                   AS files_with_skill_calls,
    (SELECT coalesce(sum(count), 0) FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') SEMI JOIN t USING (file_id)
      WHERE path = '$.sourceToolUseID')                                              AS injected_records,
    (SELECT coalesce(sum(count), 0) FROM read_parquet(getvariable('snap') || '/walk/values.parquet') SEMI JOIN t USING (file_id)
      WHERE path = '$.attachment.type' AND value IN ('invoked_skills', 'skill_listing', 'dynamic_skill')) AS skill_attachments;
