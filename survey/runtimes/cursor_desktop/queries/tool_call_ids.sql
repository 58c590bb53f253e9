-- Question: How many toolFormerData.toolCallId values contain a newline (counted, never printed)?
-- Used by: cursor_desktop page: Tool calls
-- Inputs: walk/markers.parquet, walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/tool_call_ids.sql"
SELECT
    (SELECT coalesce(sum(count), 0) FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
      WHERE path = '$.toolFormerData.toolCallId' AND jtype = 'string')                        AS call_ids,
    (SELECT coalesce(sum(count), 0) FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
      WHERE name = 'tool_call_id_newline')                                                      AS with_newline;
