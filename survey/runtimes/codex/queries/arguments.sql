-- Question: What do function_call arguments decode to (the JSON-in-string carrier)?
-- Used by: codex page: Tool calls (arguments)
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/arguments.sql"
SELECT rclass, path, jtype, keyset, sum(count) AS occurrences, count(DISTINCT file_id) AS files
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path IN ('$.payload.arguments', '$.payload.arguments.<json>')
GROUP BY ALL
ORDER BY rclass, path, occurrences DESC;
