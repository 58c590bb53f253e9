-- Question: Which numeric tool id (toolFormerData.tool) goes with which tool name, in how many bubbles?
-- Used by: cursor_desktop page: Tool calls
-- Inputs: walk/numbers.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/tool_numbers.sql"
SELECT
    CAST(CAST(n.value AS BIGINT) AS VARCHAR)   AS tool,
    f.tool_name,
    count(*)                                   AS bubbles
FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet') AS n
JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_key, line_no)   -- file_key: the file's id as a number (a join on it hashes no string)
WHERE n.name = 'tool' AND f.rclass = 'bubbleId'
GROUP BY ALL
ORDER BY bubbles DESC, tool, f.tool_name;
