-- Question: What do function_call arguments decode to (the JSON-in-string carrier)?
-- Used by: codex page: Tool calls (arguments)
-- Inputs: walk/node_counts.parquet (walk/nodes.parquet rolled up per part: occurrences and files of each group)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/arguments.sql"
SELECT rclass, path, jtype, keyset, sum(occurrences) AS occurrences, sum(files) AS files
FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
WHERE path IN ('$.payload.arguments', '$.payload.arguments.<json>')
GROUP BY ALL
ORDER BY rclass, path, occurrences DESC;
