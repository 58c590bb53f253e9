-- Question: Per toolFormerData status, how many tool bubbles carry a result string, and how many results are of another JSON type (a marker per result string, never its text)?
-- Used by: cursor_desktop page: Links between records and files (a result present iff the status is completed or error)
-- Inputs: walk/frames.parquet, walk/markers.parquet, walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/tool_result_status.sql"
WITH calls AS (
    SELECT file_key, line_no, coalesce(tool_status, '<no status>') AS tool_status
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE rclass = 'bubbleId' AND frame_status = 'ok' AND (tool_name IS NOT NULL OR tool_status IS NOT NULL)
), results AS (
    SELECT DISTINCT file_key, line_no
    FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
    WHERE name = 'tool_result'
)
SELECT
    c.tool_status,
    count(*)                                                      AS calls,
    count(r.line_no)                                              AS with_result,
    (SELECT coalesce(sum(count), 0) FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
      WHERE rclass = 'bubbleId' AND path = '$.toolFormerData.result' AND jtype NOT IN ('string', 'null'))
                                                                  AS other_type_results
FROM calls AS c LEFT JOIN results AS r USING (file_key, line_no)
GROUP BY c.tool_status
ORDER BY calls DESC, c.tool_status;
