-- Question: Which keys does each tool's input object carry, and in what share of that tool's calls?
-- Used by: cursor page: Tool calls (input keys per tool; where model and run_in_background sit)
-- Inputs: walk/blocks.parquet (one row per block: tool name and input key set, both through the gate)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/input_keys_by_tool.sql"
WITH calls AS (
    SELECT name, input_keyset
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE btype = 'tool_use' AND input_type = 'object'
), per_tool AS (
    SELECT name, count(*) AS calls FROM calls GROUP BY name
), keys AS (
    SELECT name, unnest(string_split(input_keyset, ',')) AS key
    FROM calls
    WHERE input_keyset IS NOT NULL AND input_keyset <> ''
)
SELECT
    k.name,
    k.key,
    count(*)                                  AS calls_with_key,
    p.calls                                   AS calls,
    round(100.0 * count(*) / p.calls, 1)      AS pct
FROM keys AS k JOIN per_tool AS p USING (name)
GROUP BY k.name, k.key, p.calls
ORDER BY p.calls DESC, k.name, calls_with_key DESC, k.key;
