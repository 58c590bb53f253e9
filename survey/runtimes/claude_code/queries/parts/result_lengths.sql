-- Question: result_lengths.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a result is attributed to its tool within its file (whose blocks and links are in parts of one label); each part keeps its histogram (tool, payload_len, count), the merge sums them and reads the quantiles off them as quantile_disc would.
-- Made in part from survey/runtimes/claude_code/queries/fragments/result_tool.sql (its CTEs res to attributed: python -m survey.census.fragments writes them; a test holds them equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/result_lengths.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), b AS (
    SELECT b.file_index AS part, b.* FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) AS b SEMI JOIN t USING (file_id)
), l AS (
    SELECT l.* FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l SEMI JOIN t USING (file_id)
), res AS (   -- tool_result blocks, with the line's single result link when unambiguous
    SELECT part, b.file_key, b.line_no, b.payload_len,
           count(*) OVER (PARTITION BY b.file_key, b.line_no) AS on_line
    FROM b WHERE b.btype = 'tool_result'
), res_ref AS (
    SELECT file_key, line_no, any_value(ref) AS ref, count(*) AS n
    FROM l WHERE kind = 'tool_result' GROUP BY file_key, line_no
), call_lines AS (
    SELECT file_key, line_no, any_value(name) AS name, count(*) AS n
    FROM b WHERE btype = 'tool_use' GROUP BY file_key, line_no
), calls AS (   -- per call id: its tool name, when its record holds exactly one call
    SELECT c.file_key, c.ref, any_value(k.name) AS name, max(k.n) AS blocks_on_line
    FROM l AS c JOIN call_lines AS k USING (file_key, line_no)
    WHERE c.kind = 'tool_use'
    GROUP BY c.file_key, c.ref
), attributed AS (   -- each result's tool, or why it has none
    SELECT part, r.file_key, r.line_no, r.payload_len,
           CASE WHEN r.on_line <> 1 OR rr.n <> 1 OR rr.ref IS NULL THEN '(several results on one record)'
                WHEN c.ref IS NULL THEN '(no call in this file)'
                WHEN c.blocks_on_line <> 1 THEN '(several calls on one record)'
                ELSE c.name END AS tool
    FROM res AS r
    LEFT JOIN res_ref AS rr USING (file_key, line_no)
    LEFT JOIN calls AS c ON c.file_key = r.file_key AND c.ref = rr.ref
)
SELECT part, tool, payload_len, count(*) AS n
FROM attributed WHERE payload_len IS NOT NULL
GROUP BY ALL;

WITH h AS (   -- the summed histogram, per tool and for all tools
    SELECT tool, payload_len, sum(n) AS n FROM partials GROUP BY tool, payload_len
    UNION ALL
    SELECT '(all tools)', payload_len, sum(n) FROM partials GROUP BY payload_len
), x AS (     -- per tool and length: results this long or shorter, and all of the tool's
    SELECT tool, payload_len, n,
           sum(n) OVER (PARTITION BY tool ORDER BY payload_len) AS below,
           sum(n) OVER (PARTITION BY tool)                      AS total
    FROM (SELECT tool, payload_len, sum(n) AS n FROM h GROUP BY tool, payload_len)
)
SELECT
    tool,
    CAST(sum(n) AS BIGINT)                                                        AS results,
    min(payload_len) FILTER (WHERE below >= greatest(1, ceil(total * 0.5)))      AS p50,
    min(payload_len) FILTER (WHERE below >= greatest(1, ceil(total * 0.9)))      AS p90,
    min(payload_len) FILTER (WHERE below >= greatest(1, ceil(total * 0.99)))     AS p99,
    max(payload_len)                                                              AS max
FROM x
GROUP BY tool
ORDER BY tool = '(all tools)' DESC, results DESC, tool;
