-- Question: Which tool_call variants (the single key of $.tool_call) occur, per tool_call subtype, and how many tool_call objects have another key count?
-- Used by: cursor_stream page: Tool calls
-- Inputs: walk/nodes.parquet (one row per file and (class, path, type, key set), so a group's rows are its files)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/tool_call_variants.sql"
SELECT
    rclass                                   AS family,
    keyset                                   AS variant,
    sum(count)                               AS events,
    count(file_id)                           AS captures
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path = '$.tool_call' AND jtype = 'object'
GROUP BY ALL
ORDER BY family, events DESC, variant;
