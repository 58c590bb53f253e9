-- Question: Per record class, how many `message` objects carry a `model` key, in how many files?
-- Used by: claude_code page: Record classes (model claim)
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/model_key.sql"
SELECT
    rclass,
    sum(count)                                                                         AS messages,
    coalesce(sum(count) FILTER (WHERE list_contains(string_split(keyset, ','), 'model')), 0) AS with_model,
    count(DISTINCT file_id) FILTER (WHERE list_contains(string_split(keyset, ','), 'model')) AS files_with_model
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path = '$.message' AND jtype = 'object'
GROUP BY rclass
ORDER BY messages DESC, rclass;
