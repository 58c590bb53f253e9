-- Question: Per record class, how many payloads carry a `model` key, in how many files?
-- Used by: codex page: Record classes (model claim)
-- Inputs: walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/model_key.sql"
SELECT
    rclass,
    sum(count)                                                                         AS payloads,
    coalesce(sum(count) FILTER (WHERE list_contains(string_split(keyset, ','), 'model')), 0) AS with_model,
    count(DISTINCT file_id) FILTER (WHERE list_contains(string_split(keyset, ','), 'model')) AS files_with_model
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path = '$.payload' AND jtype = 'object'
GROUP BY rclass
HAVING coalesce(sum(count) FILTER (WHERE list_contains(string_split(keyset, ','), 'model')), 0) > 0
ORDER BY payloads DESC, rclass;
