-- Question: tool_pairs.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: an id pairs only within its file, and a file's links are all in one part, so its calls, results, pairs and orphans add up per part (a row per surface). The one question across files, whether an orphan result's id is a call in another file, is asked at the merge: each orphan id is kept (a row each: few), and looked up among the calls of every part (one scan of their links).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/tool_pairs.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), k AS (   -- per id in a file: how many calls and results carry it (an id joins only within its file)
    SELECT l.file_index AS part, t.surface, l.file_id, l.ref,
           count(*) FILTER (WHERE l.kind = 'tool_use')     AS calls,
           count(*) FILTER (WHERE l.kind = 'tool_result')  AS results
    FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l JOIN t USING (file_id)
    WHERE l.kind IN ('tool_use', 'tool_result')
    GROUP BY ALL
), x AS (   -- paired: a non-NULL id with both a call and a result in the same file
    SELECT *, calls > 0 AND results > 0 AND ref IS NOT NULL AS paired FROM k
)
SELECT
    part, surface,
    NULL::UBIGINT                                        AS orphan_ref,
    count(*) FILTER (WHERE calls > 0)                    AS calls,
    sum(results)                                         AS results,
    sum(results) FILTER (WHERE paired)                   AS paired,
    count(*) FILTER (WHERE calls > 0 AND NOT paired)     AS unpaired_calls,
    sum(results) FILTER (WHERE NOT paired)               AS orphan_results,
    count(*) FILTER (WHERE results > 1)                  AS calls_answered_twice
FROM x
GROUP BY part, surface
UNION ALL BY NAME
SELECT part, surface, ref AS orphan_ref, results AS orphan_n   -- an orphan result that may pair in another file
FROM x
WHERE NOT paired AND ref IS NOT NULL AND results > 0;

WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), per_surface AS (
    SELECT
        surface,
        sum(calls)                   AS calls,
        sum(results)                 AS results,
        sum(paired)                  AS paired,
        sum(unpaired_calls)          AS unpaired_calls,
        sum(orphan_results)          AS orphan_results,
        sum(calls_answered_twice)    AS calls_answered_twice
    FROM partials
    WHERE orphan_ref IS NULL
    GROUP BY surface
), found AS (   -- an orphan's id has no call in its own file, so a call equal to it is in another file
    SELECT surface, sum(orphan_n) AS orphans_paired_in_another_file
    FROM partials
    WHERE orphan_ref IN (   -- the calls equal to an orphan's id: the few ids hashed, every call read past them
        SELECT l.ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l SEMI JOIN t USING (file_id)
        WHERE l.kind = 'tool_use' AND l.ref IN (SELECT orphan_ref FROM partials WHERE orphan_ref IS NOT NULL))
    GROUP BY surface
)
SELECT
    s.surface,
    coalesce(p.calls, 0)                          AS calls,
    coalesce(p.results, 0)                        AS results,
    coalesce(p.paired, 0)                         AS paired,
    coalesce(p.unpaired_calls, 0)                 AS unpaired_calls,
    coalesce(p.orphan_results, 0)                 AS orphan_results,
    coalesce(f.orphans_paired_in_another_file, 0) AS orphans_paired_in_another_file,
    coalesce(p.calls_answered_twice, 0)           AS calls_answered_twice
FROM (SELECT DISTINCT surface FROM t) AS s LEFT JOIN per_surface AS p USING (surface) LEFT JOIN found AS f USING (surface)
ORDER BY s.surface;
