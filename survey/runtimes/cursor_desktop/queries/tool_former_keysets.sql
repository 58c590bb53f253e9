-- Question: Which key sets does toolFormerData have?
-- Used by: cursor_desktop page: Tool calls
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/tool_former_keysets.sql"
SELECT keyset, sum(count) AS bubbles
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path = '$.toolFormerData' AND jtype = 'object'
GROUP BY keyset
ORDER BY bubbles DESC, keyset;
