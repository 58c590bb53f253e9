-- Question: Which tool names and statuses do toolFormerData carry, per pair (value maps; unreviewed names withheld)?
-- Used by: cursor_desktop page: Tool calls
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/tool_former.sql"
SELECT tool_name, tool_status, count(*) AS bubbles
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE rclass = 'bubbleId' AND frame_status = 'ok' AND tool_name IS NOT NULL
GROUP BY ALL
ORDER BY bubbles DESC, tool_name, tool_status;
