-- Fragment: each tool_result block's tool: through its record's one result link to the one call of that id in its file.
-- Written into result_lengths.sql, tool_use_result_by_tool.sql and their splits (parts/) by python -m survey.census.fragments; a test holds them equal.
-- Fields: {part} is the split's part column where a split's rows carry it from the blocks.
res AS (   -- tool_result blocks, with the line's single result link when unambiguous
    SELECT {part}b.file_key, b.line_no, b.payload_len,
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
    SELECT {part}r.file_key, r.line_no, r.payload_len,
           CASE WHEN r.on_line <> 1 OR rr.n <> 1 OR rr.ref IS NULL THEN '(several results on one record)'
                WHEN c.ref IS NULL THEN '(no call in this file)'
                WHEN c.blocks_on_line <> 1 THEN '(several calls on one record)'
                ELSE c.name END AS tool
    FROM res AS r
    LEFT JOIN res_ref AS rr USING (file_key, line_no)
    LEFT JOIN calls AS c ON c.file_key = r.file_key AND c.ref = rr.ref
)
