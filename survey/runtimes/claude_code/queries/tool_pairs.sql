-- Question: Do tool_use ids and tool_result.tool_use_id pair up within each transcript file (unpaired calls, orphan results)?
-- Used by: claude_code page: Tool calls and results
-- Inputs: inventory, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/tool_pairs.sql"
WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), l AS (
    SELECT l.*, t.surface FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l JOIN t USING (file_id)
), c AS (
    SELECT DISTINCT surface, file_id, ref FROM l WHERE kind = 'tool_use'
), r AS (
    SELECT surface, file_id, ref FROM l WHERE kind = 'tool_result'
), rd AS (
    SELECT DISTINCT file_id, ref FROM r
), paired AS (
    SELECT surface, count(*) AS n FROM r SEMI JOIN c USING (file_id, ref) GROUP BY surface
), orphan AS (
    SELECT surface, count(*) AS n FROM r ANTI JOIN c USING (file_id, ref) GROUP BY surface
), orphan_elsewhere AS (
    SELECT r.surface, count(*) AS n FROM r ANTI JOIN c USING (file_id, ref)
    WHERE r.ref IN (SELECT ref FROM c) GROUP BY r.surface
), unpaired AS (
    SELECT surface, count(*) AS n FROM c ANTI JOIN rd USING (file_id, ref) GROUP BY surface
), answered_twice AS (
    SELECT surface, count(*) AS n FROM (SELECT surface, file_id, ref FROM r GROUP BY ALL HAVING count(*) > 1) GROUP BY surface
)
SELECT
    s.surface,
    (SELECT count(*) FROM c WHERE c.surface = s.surface)                AS calls,
    (SELECT count(*) FROM r WHERE r.surface = s.surface)                AS results,
    coalesce((SELECT n FROM paired WHERE surface = s.surface), 0)        AS paired,
    coalesce((SELECT n FROM unpaired WHERE surface = s.surface), 0)      AS unpaired_calls,
    coalesce((SELECT n FROM orphan WHERE surface = s.surface), 0)        AS orphan_results,
    coalesce((SELECT n FROM orphan_elsewhere WHERE surface = s.surface), 0) AS orphans_paired_in_another_file,
    coalesce((SELECT n FROM answered_twice WHERE surface = s.surface), 0) AS calls_answered_twice
FROM (SELECT DISTINCT surface FROM t) AS s
ORDER BY s.surface;
