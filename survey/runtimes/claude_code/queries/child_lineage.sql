-- Question: Does a parent transcript name its subagent / workflow children (the child's agent id in the parent's bytes)?
-- Used by: claude_code page: Subagents
-- Inputs: inventory, walk/needles.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/child_lineage.sql"
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
), kids AS (
    SELECT file_id, surface, parent_id FROM inv WHERE surface IN ('subagent', 'workflow_agent')
), parents AS (
    SELECT session_id, sampled FROM inv WHERE surface = 'parent'
), found AS (
    SELECT needle_file, bool_or(found) AS found FROM read_parquet(getvariable('snap') || '/walk/needles.parquet') GROUP BY needle_file
)
SELECT
    k.surface,
    count(*)                                                          AS files,
    count(*) FILTER (WHERE k.parent_id IN (SELECT session_id FROM parents)) AS parent_file_present,
    count(*) FILTER (WHERE k.parent_id IN (SELECT session_id FROM parents WHERE sampled)) AS parent_walked,
    count(*) FILTER (WHERE f.found)                                   AS named_in_parent,
    (SELECT count(*) FROM inv WHERE surface = 'parent')               AS parent_files,
    (SELECT count(DISTINCT parent_id) FROM kids)                      AS sessions_with_children
FROM kids AS k LEFT JOIN found AS f ON f.needle_file = k.file_id
GROUP BY k.surface
ORDER BY k.surface;
