-- Question: Which tool_call variants (the single key of $.tool_call) occur, per tool_call subtype, and how many tool_call objects have another key count?
-- Used by: cursor_stream page: Tool calls
-- Inputs: walk/node_counts.parquet (walk/nodes.parquet rolled up per part: the events and files of each class and key set)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/tool_call_variants.sql"
SELECT
    rclass                                   AS family,
    keyset                                   AS variant,
    sum(occurrences)                         AS events,
    sum(files)                               AS captures
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
WHERE path = '$.tool_call' AND jtype = 'object'
GROUP BY ALL
ORDER BY family, events DESC, variant;
