-- Question: Do tool_use ids and tool_result.tool_use_id pair up within each transcript file (unpaired calls, orphan results)?
-- Used by: claude_code page: Tool calls and results
-- Inputs: inventory, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/tool_pairs.sql"
WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), k AS (   -- per id in a file: how many calls and results carry it (an id joins only within its file)
    SELECT t.surface, l.file_id, l.ref,
           count(*) FILTER (WHERE l.kind = 'tool_use')     AS calls,
           count(*) FILTER (WHERE l.kind = 'tool_result')  AS results
    FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l JOIN t USING (file_id)
    WHERE l.kind IN ('tool_use', 'tool_result')
    GROUP BY t.surface, l.file_id, l.ref
), x AS (   -- paired: a non-NULL id with both a call and a result in the same file
    SELECT *, calls > 0 AND results > 0 AND ref IS NOT NULL AS paired FROM k
), per_surface AS (
    SELECT
        surface,
        count(*) FILTER (WHERE calls > 0)                                                 AS calls,
        sum(results)                                                                      AS results,
        sum(results) FILTER (WHERE paired)                                                AS paired,
        count(*) FILTER (WHERE calls > 0 AND NOT paired)                                  AS unpaired_calls,
        sum(results) FILTER (WHERE NOT paired)                                            AS orphan_results,
        sum(results) FILTER (WHERE NOT paired AND ref IN (SELECT ref FROM k WHERE calls > 0)) AS orphans_paired_in_another_file,
        count(*) FILTER (WHERE results > 1)                                               AS calls_answered_twice
    FROM x
    GROUP BY surface
)
SELECT
    s.surface,
    coalesce(p.calls, 0)                          AS calls,
    coalesce(p.results, 0)                        AS results,
    coalesce(p.paired, 0)                         AS paired,
    coalesce(p.unpaired_calls, 0)                 AS unpaired_calls,
    coalesce(p.orphan_results, 0)                 AS orphan_results,
    coalesce(p.orphans_paired_in_another_file, 0) AS orphans_paired_in_another_file,
    coalesce(p.calls_answered_twice, 0)           AS calls_answered_twice
FROM (SELECT DISTINCT surface FROM t) AS s LEFT JOIN per_surface AS p USING (surface)
ORDER BY s.surface;
