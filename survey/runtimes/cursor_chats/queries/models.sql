-- Question: Which model names occur per assistant message (providerOptions.cursor.modelName) and as the store's lastUsedModel (value map)?
-- Used by: cursor_chats page: Models
-- Inputs: walk/values.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/models.sql"
SELECT path, value, sum(count) AS occurrences, count(DISTINCT file_id) AS stores,
       count(DISTINCT withheld_id) AS distinct_withheld
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
WHERE path IN ('$.providerOptions.cursor.modelName', '$.lastUsedModel')
GROUP BY ALL
UNION ALL
SELECT '$.providerOptions.cursor.modelName', '<absent>', count(*), count(DISTINCT file_id), 0
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE rclass = 'assistant' AND frame_status = 'ok'
  AND NOT list_contains(string_split(keyset, ','), 'providerOptions')
ORDER BY path, occurrences DESC, value;
