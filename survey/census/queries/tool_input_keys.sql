-- Question: Which keys does each tool's input object carry, per tool name, and in what share of that tool's calls?
-- Used by: every page with named blocks whose input is an object (declared key sets: tool inputs by tool name)
-- Inputs: walk/blocks.parquet (one row per block: its name and input key set, both through the gate)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/tool_input_keys.sql"
WITH calls AS (   -- per tool name and input key set: how many calls
    SELECT name, input_keyset, count(*) AS n
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE name IS NOT NULL AND input_type = 'object'
      AND NOT (coalesce(input_keyset, '') LIKE '<%' AND coalesce(input_keyset, '') NOT LIKE '%,%')  -- <map> / <opaque>
    GROUP BY name, input_keyset
), per_tool AS (
    SELECT name, sum(n)::BIGINT AS calls, count(input_keyset) AS keysets FROM calls GROUP BY name
), keys AS (   -- each key set split once, not once a call
    SELECT name, unnest(string_split(input_keyset, ',')) AS key, n
    FROM calls
    WHERE input_keyset IS NOT NULL AND input_keyset <> ''
)
SELECT
    k.name,
    k.key,
    sum(k.n)::BIGINT AS calls_with_key,
    p.calls        AS calls,
    p.keysets      AS keysets
FROM keys AS k JOIN per_tool AS p USING (name)
GROUP BY k.name, k.key, p.calls, p.keysets
ORDER BY p.calls DESC, k.name, calls_with_key DESC, k.key;
