-- Question: output_sizes.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames and links are all in one part (an output answers a call of its own file), so a histogram of (tool, nbytes) per part adds up; the quantiles are taken exactly from the summed histogram (see cursor/queries/payload_lengths.sql).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/output_sizes.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH inv AS (SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled),
f AS (SELECT f.file_index AS part, f.* FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f SEMI JOIN inv USING (file_id) WHERE f.frame_status = 'ok'),
l AS (SELECT * FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) WHERE kind = 'call_id'),
calls AS (
    SELECT l.file_key, l.ref,
           any_value(CASE WHEN f.namespace IS NOT NULL THEN '(MCP) ' || coalesce(f.name, '?') ELSE coalesce(f.name, f.ptype) END) AS tool
    FROM l JOIN f USING (file_key, line_no)
    WHERE f.rclass IN ('response_item/function_call', 'response_item/custom_tool_call', 'response_item/tool_search_call')
    GROUP BY ALL
)
SELECT f.part, coalesce(c.tool, '(no call in this file)') AS tool, f.nbytes, count(*) AS n
FROM f JOIN l USING (file_key, line_no)
LEFT JOIN calls AS c ON c.file_key = l.file_key AND c.ref = l.ref
WHERE f.rclass IN ('response_item/function_call_output', 'response_item/custom_tool_call_output',
                   'response_item/tool_search_output')
GROUP BY ALL;

WITH h AS (      -- the summed histogram, per tool and for all tools
    SELECT tool, nbytes, sum(n) AS n FROM partials GROUP BY tool, nbytes
    UNION ALL
    SELECT '(all tools)', nbytes, sum(n) FROM partials GROUP BY nbytes
), c AS (
    SELECT tool, nbytes, n,
           sum(n) OVER (PARTITION BY tool ORDER BY nbytes) AS below,   -- outputs this large or smaller
           sum(n) OVER (PARTITION BY tool)                 AS total
    FROM h WHERE nbytes IS NOT NULL
), q AS (
    SELECT tool,
           min(nbytes) FILTER (WHERE below >= greatest(1, ceil(total * 0.5)))  AS p50,
           min(nbytes) FILTER (WHERE below >= greatest(1, ceil(total * 0.9)))  AS p90,
           min(nbytes) FILTER (WHERE below >= greatest(1, ceil(total * 0.99))) AS p99,
           max(nbytes) AS max
    FROM c GROUP BY tool
)
SELECT tool, sum(h.n)::BIGINT AS outputs, q.p50, q.p90, q.p99, q.max
FROM h LEFT JOIN q USING (tool)
GROUP BY tool, q.p50, q.p90, q.p99, q.max
ORDER BY tool = '(all tools)' DESC, outputs DESC, tool;
