-- Question: tool_use_result_by_tool.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: calls and results are paired within a file, and a file's rows are in parts of one label, so each
--        part's records and files per tool add up.
-- Made in part from survey/runtimes/claude_code/queries/fragments/result_tool.sql (its CTEs res to attributed: python -m survey.census.fragments writes them; a test holds them equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/tool_use_result_by_tool.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), b AS (
    SELECT b.* FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) AS b SEMI JOIN t USING (file_id)
), l AS (
    SELECT l.* FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l SEMI JOIN t USING (file_id)
), res AS (   -- tool_result blocks, with the line's single result link when unambiguous
    SELECT b.file_key, b.line_no, b.payload_len,
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
    SELECT r.file_key, r.line_no, r.payload_len,
           CASE WHEN r.on_line <> 1 OR rr.n <> 1 OR rr.ref IS NULL THEN '(several results on one record)'
                WHEN c.ref IS NULL THEN '(no call in this file)'
                WHEN c.blocks_on_line <> 1 THEN '(several calls on one record)'
                ELSE c.name END AS tool
    FROM res AS r
    LEFT JOIN res_ref AS rr USING (file_key, line_no)
    LEFT JOIN calls AS c ON c.file_key = r.file_key AND c.ref = rr.ref
),
tur AS (
    SELECT f.file_index AS part, f.file_id, f.file_key, f.line_no,
           EXISTS (SELECT 1 FROM read_parquet(coalesce(getvariable('markers_parts'), [getvariable('snap') || '/walk/markers.parquet'])) AS m
                   WHERE m.file_key = f.file_key AND m.line_no = f.line_no AND m.name = 'tool_use_result_string') AS is_string
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f SEMI JOIN t USING (file_id)
    WHERE f.frame_status = 'ok' AND list_contains(string_split(f.keyset, ','), 'toolUseResult')
)
SELECT
    tur.part,
    coalesce(a.tool, '(no tool_result block)')       AS tool,
    count(*)                                         AS records,
    count(*) FILTER (WHERE tur.is_string)            AS string,
    count(*) FILTER (WHERE NOT tur.is_string)        AS structured,
    count(DISTINCT tur.file_id)                      AS files
FROM tur LEFT JOIN attributed AS a USING (file_key, line_no)
GROUP BY ALL;

SELECT tool, sum(records) AS records, sum(string) AS string, sum(structured) AS structured, sum(files) AS files
FROM partials
GROUP BY tool
ORDER BY records DESC, tool;
