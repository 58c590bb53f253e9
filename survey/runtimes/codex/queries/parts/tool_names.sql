-- Question: tool_names.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/parts/tool_names.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    f.file_index                AS part,
    f.rclass,
    CASE WHEN f.namespace IS NOT NULL THEN 'MCP (namespace withheld)' ELSE '' END AS kind,
    coalesce(f.name, '(none)')  AS name,
    count(*)                    AS calls,
    count(DISTINCT f.file_id)   AS files
FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
WHERE f.frame_status = 'ok'
  AND f.rclass IN ('response_item/function_call', 'response_item/custom_tool_call', 'response_item/local_shell_call')
GROUP BY ALL;

SELECT rclass, kind, name, sum(calls) AS calls, sum(files) AS files
FROM partials
GROUP BY ALL
ORDER BY calls DESC, rclass, name;
